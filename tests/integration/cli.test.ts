import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { FIRST_VIEW_WIDTHS, THUMBNAIL_WIDTH } from "../../server/domain/image-variants";
import { hasVariant } from "../../server/services/images";
import { tinyPng, writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";
import { writeZipBomb } from "../helpers/zip-bomb";
import { cliRunner } from "../helpers/cli";

const root = path.resolve(__dirname, "..", "..");
let dir: string;

/** The CLI on this file's installation (the first call of each command as a process of its own, tests/helpers/cli.ts). */
const runCommand = cliRunner(root);
const cli = (args: string[]) => runCommand(args, { ...process.env, VERDICT_DATA_DIR: dir, VERDICT_DB: path.join(dir, "cli.db") });

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-cli-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

// Each test spawns the CLI through tsx several times; on a shared, loaded machine one spawn can take 15 s.
describe("npm run cli", { timeout: 240_000 }, () => {
  it("import --json prints exactly one JSON object with the documented keys, then reports unchanged", async () => {
    const src = await writeWebVoyagerFixture(path.join(dir, "results"), [
      { id: "Cli--1", intent: "Try the CLI.", url: "https://cli.test/", actions: ["Click [0]", "ANSWER; ok"] },
    ]);
    const first = await cli(["import", src, "--json"]);
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report).toMatchObject({ created: 1, updated: 0, unchanged: 0 });
    expect(Object.keys(report.trajectories[0])).toEqual(
      expect.arrayContaining(["id", "externalTaskId", "steps", "screenshots", "rawScreenshots", "finalAnswer"]),
    );
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

  it("import encodes each new trajectory's first view before it returns; --no-warm leaves that to the first viewer", async () => {
    const warm = await writeWebVoyagerFixture(path.join(dir, "warm"), [
      { id: "Warm--1", intent: "Open me at once.", url: "https://warm.test/", actions: ["Click [0]", "Click [1]", "ANSWER; ok"] },
    ]);
    const cold = await writeWebVoyagerFixture(path.join(dir, "cold"), [
      { id: "Cold--1", intent: "Open me later.", url: "https://cold.test/", actions: ["Click [0]", "ANSWER; ok"] },
    ]);
    // Screenshot-sized images, so each width is a file of its own.
    for (const [root, task, n] of [
      [warm, "Warm--1", 3],
      [cold, "Cold--1", 2],
    ] as const) {
      for (let i = 1; i <= n; i++) fs.writeFileSync(path.join(root, `task${task}`, `screenshot${i}.png`), await tinyPng(100 + i + n * 10, 1024, 768));
    }
    expect((await cli(["import", warm, "--json"])).code).toBe(0);
    expect((await cli(["import", cold, "--json", "--no-warm"])).code).toBe(0);
    const db = new Database(path.join(dir, "cli.db"), { readonly: true });
    const shots = (task: string) =>
      db
        .prepare(
          `select s.idx, sc.hash, sc.width from steps s join screenshots sc on sc.hash = s.screenshot_hash
           join trajectories t on t.id = s.trajectory_id join tasks k on k.id = t.task_id where k.external_id like ? order by s.idx`,
        )
        .all(`%${task}`) as { idx: number; hash: string; width: number }[];
    const warmShots = shots("Warm--1");
    const coldShots = shots("Cold--1");
    db.close();
    expect(warmShots).toHaveLength(3);
    const first = warmShots[0]!;
    for (const w of FIRST_VIEW_WIDTHS) expect(hasVariant(dir, first.hash, Math.min(w, first.width), "webp")).toBe(true);
    for (const s of warmShots) expect(hasVariant(dir, s.hash, Math.min(THUMBNAIL_WIDTH, s.width), "webp")).toBe(true);
    // Only the first step is shown large at first.
    expect(hasVariant(dir, warmShots[1]!.hash, Math.min(960, warmShots[1]!.width), "webp")).toBe(false);
    for (const s of coldShots) expect(hasVariant(dir, s.hash, Math.min(THUMBNAIL_WIDTH, s.width), "webp")).toBe(false);
  });

  it("exits 1 with the error on stderr for a bad source, and 2 for bad usage", async () => {
    const missing = path.join(dir, "nope");
    const bad = await cli(["import", missing, "--json"]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toEqual({ error: `${missing}: no such file or folder`, exitCode: 1 });
    expect(bad.stderr).toContain(`${missing}: no such file or folder`);

    const usage = await cli(["import"]);
    expect(usage.code).toBe(2);
    expect(usage.stdout).toBe("");
    expect(usage.stderr).toContain("missing <path> to import");

    // With --json even a usage error is one JSON object on stdout.
    const usageJson = await cli(["import", "--json", "--eval-log", path.join(dir, "no-such.log"), "x"]);
    expect(usageJson.code).toBe(2);
    expect(JSON.parse(usageJson.stdout)).toEqual({ error: `--eval-log ${path.join(dir, "no-such.log")}: no such file`, exitCode: 2 });

    const unknown = await cli(["import", "x", "--frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option --frobnicate");

    const noCommand = await cli(["fly"]);
    expect(noCommand.code).toBe(2);
  });

  it("import skips a broken trajectory (exit 3, listed in the JSON); --strict refuses it (exit 1, nothing written)", async () => {
    const src = await writeWebVoyagerFixture(
      path.join(dir, "partly-broken"),
      [
        { id: "Part--1", intent: "Fine.", url: "https://cli.test/", actions: ["Click [0]", "ANSWER; ok"] },
        { id: "Part--2", intent: "Broken.", url: "https://cli.test/", actions: ["Click [0]", "ANSWER; ok"] },
      ],
      40,
    );
    const broken = path.join(src, "taskPart--2", "screenshot1.png");
    fs.writeFileSync(broken, "garbage");
    const strict = await cli(["import", src, "--strict", "--json"]);
    expect(strict.code).toBe(1);
    expect(JSON.parse(strict.stdout)).toEqual({ error: `${broken}: is not a PNG, JPEG, WebP or GIF image`, exitCode: 1 });

    // `created: 1` also shows that the strict attempt wrote nothing.
    const partial = await cli(["import", src, "--json"]);
    expect(partial.code).toBe(3);
    const report = JSON.parse(partial.stdout);
    expect(report).toMatchObject({ created: 1, updated: 0, unchanged: 0, warnings: [], tasks: { created: 1, updated: 0, unchanged: 0 } });
    expect(report.skipped).toEqual([{ path: broken, reason: "is not a PNG, JPEG, WebP or GIF image" }]);
    expect(report.trajectories).toEqual([expect.objectContaining({ externalTaskId: "Part--1", status: "created", warnings: [] })]);

    const human = await cli(["import", src]);
    expect(human.code).toBe(3);
    expect(human.stdout).toBe("");
    expect(human.stderr).toContain(`skipped: 1 (not imported)\n    ${broken}: is not a PNG, JPEG, WebP or GIF image`);
  });

  it("refuses the 408 KB zip that expands to 400 MB, with the same limit as the web", async () => {
    const bomb = writeZipBomb(path.join(dir, "bomb.zip"));
    const r = await cli(["import", bomb, "--json"]);
    expect(r.code).toBe(1);
    // Refused from the zip's directory, before any entry is opened (import-report.test.ts counts the opens).
    expect(JSON.parse(r.stdout).error).toMatch(/entry "manifest\.json" expands \d+ times \(400 MB from \d+ KB\), more than the 100× allowed/);
  });
});
