import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  cancelJobGroup,
  claimNextJob,
  countJobsByStatus,
  enqueueJobs,
  getJob,
  heartbeatJobs,
  listJobs,
  reclaimExpiredLeases,
  requeueJobGroup,
} from "../../db/repositories/jobs";
import { groupProgress } from "../../server/services/jobs/queue";
import { RetryableJobError, runWorker } from "../../server/services/jobs/worker";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { runAtBarrier } from "../helpers/barrier";

const root = path.resolve(__dirname, "..", "..");

const jobsOf = (n: number, group = "g1", type = "test.echo") =>
  Array.from({ length: n }, (_, i) => ({ type, groupKey: group, dedupeKey: `${group}:${i}`, payload: { i } }));

describeEachBackend("job queue", (backend) => {
  let ctx: TestContext;

  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-jobs-");
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  describe("job queue repository", () => {
    it("enqueue is idempotent on the dedupe key", async () => {
      expect(await enqueueJobs(ctx.db, jobsOf(5))).toBe(5);
      expect(await enqueueJobs(ctx.db, jobsOf(7))).toBe(2);
      expect(await countJobsByStatus(ctx.db, "g1")).toMatchObject({ queued: 7, total: 7 });
    });

    it("claims each job once, in priority then insertion order, honouring type, group and run_after", async () => {
      await enqueueJobs(ctx.db, [
        { type: "a", groupKey: "g", payload: 1 },
        { type: "a", groupKey: "g", payload: 2, priority: 5 },
        { type: "b", groupKey: "g", payload: 3 },
        { type: "a", groupKey: "other", payload: 4 },
        { type: "a", groupKey: "g", payload: 5, runAfter: new Date(Date.now() + 60_000) },
      ]);
      const claimed = [];
      for (;;) {
        const j = await claimNextJob(ctx.db, "w1", 1000, { types: ["a"], groupKey: "g" });
        if (!j) break;
        claimed.push(j);
      }
      expect(claimed.map((j) => j.payload)).toEqual([2, 1]);
      expect(claimed.every((j) => j.status === "running" && j.leaseOwner === "w1" && j.attempts === 1)).toBe(true);
    });

    it("an expired lease goes back to the queue with the reason, and fails once attempts are used up", async () => {
      await enqueueJobs(ctx.db, [{ type: "a", payload: null, maxAttempts: 2 }]);
      const t = Date.now() + 1000;
      const at = (ms: number) => new Date(t + ms);
      const first = (await claimNextJob(ctx.db, "dead-worker", 10, {}, at(0)))!;
      expect(await reclaimExpiredLeases(ctx.db, at(5))).toEqual({ requeued: 0, failed: 0, cancelled: 0 });
      expect(await reclaimExpiredLeases(ctx.db, at(11))).toEqual({ requeued: 1, failed: 0, cancelled: 0 });
      const again = (await getJob(ctx.db, first.id))!;
      expect(again.status).toBe("queued");
      expect(again.error).toMatch(/lease of worker dead-worker expired at attempt 1/);
      await claimNextJob(ctx.db, "dead-worker", 10, {}, at(2000));
      expect(await reclaimExpiredLeases(ctx.db, at(5000))).toEqual({ requeued: 0, failed: 1, cancelled: 0 });
      expect(await getJob(ctx.db, first.id)).toMatchObject({ status: "failed", attempts: 2 });
    });

    it("an expired lease whose job was asked to stop ends cancelled, not back in the queue", async () => {
      await enqueueJobs(ctx.db, jobsOf(1));
      const t = Date.now() + 1000;
      const job = (await claimNextJob(ctx.db, "dead-worker", 10, {}, new Date(t)))!;
      expect(await cancelJobGroup(ctx.db, "g1")).toEqual({ cancelled: 0, signalled: 1 });
      expect(await reclaimExpiredLeases(ctx.db, new Date(t + 50))).toEqual({ requeued: 0, failed: 0, cancelled: 1 });
      expect(await getJob(ctx.db, job.id)).toMatchObject({ status: "cancelled", leaseOwner: null });
    });

    it("heartbeats extend only the owner's leases and report cancel requests and lost jobs", async () => {
      await enqueueJobs(ctx.db, jobsOf(2));
      const a = (await claimNextJob(ctx.db, "w1", 1000))!;
      const b = (await claimNextJob(ctx.db, "w2", 1000))!;
      await cancelJobGroup(ctx.db, "g1");
      const hb = await heartbeatJobs(ctx.db, "w1", [a.id, b.id], 5000);
      expect(hb.cancelRequested).toEqual([a.id]);
      expect(hb.lost).toEqual([b.id]);
      expect((await getJob(ctx.db, a.id))!.leaseExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 3000);
    });

    it("holds a group's concurrency limit however many claims race for it", async () => {
      await enqueueJobs(
        ctx.db,
        Array.from({ length: 12 }, (_, i) => ({ type: "live", groupKey: "run", payload: { i, groupConcurrency: 3 } })),
      );
      const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => claimNextJob(ctx.db, `w${i}`, 10_000, { types: ["live"] })));
      expect(claims.filter(Boolean)).toHaveLength(3);
      expect(new Set(claims.filter(Boolean).map((j) => j!.id)).size).toBe(3);
      expect(await countJobsByStatus(ctx.db, "run")).toMatchObject({ running: 3, queued: 9 });
    });
  });

  describe("worker", () => {
    it("runs every job exactly once with bounded concurrency and reports progress", async () => {
      await enqueueJobs(ctx.db, jobsOf(40));
      let now = 0;
      let max = 0;
      const seen: number[] = [];
      const summary = await runWorker({
        db: ctx.db,
        concurrency: 5,
        untilIdle: true,
        pollMs: 10,
        handlers: {
          "test.echo": async ({ job, reportProgress }) => {
            now++;
            max = Math.max(max, now);
            reportProgress({ half: true });
            // Stay until every slot is taken (or half a second passed, at the end of the queue), so the test sees whether
            // the worker ever runs more than five at once, however long a claim takes on a busy database server.
            for (let waited = 0; now < 5 && waited < 500; waited += 5) await new Promise((r) => setTimeout(r, 5));
            now--;
            seen.push((job.payload as { i: number }).i);
            return { double: (job.payload as { i: number }).i * 2 };
          },
        },
      });
      expect(summary.succeeded).toBe(40);
      expect(max).toBe(5);
      expect(seen.sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      const rows = await listJobs(ctx.db, { groupKey: "g1" });
      expect(rows.every((r) => r.status === "succeeded" && r.attempts === 1 && r.leaseOwner === null)).toBe(true);
      expect(rows[3]!.result).toEqual({ double: 6 });
      expect(rows[3]!.progress).toEqual({ half: true });
      expect(await groupProgress(ctx.db, "g1")).toMatchObject({ done: 40, remaining: 0, etaSeconds: 0 });
    });

    it("requeues retryable failures with a delay and fails the others with their message", async () => {
      await enqueueJobs(ctx.db, [
        { type: "flaky", groupKey: "g", payload: "flaky", maxAttempts: 3 },
        { type: "broken", groupKey: "g", payload: "broken", maxAttempts: 3 },
      ]);
      let flakyCalls = 0;
      const summary = await runWorker({
        db: ctx.db,
        concurrency: 2,
        untilIdle: true,
        pollMs: 10,
        handlers: {
          flaky: async () => {
            flakyCalls++;
            if (flakyCalls < 3) throw new RetryableJobError("try later", 20);
            return "ok";
          },
          broken: async () => {
            throw new Error("bad input: field x");
          },
        },
      });
      expect(summary).toMatchObject({ succeeded: 1, failed: 1, requeued: 2 });
      const [flaky, broken] = await listJobs(ctx.db, { groupKey: "g" });
      expect(flaky).toMatchObject({ status: "succeeded", attempts: 3 });
      expect(broken).toMatchObject({ status: "failed", attempts: 1, error: "bad input: field x" });
      expect((await groupProgress(ctx.db, "g")).errors).toEqual([{ error: "bad input: field x", n: 1 }]);
    });

    it("cancels running work through its signal and queued work at once; resume requeues it", async () => {
      await enqueueJobs(ctx.db, jobsOf(6));
      let started = 0;
      const worker = runWorker({
        db: ctx.db,
        concurrency: 2,
        untilIdle: true,
        pollMs: 10,
        heartbeatMs: 20,
        handlers: {
          "test.echo": ({ signal }) =>
            new Promise((resolve, reject) => {
              started++;
              const t = setTimeout(resolve, 10_000);
              signal.addEventListener("abort", () => {
                clearTimeout(t);
                reject(signal.reason);
              });
            }),
        },
      });
      while (started < 2) await new Promise((r) => setTimeout(r, 5));
      const r = await cancelJobGroup(ctx.db, "g1");
      expect(r).toEqual({ cancelled: 4, signalled: 2 });
      const summary = await worker;
      expect(summary.cancelled).toBe(2);
      expect(await countJobsByStatus(ctx.db, "g1")).toMatchObject({ cancelled: 6, running: 0, queued: 0 });

      expect(await requeueJobGroup(ctx.db, "g1", { includeFailed: false })).toBe(6);
      const done = await runWorker({ db: ctx.db, concurrency: 3, untilIdle: true, pollMs: 10, handlers: { "test.echo": async () => "ok" } });
      expect(done.succeeded).toBe(6);
    });

    it("keeps a long job's lease alive by heartbeat, and takes over a dead worker's job after its lease", async () => {
      await enqueueJobs(ctx.db, [
        { type: "slow", payload: null },
        { type: "orphan", payload: null },
      ]);
      // A worker that claimed "orphan" and died.
      await claimNextJob(ctx.db, "dead", 400, { types: ["orphan"] });
      // The slow job runs until its lease has been renewed three times and it has outlived the lease it was claimed
      // with: only heartbeats can have kept it. Its worker polls for expired leases all the while (pollMs).
      const leaseMs = 1_000;
      let renewals = 0;
      const summary = await runWorker({
        db: ctx.db,
        concurrency: 2,
        untilIdle: true,
        pollMs: 20,
        leaseMs,
        heartbeatMs: 40,
        handlers: {
          slow: async ({ job }) => {
            const leaseOf = async () => (await listJobs(ctx.db)).find((r) => r.id === job.id)!.leaseExpiresAt!.getTime();
            const claimedUntil = await leaseOf();
            let last = claimedUntil;
            while (renewals < 3 || Date.now() <= claimedUntil) {
              await new Promise((r) => setTimeout(r, 20));
              const now = await leaseOf();
              if (now > last) renewals++;
              last = now;
            }
            return "slow done";
          },
          orphan: async () => "adopted",
        },
      });
      expect(renewals).toBeGreaterThanOrEqual(3);
      expect(summary.succeeded).toBe(2);
      const rows = await listJobs(ctx.db);
      expect(rows.find((r) => r.type === "slow")).toMatchObject({ status: "succeeded", attempts: 1 });
      expect(rows.find((r) => r.type === "orphan")).toMatchObject({ status: "succeeded", attempts: 2, result: "adopted" });
    });

    it("never hands one job to two processes (three worker processes on one database)", async () => {
      await enqueueJobs(ctx.db, jobsOf(90));
      const child = path.join(root, "tests", "helpers", "queue-worker-child.ts");
      const target = ctx.config.postgresUrl ?? ctx.config.dbPath;
      // Released together once all three are up, so a slow start cannot leave one process all the jobs.
      const outputs = (
        await runAtBarrier(["p1", "p2", "p3"].map((owner) => ({ command: process.execPath, args: ["--import", "tsx", child, target, owner], cwd: root })))
      ).map((out) => JSON.parse(out) as { succeeded: number; lost: number });
      const total = outputs.reduce((n, s) => n + s.succeeded, 0);
      expect(total).toBe(90);
      expect(outputs.every((s) => s.lost === 0)).toBe(true);
      const rows = await listJobs(ctx.db, { groupKey: "g1" });
      expect(rows.every((r) => r.status === "succeeded" && r.attempts === 1)).toBe(true);
      const owners = new Set(rows.map((r) => (r.result as { owner: string }).owner));
      expect(owners.size).toBeGreaterThan(1);
    });
  });
});
