/**
 * A job worker: claims jobs from a queue (the installation's queue by default: pg-boss on PostgreSQL, the SQLite
 * file's queue otherwise; or any JobQueue given) and runs their handlers with bounded concurrency. The same code
 * drives both engines.
 *
 * - A freed slot claims the next job at once (no polling delay while work is available); when nothing is
 *   claimable the worker sleeps until the next backoff ends or `pollMs`, whichever is sooner.
 * - One heartbeat timer renews the leases of all running jobs, picks up cancel flags (set from any process)
 *   and takes back expired leases of dead workers.
 * - A handler gets an AbortSignal that fires when its job is cancelled, its lease is lost, or the worker stops.
 *   Cancelled jobs end as "cancelled"; jobs interrupted by a worker stop go back to the queue uncounted.
 */
import crypto from "node:crypto";
import os from "node:os";
import { isDatabaseBusy, type Db } from "../../../db/client";
import type { JobRow } from "../../../db/schema/index";
import type { ClaimFilter, JobQueue } from "./job-queue";
import { queueFor } from "./installation-queue";

/** Thrown by a handler for a failure worth another attempt later (the job is requeued while attempts remain). */
export class RetryableJobError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "RetryableJobError";
  }
}

/**
 * Thrown by a handler that finished its look at the work and refuses it as asked (an import with nothing
 * importable): the job ends failed, never retried, with `details` kept as its result for whoever reads the job
 * (the Import page lists every skipped file from them).
 */
export class JobRefusedError extends Error {
  constructor(
    message: string,
    readonly details: unknown,
  ) {
    super(message);
    this.name = "JobRefusedError";
  }
}

/** The abort reason a handler's signal carries: why the job must stop. */
export class JobInterrupted extends Error {
  constructor(
    readonly why: "cancel" | "lost" | "stop",
    message: string,
  ) {
    super(message);
    this.name = "JobInterrupted";
  }
}

export interface JobContext {
  job: JobRow;
  /** Fires when the job is cancelled, its lease is lost or the worker stops; pass it to every slow call. */
  signal: AbortSignal;
  reportProgress(progress: unknown): void;
}

export type JobHandler = (ctx: JobContext) => Promise<unknown>;

export type JobOutcome = "succeeded" | "failed" | "requeued" | "cancelled" | "released" | "lost";

export interface WorkerOptions {
  /** The installation's database whose queue (queueFor) to work on, when `queue` is not given. */
  db?: Db;
  /** The queue engine to work on; takes precedence over `db`. */
  queue?: JobQueue;
  handlers: Record<string, JobHandler>;
  concurrency: number;
  /** Identifies this worker in leases; defaults to host:pid:random. */
  owner?: string;
  /** Restrict to one group of jobs (a batch, a run). */
  groupKey?: string;
  leaseMs?: number;
  heartbeatMs?: number;
  pollMs?: number;
  /** Return once no job matching the filter is queued or running anywhere. Otherwise run until `signal` aborts. */
  untilIdle?: boolean;
  /** Stops the worker; running jobs are interrupted and returned to the queue. */
  signal?: AbortSignal;
  /** Delay before a requeued attempt (RetryableJobError without its own delay). */
  retryDelayMs?: (attempt: number) => number;
  onJobEnd?: (job: JobRow, outcome: JobOutcome, error?: string) => void;
  /**
   * Told when the queue could not be read because the database is busy or unreachable (a long write by an import in
   * another process, PostgreSQL restarting): the worker waits and tries again instead of stopping. Called once per
   * spell of trouble, and again (`recovered`) when the queue answers.
   */
  onQueueTrouble?: (event: { recovered: boolean; error?: string }) => void;
}

export type WorkerSummary = Record<JobOutcome, number>;

type StopReason = "cancel" | "lost" | "stop";

interface ActiveJob {
  job: JobRow;
  controller: AbortController;
  reason?: StopReason;
  /**
   * The job's progress writes, one after another: on PostgreSQL each statement may take its own connection, so
   * unchained writes could land out of order, or after the result (and be refused, losing the final progress).
   */
  progressWrites: Promise<void>;
}

