/**
 * The job queue kept in the installation's own database (db/repositories/jobs.ts), behind the JobQueue interface:
 * the embedded SQLite file by default, or the team's PostgreSQL database when the installation runs on it. Judge
 * batches, live runs and imports enqueue and work through it on either engine with the same code.
 */
import { dialectOf, type Db } from "../../../db/database";
import * as repo from "../../../db/repositories/jobs";
import type { ClaimFilter, JobQueue, JobStatus } from "./job-queue";

export class DatabaseJobQueue implements JobQueue {
  readonly engine: "sqlite" | "postgres";

  constructor(readonly db: Db) {
    this.engine = dialectOf(db);
  }

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
  async fail(id: number, owner: string, error: string, opts: { retryable: boolean; retryAfterMs?: number; result?: unknown }) {
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
