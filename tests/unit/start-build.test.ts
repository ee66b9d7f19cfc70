/**
 * The quick start (scripts/start.sh) builds the dashboard by the same rule as the browser e2e
 * (scripts/build-if-stale.mjs): a build is reused only when no source changed since it *started*. The real start.sh
 * runs in a small copy of the repository whose edges are stand-ins: `next` records each build in builds.log (and can
 * edit a source while it "builds"), the browser-user step does nothing, and the `cli` script stops the start with
 * exit code 3 right after the build step, before migrating and serving.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const repo = path.resolve(__dirname, "..", "..");
const STOPPED_AFTER_BUILD = 3;
const HOUR = 3_600_000;
let root: string;

/** A stand-in for `next build`: counts the build, may edit a source mid-build, and writes BUILD_ID when it ends (2 s later). */
const FAKE_NEXT = `
const fs = require("node:fs");
const path = require("node:path");
const root = process.cwd();
fs.appendFileSync(path.join(root, "builds.log"), process.argv.slice(2).join(" ") + "\\n");
const startedAt = Date.now();
const edit = process.env.EDIT_WHILE_BUILDING;
if (edit) {
  fs.writeFileSync(path.join(root, edit), "// edited while the build ran\\n");
  fs.utimesSync(path.join(root, edit), startedAt / 1000, startedAt / 1000);
}
fs.mkdirSync(path.join(root, ".next"), { recursive: true });
const id = path.join(root, ".next", "BUILD_ID");
fs.writeFileSync(id, "build-" + fs.readFileSync(path.join(root, "builds.log"), "utf8").split("\\n").length);
fs.utimesSync(id, (startedAt + 2000) / 1000, (startedAt + 2000) / 1000);
`;

function write(rel: string, text: string, mtimeMs = Date.now() - HOUR): void {
  const p = path.join(root, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  fs.utimesSync(p, mtimeMs / 1000, mtimeMs / 1000);
}

/** Runs the quick start in the copy; it must stop right after its build step. */
function start(env: Record<string, string> = {}): string {
  const r = spawnSync("bash", [path.join(root, "scripts", "start.sh")], {
    env: { ...process.env, CHROMIUM_PATH: "/bin/true", ...env },
    encoding: "utf8",
  });
  expect(r.status, r.stderr + r.stdout).toBe(STOPPED_AFTER_BUILD);
  return r.stdout + r.stderr;
}

const builds = (): number =>
  fs.existsSync(path.join(root, "builds.log")) ? fs.readFileSync(path.join(root, "builds.log"), "utf8").trim().split("\n").length : 0;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-start-build-"));
  fs.mkdirSync(path.join(root, "scripts"));
  for (const f of ["start.sh", "build-if-stale.mjs"]) fs.copyFileSync(path.join(repo, "scripts", f), path.join(root, "scripts", f));
  write("scripts/browser-user.sh", "exit 0\n");
  write("scripts/stop.cjs", `process.exit(${STOPPED_AFTER_BUILD});\n`);
  write(
    "package.json",
    JSON.stringify({ name: "start-copy", private: true, scripts: { build: "node node_modules/next/dist/bin/next build", cli: "node scripts/stop.cjs" } }),
  );
  write("package-lock.json", "{}\n", Date.now() - 2 * HOUR);
  write("node_modules/.package-lock.json", "{}\n");
  write("node_modules/next/dist/bin/next", FAKE_NEXT);
  write("next.config.js", "module.exports = {};\n");
  write("app/page.tsx", "export default function Page() { return null; }\n");
  write("server/domain/x.ts", "export const x = 1;\n");
  write("db/schema.ts", "export {};\n");
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe("scripts/start.sh: when it builds", () => {
  it("builds when there is no build, then reuses that build while no source changes", () => {
    expect(start()).toContain("Building the dashboard");
    expect(builds()).toBe(1);
    start();
    expect(builds()).toBe(1);
  });

  it("rebuilds after a source was edited while the last build ran (after its start, before its BUILD_ID)", () => {
    start({ EDIT_WHILE_BUILDING: "server/domain/x.ts" });
    expect(builds()).toBe(1);
    expect(fs.statSync(path.join(root, "server/domain/x.ts")).mtimeMs).toBeLessThan(fs.statSync(path.join(root, ".next/BUILD_ID")).mtimeMs);
    expect(start()).toContain("sources changed since the last build started");
    expect(builds()).toBe(2);
  });

  it("rebuilds once a build made by a plain `next build`, whose start is unknown", () => {
    write(".next/BUILD_ID", "manual");
    expect(start()).toContain("not built by this script");
    expect(builds()).toBe(1);
    start();
    expect(builds()).toBe(1);
  });
});
