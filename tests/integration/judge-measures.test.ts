/**
 * Judge measures on the analytics fixture (tests/helpers/analytics-fixture.ts), answers worked by hand. Tasks are
 * site × difficulty, shared by the two runs: Shop-easy {T1, T7}, Shop-medium {T2, T8}, Shop-hard {T3, T9},
 * Wiki-easy {T4, T10}, Wiki-medium {T5, T11}, Wiki-hard {T6, T12}.
 *
 * Judge k = 3 against the consolidated label (unsure T9, unlabelled T11 left out; T12 unparseable left out under
 * "exclude"): ss = T1 T4 T5 T7, fs = T6, ff = T2 T3 T8 T10 → n 9, FPR 1/5, FNR 0/4, gap (1 − 0)/9.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { insertJudgeConfig, upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { DEFAULT_JUDGE_OPTIONS } from "../../server/domain/evaluation/verdicts";
import { judgeMeasures } from "../../server/services/analytics";
import { failureStepAgreement } from "../../server/services/analytics/failure-steps";
import { sql } from "drizzle-orm";
import { rawRun } from "../../db/database";
import type { TestContext } from "../helpers/context";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { seedAnalyticsRows, type AnalyticsFixture } from "../helpers/analytics-fixture";

describeEachBackend("judge measures", (backend) => {
  let ctx: TestContext;
  let fx: AnalyticsFixture;

  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-judge-measures-");
    // Written straight into the tables: these measures only read them, and so the suite runs on either engine.
    fx = await seedAnalyticsRows(ctx.db);
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  function measuresOf(result: Awaited<ReturnType<typeof judgeMeasures>>, key: string, k: string) {
    const m = result.evaluators.find((e) => e.info.identity.key === key && e.info.identity.k === k);
    if (!m) throw new Error(`no measures for ${key} k=${k}`);
    return m;
  }

  async function setSamples(name: string, count: number, successes: number, failures: number) {
    await rawRun(
      ctx.db,
      sql`update evaluator_verdicts set sample_count = ${count}, sample_successes = ${successes}, sample_failures = ${failures} where trajectory_id = ${fx.ids[name]} and evaluator_key = ${fx.judgeKey} and k = '3'`,
    );
  }

  describe("judge measures", () => {
    it("gives FPR, FNR and the success-rate gap per evaluator, with task-clustered intervals", async () => {
      const r = await judgeMeasures(ctx.db, { scope: {}, unparseable: "exclude" });
      const k3 = measuresOf(r, fx.judgeKey, "3");
      expect(k3.errors).toMatchObject({ n: 9, tasks: 6, falsePositive: { estimate: 0.2, errors: 1, of: 5 }, falseNegative: { estimate: 0, errors: 0, of: 4 } });
      expect(k3.errors.gap.estimate).toBeCloseTo(1 / 9, 12);
      expect(k3.errors.gap.evaluatorRate).toBeCloseTo(5 / 9, 12);
      expect(k3.errors.gap.humanRate).toBeCloseTo(4 / 9, 12);
      // Human failures by task: Shop-medium 0 of 2 (T2, T8), Shop-hard 0 of 1, Wiki-hard 1 of 1 (T6), Wiki-easy 0 of 1.
      // Σ (x − p̂ n)² = 0.4² + 0.2² + 0.8² + 0.2² = 0.88; clustered variance 4/3 · 0.88/25 = 0.04693 against the
      // binomial 0.2·0.8/5 = 0.032: deff 1.467, n/deff = 3.41 held at the 4 tasks → Wilson(0.2, n = 4).
      expect(k3.errors.falsePositive.low).toBeCloseTo(0.030768094263670387, 12);
      expect(k3.errors.falsePositive.high).toBeCloseTo(0.663166407609088, 12);
      // No false negative in 4: Wilson at x = 0 keeps an upper bound z²/(4 + z²) instead of collapsing to [0, 0].
      expect(k3.errors.falseNegative).toMatchObject({ low: 0 });
      expect(k3.errors.falseNegative.high).toBeCloseTo(0.4898908364545974, 12);
      expect(k3.errors.bootstrap).toMatchObject({ replicates: 1000, seed: 1, method: "percentile, resampling tasks" });

      // k = 1: fs = T2 T10, ff = T3 T6 T8 T12, ss = T1 T4 T7 (T5 unparseable left out) → FPR 2/6, gap 2/9.
      const k1 = measuresOf(r, fx.judgeKey, "1");
      expect(k1.errors.falsePositive).toMatchObject({ errors: 2, of: 6 });
      expect(k1.errors.gap.estimate).toBeCloseTo(2 / 9, 12);
      // The rule agrees everywhere it decided.
      const rule = measuresOf(r, fx.ruleKey, "");
      expect(rule.errors).toMatchObject({ n: 8, falsePositive: { estimate: 0 }, falseNegative: { estimate: 0 }, gap: { estimate: 0 } });
    });

    it("counts unparseable replies as failures under the 'failure' policy", async () => {
      const k3 = measuresOf(await judgeMeasures(ctx.db, { scope: {}, unparseable: "failure" }), fx.judgeKey, "3");
      // T12 (human failure, unparseable) joins ff.
      expect(k3.errors).toMatchObject({ n: 10, falsePositive: { errors: 1, of: 6 } });
    });

    it("splits per site and per agent run", async () => {
      const k3 = measuresOf(await judgeMeasures(ctx.db, { scope: {}, unparseable: "exclude" }), fx.judgeKey, "3");
      const site = Object.fromEntries(k3.bySite.map((s) => [s.label, s.errors]));
      expect(site.Shop).toMatchObject({ n: 5, falsePositive: { estimate: 0, of: 3 }, falseNegative: { estimate: 0, of: 2 } });
      expect(site.Wiki).toMatchObject({ n: 4, falsePositive: { estimate: 0.5, of: 2 }, falseNegative: { estimate: 0, of: 2 } });
      const run = Object.fromEntries(k3.byRun.map((s) => [s.label, s.errors]));
      expect(run.alpha!.falsePositive).toMatchObject({ errors: 1, of: 3 });
      expect(run.beta!.falsePositive).toMatchObject({ errors: 0, of: 2 });
    });

    it("ranks the agent runs per rater and gives Kendall's τ-b against the humans", async () => {
      // An imported evaluator that calls every beta trajectory a success and every alpha one a failure.
      for (const [name, id] of Object.entries(fx.ids)) {
        const beta = Number(name.slice(1)) >= 7;
        await upsertVerdict(ctx.db, {
          trajectoryId: id,
          kind: "judge",
          origin: "import",
          evaluatorKey: "import:test:contrarian",
          evaluatorName: "Contrarian",
          verdict: beta ? "success" : "failure",
        });
      }
      const r = await judgeMeasures(ctx.db, { scope: {}, unparseable: "exclude" });
      const [alpha, beta] = [r.ranking.runs.find((x) => x.name === "alpha")!, r.ranking.runs.find((x) => x.name === "beta")!];
      // Humans: alpha 3/6 (T1 T4 T5 of T1–T6), beta 1/4 (T7 of T7 T8 T10 T12).
      expect(alpha.human).toEqual({ rate: 0.5, n: 6, rank: 1 });
      expect(beta.human).toEqual({ rate: 0.25, n: 4, rank: 2 });
      // Judge k = 3 over every trajectory it judged: alpha 4/6, beta 2/5 (T12 unparseable left out).
      const k3 = r.evaluators.find((e) => e.info.identity.key === fx.judgeKey && e.info.identity.k === "3")!.info.id;
      expect(alpha.evaluators[k3]!.rate).toBeCloseTo(4 / 6, 12);
      expect(beta.evaluators[k3]).toMatchObject({ rate: 0.4, n: 5, rank: 2 });
      const tau = Object.fromEntries(r.ranking.tau.map((t) => [t.id, t.tau]));
      expect(tau[k3]!.tau).toBe(1);
      const contrarian = r.evaluators.find((e) => e.info.identity.key === "import:test:contrarian")!.info.id;
      expect(alpha.evaluators[contrarian]).toMatchObject({ rate: 0, rank: 2 });
      expect(tau[contrarian]!.tau).toBe(-1);
    });

    it("measures calibration of the vote share when the judge was sampled, and the unparseable rates", async () => {
      const before = measuresOf(await judgeMeasures(ctx.db, { scope: {}, unparseable: "exclude" }), fx.judgeKey, "3");
      expect(before.calibration).toBeNull();
      expect(before.calibrationNote).toMatch(/one sample per item/);
      // k = 3 verdicts: 12 in scope, T12 unparseable.
      expect(before.unparseable).toMatchObject({ verdicts: 12, unparseable: 1, samples: 0 });

      await setSamples("T1", 3, 3, 0); // human success, confidence 1
      await setSamples("T6", 3, 2, 0); // human failure, confidence 1 (one reply unparseable)
      await setSamples("T2", 3, 1, 2); // human failure, confidence 1/3
      await setSamples("T4", 3, 2, 1); // human success, confidence 2/3
      const after = measuresOf(await judgeMeasures(ctx.db, { scope: {}, unparseable: "exclude" }), fx.judgeKey, "3");
      const cal = after.calibration!;
      expect(cal.n).toBe(4);
      expect(cal.bins[9]).toMatchObject({ n: 2, meanConfidence: 1, observed: 0.5 });
      expect(cal.bins[3]).toMatchObject({ n: 1, observed: 0 });
      expect(cal.bins[6]).toMatchObject({ n: 1, observed: 1 });
      // ECE = 2/4·0.5 + 1/4·1/3 + 1/4·1/3 = 5/12.
      expect(cal.ece).toBeCloseTo(5 / 12, 12);
      // Human-labelled k = 3 items without samples: T3 T5 T7 T8 T10 T12.
      expect(after.calibrationNote).toMatch(/^6 compared items had a single sample/);
      expect(after.unparseable).toMatchObject({ samples: 12, unparseableSamples: 1 });
    });

    it("is recomputed after a write to the verdicts and reused otherwise", async () => {
      const a = await judgeMeasures(ctx.db, { scope: {}, unparseable: "exclude" });
      expect(await judgeMeasures(ctx.db, { scope: {}, unparseable: "exclude" })).toBe(a);
      // The judge now gets Wiki-hard right: no false positive left.
      await rawRun(
        ctx.db,
        sql`update evaluator_verdicts set verdict = 'failure' where trajectory_id = ${fx.ids.T6} and evaluator_key = ${fx.judgeKey} and k = '3'`,
      );
      const b = measuresOf(await judgeMeasures(ctx.db, { scope: {}, unparseable: "exclude" }), fx.judgeKey, "3");
      expect(b.errors.falsePositive).toMatchObject({ estimate: 0, errors: 0, of: 5 });
    });

    it("follows the scope", async () => {
      const r = await judgeMeasures(ctx.db, { scope: { runId: fx.runIds.beta }, unparseable: "exclude" });
      const k3 = measuresOf(r, fx.judgeKey, "3");
      expect(k3.errors).toMatchObject({ n: 3, tasks: 3, falsePositive: { errors: 0, of: 2 } });
    });
  });

  describe("first failing step agreement", () => {
    it("compares steps where both raters gave one: humans pairwise, evaluators against the consolidated step", async () => {
      const run = (q: ReturnType<typeof sql>) => rawRun(ctx.db, q);
      // T3: annotators mark steps 7, 6, 7 → pairs |Δ| 1, 0, 1: exact 1/3, within one 3/3, mean |Δ| 2/3.
      for (const [annotator, step] of [
        ["ann", 7],
        ["bob", 6],
        ["cy", 7],
      ] as const) {
        await run(sql`update labels set first_failing_step = ${step} where trajectory_id = ${fx.ids.T3} and annotator_name = ${annotator}`);
      }
      // Judge k = 3 fails T2, T3, T10 (consolidated steps 2, 7, 0) and names steps 3, 7, 0: Δ = +1, 0, 0.
      for (const [name, step] of [
        ["T2", 3],
        ["T3", 7],
        ["T10", 0],
      ] as const) {
        await run(
          sql`update evaluator_verdicts set first_failing_step = ${step} where trajectory_id = ${fx.ids[name]} and evaluator_key = ${fx.judgeKey} and k = '3'`,
        );
      }
      const r = await failureStepAgreement(ctx.db, { scope: {} });
      expect(r.humans).toMatchObject({ pairs: 3, exact: 1, withinOne: 3 });
      expect(r.humans.meanAbsoluteOffset).toBeCloseTo(2 / 3, 12);
      // Only the k = 3 setting gives steps; k = 1 and the rule have nothing to compare.
      expect(r.evaluators).toHaveLength(1);
      const k3 = r.evaluators[0]!;
      expect(k3.info.identity).toMatchObject({ key: fx.judgeKey, k: "3" });
      expect(k3.agreement).toMatchObject({ pairs: 3, exact: 2, withinOne: 3 });
      expect(k3.agreement.meanOffset).toBeCloseTo(1 / 3, 12);
      expect(k3.withoutStep).toBe(0);
      // Drill-down: the widest disagreement first.
      expect(r.items[0]).toMatchObject({ trajectoryId: fx.ids.T2, human: 2, evaluators: { [k3.info.id]: 3 } });
      expect(r.items).toHaveLength(3);
    });

    it("counts evaluator failures that came without a step apart", async () => {
      await rawRun(
        ctx.db,
        sql`update evaluator_verdicts set first_failing_step = 2 where trajectory_id = ${fx.ids.T2} and evaluator_key = ${fx.judgeKey} and k = '3'`,
      );
      const k3 = (await failureStepAgreement(ctx.db, { scope: {} })).evaluators[0]!;
      // T3 and T10 are human failures with a step where the judge said failure without one.
      expect(k3).toMatchObject({ agreement: { pairs: 1, exact: 1 }, withoutStep: 2 });
    });
  });

  describe("judge hygiene: the same judge with and without the final answer", () => {
    it("pairs the settings and gives κ and the error rates side by side", async () => {
      const addJudge = async (name: string, model: string) => {
        const id = await insertJudgeConfig(ctx.db, { name, model, promptVersion: "v1", options: { ...DEFAULT_JUDGE_OPTIONS, withoutFinalAnswer: true } });
        // Without the answer this judge fails everything.
        for (const trajectoryId of Object.values(fx.ids)) {
          await upsertVerdict(ctx.db, {
            trajectoryId,
            kind: "judge",
            origin: "verdict",
            evaluatorKey: `judge:${id}`,
            evaluatorName: name,
            judgeConfigId: id,
            k: "3",
            promptVersion: "v1+no-answer",
            verdict: "failure",
          });
        }
        return `judge:${id}`;
      };
      const blind = await addJudge("Fixture judge, no answer", "judge-model");
      await addJudge("Another model, no answer", "other-model");
      const r = await judgeMeasures(ctx.db, { scope: {}, unparseable: "exclude" });
      // Only the configuration that matches the fixture judge in everything but the answer is paired, at k = 3.
      expect(r.hygiene).toHaveLength(1);
      const pair = r.hygiene[0]!;
      expect(pair.k).toBe("3");
      expect(pair.withoutAnswer.id.startsWith(`${encodeURIComponent(blind)}|`)).toBe(true);
      // With the answer: ss 4, sf 0, fs 1, ff 4 → p_o 8/9, p_e 40/81, κ = 32/41.
      expect(pair.withAnswer.kappa.kappa).toBeCloseTo(32 / 41, 12);
      expect(pair.withAnswer.errors.falsePositive.estimate).toBe(0.2);
      // Without: every verdict failure, T12 included (no unparseable reply this time) → κ 0, FPR 0/6, FNR 4/4.
      expect(pair.withoutAnswer.kappa.kappa).toBe(0);
      expect(pair.withoutAnswer.errors).toMatchObject({ falsePositive: { estimate: 0, of: 6 }, falseNegative: { estimate: 1, of: 4 } });
    });
  });
});
