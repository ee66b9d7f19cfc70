/**
 * The job queue: every query on `jobs` lives here.
 *
 * Claiming is one `UPDATE … WHERE id = (SELECT … LIMIT 1) RETURNING *` inside an IMMEDIATE transaction, so two
 * workers (in this process or another one sharing the file) can never claim the same job. Every update made on
 * behalf of a running job names its lease owner, so a worker whose lease was taken away cannot overwrite the
 * job's new state.
 */
import { and, asc, count, desc, eq, inArray, lte, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../client";
import { jobs, type JobRow, type JobStatus } from "../schema/index";

export interface NewJob {
  type: string;
  payload: unknown;
  groupKey?: string | null;
  dedupeKey?: string | null;
  priority?: number;
  maxAttempts?: number;
  runAfter?: Date;
}

/** Inserts jobs, skipping any whose dedupe key already exists. Returns how many were created. */
export function enqueueJobs(db: Db, items: NewJob[]): number {
  if (items.length === 0) return 0;
  let created = 0;
  db.$client.transaction(() => {
    for (let i = 0; i < items.length; i += 200) {
      const rows = items.slice(i, i + 200).map((j) => ({
        type: j.type,
        // JSON null, not SQL NULL (the column is NOT NULL; drizzle writes a JS null as SQL NULL).
        payload: j.payload == null ? sql`'null'` : j.payload,
        groupKey: j.groupKey ?? null,
        dedupeKey: j.dedupeKey ?? null,
        priority: j.priority ?? 0,
        maxAttempts: j.maxAttempts ?? 3,
        ...(j.runAfter ? { runAfter: j.runAfter } : {}),
      }));
      created += db.insert(jobs).values(rows).onConflictDoNothing({ target: jobs.dedupeKey }).returning({ id: jobs.id }).all().length;
    }
  })();
  return created;
}

export function getJob(db: Db, id: number): JobRow | undefined {
  return db.select().from(jobs).where(eq(jobs.id, id)).get();
}

export interface ClaimFilter {
  types?: string[];
  groupKey?: string;
}

/**
 * The claim statement for one filter shape (with/without types, with/without group), built and prepared once per
 * connection: claiming runs once per job, and building and preparing the SQL each time cost more than running it.
 */
function buildClaimStatement(db: Db, hasTypes: boolean, hasGroup: boolean) {
  const conds: SQL[] = [
    eq(jobs.status, "queued"),
    sql`${jobs.runAfter} <= ${sql.placeholder("nowMs")}`,
    eq(jobs.cancelRequested, false),
  ];
  if (hasTypes) conds.push(sql`${jobs.type} in (select value from json_each(${sql.placeholder("types")}))`);
  if (hasGroup) conds.push(sql`${jobs.groupKey} = ${sql.placeholder("group")}`);
  // A job whose payload carries `groupConcurrency` waits while that many jobs of its group run (any worker):
  // a live run's concurrency holds however many workers share the queue.
  conds.push(
    sql`(json_extract(${jobs.payload}, '$.groupConcurrency') is null or (select count(*) from ${jobs} as r where r.group_key = ${jobs.groupKey} and r.status = 'running') < json_extract(${jobs.payload}, '$.groupConcurrency'))`,
  );
  const next = db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(...conds))
    .orderBy(desc(jobs.priority), asc(jobs.id))
    .limit(1);
  return db
    .update(jobs)
    .set({
      status: "running",
      leaseOwner: sql`${sql.placeholder("owner")}`,
      leaseExpiresAt: sql`${sql.placeholder("expiresMs")}`,
      attempts: sql`${jobs.attempts} + 1`,
      startedAt: sql`coalesce(${jobs.startedAt}, ${sql.placeholder("nowMs")})`,
      updatedAt: sql`${sql.placeholder("nowMs")}`,
      error: null,
    })
    // `id = (scalar subquery)` makes SQLite look the row up by rowid; `id IN (…)` made it scan every queued row.
    .where(and(eq(jobs.id, sql`(${next})`), eq(jobs.status, "queued")))
    .returning()
    .prepare();
}

type ClaimStatement = ReturnType<typeof buildClaimStatement>;
const claimStatements = new WeakMap<Db, Map<string, ClaimStatement>>();

