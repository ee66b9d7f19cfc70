/**
 * The team engine: jobs on PostgreSQL, delivered by pg-boss 10, for workers spread over several machines.
 *
 * Two layers, each doing what it is good at:
 * - pg-boss carries deliveries: one pg-boss queue per job type, one delivery per job (sent in the same transaction
 *   that inserts the job), fetched with SKIP LOCKED so concurrent workers take different jobs at once, held back
 *   until a retry's backoff ends (`startAfter`), and re-delivered by pg-boss's own expiry if a worker dies between
 *   fetching a delivery and claiming its job.
 * - Verdict's `jobs` table (db/repositories/jobs-pg.ts) is the truth about each job: group, attempts, lease owner
 *   and expiry (renewed by the worker's heartbeat, which pg-boss 10 has no way to do), cancel flag, progress, result.
 *   Every write for a running job names its lease owner, so a late worker's result is refused (exactly once).
 *
 * A delivery is a permit to claim one job of its type: the claim itself (one fenced UPDATE on the table, under a
 * short advisory lock so a group's concurrency limit holds) picks which job, in priority then insertion order like
 * the SQLite queue, skipping cancelled, running, not-yet-due jobs and groups at their limit. A delivery that finds
 * nothing to claim is dropped. What is still queued without a delivery (a group-restricted worker, a group that
 * was at its limit, a job another worker claimed straight from the table) is claimed straight from the table, so
 * no job waits for a delivery that will not come.
 */
import PgBoss from "pg-boss";
import type pg from "pg";
import { closeDatabase, postgresPool, withTransaction, type Db } from "../../../db/database";
import { migratePostgres, openPostgresDatabase } from "../../../db/postgres";
import * as repo from "../../../db/repositories/jobs-pg";
import type { ClaimFilter, JobQueue, JobRow, JobStatus, NewJob } from "./job-queue";

interface Delivery {
  jobId: number;
}

