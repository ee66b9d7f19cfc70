/**
 * `npm run cli -- demo` into a throwaway installation: real Chromium records the demo runs on the demo sites, the
 * bundle is imported, and a second run changes nothing.
 */
import { closeDatabase } from "../../db/database";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqliteClient } from "../../db/database";
import { listVerdicts } from "../../db/repositories/evaluation/verdicts";
import { listRuns } from "../../db/repositories/catalog";
import { getScreenshot } from "../../db/repositories/screenshots";
import { getTrajectoryDetail, trajectoryIds } from "../../db/repositories/trajectories";
import { loadConfig } from "../../server/config";
import { createAppContext, type AppContext } from "../../server/context";
import { DEMO_RUNS, DEMO_TASKS, DEMO_TRAJECTORIES } from "../../server/demo-sites/demo-trajectories";
import { cliRunner } from "../helpers/cli";
import { chromiumSkipReason, titled } from "../helpers/requirements";

const chromiumPath = loadConfig().chromiumPath;
const noChromium = chromiumSkipReason();
const haveChromium = noChromium === null;
if (!haveChromium) {
  console.warn(`Skipping demo-data tests: no Chromium at ${chromiumPath} (apt-get install -y chromium, or set CHROMIUM_PATH).`);
}

let dir: string;
let ctx: AppContext | null = null;

// The first call starts scripts/cli.ts (the command's process contract); the later ones run in this process.
const runCli = cliRunner();
const cli = (args: string[]) => runCli(args, { ...process.env, VERDICT_DATA_DIR: dir, VERDICT_DB: path.join(dir, "demo.db"), CHROMIUM_PATH: chromiumPath });

