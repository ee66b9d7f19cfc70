/**
 * The job queue's contract, run on every engine behind the JobQueue interface: the queue in the installation's own
 * database on SQLite always, and, when VERDICT_TEST_BACKENDS names postgres, the same queue on a real throwaway
 * PostgreSQL and pg-boss on another. The same worker code drives both, so a
 * judge batch, a live run or an import behaves the same wherever its jobs are kept.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobQueue } from "../../server/services/jobs/job-queue";
import { loadConfig } from "../../server/config";
import { createJobQueue } from "../../server/services/jobs/create-queue";
import { openPgBossJobQueue } from "../../server/services/jobs/pgboss-queue";
import { queueGroupProgress } from "../../server/services/jobs/queue";
import { DatabaseJobQueue } from "../../server/services/jobs/database-queue";
import { JobInterrupted, RetryableJobError, runWorker, type JobHandler } from "../../server/services/jobs/worker";
import { createBackendContext } from "../helpers/backends";
import { createTestContext } from "../helpers/context";
import { postgresSkipReason, testBackends, type TestPostgres } from "../helpers/postgres";
import { testPostgresServer } from "../helpers/run-postgres";

const root = path.resolve(__dirname, "..", "..");
const backends = testBackends();
const withPostgres = backends.includes("postgres") && postgresSkipReason() === null;
if (!backends.includes("postgres"))
  console.warn("Job queue contract: PostgreSQL (pg-boss) not tested; set VERDICT_TEST_BACKENDS=sqlite,postgres to include it");

let server: TestPostgres | null = null;
beforeAll(async () => {
  if (withPostgres) server = await testPostgresServer();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

interface Engine {
  name: string;
  engine: "sqlite" | "postgres";
  open(): Promise<{ queue: JobQueue; url?: string; cleanup(): Promise<void> }>;
}

const engines: Engine[] = [
  {
    name: "the SQLite database",
    engine: "sqlite",
    async open() {
      const ctx = createTestContext("verdict-queue-contract-");
      return { queue: new DatabaseJobQueue(ctx.db), cleanup: async () => ctx.cleanup() };
    },
  },
];
if (withPostgres) {
  engines.push({
    name: "the PostgreSQL database",
    engine: "postgres",
    async open() {
      const ctx = await createBackendContext("postgres", "verdict-queue-contract-");
      return { queue: new DatabaseJobQueue(ctx.db), url: ctx.config.postgresUrl, cleanup: async () => ctx.cleanup() };
    },
  });
  engines.push({
    name: "pg-boss",
    engine: "postgres",
    async open() {
      const url = await server!.createDatabase();
      const queue = await openPgBossJobQueue(url);
      return { queue, url, cleanup: () => queue.close() };
    },
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const jobsOf = (n: number, group = "g", type = "test.echo") =>
  Array.from({ length: n }, (_, i) => ({ type, groupKey: group, dedupeKey: `${group}:${i}`, payload: { i } }));

describe.each(engines)("job queue contract on $name", (engine) => {
  async function withQueue(fn: (queue: JobQueue) => Promise<void>) {
    const q = await engine.open();
    try {
      await fn(q.queue);
    } finally {
      await q.cleanup();
    }
  }

  it("enqueue → claim → complete, once; enqueue is idempotent on the dedupe key", async () => {
    await withQueue(async (queue) => {
      expect(await queue.enqueue(jobsOf(3))).toBe(3);
      expect(await queue.enqueue(jobsOf(4))).toBe(1);
      const job = (await queue.claimNext("w1", 10_000, { types: ["test.echo"] }))!;
      expect(job).toMatchObject({ status: "running", leaseOwner: "w1", attempts: 1, payload: { i: 0 }, groupKey: "g" });
      expect(await queue.complete(job.id, "w1", { ok: 1 })).toBe(true);
      expect(await queue.complete(job.id, "w1", { ok: 2 })).toBe(false);
      expect(await queue.getJob(job.id)).toMatchObject({ status: "succeeded", result: { ok: 1 }, leaseOwner: null });
      expect(await queue.claimNext("w1", 10_000, { types: ["other"] })).toBeUndefined();
      expect(await queue.countByStatus("g")).toMatchObject({ queued: 3, succeeded: 1, total: 4 });
      expect((await queue.list({ groupKey: "g", status: "queued" })).map((j) => j.payload)).toEqual([{ i: 1 }, { i: 2 }, { i: 3 }]);
    });
  });

  it("a lease that expires goes to another worker, and the late first worker's result is refused (exactly once)", async () => {
    await withQueue(async (queue) => {
      await queue.enqueue([{ type: "test.echo", groupKey: "g", payload: null }]);
      const first = (await queue.claimNext("w1", 50, { types: ["test.echo"] }))!;
      await sleep(120);
      expect(await queue.reclaimExpiredLeases()).toEqual({ requeued: 1, failed: 0, cancelled: 0 });
      const second = (await queue.claimNext("w2", 10_000, { types: ["test.echo"] }))!;
      expect(second).toMatchObject({ id: first.id, leaseOwner: "w2", attempts: 2 });
      expect(await queue.heartbeat("w1", [first.id], 10_000)).toEqual({ cancelRequested: [], lost: [first.id] });
      expect(await queue.complete(first.id, "w1", { by: "w1" })).toBe(false);
      expect(await queue.fail(first.id, "w1", "late", { retryable: true })).toBe("lost");
      expect(await queue.setProgress(first.id, "w1", { late: true })).toBe(false);
      expect(await queue.complete(second.id, "w2", { by: "w2" })).toBe(true);
      expect(await queue.getJob(first.id)).toMatchObject({ status: "succeeded", result: { by: "w2" }, attempts: 2 });
    });
  });

  it("cancelling a group cancels queued jobs at once and fires a running handler's signal at the next lease renewal", async () => {
    await withQueue(async (queue) => {
      await queue.enqueue(jobsOf(4, "batch", "test.wait"));
      let started!: () => void;
      const running = new Promise<void>((r) => (started = r));
      // Lease renewals (heartbeats) the worker began after the cancel, counted when the handler's signal fires.
      let cancelled = false;
      let renewalsAfterCancel = 0;
      let renewalsWhenSignalled = -1;
      const heartbeat = queue.heartbeat.bind(queue);
      queue.heartbeat = (...args: Parameters<typeof queue.heartbeat>) => {
        if (cancelled) renewalsAfterCancel++;
        return heartbeat(...args);
      };
      const handler: JobHandler = ({ signal }) =>
        new Promise((_, reject) => {
          started();
          signal.addEventListener("abort", () => {
            renewalsWhenSignalled = renewalsAfterCancel;
            reject(signal.reason);
          });
        });
      // The lease renews every third of its length: the cancel is seen at the first renewal after it (or by one
      // already on its way), which on a 2 s lease is within 2/3 s.
      const worker = runWorker({ queue, handlers: { "test.wait": handler }, concurrency: 1, leaseMs: 2_000, pollMs: 20, groupKey: "batch", untilIdle: true });
      await running;
      expect(await queue.cancelGroup("batch")).toEqual({ cancelled: 3, signalled: 1 });
      cancelled = true;
      const summary = await worker;
      expect(renewalsWhenSignalled).toBeGreaterThanOrEqual(0);
      expect(renewalsWhenSignalled).toBeLessThanOrEqual(1);
      expect(summary).toMatchObject({ cancelled: 1, succeeded: 0 });
      expect(await queue.countByStatus("batch")).toMatchObject({ cancelled: 4, total: 4 });
    });
  });

  it("resume requeues cancelled and failed jobs with fresh attempts, and they run", async () => {
    await withQueue(async (queue) => {
      await queue.enqueue(jobsOf(3, "r"));
      const doomed = (await queue.claimNext("w1", 10_000, { types: ["test.echo"] }))!;
      expect(await queue.fail(doomed.id, "w1", "bad input: field x", { retryable: false })).toBe("failed");
      expect(await queue.failedErrors("r")).toEqual([{ error: "bad input: field x", n: 1 }]);
      await queue.cancelGroup("r");
      expect(await queue.countByStatus("r")).toMatchObject({ failed: 1, cancelled: 2 });
      expect(await queue.requeueGroup("r", { includeFailed: false })).toBe(2);
      await queue.cancelGroup("r");
      expect(await queue.requeueGroup("r", { includeFailed: true })).toBe(3);
      const summary = await runWorker({ queue, handlers: { "test.echo": async ({ job }) => job.payload }, concurrency: 2, pollMs: 10, untilIdle: true });
      expect(summary.succeeded).toBe(3);
      const jobs = await queue.list({ groupKey: "r" });
      expect(jobs.every((j) => j.status === "succeeded" && j.attempts === 1 && !j.cancelRequested)).toBe(true);
    });
  });

  it("a retryable failure backs off, then succeeds on the next attempt", async () => {
    await withQueue(async (queue) => {
      await queue.enqueue([{ type: "test.flaky", groupKey: "f", payload: null, maxAttempts: 3 }]);
      const attemptsAt: number[] = [];
      const summary = await runWorker({
        queue,
        concurrency: 1,
        pollMs: 20,
        untilIdle: true,
        handlers: {
          "test.flaky": async ({ job }) => {
            attemptsAt.push(Date.now());
            if (job.attempts === 1) throw new RetryableJobError("model endpoint busy (429)", 400);
            return { attempt: job.attempts };
          },
        },
      });
      expect(summary).toMatchObject({ requeued: 1, succeeded: 1, failed: 0 });
      expect(attemptsAt).toHaveLength(2);
      expect(attemptsAt[1]! - attemptsAt[0]!).toBeGreaterThanOrEqual(390);
      const [job] = await queue.list({ groupKey: "f" });
      expect(job).toMatchObject({ status: "succeeded", attempts: 2, result: { attempt: 2 } });
    });
  });

  it("reports progress per job and a group's rate and ETA", async () => {
    await withQueue(async (queue) => {
      await queue.enqueue(jobsOf(12, "p"));
      const before = await queueGroupProgress(queue, "p");
      expect(before).toMatchObject({ done: 0, remaining: 12, ratePerSecond: null, etaSeconds: null });
      let midwayRead = null as ReturnType<typeof queueGroupProgress> | null;
      let finished = 0;
      await runWorker({
        queue,
        concurrency: 2,
        pollMs: 10,
        untilIdle: true,
        handlers: {
          "test.echo": async ({ job, reportProgress }) => {
            reportProgress({ step: 1, of: 1, i: (job.payload as { i: number }).i });
            await sleep(40);
            return null;
          },
        },
        onJobEnd: () => {
          if (++finished === 6) midwayRead = queueGroupProgress(queue, "p");
        },
      });
      const midway = await midwayRead;
      expect(midway).not.toBeNull();
      expect(midway!.ratePerSecond).toBeGreaterThan(0);
      expect(midway!.etaSeconds).toBeGreaterThan(0);
      expect(midway!.remaining).toBeGreaterThan(0);
      expect(await queueGroupProgress(queue, "p")).toMatchObject({ done: 12, remaining: 0, etaSeconds: 0 });
      const jobs = await queue.list({ groupKey: "p" });
      expect(jobs.map((j) => (j.progress as { i: number }).i)).toEqual(jobs.map((j) => (j.payload as { i: number }).i));
    });
  });

  it("a worker stopping returns its running job to the queue uncounted", async () => {
    await withQueue(async (queue) => {
      await queue.enqueue([{ type: "test.wait", groupKey: "s", payload: null }]);
      const stop = new AbortController();
      let reason: unknown;
      const worker = runWorker({
        queue,
        concurrency: 1,
        pollMs: 10,
        signal: stop.signal,
        handlers: {
          "test.wait": ({ signal }) =>
            new Promise((_, reject) => {
              signal.addEventListener("abort", () => reject((reason = signal.reason)));
              stop.abort();
            }),
        },
      });
      expect(await worker).toMatchObject({ released: 1 });
      expect(reason).toBeInstanceOf(JobInterrupted);
      expect((await queue.list({ groupKey: "s" }))[0]).toMatchObject({ status: "queued", attempts: 0, leaseOwner: null });
      const again = await queue.claimNext("w2", 10_000, { types: ["test.wait"] });
      expect(again?.attempts).toBe(1);
    });
  });
});

describe.skipIf(!withPostgres)("job queue on PostgreSQL across processes", () => {
  it("3 worker processes, 60 jobs, one killed mid-job: every job completes exactly once, none lost", async () => {
    const url = await server!.createDatabase();
    const queue = await openPgBossJobQueue(url);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query("create table queue_side_effects (id serial primary key, job_id int not null, worker text not null)");
      expect(await queue.enqueue(jobsOf(60, "mp", "test.count"))).toBe(60);
      const child = path.join(root, "tests", "helpers", "queue-contract-child.ts");
      const workers = ["w-a", "w-b", "w-victim"].map((owner) => {
        const proc = spawn(process.execPath, ["--import", "tsx", child, url, owner], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        proc.stdout.on("data", (d) => (stdout += d));
        proc.stderr.on("data", (d) => (stderr += d));
        // "close", not "exit": the summary the test reads from stdout may still be on its way when the process exits.
        const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
          proc.on("close", (code, signal) => resolve({ code, signal })),
        );
        return { owner, proc, exited, out: () => stdout, err: () => stderr };
      });
      const victim = workers[2]!;
      // Kill the victim once it has finished some jobs and holds others: mid-job, with no chance to clean up.
      let held: number[] = [];
      for (let i = 0; i < 600; i++) {
        const done = await admin.query("select count(*)::int as n from jobs where result->>'owner' = 'w-victim'");
        const running = await admin.query("select id from jobs where status = 'running' and lease_owner = 'w-victim'");
        if (done.rows[0].n >= 2 && running.rows.length > 0) {
          held = running.rows.map((r) => Number(r.id));
          break;
        }
        await sleep(10);
      }
      expect(held.length).toBeGreaterThan(0);
      victim.proc.kill("SIGKILL");
      expect(await victim.exited).toMatchObject({ signal: "SIGKILL" });
      const survivors = await Promise.all(workers.slice(0, 2).map(async (w) => ({ w, exit: await w.exited })));
      for (const { w, exit } of survivors) expect(exit, w.err()).toMatchObject({ code: 0 });

      const jobs = await queue.list({ groupKey: "mp" });
      expect(jobs).toHaveLength(60);
      expect(jobs.filter((j) => j.status !== "succeeded")).toEqual([]);
      // The victim's held jobs finished on a surviving worker, after their lease expired; one the victim itself
      // completed between that look and the kill stays its own, on its first attempt.
      let retaken = 0;
      for (const id of held) {
        const job = jobs.find((j) => j.id === id)!;
        const owner = (job.result as { owner: string }).owner;
        if (owner === "w-victim") {
          expect(job.attempts).toBe(1);
          continue;
        }
        expect(["w-a", "w-b"]).toContain(owner);
        expect(job.attempts).toBe(2);
        retaken++;
      }
      expect(retaken).toBeGreaterThan(0);
      // Exactly one recorded completion per job, matching a side effect by the worker that completed it; the only
      // repeated side effects are from the killed worker on jobs it held when it died.
      const effects = (await admin.query("select job_id, worker from queue_side_effects")).rows as { job_id: number; worker: string }[];
      for (const job of jobs) {
        const mine = effects.filter((e) => e.job_id === job.id);
        const owner = (job.result as { owner: string }).owner;
        expect(mine.filter((e) => e.worker === owner)).toHaveLength(1);
        for (const extra of mine.filter((e) => e.worker !== owner)) {
          expect(extra.worker).toBe("w-victim");
          expect(held).toContain(job.id);
        }
      }
      const summaries = survivors.map(({ w }) => JSON.parse(w.out()) as Record<string, number>);
      const completedBySurvivors = summaries.reduce((n, s) => n + s.succeeded!, 0);
      const completedByVictim = jobs.filter((j) => (j.result as { owner: string }).owner === "w-victim").length;
      expect(completedBySurvivors + completedByVictim).toBe(60);
    } finally {
      await admin.end();
      await queue.close();
    }
  }, 120_000);
});

describe("choosing the queue engine", () => {
  it("uses the SQLite file by default", async () => {
    const ctx = createTestContext("verdict-queue-factory-");
    try {
      const queue = await createJobQueue(loadConfig({ NODE_ENV: "test", VERDICT_DB: path.join(ctx.dir, "jobs.db") }));
      expect(queue.engine).toBe("sqlite");
      expect(await queue.enqueue([{ type: "t", payload: 1 }])).toBe(1);
      await queue.close();
    } finally {
      await ctx.cleanup();
    }
  });

  it.skipIf(!withPostgres)("uses pg-boss when VERDICT_DATABASE_URL is a postgres:// URL", async () => {
    const url = await server!.createDatabase();
    const queue = await createJobQueue(loadConfig({ NODE_ENV: "test", VERDICT_DATABASE_URL: url }));
    try {
      expect(queue.engine).toBe("postgres");
      expect(await queue.enqueue([{ type: "t", payload: 1 }])).toBe(1);
      expect(await queue.claimNext("w", 1000, { types: ["t"] })).toMatchObject({ payload: 1, status: "running" });
    } finally {
      await queue.close();
    }
  });
});
