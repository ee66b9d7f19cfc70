/**
 * One job-queue interface with two engines: the embedded SQLite queue (the quick start's default) and pg-boss on
 * PostgreSQL (a team deployment where workers run on several machines). The worker (./worker.ts) and the group
 * operations (./queue.ts) speak only to this interface, so judge batches, live runs and imports behave the same on
 * both.
 *
 * Every call that acts for a running job names the worker that holds its lease (`owner`); an engine refuses it once
 * the lease has moved on (expired and taken by another worker), so a job's result is recorded exactly once.
 */
import type { JobCounts, NewJob } from "../../../db/repositories/jobs";
import type { JobRow, JobStatus } from "../../../db/schema/index";

export type { JobCounts, NewJob, JobRow, JobStatus };

export interface ClaimFilter {
  /** Only jobs of these types (the handlers a worker has); an empty list claims nothing. */
  types?: string[];
  /** Only jobs of one group (a judge batch, a live run). */
  groupKey?: string;
}

export type FailOutcome = "requeued" | "failed" | "lost";

export interface JobQueue {
  /** "sqlite" or "postgres": which engine holds the jobs. */
  readonly engine: "sqlite" | "postgres";
  /** Adds jobs, skipping any whose dedupe key exists already; resolves to how many were created. */
  enqueue(items: NewJob[]): Promise<number>;
  /** Takes the next claimable job (queued, due, not cancelled, highest priority first) for `owner`, with a lease. */
  claimNext(owner: string, leaseMs: number, filter?: ClaimFilter): Promise<JobRow | undefined>;
  /** Renews `owner`'s leases on `ids`; reports which were asked to stop and which `owner` no longer holds. */
  heartbeat(owner: string, ids: number[], leaseMs: number): Promise<{ cancelRequested: number[]; lost: number[] }>;
  /** False when `owner` no longer holds the job. */
  setProgress(id: number, owner: string, progress: unknown): Promise<boolean>;
  /** Records the result; false (and nothing written) when `owner` no longer holds the job. */
  complete(id: number, owner: string, result: unknown): Promise<boolean>;
  /**
   * A retryable failure goes back to the queue after `retryAfterMs` while attempts remain; otherwise failed, with
   * `result` kept when given (a refused job's details).
   */
  fail(id: number, owner: string, error: string, opts: { retryable: boolean; retryAfterMs?: number; result?: unknown }): Promise<FailOutcome>;
  /** Ends a held job as cancelled (its handler saw the cancel and stopped). */
  markCancelled(id: number, owner: string): Promise<boolean>;
  /** Gives a held job back without counting the attempt (its worker is stopping; the work did not fail). */
  release(id: number, owner: string): Promise<boolean>;
  /** Running jobs whose lease ran out: requeued while attempts remain, else failed; cancelled when asked. */
  reclaimExpiredLeases(): Promise<{ requeued: number; failed: number; cancelled: number }>;
  /** Queued jobs of the group are cancelled at once; running ones see the flag at their worker's next heartbeat. */
  cancelGroup(groupKey: string): Promise<{ cancelled: number; signalled: number }>;
  /** Cancels one job the same way; resolves to its status before the cancel, undefined when there is no such job. */
  requestCancel(id: number): Promise<JobStatus | undefined>;
  /** Puts a group's cancelled (and, when asked, failed) jobs back in the queue with fresh attempts. */
  requeueGroup(groupKey: string, opts: { includeFailed: boolean }): Promise<number>;
  countByStatus(groupKey: string): Promise<JobCounts>;
  /** Jobs of the group ended per second over the last `windowMs`; null before any ended. */
  recentFinishRate(groupKey: string, windowMs?: number): Promise<number | null>;
  /** Error messages of the group's failed jobs, most frequent first. */
  failedErrors(groupKey: string, limit?: number): Promise<{ error: string; n: number }[]>;
  /** Whether any job matching the filter is queued or running, by any worker. */
  hasPending(filter: ClaimFilter): Promise<boolean>;
  /** Soonest time a queued job matching the filter becomes claimable (to sleep through a backoff). */
  nextRunAfter(filter: ClaimFilter): Promise<Date | undefined>;
  getJob(id: number): Promise<JobRow | undefined>;
  list(filter?: { groupKey?: string; status?: JobStatus; limit?: number }): Promise<JobRow[]>;
  /** Stops the engine's background work and closes what this queue opened. */
  close(): Promise<void>;
}