describe.skipIf(!haveChromium)(titled("npm run cli -- demo", noChromium), () => {
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-demo-"));
  });
  afterAll(async () => {
    if (ctx) await closeDatabase(ctx.db);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("records the demo runs through Chromium, imports them, and does nothing the second time", { timeout: 300_000 }, async () => {
    // --port 0: a free port, so a demo server someone is running on 4517 does not get in the way.
    const first = await cli(["demo", "--json", "--port", "0"]);
    expect(first.stderr).not.toMatch(/^Error/m);
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report).toMatchObject({
      skipped: false,
      trajectories: DEMO_TRAJECTORIES.length,
      created: DEMO_TRAJECTORIES.length,
      updated: 0,
      unchanged: 0,
      runs: Object.values(DEMO_RUNS).map((r) => r.runKey),
    });
    expect(report.bundleDir).toBe(path.join(dir, "demo-bundle"));
    expect(fs.existsSync(path.join(report.bundleDir, "manifest.json"))).toBe(true);

    ctx = createAppContext({ dbPath: path.join(dir, "demo.db"), dataDir: dir, chromiumPath });
    const runs = (await listRuns(ctx.db)).filter((r) => r.runKey.startsWith("verdict-demo:"));
    expect(runs.map((r) => r.model).sort()).toEqual(
      Object.values(DEMO_RUNS)
        .map((r) => r.model)
        .sort(),
    );
    for (const r of runs) expect(r.config).toMatchObject({ policy: "scripted" });

    const details = await Promise.all((await trajectoryIds(ctx.db)).map(async (id) => (await getTrajectoryDetail(ctx!.db, id))!));
    expect(details).toHaveLength(DEMO_TRAJECTORIES.length);
    expect(new Set(details.map((d) => d.task.externalId))).toEqual(new Set(DEMO_TASKS.map((t) => t.externalId)));
    expect(report.steps).toBe(details.reduce((n, d) => n + d.steps.length, 0));

    let stepsWithError = 0;
    for (const d of details) {
      expect(d.task.referenceAnswers).toHaveLength(1);
      expect(d.task.startUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/(recipes|shop|wiki)\/$/);
      expect(d.steps.length).toBeGreaterThan(0);
      expect(d.trajectory.stepCount).toBe(d.steps.length);
      for (const s of d.steps) {
        expect(s.screenshotHash).toMatch(/^[0-9a-f]{64}$/);
        expect(s.rawScreenshotHash).toMatch(/^[0-9a-f]{64}$/);
        expect(s.rawScreenshotHash).not.toBe(s.screenshotHash);
        expect(s.marksBurnedIn).toBe(true);
        expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
        expect(s.actionRaw).toBeTruthy();
        expect(s.action.type).not.toBe("unparsed");
        for (const hash of [s.screenshotHash!, s.rawScreenshotHash!]) {
          const row = await getScreenshot(ctx.db, hash);
          expect(row).toMatchObject({ mime: "image/png", width: 1024, height: 768 });
          expect(await ctx.store.has(hash)).toBe(true);
        }
        expect(s.elements!.length).toBeGreaterThan(0);
        expect(s.elements!.map((e) => e.label)).toEqual(s.elements!.map((_, i) => String(i)));
        for (const e of s.elements!) {
          const [x, y, w, h] = e.bbox!;
          expect(x >= 0 && y >= 0 && w > 0 && h > 0 && x + w <= 1024 && y + h <= 768).toBe(true);
        }
        if (s.error) stepsWithError++;
      }
    }

    // The mix the analytics and the player need.
    const outcomes = details.map((d) => d.trajectory.outcome);
    expect(outcomes).toContain("answered");
    expect(outcomes).toContain("step_limit");
    const wrong = details.filter((d) => d.trajectory.finalAnswer && !d.task.referenceAnswers[0]!.text.includes(d.trajectory.finalAnswer));
    expect(wrong.length).toBeGreaterThanOrEqual(3);
    expect(stepsWithError).toBe(1);
    const badLabel = details.flatMap((d) => d.steps).find((s) => s.error)!;
    expect(badLabel.error).toMatch(/^element \[42\] is not on the page/);
    const repeated = details.filter((d) => d.steps.some((s, i) => i > 0 && s.actionRaw === d.steps[i - 1]!.actionRaw && s.url === d.steps[i - 1]!.url));
    expect(repeated.length).toBeGreaterThanOrEqual(1);
    const revisits = details.filter((d) => {
      const urls = d.steps.map((s) => s.url);
      return urls.some((u, i) => i > 1 && urls.slice(0, i - 1).includes(u) && urls[i - 1] !== u);
    });
    expect(revisits.length).toBeGreaterThanOrEqual(1);

    // The tasks' string_match rules graded every trajectory: an answer with all the required parts succeeds, a
    // wrong or missing answer fails, and the CLI reported the same counts.
    const rules = new Map((await listVerdicts(ctx.db, { evaluatorKey: "rule:vwa" })).map((v) => [v.trajectoryId, v.verdict]));
    expect(rules.size).toBe(DEMO_TRAJECTORIES.length);
    for (const d of details) {
      const def = DEMO_TASKS.find((t) => t.externalId === d.task.externalId)!;
      const answer = (d.trajectory.finalAnswer ?? "").toLowerCase();
      const expected = d.trajectory.finalAnswer && def.mustInclude.every((m) => answer.includes(m.toLowerCase())) ? "success" : "failure";
      expect(rules.get(d.trajectory.id), `${d.run.name} ${d.task.externalId}: ${d.trajectory.finalAnswer}`).toBe(expected);
    }
    expect(report.ruleVerdicts).toEqual({
      success: [...rules.values()].filter((v) => v === "success").length,
      failure: [...rules.values()].filter((v) => v === "failure").length,
      not_evaluable: 0,
    });
    expect(report.ruleVerdicts.success).toBeGreaterThan(0);
    expect(report.ruleVerdicts.failure).toBeGreaterThan(0);

    const counts = sqliteClient(ctx.db)
      .prepare("select (select count(*) from trajectories) t, (select count(*) from steps) s, (select count(*) from screenshots) i")
      .get();

    const second = await cli(["demo", "--json", "--port", "0"]);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ skipped: true, trajectories: 0, created: 0, updated: 0 });
    expect(second.stderr).toMatch(/already in .*nothing to do/);
    expect(
      sqliteClient(ctx.db).prepare("select (select count(*) from trajectories) t, (select count(*) from steps) s, (select count(*) from screenshots) i").get(),
    ).toEqual(counts);
  });

  it("rejects a bad --port with exit code 2", async () => {
    const bad = await cli(["demo", "--port", "http"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--port must be a whole number/);
    expect(bad.stdout).toBe("");
  });
});
