import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCaller } from "../../server/api/root";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { LOCAL_JUDGE_ENV, seedTrajectories } from "../helpers/judge-fixtures";
import { runQueuedJudgeCalls } from "../helpers/workers";

const KEY = "sk-router-SECRET-31337";

describeEachBackend("judge router", (backend) => {
  let ctx: TestContext;
  let fake: FakeOpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    // The router reads the server's environment: an admin allowed the local (fake) model server.
    Object.assign(process.env, LOCAL_JUDGE_ENV);
  });
  afterAll(async () => fake.close());
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-judge-router-");
    fake.requests.length = 0;
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  /** Judge configurations and batches are researchers' business. */
  const researcher = { userId: "test-researcher", name: "Test Researcher", email: "researcher@example.test", role: "researcher" as const };

  function caller() {
    return createCaller({ ...ctx, headers: new Headers(), session: researcher });
  }

  describe("judge tRPC router", () => {
    it("takes an API key on create but never returns it", async () => {
      const api = caller();
      const created = await api.judge.configs.create({ name: "r1", baseUrl: fake.baseUrl, model: "m", apiKey: KEY, options: { includeActionHistory: true } });
      expect(created).toMatchObject({ name: "r1", apiKeySource: "stored", options: { includeActionHistory: true, screenshots: "marked" } });
      const everything = JSON.stringify([
        created,
        await api.judge.configs.list(),
        await api.judge.configs.byId({ id: created.id }),
        await api.judge.configs.update({ id: created.id, patch: { priceInputPerMTok: 1 } }),
        await api.judge.configs.setApiKey({ id: created.id, apiKey: `${KEY}-2` }),
      ]);
      expect(everything).not.toContain(KEY);
      await expect(api.judge.configs.create({ name: "r1", model: "m" })).rejects.toMatchObject({ code: "CONFLICT" });
      await expect(api.judge.configs.create({ name: "bad", model: "m", options: { maxImageSide: 3 } })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    });

    it("estimates from the list's filters, starts a batch in the background and reports its progress", async () => {
      const trajs = await seedTrajectories(ctx, [{ steps: 3 }, { steps: 2 }, { steps: 1, outcome: "step_limit" }]);
      const api = caller();
      const c = await api.judge.configs.create({ name: "r2", baseUrl: fake.baseUrl, model: "m", apiKey: KEY });
      const input = { config: c.id, selection: { filter: { outcome: "answered" } }, kValues: [1, "full" as const], concurrency: 2 };
      const estimate = await api.judge.batches.estimate(input);
      expect(estimate).toMatchObject({ trajectories: 2, pairs: 4, calls: 4, images: 1 + 1 + 3 + 2 });
      expect(fake.requests).toHaveLength(0);

      const { batchId } = await api.judge.batches.start(input);
      await runQueuedJudgeCalls(ctx);
      const progress = await api.judge.batches.progress({ id: batchId });
      expect(progress.batch).toMatchObject({ status: "succeeded", succeeded: 4, selectionLabel: "filtered list" });
      expect(progress.jobs).toMatchObject({ done: 4, remaining: 0, etaSeconds: 0 });
      expect(progress.verdicts.byVerdict.success).toBe(4);
      expect(fake.requests).toHaveLength(4);

      const verdicts = await api.judge.verdicts.forTrajectory({ trajectoryId: trajs[0]!.id });
      expect(verdicts.map((v) => v.k).sort()).toEqual(["1", "full"]);
      const evaluators = await api.judge.verdicts.evaluators();
      expect(evaluators).toEqual(expect.arrayContaining([expect.objectContaining({ evaluatorKey: `judge:${c.id}`, k: "full", total: 2, success: 2 })]));
      expect((await api.judge.batches.list())[0]).toMatchObject({ id: batchId, configName: "r2", trajectoryCount: 2 });
      expect(JSON.stringify([progress, verdicts, evaluators])).not.toContain(KEY);

      await expect(api.judge.batches.start({ ...input, selection: { filter: { outcome: "error" } } })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: "the selection holds no trajectories",
      });
    });

    it("runs rule verdicts over explicit ids", async () => {
      const trajs = await seedTrajectories(ctx, [
        { steps: 1, finalAnswer: "blue", evaluatorConfig: { eval_types: ["string_match"], reference_answers: { exact_match: "Blue" } } },
      ]);
      const report = await caller().judge.rules.run({ selection: { trajectoryIds: [trajs[0]!.id] } });
      expect(report).toMatchObject({ evaluated: 1, byVerdict: { success: 1 } });
    });
  });
});
