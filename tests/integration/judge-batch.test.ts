import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { tablesOf } from "../../db/database";
import { countVerdicts, listVerdicts } from "../../db/repositories/evaluation/verdicts";
import { listJobs } from "../../db/repositories/jobs";
import { exportBundle } from "../../server/services/bundle-io";
import {
  batchGroupKey,
  cancelJudgeBatch,
  createJudgeBatch,
  estimateJudgeBatch,
  judgeBatchProgress,
  resumeJudgeBatch,
  runJudgeBatch,
  runJudgeWorker,
  type BatchProgress,
} from "../../server/services/evaluation/judge-batches";
import { createJudgeConfig, setStoredApiKey } from "../../server/services/evaluation/judge-configs";
import type { JudgeDeps } from "../../server/services/evaluation/judge-verdict";
import fs from "node:fs";
import path from "node:path";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { LOCAL_JUDGE_ENV, LOCAL_JUDGE_SETTINGS, seedTrajectories, type SeededTrajectory } from "../helpers/judge-fixtures";

const KEY = "sk-batch-SECRET-0001";

describeEachBackend("judge batches", (backend) => {
  let ctx: TestContext;
  let fake: FakeOpenAI;
  let deps: JudgeDeps;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => fake.close());
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-batch-");
    fake.requests.length = 0;
    fake.setResponder((req) => ({
      // Alternate verdicts by how many images were sent, so batches produce both values.
      reply: req.imageHashes.length % 2 === 1 ? "Reasoning: fine.\nVerdict: SUCCESS" : "Reasoning: no.\nVerdict: FAILURE",
    }));
    deps = { db: ctx.db, store: ctx.store, env: LOCAL_JUDGE_ENV, retryPolicy: { baseDelayMs: 5, maxDelayMs: 50 } };
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  async function makeConfig(name = "batch-judge") {
    const c = await createJudgeConfig(ctx.db, { name, baseUrl: fake.baseUrl, model: "m-1", priceInputPerMTok: 1, priceOutputPerMTok: 4 }, LOCAL_JUDGE_SETTINGS);
    await setStoredApiKey(ctx.db, c.id, KEY);
    return c;
  }

  async function seed(n: number, steps = 4): Promise<SeededTrajectory[]> {
    return seedTrajectories(
      ctx,
      Array.from({ length: n }, () => ({ steps })),
    );
  }

  async function pairKeys(): Promise<string[]> {
    return (await listVerdicts(ctx.db)).map((v) => `${v.trajectoryId}:${v.k}`);
  }

  describe("judge batches", () => {
    it("a worker process's judge worker finishes a batch no web server runs: one verdict per item, the batch's counts kept up", async () => {
      const trajs = await seed(3);
      const c = await makeConfig();
      const { batch } = await createJudgeBatch(ctx.db, { config: c.id, trajectoryIds: trajs.map((t) => t.id), kValues: [1, "full"], concurrency: 2 });
      const stop = new AbortController();
      const worker = runJudgeWorker(deps, { concurrency: 2, signal: stop.signal });
      try {
        await expect.poll(async () => (await judgeBatchProgress(ctx.db, batch.id)).batch.status, { timeout: 30_000 }).toBe("succeeded");
      } finally {
        stop.abort();
      }
      expect((await worker).succeeded).toBe(6);
      expect((await pairKeys()).sort()).toEqual(trajs.flatMap((t) => [`${t.id}:1`, `${t.id}:full`]).sort());
      expect((await judgeBatchProgress(ctx.db, batch.id)).batch).toMatchObject({ succeeded: 6, failed: 0 });
    });

    it("a batch's concurrency holds across every process working on it: three workers never have more calls out than it allows", async () => {
      // An endpoint of its own, so the most calls it had at once are this batch's.
      const own = await startFakeOpenAI();
      try {
        own.setResponder(() => ({ reply: "Reasoning: fine.\nVerdict: SUCCESS", delayMs: 150 }));
        const trajs = await seed(4);
        const c = await createJudgeConfig(ctx.db, { name: "capped", baseUrl: own.baseUrl, model: "m-1" }, LOCAL_JUDGE_SETTINGS);
        await setStoredApiKey(ctx.db, c.id, KEY);
        const { batch } = await createJudgeBatch(ctx.db, { config: c.id, trajectoryIds: trajs.map((t) => t.id), kValues: [1, 2, 3, "full"], concurrency: 2 });
        const stop = new AbortController();
        const workers = [0, 1, 2].map((w) => runJudgeWorker(deps, { concurrency: 3, owner: `worker-${w}`, signal: stop.signal }));
        try {
          await expect.poll(async () => (await judgeBatchProgress(ctx.db, batch.id)).batch.status, { timeout: 60_000 }).toBe("succeeded");
        } finally {
          stop.abort();
        }
        const summaries = await Promise.all(workers);
        expect(summaries.reduce((n, s) => n + s.succeeded, 0)).toBe(16);
        expect(own.requests).toHaveLength(16);
        expect(own.inFlight().max).toBeLessThanOrEqual(2);
      } finally {
        await own.close();
      }
    });

    it("stores every verdict when a batch's calls all answer at the same moment", async () => {
      // Each stored verdict bumps the verdicts' change counter: on PostgreSQL, under SERIALIZABLE, writes side by side
      // abort one another, and at load 24 one call of a stress test ran out of retries and failed its batch. Here 32
      // calls end at the same moment; every verdict must be stored. (A fake of its own: the shared one counts the
      // most calls ever in flight, which a later test reads.)
      const together = await startFakeOpenAI();
      try {
        const trajs = await seed(32, 1);
        const c = await createJudgeConfig(ctx.db, { name: "all-at-once", baseUrl: together.baseUrl, model: "m-1" }, LOCAL_JUDGE_SETTINGS);
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        together.setResponder(() => ({ reply: "Reasoning: fine.\nVerdict: SUCCESS", after: released }));
        const { batch } = await createJudgeBatch(ctx.db, { config: c.id, trajectoryIds: trajs.map((t) => t.id), kValues: [1], concurrency: 32 });
        const running = runJudgeBatch(deps, batch.id);
        await expect.poll(() => together.inFlight().now, { timeout: 60_000 }).toBe(32);
        release();
        const run = await running;
        expect(run.batch.status, JSON.stringify(run.jobs.counts)).toBe("succeeded");
        expect(run.jobs.counts.succeeded).toBe(32);
        expect(await countVerdicts(ctx.db)).toBe(32);
      } finally {
        await together.close();
      }
    });

    it("estimates calls and cost before starting, then stores one verdict per (trajectory, k)", async () => {
      const trajs = await seed(6);
      const c = await makeConfig();
      const req = { config: c.name, trajectoryIds: trajs.map((t) => t.id), kValues: [1, 3, "full" as const], concurrency: 4 };
      const est = await estimateJudgeBatch(ctx.db, req);
      expect(est).toMatchObject({ trajectories: 6, pairs: 18, existing: 0, calls: 18, images: 6 * (1 + 3 + 4) });
      // 48×36 screenshots at detail auto: one 512-px tile each = 255 tokens.
      expect(est.inputTokens).toBeGreaterThan(48 * 255);
      expect(est.costUsd).toBeCloseTo((est.inputTokens * 1 + est.outputTokens * 4) / 1e6, 12);
      expect(est.perK).toEqual([
        { k: "1", calls: 6, images: 6 },
        { k: "3", calls: 6, images: 18 },
        { k: "full", calls: 6, images: 24 },
      ]);

      const { batch } = await createJudgeBatch(ctx.db, req);
      expect(batch).toMatchObject({ status: "pending", totalPairs: 18, estimatedCalls: 18, kValues: ["1", "3", "full"] });
      // Calls after the first few answer slowly, so the batch is seen part-way done however busy the machine is.
      fake.setResponder((r) => ({
        reply: r.imageHashes.length % 2 === 1 ? "Reasoning: fine.\nVerdict: SUCCESS" : "Reasoning: no.\nVerdict: FAILURE",
        delayMs: r.n > 4 ? 200 : 0,
      }));
      const seen: BatchProgress[] = [];
      const result = await runJudgeBatch(deps, batch.id, { onProgress: (p) => seen.push(p), pollMs: 10 });
      expect(result.batch).toMatchObject({ status: "succeeded", succeeded: 18, failed: 0, cancelled: 0 });
      expect(result.jobs).toMatchObject({ done: 18, remaining: 0 });
      expect(fake.requests).toHaveLength(18);
      expect(fake.inFlight().max).toBeLessThanOrEqual(4);
      const keys = await pairKeys();
      expect(keys).toHaveLength(18);
      expect(new Set(keys).size).toBe(18);
      // k=1 and k=3 send an odd number of images (SUCCESS), full sends 4 (FAILURE).
      expect(result.verdicts.byVerdict).toEqual({ success: 12, failure: 6, unparseable: 0, not_evaluable: 0 });
      expect((await listVerdicts(ctx.db)).every((v) => v.batchId === batch.id)).toBe(true);
      expect(seen.at(-1)!.jobs.done).toBe(18);
      expect(seen.some((p) => p.jobs.done > 0 && p.jobs.remaining > 0)).toBe(true);

      // A second batch over the same selection has nothing to do unless forced.
      const again = await estimateJudgeBatch(ctx.db, req);
      expect(again).toMatchObject({ existing: 18, calls: 0, costUsd: 0 });
      const second = await createJudgeBatch(ctx.db, req);
      expect(second.batch.status).toBe("succeeded");
      expect(await listJobs(ctx.db, { groupKey: batchGroupKey(second.batch.id) })).toHaveLength(0);

      const forced = await createJudgeBatch(ctx.db, { ...req, kValues: [1], force: true });
      expect(forced.estimate.calls).toBe(6);
      fake.requests.length = 0;
      await runJudgeBatch(deps, forced.batch.id, { pollMs: 10 });
      expect(fake.requests).toHaveLength(6);
      expect(await countVerdicts(ctx.db)).toBe(18);
      expect((await listVerdicts(ctx.db, { k: "1" })).every((v) => v.batchId === forced.batch.id)).toBe(true);
    });

    it("can be cancelled mid-way and resumed without losing or duplicating a verdict", async () => {
      const trajs = await seed(8, 2);
      const c = await makeConfig();
      fake.setResponder(() => ({ reply: "Verdict: SUCCESS", delayMs: 150 }));
      const { batch } = await createJudgeBatch(ctx.db, { config: c.id, trajectoryIds: trajs.map((t) => t.id), kValues: [1, 2], concurrency: 2 });
      let cancelled = false;
      const run = runJudgeBatch(deps, batch.id, {
        pollMs: 10,
        heartbeatMs: 20,
        onProgress: async (p) => {
          if (!cancelled && p.jobs.counts.succeeded >= 3) {
            cancelled = true;
            await cancelJudgeBatch(ctx.db, batch.id);
          }
        },
      });
      const stopped = await run;
      expect(stopped.batch.status).toBe("cancelled");
      const afterCancel = await countVerdicts(ctx.db);
      expect(afterCancel).toBeGreaterThanOrEqual(3);
      expect(afterCancel).toBeLessThan(16);
      expect(stopped.jobs.counts.cancelled).toBe(16 - stopped.jobs.counts.succeeded);
      // A call already answered when the cancel lands keeps its verdict although its job ends cancelled: at most one
      // per concurrent slot.
      expect(afterCancel).toBeGreaterThanOrEqual(stopped.jobs.counts.succeeded);
      expect(afterCancel - stopped.jobs.counts.succeeded).toBeLessThanOrEqual(2);

      expect((await resumeJudgeBatch(ctx.db, batch.id)).requeued).toBe(16 - stopped.jobs.counts.succeeded);
      fake.setResponder(() => ({ reply: "Verdict: SUCCESS" }));
      const resumed = await runJudgeBatch(deps, batch.id, { pollMs: 10 });
      expect(resumed.batch).toMatchObject({ status: "succeeded", succeeded: 16, cancelled: 0 });
      const keys = await pairKeys();
      expect(keys).toHaveLength(16);
      expect(new Set(keys).size).toBe(16);
    });

    it("retries transient failures, records permanent ones as failed jobs, and resume retries those", async () => {
      const trajs = await seed(4, 1);
      const c = await makeConfig();
      let calls = 0;
      fake.setResponder((req) => {
        calls++;
        if (calls <= 2) return { status: 503 };
        // The trajectory whose intent names question 2 is rejected with a client error.
        if (req.texts.some((t) => t.includes("question 2"))) return { status: 400, message: `bad request for key ${KEY}` };
        return { reply: "Verdict: FAILURE" };
      });
      const { batch } = await createJudgeBatch(ctx.db, { config: c.id, trajectoryIds: trajs.map((t) => t.id), kValues: [1], concurrency: 2 });
      const out = await runJudgeBatch(deps, batch.id, { pollMs: 10 });
      expect(out.batch).toMatchObject({ status: "failed", succeeded: 3, failed: 1 });
      expect(out.jobs.errors[0]!.error).toMatch(/HTTP 400/);
      expect(out.jobs.errors[0]!.error).not.toContain(KEY);
      expect(await countVerdicts(ctx.db)).toBe(3);

      fake.setResponder(() => ({ reply: "Verdict: SUCCESS" }));
      expect((await resumeJudgeBatch(ctx.db, batch.id)).requeued).toBe(1);
      const done = await runJudgeBatch(deps, batch.id, { pollMs: 10 });
      expect(done.batch).toMatchObject({ status: "succeeded", succeeded: 4, failed: 0 });
      expect(await countVerdicts(ctx.db)).toBe(4);
    });

    it("a forced batch resumed after a cancel neither calls again nor rewrites the verdicts it already stored", async () => {
      const trajs = await seed(2, 1);
      const c = await makeConfig();
      const req = { config: c.id, trajectoryIds: trajs.map((t) => t.id), kValues: [1 as const], concurrency: 1 };
      const first = await createJudgeBatch(ctx.db, req);
      await runJudgeBatch(deps, first.batch.id, { pollMs: 10 });
      const forced = await createJudgeBatch(ctx.db, { ...req, force: true });
      fake.requests.length = 0;
      await runJudgeBatch(deps, forced.batch.id, { pollMs: 10 });
      expect(fake.requests).toHaveLength(2);
      const stored = await listVerdicts(ctx.db);
      expect(stored.map((v) => v.batchId)).toEqual([forced.batch.id, forced.batch.id]);

      // A cancel that arrived after the answers were stored: the jobs end cancelled although their verdicts exist.
      const { jobs } = tablesOf(ctx.db);
      await ctx.db
        .update(jobs)
        .set({ status: "cancelled", finishedAt: new Date() })
        .where(eq(jobs.groupKey, batchGroupKey(forced.batch.id)));
      expect((await resumeJudgeBatch(ctx.db, forced.batch.id)).requeued).toBe(2);
      fake.requests.length = 0;
      const resumed = await runJudgeBatch(deps, forced.batch.id, { pollMs: 10 });
      expect(resumed.batch).toMatchObject({ status: "succeeded", succeeded: 2 });
      expect(fake.requests).toHaveLength(0);
      const after = await listVerdicts(ctx.db);
      expect(after.map((v) => [v.id, v.updatedAt.getTime()])).toEqual(stored.map((v) => [v.id, v.updatedAt.getTime()]));
    });

    it("a worker whose job was taken over while the judge answered stores nothing", async () => {
      const [t] = await seed(1, 1);
      const c = await makeConfig();
      // The judge answers only once the job has changed hands (no race with a fixed delay).
      let handedOver!: () => void;
      const takenOver = new Promise<void>((r) => (handedOver = r));
      fake.setResponder(() => ({ reply: "Verdict: SUCCESS", after: takenOver }));
      const { batch } = await createJudgeBatch(ctx.db, { config: c.id, trajectoryIds: [t!.id], kValues: [1], concurrency: 1 });
      const stop = new AbortController();
      const outcomes: string[] = [];
      // Heartbeats far apart: only the store-time check can notice the job changed hands during the call.
      const run = runJudgeBatch(deps, batch.id, {
        pollMs: 10,
        leaseMs: 120_000,
        heartbeatMs: 60_000,
        signal: stop.signal,
        onProgress: (_p, last) => {
          if (!last) return;
          outcomes.push(last.outcome);
          stop.abort();
        },
      });
      while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
      // The lease ran out and another worker claimed the job while the first one still waited for the answer.
      const { jobs } = tablesOf(ctx.db);
      await ctx.db
        .update(jobs)
        .set({ leaseOwner: "another-worker" })
        .where(eq(jobs.groupKey, batchGroupKey(batch.id)));
      handedOver();
      const out = await run;
      expect(outcomes).toEqual(["lost"]);
      expect(out.worker).toMatchObject({ lost: 1, succeeded: 0 });
      expect(await countVerdicts(ctx.db)).toBe(0);
      expect((await listJobs(ctx.db, { groupKey: batchGroupKey(batch.id) }))[0]).toMatchObject({ status: "running", leaseOwner: "another-worker" });
    });

    it("never puts the API key in progress reports, verdicts, job rows or exports", async () => {
      const trajs = await seed(2, 2);
      const c = await makeConfig();
      fake.setResponder(() => ({ reply: `Reasoning: the header said ${KEY}.\nVerdict: SUCCESS` }));
      const { batch } = await createJudgeBatch(ctx.db, { config: c.id, trajectoryIds: trajs.map((t) => t.id), kValues: [1], concurrency: 2 });
      await runJudgeBatch(deps, batch.id, { pollMs: 10 });
      expect(fake.requests.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
      const outputs = [
        JSON.stringify(await judgeBatchProgress(ctx.db, batch.id)),
        JSON.stringify(await listVerdicts(ctx.db)),
        JSON.stringify(await listJobs(ctx.db)),
      ];
      for (const o of outputs) expect(o).not.toContain(KEY);
      expect((await listVerdicts(ctx.db))[0]!.rawReply).toContain("[redacted]");
      const out = path.join(ctx.dir, "export");
      await exportBundle(
        ctx,
        trajs.map((t) => t.id),
        out,
      );
      expect(fs.readFileSync(path.join(out, "manifest.json"), "utf8")).not.toContain(KEY);
    });
  });
});
