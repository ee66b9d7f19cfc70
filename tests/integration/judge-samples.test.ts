/**
 * Judge batches with several samples per item (calibration): the batch sends k requests per (trajectory, k), stores
 * the majority as the verdict with the sample counts and every sample's reply, refuses to sample at temperature 0,
 * and the analytics read the vote share as the judge's confidence. Only the model endpoint is faked.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { listVerdicts } from "../../db/repositories/evaluation/verdicts";
import { createJudgeBatch, estimateJudgeBatch, runJudgeBatch } from "../../server/services/evaluation/judge-batches";
import { createJudgeConfig, setStoredApiKey } from "../../server/services/evaluation/judge-configs";
import { majorityOf, type JudgeDeps } from "../../server/services/evaluation/judge-verdict";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { LOCAL_JUDGE_ENV, LOCAL_JUDGE_SETTINGS, seedTrajectories } from "../helpers/judge-fixtures";

describeEachBackend("judge samples", (backend) => {
  let ctx: TestContext;
  let fake: FakeOpenAI;
  let deps: JudgeDeps;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => fake.close());
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-samples-");
    fake.requests.length = 0;
    deps = { db: ctx.db, store: ctx.store, env: LOCAL_JUDGE_ENV, retryPolicy: { baseDelayMs: 5, maxDelayMs: 50 } };
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  async function makeConfig(temperature: number) {
    const c = await createJudgeConfig(
      ctx.db,
      { name: `sampled-${temperature}`, baseUrl: fake.baseUrl, model: "m-1", temperature, priceInputPerMTok: 1, priceOutputPerMTok: 1 },
      LOCAL_JUDGE_SETTINGS,
    );
    await setStoredApiKey(ctx.db, c.id, "sk-samples-0001");
    return c;
  }

  const S = { reply: "Reasoning: the page shows it.\nVerdict: SUCCESS", usage: { prompt_tokens: 100, completion_tokens: 10 } };
  const F = { reply: "Reasoning: wrong page.\nVerdict: FAILURE", usage: { prompt_tokens: 100, completion_tokens: 10 } };
  const U = { reply: "I cannot tell.", usage: { prompt_tokens: 100, completion_tokens: 10 } };

  describe("sampled judge batches", () => {
    it("asks k times per item and stores the majority, the counts and every sample", async () => {
      const [a, b] = await seedTrajectories(ctx, [{ steps: 3 }, { steps: 3 }]);
      const c = await makeConfig(0.7);
      const req = { config: c.id, trajectoryIds: [a!.id, b!.id], kValues: [1 as const], concurrency: 1, samples: 3 };
      expect(await estimateJudgeBatch(ctx.db, req)).toMatchObject({ pairs: 2, calls: 6, images: 6 });
      // Concurrency 1 and samples one after another: a gets S F S, b gets F U U.
      fake.script([S, F, S, F, U, U]);
      const { batch } = await createJudgeBatch(ctx.db, req);
      expect(batch.samples).toBe(3);
      const out = await runJudgeBatch(deps, batch.id, { pollMs: 10 });
      expect(out.batch.status).toBe("succeeded");
      expect(fake.requests).toHaveLength(6);
      expect(fake.requests.every((r) => r.body.temperature === 0.7)).toBe(true);

      const byTrajectory = new Map((await listVerdicts(ctx.db)).map((v) => [v.trajectoryId, v]));
      const va = byTrajectory.get(a!.id)!;
      expect(va).toMatchObject({ verdict: "success", sampleCount: 3, sampleSuccesses: 2, sampleFailures: 1, inputTokens: 300, outputTokens: 30 });
      expect(va.rationale).toBe("the page shows it.");
      const samples = (va.details as { samples: { verdict: string }[] }).samples;
      expect(samples.map((s) => s.verdict)).toEqual(["success", "failure", "success"]);
      // One parseable sample out of three still decides; the other two are counted as unparseable samples.
      expect(byTrajectory.get(b!.id)).toMatchObject({ verdict: "failure", sampleCount: 3, sampleSuccesses: 0, sampleFailures: 1 });
    });

    it("refuses to sample a judge at temperature 0, saying why", async () => {
      const [a] = await seedTrajectories(ctx, [{ steps: 2 }]);
      const c = await makeConfig(0);
      await expect(estimateJudgeBatch(ctx.db, { config: c.id, trajectoryIds: [a!.id], kValues: [1], concurrency: 1, samples: 3 })).rejects.toThrow(
        /temperature 0.*above 0/,
      );
      await expect(estimateJudgeBatch(ctx.db, { config: c.id, trajectoryIds: [a!.id], kValues: [1], concurrency: 1, samples: 0 })).rejects.toThrow(
        /samples must be a whole number/,
      );
    });

    it("keeps one-sample batches as they were: no sample counts", async () => {
      const [a] = await seedTrajectories(ctx, [{ steps: 2 }]);
      const c = await makeConfig(0);
      fake.script([S]);
      const { batch } = await createJudgeBatch(ctx.db, { config: c.id, trajectoryIds: [a!.id], kValues: [1], concurrency: 1 });
      await runJudgeBatch(deps, batch.id, { pollMs: 10 });
      expect((await listVerdicts(ctx.db))[0]).toMatchObject({ verdict: "success", sampleCount: null, sampleSuccesses: null, sampleFailures: null });
      expect(fake.requests).toHaveLength(1);
    });
  });

  describe("majority of samples", () => {
    it("does not guess a tie or an all-unparseable set", async () => {
      expect(majorityOf(["success", "failure", "success"])).toMatchObject({ verdict: "success", successes: 2, failures: 1 });
      expect(majorityOf(["success", "failure", "unparseable"])).toMatchObject({ verdict: "unparseable", problem: expect.stringMatching(/split evenly/) });
      expect(majorityOf(["unparseable", "unparseable"])).toMatchObject({ verdict: "unparseable", problem: "no sample could be parsed" });
      expect(majorityOf(["not_evaluable"])).toMatchObject({ verdict: "not_evaluable" });
    });
  });

  describe("judge asked for the first failing step", () => {
    it("stores the step it names, and keeps a failure without a parseable step apart", async () => {
      const [a, b, c] = await seedTrajectories(ctx, [{ steps: 3 }, { steps: 3 }, { steps: 3 }]);
      const config = await createJudgeConfig(
        ctx.db,
        { name: "step-judge", baseUrl: fake.baseUrl, model: "m-1", options: { askFirstFailingStep: true } },
        LOCAL_JUDGE_SETTINGS,
      );
      await setStoredApiKey(ctx.db, config.id, "sk-samples-0002");
      fake.script([
        { reply: "Reasoning: wrong search.\nFirst failing step: 2\nVerdict: FAILURE" },
        { reply: "Reasoning: it went wrong early on.\nVerdict: FAILURE" },
        { reply: "Reasoning: done.\nVerdict: SUCCESS" },
      ]);
      const { batch } = await createJudgeBatch(ctx.db, { config: config.id, trajectoryIds: [a!.id, b!.id, c!.id], kValues: ["full"], concurrency: 1 });
      await runJudgeBatch(deps, batch.id, { pollMs: 10 });
      expect(fake.requests[0]!.body.messages[0]!.content).toContain("First failing step: <number>");
      const byTrajectory = new Map((await listVerdicts(ctx.db)).map((v) => [v.trajectoryId, v]));
      // Steps are stored with indices 0, 1, 2: position 2 is index 1.
      const va = byTrajectory.get(a!.id)!;
      expect(va).toMatchObject({ verdict: "failure", firstFailingStep: 1, promptVersion: "verdict-judge-v1+first-step" });
      expect(va.details).toMatchObject({ failureStep: { status: "given", stepIndex: 1, position: 2 } });
      const vb = byTrajectory.get(b!.id)!;
      expect(vb).toMatchObject({ verdict: "failure", firstFailingStep: null });
      expect(vb.details).toMatchObject({ failureStep: { status: "unparseable" } });
      expect(byTrajectory.get(c!.id)).toMatchObject({ verdict: "success", firstFailingStep: null });
    });
  });
});