export function defaultWorkerId(): string {
  return `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString("hex")}`;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Connection-level failures of PostgreSQL and its driver: the server is restarting or out of reach for a moment. */
const POSTGRES_UNREACHABLE = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "57P01", "57P02", "57P03", "08000", "08001", "08003", "08006"]);

/**
 * Trouble that passes: SQLite's lock held by another process beyond the busy timeout, or PostgreSQL out of reach.
 * A worker waits these out; any other error is a fault and stops it.
 */
export function isPassingDatabaseTrouble(error: unknown): boolean {
  if (isDatabaseBusy(error)) return true;
  let e: unknown = error;
  for (let depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && POSTGRES_UNREACHABLE.has(code)) return true;
    if (e instanceof Error && /Connection terminated|timeout exceeded when trying to connect/i.test(e.message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** Longest pause between two tries while the database is busy or unreachable. */
const TROUBLE_MAX_WAIT_MS = 5_000;

function abort(a: ActiveJob, reason: StopReason): void {
  if (a.reason) return;
  a.reason = reason;
  a.controller.abort(
    new JobInterrupted(reason, `job ${a.job.id} ${reason === "cancel" ? "cancelled" : reason === "lost" ? "lease lost" : "interrupted: worker stopping"}`),
  );
}

/** Waits `ms`, or less when the function handed to `setWake` is called (work ended, a stop); `null` once it is spent. */
function pause(ms: number, setWake: (wake: (() => void) | null) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const t = setTimeout(() => {
      setWake(null);
      resolve();
    }, ms);
    setWake(() => {
      clearTimeout(t);
      resolve();
    });
  });
}

/**
 * A worker's loop meeting a lock held by another process (a long import, a CLI command) or a database restarting:
 * it waits a beat and tries again, longer each time, rather than end the worker and leave its queue unattended.
 * Reports when the trouble starts and when the queue answers again.
 */
function queueTrouble(pollMs: number, report: WorkerOptions["onQueueTrouble"]) {
  // Consecutive loop turns the queue could not be read; 0 while it answers.
  let troubled = 0;
  return {
    answered(): void {
      if (troubled > 0) report?.({ recovered: true });
      troubled = 0;
    },
    /** How long to wait before the next turn; rethrows what is not passing database trouble. */
    failed(e: unknown): number {
      if (!isPassingDatabaseTrouble(e)) throw e;
      if (troubled === 0) report?.({ recovered: false, error: errorText(e) });
      troubled++;
      return Math.min(TROUBLE_MAX_WAIT_MS, pollMs * 2 ** Math.min(troubled, 8));
    },
  };
}

export async function runWorker(opts: WorkerOptions): Promise<WorkerSummary> {
  const { handlers } = opts;
  if (!opts.queue && !opts.db) throw new Error("runWorker: pass `queue` (a JobQueue) or `db` (the installation's database)");
  // The installation's queue: pg-boss on PostgreSQL, the SQLite file's own queue otherwise.
  const queue: JobQueue = opts.queue ?? (await queueFor(opts.db!));
  const owner = opts.owner ?? defaultWorkerId();
  const leaseMs = opts.leaseMs ?? 60_000;
  const heartbeatMs = opts.heartbeatMs ?? Math.max(50, Math.min(1_000, Math.floor(leaseMs / 3)));
  const pollMs = opts.pollMs ?? 250;
  const concurrency = Math.max(1, Math.floor(opts.concurrency));
  const filter: ClaimFilter = { types: Object.keys(handlers), groupKey: opts.groupKey };
  const retryDelay = opts.retryDelayMs ?? ((attempt: number) => Math.min(60_000, 1_000 * 2 ** (attempt - 1)));
  const summary: WorkerSummary = { succeeded: 0, failed: 0, requeued: 0, cancelled: 0, released: 0, lost: 0 };
  const active = new Map<number, ActiveJob>();
  const running = new Set<Promise<void>>();

  let wake: (() => void) | null = null;
  const poke = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const stopped = () => opts.signal?.aborted === true;
  const onStop = () => {
    for (const a of active.values()) abort(a, "stop");
    poke();
  };
  opts.signal?.addEventListener("abort", onStop);

  function end(job: JobRow, outcome: JobOutcome, error?: string) {
    summary[outcome]++;
    opts.onJobEnd?.(job, outcome, error);
  }

  async function execute(a: ActiveJob): Promise<void> {
    const { job } = a;
    const handler = handlers[job.type]!;
    try {
      const result = await handler({
        job,
        signal: a.controller.signal,
        reportProgress: (p) => {
          // The handler goes on without waiting; a refused write means the lease moved to another worker.
          a.progressWrites = a.progressWrites
            .then(() => queue.setProgress(job.id, owner, p))
            .then(
              (held) => {
                if (!held) abort(a, "lost");
              },
              () => {},
            );
        },
      });
      await a.progressWrites;
      if (a.reason === "cancel") end(job, (await queue.markCancelled(job.id, owner)) ? "cancelled" : "lost");
      else if (a.reason === "stop") end(job, (await queue.release(job.id, owner)) ? "released" : "lost");
      else end(job, (await queue.complete(job.id, owner, result ?? null)) ? "succeeded" : "lost");
    } catch (e) {
      const message = errorText(e);
      await a.progressWrites;
      try {
        if (a.reason === "cancel") end(job, (await queue.markCancelled(job.id, owner)) ? "cancelled" : "lost");
        else if (a.reason === "stop") end(job, (await queue.release(job.id, owner)) ? "released" : "lost");
        else if (a.reason === "lost") end(job, "lost", message);
        else {
          const retryable = e instanceof RetryableJobError;
          const delay = retryable ? (e.retryAfterMs ?? retryDelay(job.attempts)) : 0;
          const result = e instanceof JobRefusedError ? e.details : undefined;
          const r = await queue.fail(job.id, owner, message, { retryable, retryAfterMs: delay, result });
          end(job, r, message);
        }
      } catch (recordError) {
        // The queue could not record the outcome (database unreachable): the lease runs out and the job is retried.
        end(job, "lost", `${message}; not recorded: ${errorText(recordError)}`);
      }
    } finally {
      active.delete(job.id);
      poke();
    }
  }

  let beating = false;
  const beat = async () => {
    // A slow database must not stack beats on top of each other.
    if (beating) return;
    beating = true;
    try {
      const ids = [...active.keys()];
      const { cancelRequested, lost } = await queue.heartbeat(owner, ids, leaseMs);
      for (const id of cancelRequested) {
        const a = active.get(id);
        if (a) abort(a, "cancel");
      }
      for (const id of lost) {
        const a = active.get(id);
        if (a) abort(a, "lost");
      }
      if ((await queue.reclaimExpiredLeases()).requeued > 0) poke();
    } catch {
      // A busy database delays one beat; the next one retries.
    } finally {
      beating = false;
    }
  };
  const timer = setInterval(() => void beat(), heartbeatMs);
  timer.unref?.();

  const trouble = queueTrouble(pollMs, opts.onQueueTrouble);
  try {
    try {
      await queue.reclaimExpiredLeases();
    } catch (e) {
      // The first heartbeat takes expired leases back once the database answers.
      if (!isPassingDatabaseTrouble(e)) throw e;
    }
    for (;;) {
      if (stopped()) break;
      let waitMs = pollMs;
      try {
        while (active.size < concurrency && !stopped()) {
          const job = await queue.claimNext(owner, leaseMs, filter);
          if (!job) break;
          const a: ActiveJob = { job, controller: new AbortController(), progressWrites: Promise.resolve() };
          if (job.cancelRequested) abort(a, "cancel");
          active.set(job.id, a);
          const p = execute(a);
          running.add(p);
          void p.finally(() => running.delete(p));
        }
        if (opts.untilIdle && active.size === 0 && !(await queue.hasPending(filter))) break;
        if (active.size < concurrency) {
          const due = await queue.nextRunAfter(filter);
          if (due) waitMs = Math.max(5, Math.min(pollMs, due.getTime() - Date.now()));
        }
        trouble.answered();
      } catch (e) {
        waitMs = trouble.failed(e);
      }
      await pause(waitMs, (w) => (wake = w));
    }
    await Promise.allSettled([...running]);
  } finally {
    clearInterval(timer);
    opts.signal?.removeEventListener("abort", onStop);
  }
  return summary;
}
