/**
 * The embedded engine: the job queue in the installation's SQLite file (db/repositories/jobs.ts), behind the
 * asynchronous JobQueue interface. Each call runs synchronously on the shared connection, as before.
 */
import type { Db } from "../../../db/client";
import * as repo from "../../../db/repositories/jobs";
import type { ClaimFilter, JobQueue, JobStatus } from "./job-queue";

export class SqliteJobQueue implements JobQueue {
  readonly engine = "sqlite" as const;

  constructor(readonly db: Db) {}

  async enqueue(items: repo.NewJob[]) {
    return repo.enqueueJobs(this.db, items);
  }
  async claimNext(owner: string, leaseMs: number, filter: ClaimFilter = {}) {
    return repo.claimNextJob(this.db, owner, leaseMs, filter);
  }
  async heartbeat(owner: string, ids: number[], leaseMs: number) {
    return repo.heartbeatJobs(this.db, owner, ids, leaseMs);
  }
  async setProgress(id: number, owner: string, progress: unknown) {
    return repo.setJobProgress(this.db, id, owner, progress);
  }
  async complete(id: number, owner: string, result: unknown) {
    return repo.completeJob(this.db, id, owner, result);
  }
  async fail(id: number, owner: string, error: string, opts: { retryable: boolean; retryAfterMs?: number }) {
    return repo.failJob(this.db, id, owner, error, opts);
  }
  async markCancelled(id: number, owner: string) {
    return repo.markJobCancelled(this.db, id, owner);
  }
  async release(id: number, owner: string) {
    return repo.releaseJob(this.db, id, owner);
  }
  async reclaimExpiredLeases() {
    return repo.reclaimExpiredLeases(this.db);
  }
  async cancelGroup(groupKey: string) {
    return repo.cancelJobGroup(this.db, groupKey);
  }
  async requestCancel(id: number) {
    return repo.requestJobCancel(this.db, id);
  }
  async requeueGroup(groupKey: string, opts: { includeFailed: boolean }) {
    return repo.requeueJobGroup(this.db, groupKey, opts);
  }
  async countByStatus(groupKey: string) {
    return repo.countJobsByStatus(this.db, groupKey);
  }
  async recentFinishRate(groupKey: string, windowMs = 60_000) {
    return repo.recentFinishRate(this.db, groupKey, windowMs);
  }
  async failedErrors(groupKey: string, limit = 10) {
    return repo.failedJobErrors(this.db, groupKey, limit);
  }
  async hasPending(filter: ClaimFilter) {
    return repo.hasPendingJobs(this.db, filter);
  }
  async nextRunAfter(filter: ClaimFilter) {
    return repo.nextRunAfter(this.db, filter);
  }
  async getJob(id: number) {
    return repo.getJob(this.db, id);
  }
  async list(filter: { groupKey?: string; status?: JobStatus; limit?: number } = {}) {
    return repo.listJobs(this.db, filter);
  }
  /** The connection belongs to the caller, who closes it. */
  async close() {}
}