function claimStatement(db: Db, hasTypes: boolean, hasGroup: boolean): ClaimStatement {
  let cache = claimStatements.get(db);
  if (!cache) claimStatements.set(db, (cache = new Map()));
  const key = `${hasTypes}:${hasGroup}`;
  let stmt = cache.get(key);
  if (!stmt) cache.set(key, (stmt = buildClaimStatement(db, hasTypes, hasGroup)));
  return stmt;
}

/** Atomically takes the next claimable job (queued, due, not cancelled) for `owner`, or returns undefined. */
export function claimNextJob(db: Db, owner: string, leaseMs: number, filter: ClaimFilter = {}, now = new Date()): JobRow | undefined {
  if (filter.types && filter.types.length === 0) return undefined;
  const stmt = claimStatement(db, filter.types !== undefined, filter.groupKey !== undefined);
  const params = {
    nowMs: now.getTime(),
    expiresMs: now.getTime() + leaseMs,
    owner,
    types: JSON.stringify(filter.types ?? []),
    group: filter.groupKey ?? null,
  };
  return db.$client.transaction(() => stmt.get(params)).immediate();
}

/**
 * Extends the leases of `ids` held by `owner` and reports which of them have been asked to stop and which the
 * owner no longer holds (lease expired and taken back).
 */
export function heartbeatJobs(
  db: Db,
  owner: string,
  ids: number[],
  leaseMs: number,
  now = new Date(),
): { cancelRequested: number[]; lost: number[] } {
  if (ids.length === 0) return { cancelRequested: [], lost: [] };
  const held = db
    .update(jobs)
    .set({ leaseExpiresAt: new Date(now.getTime() + leaseMs), updatedAt: now })
    .where(and(inArray(jobs.id, ids), eq(jobs.leaseOwner, owner), eq(jobs.status, "running")))
    .returning({ id: jobs.id, cancelRequested: jobs.cancelRequested })
    .all();
  const heldIds = new Set(held.map((h) => h.id));
  return {
    cancelRequested: held.filter((h) => h.cancelRequested).map((h) => h.id),
    lost: ids.filter((id) => !heldIds.has(id)),
  };
}

export function setJobProgress(db: Db, id: number, owner: string, progress: unknown): boolean {
  const r = db
    .update(jobs)
    .set({ progress, updatedAt: new Date() })
    .where(and(eq(jobs.id, id), eq(jobs.leaseOwner, owner), eq(jobs.status, "running")))
    .run();
  return r.changes > 0;
}

function finishWhere(id: number, owner: string) {
  return and(eq(jobs.id, id), eq(jobs.leaseOwner, owner), eq(jobs.status, "running"));
}

/** Marks a held job done. False when the lease was lost (someone else owns the job now). */
export function completeJob(db: Db, id: number, owner: string, result: unknown, now = new Date()): boolean {
  return (
    db
      .update(jobs)
      .set({ status: "succeeded", result: result ?? null, leaseOwner: null, leaseExpiresAt: null, finishedAt: now, updatedAt: now })
      .where(finishWhere(id, owner))
      .run().changes > 0
  );
}

/**
 * Records a failed attempt: back to the queue after `retryAfterMs` when attempts remain and the error is
 * retryable, otherwise failed for good.
 */
export function failJob(
  db: Db,
  id: number,
  owner: string,
  error: string,
  opts: { retryable: boolean; retryAfterMs?: number },
  now = new Date(),
): "requeued" | "failed" | "lost" {
  const row = db.select().from(jobs).where(finishWhere(id, owner)).get();
  if (!row) return "lost";
  const requeue = opts.retryable && row.attempts < row.maxAttempts && !row.cancelRequested;
  db.update(jobs)
    .set(
      requeue
        ? {
            status: "queued",
            error,
            leaseOwner: null,
            leaseExpiresAt: null,
            runAfter: new Date(now.getTime() + (opts.retryAfterMs ?? 0)),
            updatedAt: now,
          }
        : { status: "failed", error, leaseOwner: null, leaseExpiresAt: null, finishedAt: now, updatedAt: now },
    )
    .where(finishWhere(id, owner))
    .run();
  return requeue ? "requeued" : "failed";
}

/** Ends a held job as cancelled (the handler saw the cancel flag and stopped). */
export function markJobCancelled(db: Db, id: number, owner: string, now = new Date()): boolean {
  return (
    db
      .update(jobs)
      .set({ status: "cancelled", leaseOwner: null, leaseExpiresAt: null, finishedAt: now, updatedAt: now })
      .where(finishWhere(id, owner))
      .run().changes > 0
  );
}

