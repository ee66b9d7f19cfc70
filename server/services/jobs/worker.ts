/**
 * A job worker: claims jobs from the SQLite queue and runs their handlers with bounded concurrency.
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
import type { Db } from "../../../db/client";
import {
  claimNextJob,
  completeJob,
  failJob,
  hasPendingJobs,
  heartbeatJobs,
  markJobCancelled,
  nextRunAfter,
  reclaimExpiredLeases,
  releaseJob,
  setJobProgress,
  type ClaimFilter,
} from "../../../db/repositories/jobs";
import type { JobRow } from "../../../db/schema/index";

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
  db: Db;
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
}

export type WorkerSummary = Record<JobOutcome, number>;

type StopReason = "cancel" | "lost" | "stop";

interface ActiveJob {
  job: JobRow;
  controller: AbortController;
  reason?: StopReason;
}

export function defaultWorkerId(): string {
  return `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString("hex")}`;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export async function runWorker(opts: WorkerOptions): Promise<WorkerSummary> {
  const { db, handlers } = opts;
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

  function abort(a: ActiveJob, reason: StopReason) {
    if (a.reason) return;
    a.reason = reason;
    a.controller.abort(
      new JobInterrupted(reason, `job ${a.job.id} ${reason === "cancel" ? "cancelled" : reason === "lost" ? "lease lost" : "interrupted: worker stopping"}`),
    );
  }

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
          if (!setJobProgress(db, job.id, owner, p)) abort(a, "lost");
        },
      });
      if (a.reason === "cancel") end(job, markJobCancelled(db, job.id, owner) ? "cancelled" : "lost");
      else if (a.reason === "stop") end(job, releaseJob(db, job.id, owner) ? "released" : "lost");
      else end(job, completeJob(db, job.id, owner, result ?? null) ? "succeeded" : "lost");
    } catch (e) {
      const message = errorText(e);
      if (a.reason === "cancel") end(job, markJobCancelled(db, job.id, owner) ? "cancelled" : "lost");
      else if (a.reason === "stop") end(job, releaseJob(db, job.id, owner) ? "released" : "lost");
      else if (a.reason === "lost") end(job, "lost", message);
      else {
        const retryable = e instanceof RetryableJobError;
        const delay = retryable ? (e.retryAfterMs ?? retryDelay(job.attempts)) : 0;
        const r = failJob(db, job.id, owner, message, { retryable, retryAfterMs: delay });
        end(job, r, message);
      }
    } finally {
      active.delete(job.id);
      poke();
    }
  }

  const beat = () => {
    try {
      const ids = [...active.keys()];
      const { cancelRequested, lost } = heartbeatJobs(db, owner, ids, leaseMs);
      for (const id of cancelRequested) {
        const a = active.get(id);
        if (a) abort(a, "cancel");
      }
      for (const id of lost) {
        const a = active.get(id);
        if (a) abort(a, "lost");
      }
      if (reclaimExpiredLeases(db).requeued > 0) poke();
    } catch {
      // A busy database delays one beat; the next one retries.
    }
  };
  const timer = setInterval(beat, heartbeatMs);
  timer.unref?.();

  try {
    reclaimExpiredLeases(db);
    for (;;) {
      if (stopped()) break;
      while (active.size < concurrency && !stopped()) {
        const job = claimNextJob(db, owner, leaseMs, filter);
        if (!job) break;
        const a: ActiveJob = { job, controller: new AbortController() };
        if (job.cancelRequested) abort(a, "cancel");
        active.set(job.id, a);
        const p = execute(a);
        running.add(p);
        void p.finally(() => running.delete(p));
      }
      if (opts.untilIdle && active.size === 0 && !hasPendingJobs(db, filter)) break;
      let waitMs = pollMs;
      if (active.size < concurrency) {
        const due = nextRunAfter(db, filter);
        if (due) waitMs = Math.max(5, Math.min(pollMs, due.getTime() - Date.now()));
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          wake = null;
          resolve();
        }, waitMs);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
    await Promise.allSettled([...running]);
  } finally {
    clearInterval(timer);
    opts.signal?.removeEventListener("abort", onStop);
  }
  return summary;
}
