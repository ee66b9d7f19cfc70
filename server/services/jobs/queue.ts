/**
 * Queue operations on groups of jobs (a judge batch, a live run): enqueue, progress with ETA, cancel, resume.
 * Workers live in ./worker.ts.
 */
import type { Db } from "../../../db/client";
import {
  cancelJobGroup,
  countJobsByStatus,
  enqueueJobs,
  failedJobErrors,
  recentFinishRate,
  requeueJobGroup,
  type JobCounts,
  type NewJob,
} from "../../../db/repositories/jobs";

export { enqueueJobs, type NewJob };

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

export function groupProgress(db: Db, groupKey: string, now = new Date()): GroupProgress {
  const counts = countJobsByStatus(db, groupKey);
  const remaining = counts.queued + counts.running;
  const rate = remaining > 0 ? recentFinishRate(db, groupKey, 60_000, now) : null;
  return {
    counts,
    done: counts.succeeded + counts.failed + counts.cancelled,
    remaining,
    ratePerSecond: rate,
    etaSeconds: remaining === 0 ? 0 : rate ? Math.ceil(remaining / rate) : null,
    errors: counts.failed > 0 ? failedJobErrors(db, groupKey) : [],
  };
}

/** Queued jobs are cancelled at once; running ones stop at their worker's next heartbeat. */
export function cancelGroup(db: Db, groupKey: string) {
  return cancelJobGroup(db, groupKey);
}

/** Requeues what a cancel (and, when asked, failures) left undone. Returns the number of jobs requeued. */
export function resumeGroup(db: Db, groupKey: string, opts: { includeFailed: boolean } = { includeFailed: true }): number {
  return requeueJobGroup(db, groupKey, opts);
}