/**
 * Running jobs whose lease ran out (their worker died or hung): requeued when attempts remain, failed otherwise,
 * with the reason recorded; jobs whose cancel was requested become cancelled. Returns the affected counts.
 */
export function reclaimExpiredLeases(db: Db, now = new Date()): { requeued: number; failed: number; cancelled: number } {
  return db.$client.transaction(() => {
    const expired = db
      .select({ id: jobs.id, owner: jobs.leaseOwner, attempts: jobs.attempts, maxAttempts: jobs.maxAttempts, cancel: jobs.cancelRequested })
      .from(jobs)
      .where(and(eq(jobs.status, "running"), lte(jobs.leaseExpiresAt, now)))
      .all();
    const out = { requeued: 0, failed: 0, cancelled: 0 };
    for (const j of expired) {
      const reason = `lease of worker ${j.owner ?? "?"} expired at attempt ${j.attempts}`;
      let set: Partial<typeof jobs.$inferInsert>;
      if (j.cancel) {
        set = { status: "cancelled", finishedAt: now };
        out.cancelled++;
      } else if (j.attempts < j.maxAttempts) {
        set = { status: "queued", runAfter: now };
        out.requeued++;
      } else {
        set = { status: "failed", finishedAt: now };
        out.failed++;
      }
      db.update(jobs)
        .set({ ...set, error: reason, leaseOwner: null, leaseExpiresAt: null, updatedAt: now })
        .where(and(eq(jobs.id, j.id), eq(jobs.status, "running")))
        .run();
    }
    return out;
  }).immediate();
}

/** Cancels a group: queued jobs become cancelled at once, running ones get the flag their worker polls. */
export function cancelJobGroup(db: Db, groupKey: string, now = new Date()): { cancelled: number; signalled: number } {
  return db.$client.transaction(() => {
    const cancelled = db
      .update(jobs)
      .set({ status: "cancelled", cancelRequested: true, finishedAt: now, updatedAt: now })
      .where(and(eq(jobs.groupKey, groupKey), eq(jobs.status, "queued")))
      .run().changes;
    const signalled = db
      .update(jobs)
      .set({ cancelRequested: true, updatedAt: now })
      .where(and(eq(jobs.groupKey, groupKey), eq(jobs.status, "running")))
      .run().changes;
    return { cancelled, signalled };
  }).immediate();
}

export function requestJobCancel(db: Db, id: number, now = new Date()): JobStatus | undefined {
  return db.$client.transaction(() => {
    const row = db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, id)).get();
    if (!row) return undefined;
    if (row.status === "queued") {
      db.update(jobs).set({ status: "cancelled", cancelRequested: true, finishedAt: now, updatedAt: now }).where(eq(jobs.id, id)).run();
      return "cancelled" as JobStatus;
    }
    if (row.status === "running") db.update(jobs).set({ cancelRequested: true, updatedAt: now }).where(eq(jobs.id, id)).run();
    return row.status;
  }).immediate();
}

/** Puts a group's cancelled (and, if asked, failed) jobs back in the queue with fresh attempts. */
export function requeueJobGroup(
  db: Db,
  groupKey: string,
  opts: { includeFailed: boolean },
  now = new Date(),
): number {
  const statuses: JobStatus[] = opts.includeFailed ? ["cancelled", "failed"] : ["cancelled"];
  return db
    .update(jobs)
    .set({
      status: "queued",
      cancelRequested: false,
      attempts: 0,
      error: null,
      runAfter: now,
      finishedAt: null,
      leaseOwner: null,
      leaseExpiresAt: null,
      updatedAt: now,
    })
    .where(
      and(
        eq(jobs.groupKey, groupKey),
        or(inArray(jobs.status, statuses), and(eq(jobs.status, "queued"), eq(jobs.cancelRequested, true))),
      ),
    )
    .run().changes;
}

export type JobCounts = Record<JobStatus, number> & { total: number };

export function countJobsByStatus(db: Db, groupKey: string): JobCounts {
  const rows = db
    .select({ status: jobs.status, n: count() })
    .from(jobs)
    .where(eq(jobs.groupKey, groupKey))
    .groupBy(jobs.status)
    .all();
  const out: JobCounts = { queued: 0, running: 0, succeeded: 0, failed: 0, cancelled: 0, total: 0 };
  for (const r of rows) {
    out[r.status] = r.n;
    out.total += r.n;
  }
  return out;
}

