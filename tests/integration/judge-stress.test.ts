/**
 * Stress tests of a judge end to end, on both engines, against the tests' judge endpoint that decides from the
 * prompt it receives (tests/helpers/fake-judge-model.ts): with the agent's answer hidden, it says SUCCESS when every
 * content word of the task is in what it is shown (the action lines, pages included, and the screenshots' text).
 *
 * Six labelled trajectories, three steps each, judged with k = full and the action history:
 *   T1 "price blue kettle"     every screenshot shows it          people S   judge S
 *   T2 "city library hours"    split over screenshots 1 and 3      people S   judge S
 *   T3 "order red umbrella"    only in the last page's address     people F   judge S (fooled by the address)
 *   T4 "tallest mountain"      shown nowhere                       people F   judge F
 *   T5 "table at Luigi"        split over screenshots 1 and 2      people F   judge S
 *   T6 "weekly newsletter"     shown nowhere                       people F   judge F
 * Unperturbed: ss 2, sf 0, fs 2, ff 2 → p_o 4/6, p_e (2·4 + 4·2)/36 = 4/9, κ = 0.4; FPR 2/4, FNR 0/2.
 * Shuffled: the judge does not care about order → no flip, κ change 0.
 * One screenshot at random: T2 and T5 lose half their evidence whichever is kept → both flip to FAILURE (T2 now
 *   wrong, T5 now right): ss 1, sf 1, fs 1, ff 3 → p_e (2·2 + 4·4)/36 = 5/9, κ = (6/9 − 5/9)/(4/9) = 0.25, change −0.15.
 * History removed: T3 loses the address → FAILURE (now right): ss 2, fs 1, ff 3 → p_e 1/2, κ = 2/3, change +4/15.
 * Answer removed: not run, the configuration already hides the answer.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { importLabelsCsv } from "../../server/services/annotation/io";
import { closeSharedDatabases } from "../../server/context";
import { createJudgeConfig } from "../../server/services/evaluation/judge-configs";
import { judgeBatchFailures, judgeBatchProgress, runJudgeBatch, runJudgeWorker } from "../../server/services/evaluation/judge-batches";
import { createStressTest, planStressTest, stressTestReport } from "../../server/services/evaluation/stress-tests";
import { listVerdicts } from "../../db/repositories/evaluation/verdicts";
import { makeActor } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { cliRunner } from "../helpers/cli";
import type { TestContext } from "../helpers/context";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { promptReadingResponder, readJudgeRequest } from "../helpers/fake-judge-model";
import { LOCAL_JUDGE_ENV, LOCAL_JUDGE_SETTINGS, seedTrajectories, type SeededTrajectory } from "../helpers/judge-fixtures";

const urls = (last: string) => ["https://shop.test/a", "https://shop.test/b", last];
const SPECS = [
  { steps: 3, intent: "Find the price of the blue kettle", finalAnswer: "$25" },
  { steps: 3, intent: "Find the opening hours of the city library", finalAnswer: "9 to 5" },
  { steps: 3, intent: "Order a red umbrella", finalAnswer: "Ordered", urls: urls("https://shop.test/order-red-umbrella/confirmed") },
  { steps: 3, intent: "Find the tallest mountain in Norway", finalAnswer: "Galdhøpiggen" },
  { steps: 3, intent: "Book a table for two at Luigi", finalAnswer: "Booked" },
  { steps: 3, intent: "Subscribe to the weekly newsletter", finalAnswer: null },
].map((s) => ({ urls: urls("https://shop.test/c"), ...s }));
const HUMAN = ["success", "success", "failure", "failure", "failure", "failure"];

function screensOf(t: SeededTrajectory[]): Record<string, string> {
  const shot = (i: number, s: number) => t[i]!.shots[s]!.marked!;
  return {
    [shot(0, 0)]: "Blue kettle, price $25",
    [shot(0, 1)]: "Blue kettle, price $25",
    [shot(0, 2)]: "Blue kettle, price $25",
    [shot(1, 0)]: "City library",
    [shot(1, 2)]: "Opening hours 9-17",
    [shot(4, 0)]: "Luigi",
    [shot(4, 1)]: "Table for two booked",
  };
}

// The first judge-stress call of the file starts the real scripts/cli.ts; later ones run in this process.
const cli = cliRunner();

describeEachBackend("judge stress tests", (backend) => {
  let ctx: TestContext;
  let fake: FakeOpenAI;
  let seeded: SeededTrajectory[];
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => fake.close());
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-judge-stress-");
    seeded = await seedTrajectories(ctx, SPECS);
    fake.setResponder(promptReadingResponder({ screens: screensOf(seeded) }));
    fake.requests.length = 0;
    const researcher = await makeActor(ctx, "Rhea", "researcher");
    const rows = ["trajectory_id,annotator,verdict,note", ...seeded.map((t, i) => `${t.id},Ann,${HUMAN[i]},${i === 2 ? "no order confirmation" : ""}`)];
    await importLabelsCsv(ctx.db, researcher, {
      csv: rows.join("\n") + "\n",
      source: "study.csv",
      mapping: { annotator: "annotator", verdict: "verdict", trajectoryId: "trajectory_id", note: "note" },
      campaign: { name: "Study", annotatorsPerItem: 1 },
    });
    await createJudgeConfig(
      ctx.db,
      { name: "hidden", baseUrl: fake.baseUrl, model: "m", options: { withoutFinalAnswer: true, includeActionHistory: true } },
      LOCAL_JUDGE_SETTINGS,
    );
    await createJudgeConfig(ctx.db, { name: "shown", baseUrl: fake.baseUrl, model: "m", options: { includeActionHistory: true } }, LOCAL_JUDGE_SETTINGS);
    env = {
      ...process.env,
      VERDICT_DATA_DIR: ctx.dir,
      ...(ctx.config.postgresUrl ? { VERDICT_DATABASE_URL: ctx.config.postgresUrl } : { VERDICT_DB: ctx.config.dbPath }),
      ...LOCAL_JUDGE_ENV,
    };
  });
  afterEach(async () => {
    await closeSharedDatabases();
    await ctx.cleanup();
  });

  const deps = () => ({ db: ctx.db, store: ctx.store, env: LOCAL_JUDGE_ENV, retryPolicy: { baseDelayMs: 5, maxDelayMs: 20 } });

  it("estimates before sending anything, skips what would change nothing, and reports flips and κ per perturbation", async () => {
    const plan = await planStressTest(ctx.db, { config: "hidden", campaign: "Study", k: "full", subsetK: 1, seed: 7 });
    expect(plan.skipped).toEqual([{ perturbation: "no-answer", reason: "the configuration already leaves the final answer out" }]);
    expect(plan.perturbations.map((p) => p.variant)).toEqual(["shuffle-s7", "subset1-s7", "no-history"]);
    // 6 items × (unperturbed + 3 perturbations); a subset of 1 sends one screenshot instead of three.
    expect(plan.estimate).toMatchObject({ trajectories: 6, pairs: 24, existing: 0, calls: 24, images: 6 * 3 + 6 * 3 + 6 * 1 + 6 * 3 });
    expect(fake.requests).toHaveLength(0);

    const { stressTest, batch } = await createStressTest(ctx.db, { config: "hidden", campaign: "Study", k: "full", subsetK: 1, seed: 7 });
    const run = await runJudgeBatch(deps(), batch.id);
    // A failed call names its reason in the failure message (it failed once under load 24 with no reason to read).
    expect(run.batch.status, JSON.stringify(await judgeBatchFailures(ctx.db, batch.id))).toBe("succeeded");
    expect(fake.requests).toHaveLength(24);
    // What the judge was sent: never the answer, not even through the action that reported it.
    for (const r of fake.requests) expect(readJudgeRequest(r).case.answer).toBeUndefined();
    expect(fake.requests.filter((r) => JSON.stringify(r.body.messages).includes("Galdhøpiggen")).length).toBe(0);

    const r = await stressTestReport(ctx.db, stressTest.id);
    expect(r.items).toBe(6);
    expect(r.base.measures.table).toEqual([
      [2, 0],
      [2, 2],
    ]);
    expect(r.base.measures.kappa.kappa).toBeCloseTo(0.4, 12);
    expect(r.base.measures.errors.falsePositive).toMatchObject({ errors: 2, of: 4 });
    const by = Object.fromEntries(r.perturbations.map((p) => [p.perturbation, p]));
    expect(by["shuffle-s7"]!.comparison).toMatchObject({ n: 6, nowRight: 0, nowWrong: 0, kappaChange: { estimate: 0, note: "no interval (n = 6)" } });
    expect(by["shuffle-s7"]!.comparison.flipRate).toMatchObject({ successes: 0, n: 6, low: 0 });
    const subset = by["subset1-s7"]!;
    expect(subset.flipped.map((f) => [f.trajectoryId, f.before, f.after, f.direction])).toEqual([
      [seeded[1]!.id, "success", "failure", "now wrong"],
      [seeded[4]!.id, "success", "failure", "now right"],
    ]);
    expect(subset.comparison.kappaB.kappa).toBeCloseTo(0.25, 12);
    expect(subset.comparison.kappaChange.estimate).toBeCloseTo(-0.15, 12);
    expect(subset.comparison.flipRate.estimate).toBeCloseTo(2 / 6, 12);
    const history = by["no-history"]!;
    expect(history.flipped).toMatchObject([
      { trajectoryId: seeded[2]!.id, taskExternalId: expect.any(String), intent: "Order a red umbrella", human: "failure", direction: "now right" },
    ]);
    expect(history.comparison.kappaChange.estimate).toBeCloseTo(4 / 15, 12);
    expect(history.measures.errors.falsePositive).toMatchObject({ errors: 1, of: 4 });
    // Each perturbation's verdicts are kept apart from the configuration's own, named by what the judge was shown.
    const stored = await listVerdicts(ctx.db, { trajectoryIds: [seeded[1]!.id] });
    expect(stored.map((v) => v.promptVersion).sort()).toEqual([
      "verdict-judge-v1+no-answer",
      "verdict-judge-v1+no-answer+no-history",
      "verdict-judge-v1+no-answer+shuffle-s7",
      "verdict-judge-v1+no-answer+subset1-s7",
    ]);
    // The unperturbed verdicts are reused by a second stress test: only perturbations not asked before are paid for.
    const again = await planStressTest(ctx.db, { config: "hidden", campaign: "Study", k: "full", subsetK: 1, seed: 8 });
    expect(again.estimate).toMatchObject({ existing: 12, calls: 12 });
  });

  it("runs from the command line with a dry run, resumes a failed run where it stopped, and removes the answer", async () => {
    const dry = await cli(
      ["judge-stress", "--config", "shown", "--campaign", "Study", "--k", "full", "--perturb", "no-answer,no-history", "--dry-run", "--json"],
      env,
    );
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, skipped: [], estimate: { calls: 18 } });
    expect(fake.requests).toHaveLength(0);

    // Only what a list filter selects: the first two items (the list's address, as copied from the browser), so
    // 2 items × 3 ways of asking; the other four are said to be outside it.
    const two = `http://localhost:3000/trajectories?ids=${seeded[0]!.id},${seeded[1]!.id}&sort=steps`;
    const filtered = await cli(
      ["judge-stress", "--config", "shown", "--campaign", "Study", "--k", "full", "--perturb", "no-answer,no-history", "--filter", two, "--dry-run"],
      env,
    );
    expect(filtered.code).toBe(0);
    expect(filtered.stdout).toMatch(/on 2 labelled item\(s\) of campaign Study.*; 4 item\(s\) outside the list filter left out/);
    expect(filtered.stdout).toMatch(/in all 6 call\(s\)/);
    const nothing = await cli(["judge-stress", "--config", "shown", "--campaign", "Study", "--k", "full", "--filter", "?sort=steps", "--dry-run"], env);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain(`--filter "?sort=steps" selects nothing in particular`);
    expect(fake.requests).toHaveLength(0);

    // The endpoint refuses every call about the tallest mountain: the run ends failed, the rest is stored.
    const refuse = (on: boolean) =>
      fake.setResponder((req) =>
        on && JSON.stringify(req.body.messages).includes("tallest mountain")
          ? { status: 400, message: "bad request" }
          : promptReadingResponder({ screens: screensOf(seeded) })(req),
      );
    refuse(true);
    const first = await cli(["judge-stress", "--config", "shown", "--campaign", "Study", "--k", "full", "--perturb", "no-answer,no-history", "--json"], env);
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/resume with npm run cli -- judge-stress --resume 1/);
    const partial = JSON.parse(first.stdout);
    expect(partial.base.measures).toMatchObject({ missing: 1, n: 5 });
    const callsBefore = fake.requests.length;

    refuse(false);
    const resumed = await cli(["judge-stress", "--resume", String(partial.stressTest.id)], env);
    expect(resumed.code).toBe(0);
    // Only the three failed calls (one per way of asking) go out again.
    expect(fake.requests.length - callsBefore).toBe(3);
    // With the answer shown every item with an answer is a success; without it only what the pages and screenshots
    // show counts: T4 (nothing shown, people said failure) flips to FAILURE, now right; T6 had no answer either way.
    expect(resumed.stdout).toMatch(/final answer removed \(no-answer\):\n {4}flip rate 16\.7% \[[\d.]+%, [\d.]+%\] · 1\/6: 1 now right, 0 now wrong/);
    expect(resumed.stdout).toContain(`flipped: trajectory ${seeded[3]!.id} (task `);
    expect(resumed.stdout).toMatch(/action history removed \(no-history\):\n {4}flip rate 0\.0%/);
    const report = JSON.parse((await cli(["judge-stress", "report", String(partial.stressTest.id), "--json"], env)).stdout);
    expect(report.progress.batch.status).toBe("succeeded");
    expect(report.perturbations[0].flipped).toEqual([
      expect.objectContaining({ trajectoryId: seeded[3]!.id, before: "success", after: "failure", direction: "now right" }),
    ]);

    const refused = await cli(["judge-stress", "--config", "shown", "--campaign", "Study", "--k", "1", "--perturb", "shuffle"], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/no perturbation changes anything .*k = 1 shows one screenshot/);
  });

  it("runs in a worker process's judge worker like any batch, each job asking with its own perturbation", async () => {
    const { stressTest, batch } = await createStressTest(ctx.db, {
      config: "hidden",
      campaign: "Study",
      k: "full",
      subsetK: 1,
      seed: 7,
      perturbations: ["subset", "no-history"],
    });
    const stop = new AbortController();
    const worker = runJudgeWorker(deps(), { concurrency: 2, signal: stop.signal });
    try {
      await expect.poll(async () => (await judgeBatchProgress(ctx.db, batch.id)).batch.status, { timeout: 30_000 }).toBe("succeeded");
    } finally {
      stop.abort();
    }
    expect((await worker).succeeded).toBe(18);
    const r = await stressTestReport(ctx.db, stressTest.id);
    expect(r.perturbations.map((p) => [p.perturbation, p.flipped.map((f) => f.trajectoryId)])).toEqual([
      ["subset1-s7", [seeded[1]!.id, seeded[4]!.id]],
      ["no-history", [seeded[2]!.id]],
    ]);
  });
});
