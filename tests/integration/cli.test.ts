import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";

const run = promisify(execFile);
const root = path.resolve(__dirname, "..", "..");
let dir: string;

async function cli(args: string[]) {
  try {
    const r = await run(process.execPath, ["--import", "tsx", path.join(root, "scripts", "cli.ts"), ...args], {
      cwd: root,
      env: { ...process.env, VERDICT_DATA_DIR: dir, VERDICT_DB: path.join(dir, "cli.db") },
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-cli-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("npm run cli", () => {
  it("import --json prints exactly one JSON object with the documented keys, then reports unchanged", async () => {
    const src = await writeWebVoyagerFixture(path.join(dir, "results"), [
      { id: "Cli--1", intent: "Try the CLI.", url: "https://cli.test/", actions: ["Click [0]", "ANSWER; ok"] },
    ]);
    const first = await cli(["import", src, "--json"]);
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report).toMatchObject({ created: 1, updated: 0, unchanged: 0 });
    expect(Object.keys(report.trajectories[0])).toEqual(expect.arrayContaining(["id", "externalTaskId", "steps", "screenshots", "rawScreenshots", "finalAnswer"]));
    expect(report.trajectories[0]).toMatchObject({ externalTaskId: "Cli--1", steps: 2, screenshots: 2, rawScreenshots: 0, finalAnswer: "ok" });

    const second = await cli(["import", src, "--json"]);
    expect(JSON.parse(second.stdout)).toMatchObject({ created: 0, updated: 0, unchanged: 1 });

    const stats = await cli(["stats", "--json"]);
    expect(JSON.parse(stats.stdout)).toEqual({ taskSets: 1, tasks: 1, runs: 1, trajectories: 1, steps: 2, screenshots: 2 });

    const zip = path.join(dir, "out.zip");
    const exp = await cli(["export", String(report.trajectories[0].id), zip, "--json"]);
    expect(exp.code).toBe(0);
    expect(JSON.parse(exp.stdout)).toMatchObject({ trajectories: 1, images: 2 });
    expect(fs.statSync(zip).size).toBeGreaterThan(0);
  });

  it("exits 1 with the error on stderr for a bad source, and 2 for bad usage", async () => {
    const missing = path.join(dir, "nope");
    const bad = await cli(["import", missing, "--json"]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toContain(`${missing}: cannot tell which format this is`);

    const usage = await cli(["import"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("missing <path> to import");

    const unknown = await cli(["import", "x", "--frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option --frobnicate");

    const noCommand = await cli(["fly"]);
    expect(noCommand.code).toBe(2);
  });
});