/** Whether any job matching the filter is still to run (queued or running, by any worker). */
export function hasPendingJobs(db: Db, filter: ClaimFilter): boolean {
  const conds: SQL[] = [inArray(jobs.status, ["queued", "running"])];
  if (filter.groupKey !== undefined) conds.push(eq(jobs.groupKey, filter.groupKey));
  if (filter.types) conds.push(filter.types.length ? inArray(jobs.type, filter.types) : sql`0`);
  return !!db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(...conds))
    .limit(1)
    .get();
}

/**
 * Gives a held job back to the queue without counting the attempt (its worker is shutting down, the work did
 * not fail).
 */
export function releaseJob(db: Db, id: number, owner: string, now = new Date()): boolean {
  return (
    db
      .update(jobs)
      .set({
        // A job whose cancel was requested meanwhile ends cancelled instead of waiting in the queue.
        status: sql`case when ${jobs.cancelRequested} then 'cancelled' else 'queued' end`,
        attempts: sql`max(${jobs.attempts} - 1, 0)`,
        leaseOwner: null,
        leaseExpiresAt: null,
        runAfter: now,
        finishedAt: sql`case when ${jobs.cancelRequested} then ${now.getTime()} else null end`,
        updatedAt: now,
      })
      .where(finishWhere(id, owner))
      .run().changes > 0
  );
}

/** Finish rate of a group over the last `windowMs`: jobs ended per second, for ETAs; null before any finished. */
export function recentFinishRate(db: Db, groupKey: string, windowMs = 60_000, now = new Date()): number | null {
  const since = now.getTime() - windowMs;
  const row = db
    .select({
      n: count(),
      firstStart: sql<number | null>`min(${jobs.startedAt})`,
    })
    .from(jobs)
    .where(
      and(
        eq(jobs.groupKey, groupKey),
        inArray(jobs.status, ["succeeded", "failed"]),
        sql`${jobs.finishedAt} >= ${since}`,
      ),
    )
    .get();
  if (!row || row.n === 0) return null;
  const from = Math.max(since, Number(row.firstStart ?? since));
  const seconds = Math.max(0.001, (now.getTime() - from) / 1000);
  return row.n / seconds;
}

/** Soonest time a queued job of the group becomes claimable (for sleeping through a backoff). */
export function nextRunAfter(db: Db, filter: ClaimFilter): Date | undefined {
  const conds: SQL[] = [eq(jobs.status, "queued")];
  if (filter.groupKey !== undefined) conds.push(eq(jobs.groupKey, filter.groupKey));
  if (filter.types) conds.push(filter.types.length ? inArray(jobs.type, filter.types) : sql`0`);
  const at = db
    .select({ at: sql<number | null>`min(${jobs.runAfter})` })
    .from(jobs)
    .where(and(...conds))
    .get()?.at;
  return at == null ? undefined : new Date(Number(at));
}

export function listJobs(db: Db, filter: { groupKey?: string; status?: JobStatus; limit?: number } = {}): JobRow[] {
  const conds: SQL[] = [];
  if (filter.groupKey !== undefined) conds.push(eq(jobs.groupKey, filter.groupKey));
  if (filter.status) conds.push(eq(jobs.status, filter.status));
  return db
    .select()
    .from(jobs)
    .where(conds.length ? and(...conds) : undefined)
    .orderBy(asc(jobs.id))
    .limit(filter.limit ?? 10_000)
    .all();
}

/** Error messages of a group's failed jobs, most frequent first. */
export function failedJobErrors(db: Db, groupKey: string, limit = 10): { error: string; n: number }[] {
  return db
    .select({ error: sql<string>`coalesce(${jobs.error}, '')`, n: count() })
    .from(jobs)
    .where(and(eq(jobs.groupKey, groupKey), eq(jobs.status, "failed")))
    .groupBy(jobs.error)
    .orderBy(desc(count()))
    .limit(limit)
    .all();
}

/** The newest jobs of one type (the Import page's recent imports). */
export function listRecentJobsOfType(db: Db, type: string, limit = 20): JobRow[] {
  return db.select().from(jobs).where(eq(jobs.type, type)).orderBy(desc(jobs.id)).limit(limit).all();
}
