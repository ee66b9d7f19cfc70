/**
 * scripts/build-if-stale.mjs (the quick start's and the e2e's build step) reuses the production build only when no
 * source changed since that build started.
 * Each case lays out a small tree (sources, .next/BUILD_ID, the script's record) with chosen modification times.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module script without type declarations
import { recordBuild, staleReason } from "../../scripts/build-if-stale.mjs";

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
let root: string;

function write(rel: string, text: string, mtimeMs: number): void {
  const p = path.join(root, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  fs.utimesSync(p, mtimeMs / 1000, mtimeMs / 1000);
}

/** A build that started at `startedAtMs` and wrote its BUILD_ID `durationMs` later, recorded by the script. */
function build(startedAtMs: number, durationMs: number, id = "build-1"): void {
  write(".next/BUILD_ID", id, startedAtMs + durationMs);
  recordBuild(root, startedAtMs);
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-build-stale-"));
  write("app/page.tsx", "export default 1;\n", T0 - HOUR);
  write("server/domain/x.ts", "export const x = 1;\n", T0 - 2 * HOUR);
  write("package.json", "{}\n", T0 - 3 * HOUR);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe("build-if-stale", () => {
  it("reuses a build whose start came after every source change", () => {
    build(T0, 100_000);
    expect(staleReason(root)).toBeNull();
  });

  it("rebuilds when a source changed while the build ran (after its start, before its BUILD_ID)", () => {
    build(T0, 100_000);
    write("server/domain/x.ts", "export const x = 2;\n", T0 + 40_000);
    expect(staleReason(root)).toBe("sources changed since the last build started");
  });

  it("rebuilds when a source or a top-level config changed after the build", () => {
    build(T0, 100_000);
    write("db/schema.ts", "export {};\n", T0 + 5 * HOUR);
    expect(staleReason(root)).toBe("sources changed since the last build started");
    fs.rmSync(path.join(root, "db"), { recursive: true });
    expect(staleReason(root)).toBeNull();
    write("package.json", '{"name":"x"}\n', T0 + 5 * HOUR);
    expect(staleReason(root)).toBe("sources changed since the last build started");
  });

  it("ignores dot-folders and node_modules inside the source folders", () => {
    build(T0, 100_000);
    write("app/node_modules/dep/index.js", "", T0 + HOUR);
    write("app/.cache/entry", "", T0 + HOUR);
    expect(staleReason(root)).toBeNull();
  });

  it("builds when there is no build, and when the build was not recorded by the script", () => {
    expect(staleReason(root)).toBe("no build found");
    write(".next/BUILD_ID", "manual", T0 + HOUR);
    expect(staleReason(root)).toBe("the build's start time is unknown (not built by this script)");
  });

  it("rebuilds when another build replaced the recorded one", () => {
    build(T0, 100_000, "build-1");
    write(".next/BUILD_ID", "build-2", T0 + HOUR);
    expect(staleReason(root)).toBe("the build's start time is unknown (not built by this script)");
  });
});
