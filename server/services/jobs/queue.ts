/**
 * Queue operations on groups of jobs (a judge batch, a live run): enqueue, progress with ETA, cancel, resume.
 * Workers live in ./worker.ts.
 */
import type { Db } from "../../../db/database";
import type { JobQueue, JobRow, JobStatus } from "./job-queue";
import {
  cancelJobGroup,
  countJobsByStatus,
  enqueueJobs,
  failedJobErrors,
  isJobHeld,
  listJobs,
  recentFinishRate,
  requeueJobGroup,
  type JobCounts,
  type NewJob,
} from "../../../db/repositories/jobs";

export { enqueueJobs, isJobHeld, type NewJob };

/** A group's jobs in the order they were enqueued, optionally of one status. */
export async function jobsOfGroup(db: Db, groupKey: string, filter: { status?: JobStatus; limit?: number } = {}): Promise<JobRow[]> {
  return listJobs(db, { groupKey, ...filter });
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

export async function groupProgress(db: Db, groupKey: string, now = new Date()): Promise<GroupProgress> {
  const counts = await countJobsByStatus(db, groupKey);
  const rate = counts.queued + counts.running > 0 ? await recentFinishRate(db, groupKey, 60_000, now) : null;
  return progressFrom(counts, rate, counts.failed > 0 ? await failedJobErrors(db, groupKey) : []);
}

/** groupProgress on any queue engine (SQLite or pg-boss). */
export async function queueGroupProgress(queue: JobQueue, groupKey: string): Promise<GroupProgress> {
  const counts = await queue.countByStatus(groupKey);
  const rate = counts.queued + counts.running > 0 ? await queue.recentFinishRate(groupKey, 60_000) : null;
  return progressFrom(counts, rate, counts.failed > 0 ? await queue.failedErrors(groupKey) : []);
}

/** Queued jobs are cancelled at once; running ones stop at their worker's next heartbeat. */
export async function cancelGroup(db: Db, groupKey: string): Promise<{ cancelled: number; signalled: number }> {
  return cancelJobGroup(db, groupKey);
}

/** Requeues what a cancel (and, when asked, failures) left undone. Returns the number of jobs requeued. */
export async function resumeGroup(db: Db, groupKey: string, opts: { includeFailed: boolean } = { includeFailed: true }): Promise<number> {
  return requeueJobGroup(db, groupKey, opts);
}
