/**
 * Queue operations on groups of jobs (a judge batch, a live run): enqueue, progress with ETA, cancel, resume.
 * Workers live in ./worker.ts.
 */
import type { Db } from "../../../db/database";
import type { JobCounts, JobQueue, JobRow, JobStatus, NewJob } from "./job-queue";
import { queueFor } from "./installation-queue";

export { isJobHeld } from "../../../db/repositories/jobs";
export { queueFor, type NewJob };

/**
 * Adds jobs to the installation's queue (with their pg-boss deliveries on PostgreSQL), inside the caller's
 * transaction when there is one; resolves to how many were created (dedupe keys that exist are skipped).
 */
export async function enqueueJobs(db: Db, items: NewJob[]): Promise<number> {
  return (await queueFor(db)).enqueue(items);
}

/** A group's jobs in the order they were enqueued, optionally of one status. */
export async function jobsOfGroup(db: Db, groupKey: string, filter: { status?: JobStatus; limit?: number } = {}): Promise<JobRow[]> {
  return (await queueFor(db)).list({ groupKey, ...filter });
}

export interface GroupProgress {
  counts: JobCounts;
  /** succeeded + failed + cancelled */
  done: number;
  /** queued + running */
  remaining: number;
  /** Jobs finished per second over the last minute; null before any finished. */
  ratePerSecond: number | null;
  /** Seconds until the queued and running jobs are done at the recent rate; null when unknown. */
  etaSeconds: number | null;
  /** Most frequent errors of failed jobs. */
  errors: { error: string; n: number }[];
}

function progressFrom(counts: JobCounts, rate: number | null, errors: { error: string; n: number }[]): GroupProgress {
  const remaining = counts.queued + counts.running;
  return {
    counts,
    done: counts.succeeded + counts.failed + counts.cancelled,
    remaining,
    ratePerSecond: rate,
    etaSeconds: remaining === 0 ? 0 : rate ? Math.ceil(remaining / rate) : null,
    errors,
  };
}

/** A group's progress on the installation's queue. */
export async function groupProgress(db: Db, groupKey: string): Promise<GroupProgress> {
  return queueGroupProgress(await queueFor(db), groupKey);
}

/** groupProgress on any queue engine (SQLite or pg-boss). */
export async function queueGroupProgress(queue: JobQueue, groupKey: string): Promise<GroupProgress> {
  const counts = await queue.countByStatus(groupKey);
  const rate = counts.queued + counts.running > 0 ? await queue.recentFinishRate(groupKey, 60_000) : null;
  return progressFrom(counts, rate, counts.failed > 0 ? await queue.failedErrors(groupKey) : []);
}

/** Queued jobs are cancelled at once; running ones stop at their worker's next heartbeat. */
export async function cancelGroup(db: Db, groupKey: string): Promise<{ cancelled: number; signalled: number }> {
  return (await queueFor(db)).cancelGroup(groupKey);
}

/** Requeues what a cancel (and, when asked, failures) left undone. Returns the number of jobs requeued. */
export async function resumeGroup(db: Db, groupKey: string, opts: { includeFailed: boolean } = { includeFailed: true }): Promise<number> {
  return (await queueFor(db)).requeueGroup(groupKey, opts);
}

/** Cancels one job of the installation's queue; resolves to its status before the cancel (undefined: no such job). */
export async function cancelJob(db: Db, id: number): Promise<JobStatus | undefined> {
  return (await queueFor(db)).requestCancel(id);
}