/** pg-boss queue names allow letters, digits, `_` and `-`; job types use dots ("judge.verdict"). */
export function deliveryQueueName(type: string): string {
  return `verdict-${type.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

/** A delivery older than this without its job claimed was fetched by a worker that died; pg-boss re-delivers it. */
const DELIVERY_EXPIRE_SECONDS = 60;

export interface PgBossQueueOptions {
  /** The PostgreSQL database to use; the queue closes it on close() only when it opened it (see openPgBossJobQueue). */
  db: Db;
  ownsDb?: boolean;
}

export class PgBossJobQueue implements JobQueue {
  readonly engine = "postgres" as const;
  private readonly pool: pg.Pool;
  private readonly boss: PgBoss;
  private readonly knownQueues = new Set<string>();
  private readonly creatingQueues = new Map<string, Promise<void>>();
  private started = false;

  constructor(private readonly opts: PgBossQueueOptions) {
    this.pool = postgresPool(opts.db);
    this.boss = new PgBoss({
      // pg-boss runs its statements on Verdict's pool: one set of connections per process.
      db: { executeSql: (text: string, values: unknown[]) => this.pool.query(text, values) },
      schedule: false,
      // Deliveries are claimed within milliseconds; finished ones are of no use afterwards.
      retentionDays: 1,
      deleteAfterHours: 1,
    });
    this.boss.on("error", (e: Error) => console.error(`pg-boss: ${e.message}`));
  }

  /** Creates pg-boss's schema (once per database, under its own lock) and starts its maintenance. */
  async start(): Promise<this> {
    if (!this.started) {
      await this.boss.start();
      this.started = true;
    }
    return this;
  }

  private async ensureQueue(type: string): Promise<string> {
    const name = deliveryQueueName(type);
    if (this.knownQueues.has(name)) return name;
    // One creation per queue in this process: parallel first enqueues of a type (two uploads at once) would otherwise
    // each create it, and PostgreSQL may end one of them as a deadlock.
    let pending = this.creatingQueues.get(name);
    if (!pending) {
      pending = this.createQueue(name).finally(() => this.creatingQueues.delete(name));
      this.creatingQueues.set(name, pending);
    }
    await pending;
    this.knownQueues.add(name);
    return name;
  }

  private async createQueue(name: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      if (await this.boss.getQueue(name)) return;
      try {
        await this.boss.createQueue(name, { name, retryLimit: 5, retryDelay: 1, expireInSeconds: DELIVERY_EXPIRE_SECONDS });
        return;
      } catch (e) {
        // Another process created it at the same moment: its transaction may not have committed yet, or the two
        // deadlocked and this one was ended. Look again after a pause.
        if (attempt >= 5) {
          if (await this.boss.getQueue(name)) return;
          throw e;
        }
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  }

  private async deliver(jobs: { id: number; type: string; priority: number; runAfter: Date }[], client?: repo.PgQueryable): Promise<void> {
    if (jobs.length === 0) return;
    for (const type of new Set(jobs.map((j) => j.type))) await this.ensureQueue(type);
    const db = client ? { executeSql: (text: string, values: unknown[]) => client.query(text, values) } : undefined;
    for (let i = 0; i < jobs.length; i += 1000) {
      await this.boss.insert(
        jobs.slice(i, i + 1000).map((j) => ({
          name: deliveryQueueName(j.type),
          data: { jobId: j.id } satisfies Delivery,
          priority: j.priority,
          startAfter: j.runAfter.toISOString(),
          expireInSeconds: DELIVERY_EXPIRE_SECONDS,
        })),
        db ? { db } : {},
      );
    }
  }

  /**
   * Inserts the jobs and their deliveries in one transaction: the caller's, when it enqueues inside
   * `withTransaction` (a judge batch with its jobs), otherwise one of its own.
   */
  async enqueue(items: NewJob[]): Promise<number> {
    if (items.length === 0) return 0;
    for (const type of new Set(items.map((j) => j.type))) await this.ensureQueue(type);
    const db = this.opts.db;
    return withTransaction(db, async () => {
      const q = repo.queryableOf(db);
      const created = await repo.insertJobs(q, items);
      await this.deliver(created, q);
      return created.length;
    });
  }

  async claimNext(owner: string, leaseMs: number, filter: ClaimFilter = {}): Promise<JobRow | undefined> {
    if (filter.types && filter.types.length === 0) return undefined;
    if (filter.groupKey === undefined && filter.types) {
      for (const type of filter.types) {
        const name = await this.ensureQueue(type);
        for (;;) {
          const [delivery] = await this.boss.fetch<Delivery>(name, { batchSize: 1, priority: true });
          if (!delivery) break;
          // The delivery is a permit to claim one job of its type; the table decides which (priority, then
          // insertion order, as on SQLite), so deliveries fetched out of order do not reorder the work.
          const job = await repo.claimJobPg(this.pool, owner, leaseMs, { ...filter, types: [type] });
          await this.boss.complete(name, delivery.id);
          if (job) return job;
        }
      }
    }
    return repo.claimJobPg(this.pool, owner, leaseMs, filter);
  }

  async heartbeat(owner: string, ids: number[], leaseMs: number) {
    return repo.heartbeatJobsPg(this.pool, owner, ids, leaseMs);
  }
  async setProgress(id: number, owner: string, progress: unknown) {
    return repo.setJobProgressPg(this.pool, id, owner, progress);
  }
  async complete(id: number, owner: string, result: unknown) {
    return repo.completeJobPg(this.pool, id, owner, result);
  }

  async fail(id: number, owner: string, error: string, opts: { retryable: boolean; retryAfterMs?: number; result?: unknown }) {
    const { outcome, job } = await repo.failJobPg(this.pool, id, owner, error, opts);
    // pg-boss holds the next attempt's delivery until the backoff ends.
    if (outcome === "requeued" && job) await this.deliver([job]);
    return outcome;
  }

  async markCancelled(id: number, owner: string) {
    return repo.markJobCancelledPg(this.pool, id, owner);
  }

  async release(id: number, owner: string) {
    const job = await repo.releaseJobPg(this.pool, id, owner);
    if (job?.status === "queued") await this.deliver([job]);
    return job !== undefined;
  }

  async reclaimExpiredLeases() {
    const { requeued, counts } = await repo.reclaimExpiredLeasesPg(this.pool);
    await this.deliver(requeued);
    return counts;
  }

  async cancelGroup(groupKey: string) {
    return repo.cancelJobGroupPg(this.pool, groupKey);
  }
  async requestCancel(id: number) {
    return repo.requestJobCancelPg(this.pool, id);
  }

  async requeueGroup(groupKey: string, opts: { includeFailed: boolean }) {
    const jobs = await repo.requeueJobGroupPg(this.pool, groupKey, opts);
    await this.deliver(jobs);
    return jobs.length;
  }

  async countByStatus(groupKey: string) {
    return repo.countJobsByStatusPg(this.pool, groupKey);
  }
  async recentFinishRate(groupKey: string, windowMs = 60_000) {
    return repo.recentFinishRatePg(this.pool, groupKey, windowMs);
  }
  async failedErrors(groupKey: string, limit = 10) {
    return repo.failedJobErrorsPg(this.pool, groupKey, limit);
  }
  async hasPending(filter: ClaimFilter) {
    return repo.hasPendingJobsPg(this.pool, filter);
  }
  async nextRunAfter(filter: ClaimFilter) {
    return repo.nextRunAfterPg(this.pool, filter);
  }
  async getJob(id: number) {
    return repo.getJobPg(this.pool, id);
  }
  async list(filter: { groupKey?: string; status?: JobStatus; limit?: number } = {}) {
    return repo.listJobsPg(this.pool, filter);
  }

  async close(): Promise<void> {
    if (this.started) {
      this.started = false;
      await this.boss.stop({ graceful: false, wait: true, close: false });
    }
    if (this.opts.ownsDb) await closeDatabase(this.opts.db);
  }
}

/** Opens `url`, applies Verdict's PostgreSQL migrations (safe from many processes at once) and starts pg-boss. */
export async function openPgBossJobQueue(url: string, options: { maxConnections?: number } = {}): Promise<PgBossJobQueue> {
  const { db, raw } = openPostgresDatabase(url, { maxConnections: options.maxConnections });
  try {
    await migratePostgres(raw);
    return await new PgBossJobQueue({ db, ownsDb: true }).start();
  } catch (e) {
    await closeDatabase(db).catch(() => {});
    throw e;
  }
}
