/**
 * What the dashboard's judge pages read through tRPC: the batch page's progress poll, and the run page's success
 * rates by evaluator once a batch has judged the run.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCaller } from "../../server/api/root";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { LOCAL_JUDGE_ENV, seedTrajectories } from "../helpers/judge-fixtures";
import { runQueuedJudgeCalls } from "../helpers/workers";

describeEachBackend("judges dashboard", (backend) => {
  let ctx: TestContext;
  let fake: FakeOpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    Object.assign(process.env, LOCAL_JUDGE_ENV);
  });
  afterAll(async () => fake.close());
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-judges-dashboard-");
    fake.requests.length = 0;
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  const researcher = { userId: "test-researcher", name: "Test Researcher", email: "researcher@example.test", role: "researcher" as const };
  const caller = () => createCaller({ ...ctx, headers: new Headers(), session: researcher });

  describe("judges in the dashboard", () => {
    it("the progress poll counts the batch's trajectories instead of carrying their ids", async () => {
      await seedTrajectories(ctx, [{ steps: 2 }, { steps: 1 }, { steps: 3 }]);
      const api = caller();
      const c = await api.judge.configs.create({ name: "poll", baseUrl: fake.baseUrl, model: "m" });
      const { batchId } = await api.judge.batches.start({ config: c.id, selection: { filter: {} }, kValues: [1] });
      await runQueuedJudgeCalls(ctx);
      const p = await api.judge.batches.progress({ id: batchId });
      expect(p.batch).toMatchObject({ id: batchId, status: "succeeded", trajectoryCount: 3, kValues: ["1"] });
      expect(p.batch).not.toHaveProperty("trajectoryIds");
      expect(p.jobs).toMatchObject({ done: 3, remaining: 0 });
      expect(p.verdicts.byVerdict).toMatchObject({ success: 3, failure: 0 });
    });

    it("failed calls reach the batch page grouped by their reason, and a resume sends them again", async () => {
      const trajs = await seedTrajectories(ctx, [{ steps: 1 }, { steps: 1 }]);
      const api = caller();
      const c = await api.judge.configs.create({ name: "broken", baseUrl: fake.baseUrl, model: "m", maxRetries: 0 });
      fake.setResponder(() => ({ status: 400, message: "The model `m` does not exist" }));
      try {
        const { batchId } = await api.judge.batches.start({ config: c.id, selection: { filter: {} }, kValues: ["full"] });
        await runQueuedJudgeCalls(ctx);
        const failed = await api.judge.batches.progress({ id: batchId });
        expect(failed.batch.status).toBe("failed");
        expect(failed.jobs.errors).toHaveLength(1);
        expect(failed.jobs.errors[0]).toMatchObject({ n: 2 });
        expect(failed.jobs.errors[0]!.error).toMatch(/400/);
        // One row per failed call, naming the trajectory and k a resume would send again.
        const rows = await api.judge.batches.failures({ id: batchId });
        expect(rows.map((r) => [r.trajectoryId, r.k]).sort()).toEqual(trajs.map((t) => [t.id, "full"]).sort());
        expect(rows.every((r) => r.error === failed.jobs.errors[0]!.error && r.attempts >= 1)).toBe(true);
        await expect(api.judge.batches.failures({ id: batchId + 1000 })).rejects.toMatchObject({ code: "NOT_FOUND" });

        fake.setResponder(() => ({ reply: "Reasoning: wrong page.\nVerdict: FAILURE" }));
        const resumed = await api.judge.batches.resume({ id: batchId });
        expect(resumed).toMatchObject({ requeued: 2 });
        await runQueuedJudgeCalls(ctx);
        const done = await api.judge.batches.progress({ id: batchId });
        expect(done.batch.status).toBe("succeeded");
        expect(done.verdicts.byVerdict.failure).toBe(2);
        expect(done.jobs.errors).toEqual([]);
        expect(await api.judge.batches.failures({ id: batchId })).toEqual([]);
      } finally {
        fake.setResponder(() => ({ reply: "Reasoning: ok.\nVerdict: SUCCESS" }));
      }
    });

    it("the run page's evaluator rates include the judge, with n and a Wilson interval, scoped to the run", async () => {
      const trajs = await seedTrajectories(ctx, [{ steps: 1 }, { steps: 1 }, { steps: 1 }, { steps: 1 }]);
      await seedTrajectories(ctx, [{ steps: 1 }], "another-run");
      const api = caller();
      const c = await api.judge.configs.create({ name: "rates", baseUrl: fake.baseUrl, model: "m" });
      let n = 0;
      // Three successes and one failure on the first run.
      fake.setResponder(() => ({ reply: n++ === 0 ? "Reasoning: no.\nVerdict: FAILURE" : "Reasoning: yes.\nVerdict: SUCCESS" }));
      try {
        await api.judge.batches.start({ config: c.id, selection: { trajectoryIds: trajs.map((t) => t.id) }, kValues: [3], concurrency: 1 });
        await runQueuedJudgeCalls(ctx);
      } finally {
        fake.setResponder(() => ({ reply: "Reasoning: ok.\nVerdict: SUCCESS" }));
      }
      const runs = await api.runs.list();
      const runId = runs.find((r) => r.trajectoryCount === 4)!.id;
      const overview = await api.analytics.overview({ scope: { runId } });
      const judge = overview.columns.find((col) => col.info?.identity.key === `judge:${c.id}`);
      expect(judge).toBeDefined();
      expect(judge!.total).toMatchObject({ n: 4, successes: 3, rate: 0.75 });
      // Wilson 95% interval of 3/4, computed by hand: (0.3006, 0.9544).
      expect(judge!.total.low).toBeCloseTo(0.3006, 3);
      expect(judge!.total.high).toBeCloseTo(0.9544, 3);
      expect(overview.columns.some((col) => col.kind === "human")).toBe(false);
    });
  });
});
