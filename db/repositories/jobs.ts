/**
 * The job queue: every query on `jobs` lives here, written once for SQLite and PostgreSQL (db/database.ts).
 *
 * Claiming is one `UPDATE … WHERE id = (SELECT … LIMIT 1) RETURNING *` inside a transaction, so two workers (in
 * this process or another one sharing the database) can never claim the same job, and a group's concurrency limit
 * (which counts running jobs) holds: on SQLite the transaction takes the write lock at BEGIN, on PostgreSQL it is
 * serializable and a claim that lost the race to another one is run again. Every update made on behalf of a
 * running job names its lease owner, so a worker whose lease was taken away cannot overwrite the job's new state.
 */
import { and, asc, count, desc, eq, gte, inArray, lte, lt, or, sql, type SQL } from "drizzle-orm";
import { affectedRows, dialectOf, executePrepared, first, sqlFor, tablesOf, withTransaction, type Db } from "../database";
import type { JobRow, JobStatus } from "../schema/index";

export interface NewJob {
  type: string;
  payload: unknown;
  groupKey?: string | null;
  dedupeKey?: string | null;
  priority?: number;
  maxAttempts?: number;
  runAfter?: Date;
}

/** Claims wait behind each other; under many workers on PostgreSQL a claim may lose that race several times in a row. */
const CLAIM_RETRIES = 40;

/** Inserts jobs, skipping any whose dedupe key already exists. Returns how many were created. */
export async function enqueueJobs(db: Db, items: NewJob[]): Promise<number> {
  if (items.length === 0) return 0;
  const { jobs } = tablesOf(db);
  return withTransaction(db, async () => {
    let created = 0;
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
      created += (await db.insert(jobs).values(rows).onConflictDoNothing({ target: jobs.dedupeKey }).returning({ id: jobs.id })).length;
    }
    return created;
  });
}

export async function getJob(db: Db, id: number): Promise<JobRow | undefined> {
  const { jobs } = tablesOf(db);
  return first(db.select().from(jobs).where(eq(jobs.id, id)).limit(1));
}

export interface ClaimFilter {
  types?: string[];
  groupKey?: string;
}

interface ClaimValues {
  nowMs: number;
  expiresMs: number;
  owner: string;
  group: string | null;
}

/**
 * The claim statement: take the first due, queued, uncancelled job matching the filter (priority, then insertion
 * order) whose group is below its concurrency limit. The per-claim values (ClaimValues, and `types`) are
 * placeholders, so one filter shape is one statement.
 */
function claimStatement(db: Db, filter: ClaimFilter) {
  const value = (name: keyof ClaimValues) => sql`${sql.placeholder(name)}`;
  const { jobs } = tablesOf(db);
  const d = sqlFor(db);
  const conds: SQL[] = [eq(jobs.status, "queued"), sql`${jobs.runAfter} <= ${value("nowMs")}`, eq(jobs.cancelRequested, false)];
  if (filter.types) {
    // The list of types is one value: JSON text on SQLite, an array on PostgreSQL.
    conds.push(
      d.dialect === "sqlite"
        ? sql`${jobs.type} in (select value from json_each(${sql.placeholder("types")}))`
        : sql`${jobs.type} = any(${sql.placeholder("types")})`,
    );
  }
  if (filter.groupKey !== undefined) conds.push(sql`${jobs.groupKey} = ${value("group")}`);
  // A job whose payload carries `groupConcurrency` waits while that many jobs of its group run (any worker):
  // a live run's concurrency holds however many workers share the queue.
  const limit = d.jsonNumber(jobs.payload, "groupConcurrency");
  conds.push(sql`(${limit} is null or (select count(*) from ${jobs} as r where r.group_key = ${jobs.groupKey} and r.status = 'running') < ${limit})`);
  const next = db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(...conds))
    .orderBy(desc(jobs.priority), asc(jobs.id))
    .limit(1);
  return (
    db
      .update(jobs)
      .set({
        status: "running",
        leaseOwner: sql`${value("owner")}`,
        leaseExpiresAt: sql`cast(${value("expiresMs")} as bigint)`,
        attempts: sql`${jobs.attempts} + 1`,
        startedAt: sql`coalesce(${jobs.startedAt}, cast(${value("nowMs")} as bigint))`,
        updatedAt: sql`cast(${value("nowMs")} as bigint)`,
        error: null,
      })
      // `id = (scalar subquery)` makes SQLite look the row up by its key; `id IN (…)` made it scan every queued row.
      .where(and(eq(jobs.id, sql`(${next})`), eq(jobs.status, "queued")))
      .returning()
  );
}

/** Atomically takes the next claimable job (queued, due, not cancelled) for `owner`, or returns undefined. */
export async function claimNextJob(db: Db, owner: string, leaseMs: number, filter: ClaimFilter = {}, now = new Date()): Promise<JobRow | undefined> {
  if (filter.types && filter.types.length === 0) return undefined;
  const values: ClaimValues = { nowMs: now.getTime(), expiresMs: now.getTime() + leaseMs, owner, group: filter.groupKey ?? null };
  // Claiming runs once per job, and building the SQL each time cost more than running it: one statement per
  // filter shape, prepared once per connection.
  const shape = `claimJob_${filter.types !== undefined ? "typed" : "any"}_${filter.groupKey !== undefined ? "group" : "all"}`;
  const types = dialectOf(db) === "sqlite" ? JSON.stringify(filter.types ?? []) : (filter.types ?? []);
  const claimed = await withTransaction(db, async () => executePrepared(db, shape, () => claimStatement(db, filter), { ...values, types }), {
    retries: CLAIM_RETRIES,
  });
  return claimed[0];
}

/**
 * Extends the leases of `ids` held by `owner` and reports which of them have been asked to stop and which the
 * owner no longer holds (lease expired and taken back).
 */
export async function heartbeatJobs(
  db: Db,
  owner: string,
  ids: number[],
  leaseMs: number,
  now = new Date(),
): Promise<{ cancelRequested: number[]; lost: number[] }> {
  if (ids.length === 0) return { cancelRequested: [], lost: [] };
  const { jobs } = tablesOf(db);
  const held = await db
    .update(jobs)
    .set({ leaseExpiresAt: new Date(now.getTime() + leaseMs), updatedAt: now })
    .where(and(inArray(jobs.id, ids), eq(jobs.leaseOwner, owner), eq(jobs.status, "running")))
    .returning({ id: jobs.id, cancelRequested: jobs.cancelRequested });
  const heldIds = new Set(held.map((h) => h.id));
  return {
    cancelRequested: held.filter((h) => h.cancelRequested).map((h) => h.id),
    lost: ids.filter((id) => !heldIds.has(id)),
  };
}

function heldBy(db: Db, id: number, owner: string) {
  const { jobs } = tablesOf(db);
  return and(eq(jobs.id, id), eq(jobs.leaseOwner, owner), eq(jobs.status, "running"));
}

/** Whether `owner` still holds the running job (its lease was not taken back and given to another worker). */
export async function isJobHeld(db: Db, id: number, owner: string): Promise<boolean> {
  const { jobs } = tablesOf(db);
  return (
    (await first(
      db
        .select({ id: jobs.id })
        .from(jobs)
        .where(heldBy(db, id, owner))
        .limit(1),
    )) !== undefined
  );
}

export async function setJobProgress(db: Db, id: number, owner: string, progress: unknown): Promise<boolean> {
  const { jobs } = tablesOf(db);
  return (
    affectedRows(
      await db
        .update(jobs)
        .set({ progress, updatedAt: new Date() })
        .where(heldBy(db, id, owner)),
    ) > 0
  );
}

/** Marks a held job done. False when the lease was lost (someone else owns the job now). */
export async function completeJob(db: Db, id: number, owner: string, result: unknown, now = new Date()): Promise<boolean> {
  const { jobs } = tablesOf(db);
  const r = await db
    .update(jobs)
    .set({ status: "succeeded", result: result ?? null, leaseOwner: null, leaseExpiresAt: null, finishedAt: now, updatedAt: now })
    .where(heldBy(db, id, owner));
  return affectedRows(r) > 0;
}

/**
 * Records a failed attempt: back to the queue after `retryAfterMs` when attempts remain and the error is
 * retryable, otherwise failed for good, keeping `result` (what a refused job found, e.g. every file it skipped).
 */
export async function failJob(
  db: Db,
  id: number,
  owner: string,
  error: string,
  opts: { retryable: boolean; retryAfterMs?: number; result?: unknown },
  now = new Date(),
): Promise<"requeued" | "failed" | "lost"> {
  const { jobs } = tablesOf(db);
  const row = await first(
    db
      .select()
      .from(jobs)
      .where(heldBy(db, id, owner))
      .limit(1),
  );
  if (!row) return "lost";
  const requeue = opts.retryable && row.attempts < row.maxAttempts && !row.cancelRequested;
  const r = await db
    .update(jobs)
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
        : { status: "failed", error, result: opts.result ?? null, leaseOwner: null, leaseExpiresAt: null, finishedAt: now, updatedAt: now },
    )
    .where(heldBy(db, id, owner));
  // The lease expired between the read and the write: another worker holds the job now.
  if (affectedRows(r) === 0) return "lost";
  return requeue ? "requeued" : "failed";
}

/** Ends a held job as cancelled (the handler saw the cancel flag and stopped). */
export async function markJobCancelled(db: Db, id: number, owner: string, now = new Date()): Promise<boolean> {
  const { jobs } = tablesOf(db);
  const r = await db
    .update(jobs)
    .set({ status: "cancelled", leaseOwner: null, leaseExpiresAt: null, finishedAt: now, updatedAt: now })
    .where(heldBy(db, id, owner));
  return affectedRows(r) > 0;
}

/**
 * Running jobs whose lease ran out (their worker died or hung): requeued when attempts remain, failed otherwise,
 * with the reason recorded; jobs whose cancel was requested become cancelled. Returns the affected counts.
 *
 * Each outcome is one UPDATE whose WHERE repeats the expiry, so a heartbeat that renews a lease at the same moment
 * either lands first (the job is no longer expired) or finds the job gone from its owner (and the worker stops it).
 */
export async function reclaimExpiredLeases(db: Db, now = new Date()): Promise<{ requeued: number; failed: number; cancelled: number }> {
  const { jobs } = tablesOf(db);
  const expired = and(eq(jobs.status, "running"), lte(jobs.leaseExpiresAt, now));
  const reason = sql`'lease of worker ' || coalesce(${jobs.leaseOwner}, '?') || ' expired at attempt ' || ${jobs.attempts}`;
  const released = { error: reason, leaseOwner: null, leaseExpiresAt: null, updatedAt: now };
  const cancelled = affectedRows(
    await db
      .update(jobs)
      .set({ ...released, status: "cancelled", finishedAt: now })
      .where(and(expired, eq(jobs.cancelRequested, true))),
  );
  const requeued = affectedRows(
    await db
      .update(jobs)
      .set({ ...released, status: "queued", runAfter: now })
      .where(and(expired, eq(jobs.cancelRequested, false), lt(jobs.attempts, jobs.maxAttempts))),
  );
  const failed = affectedRows(
    await db
      .update(jobs)
      .set({ ...released, status: "failed", finishedAt: now })
      .where(and(expired, eq(jobs.cancelRequested, false), gte(jobs.attempts, jobs.maxAttempts))),
  );
  return { requeued, failed, cancelled };
}

/** Cancels a group: queued jobs become cancelled at once, running ones get the flag their worker polls. */
export async function cancelJobGroup(db: Db, groupKey: string, now = new Date()): Promise<{ cancelled: number; signalled: number }> {
  const { jobs } = tablesOf(db);
  return withTransaction(db, async () => {
    const cancelled = affectedRows(
      await db
        .update(jobs)
        .set({ status: "cancelled", cancelRequested: true, finishedAt: now, updatedAt: now })
        .where(and(eq(jobs.groupKey, groupKey), eq(jobs.status, "queued"))),
    );
    const signalled = affectedRows(
      await db
        .update(jobs)
        .set({ cancelRequested: true, updatedAt: now })
        .where(and(eq(jobs.groupKey, groupKey), eq(jobs.status, "running"))),
    );
    return { cancelled, signalled };
  });
}

export async function requestJobCancel(db: Db, id: number, now = new Date()): Promise<JobStatus | undefined> {
  const { jobs } = tablesOf(db);
  return withTransaction(db, async () => {
    const row = await first(db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, id)).limit(1));
    if (!row) return undefined;
    if (row.status === "queued") {
      await db.update(jobs).set({ status: "cancelled", cancelRequested: true, finishedAt: now, updatedAt: now }).where(eq(jobs.id, id));
      return "cancelled" as JobStatus;
    }
    if (row.status === "running") await db.update(jobs).set({ cancelRequested: true, updatedAt: now }).where(eq(jobs.id, id));
    return row.status;
  });
}

/** Puts a group's cancelled (and, if asked, failed) jobs back in the queue with fresh attempts. */
export async function requeueJobGroup(db: Db, groupKey: string, opts: { includeFailed: boolean }, now = new Date()): Promise<number> {
  const { jobs } = tablesOf(db);
  const statuses: JobStatus[] = opts.includeFailed ? ["cancelled", "failed"] : ["cancelled"];
  const r = await db
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
    .where(and(eq(jobs.groupKey, groupKey), or(inArray(jobs.status, statuses), and(eq(jobs.status, "queued"), eq(jobs.cancelRequested, true)))));
  return affectedRows(r);
}

export type JobCounts = Record<JobStatus, number> & { total: number };

export async function countJobsByStatus(db: Db, groupKey: string): Promise<JobCounts> {
  const { jobs } = tablesOf(db);
  const rows = await db.select({ status: jobs.status, n: count() }).from(jobs).where(eq(jobs.groupKey, groupKey)).groupBy(jobs.status);
  const out: JobCounts = { queued: 0, running: 0, succeeded: 0, failed: 0, cancelled: 0, total: 0 };
  for (const r of rows) {
    out[r.status] = Number(r.n);
    out.total += Number(r.n);
  }
  return out;
}

function filterConditions(db: Db, filter: ClaimFilter, statuses: JobStatus[]): SQL | undefined {
  const { jobs } = tablesOf(db);
  const conds: SQL[] = [inArray(jobs.status, statuses)];
  if (filter.groupKey !== undefined) conds.push(eq(jobs.groupKey, filter.groupKey));
  // An empty type list matches nothing.
  if (filter.types) conds.push(filter.types.length ? inArray(jobs.type, filter.types) : sql`1 = 0`);
  return and(...conds);
}

/** Whether any job matching the filter is still to run (queued or running, by any worker). */
export async function hasPendingJobs(db: Db, filter: ClaimFilter): Promise<boolean> {
  const { jobs } = tablesOf(db);
  const row = await first(
    db
      .select({ id: jobs.id })
      .from(jobs)
      .where(filterConditions(db, filter, ["queued", "running"]))
      .limit(1),
  );
  return row !== undefined;
}

/**
 * Gives a held job back to the queue without counting the attempt (its worker is shutting down, the work did
 * not fail).
 */
export async function releaseJob(db: Db, id: number, owner: string, now = new Date()): Promise<boolean> {
  const { jobs } = tablesOf(db);
  const r = await db
    .update(jobs)
    .set({
      // A job whose cancel was requested meanwhile ends cancelled instead of waiting in the queue.
      status: sql`case when ${jobs.cancelRequested} then 'cancelled' else 'queued' end`,
      attempts: sql`case when ${jobs.attempts} > 0 then ${jobs.attempts} - 1 else 0 end`,
      leaseOwner: null,
      leaseExpiresAt: null,
      runAfter: now,
      finishedAt: sql`case when ${jobs.cancelRequested} then cast(${now.getTime()} as bigint) else null end`,
      updatedAt: now,
    })
    .where(heldBy(db, id, owner));
  return affectedRows(r) > 0;
}

/** Finish rate of a group over the last `windowMs`: jobs ended per second, for ETAs; null before any finished. */
export async function recentFinishRate(db: Db, groupKey: string, windowMs = 60_000, now = new Date()): Promise<number | null> {
  const { jobs } = tablesOf(db);
  const since = now.getTime() - windowMs;
  const row = await first(
    db
      .select({ n: count(), firstStart: sql<number | string | null>`min(${jobs.startedAt})` })
      .from(jobs)
      .where(and(eq(jobs.groupKey, groupKey), inArray(jobs.status, ["succeeded", "failed"]), gte(jobs.finishedAt, new Date(since))))
      .limit(1),
  );
  const n = Number(row?.n ?? 0);
  if (n === 0) return null;
  const from = Math.max(since, Number(row?.firstStart ?? since));
  const seconds = Math.max(0.001, (now.getTime() - from) / 1000);
  return n / seconds;
}

/** Soonest time a queued job of the group becomes claimable (for sleeping through a backoff). */
export async function nextRunAfter(db: Db, filter: ClaimFilter): Promise<Date | undefined> {
  const { jobs } = tablesOf(db);
  // bigint on PostgreSQL: node-postgres returns it as a string.
  const row = await first(
    db
      .select({ at: sql<number | string | null>`min(${jobs.runAfter})` })
      .from(jobs)
      .where(filterConditions(db, filter, ["queued"]))
      .limit(1),
  );
  return row?.at == null ? undefined : new Date(Number(row.at));
}

export async function listJobs(db: Db, filter: { groupKey?: string; status?: JobStatus; limit?: number } = {}): Promise<JobRow[]> {
  const { jobs } = tablesOf(db);
  const conds: SQL[] = [];
  if (filter.groupKey !== undefined) conds.push(eq(jobs.groupKey, filter.groupKey));
  if (filter.status) conds.push(eq(jobs.status, filter.status));
  return db
    .select()
    .from(jobs)
    .where(conds.length ? and(...conds) : undefined)
    .orderBy(asc(jobs.id))
    .limit(filter.limit ?? 10_000);
}

/** Error messages of a group's failed jobs, most frequent first (ties in alphabetical order). */
export async function failedJobErrors(db: Db, groupKey: string, limit = 10): Promise<{ error: string; n: number }[]> {
  const { jobs } = tablesOf(db);
  const rows = await db
    .select({ error: sql<string>`coalesce(${jobs.error}, '')`, n: count() })
    .from(jobs)
    .where(and(eq(jobs.groupKey, groupKey), eq(jobs.status, "failed")))
    .groupBy(jobs.error)
    .orderBy(desc(count()), asc(jobs.error))
    .limit(limit);
  return rows.map((r) => ({ error: r.error, n: Number(r.n) }));
}

/** The newest jobs of one type (the Import page's recent imports). */
export async function listRecentJobsOfType(db: Db, type: string, limit = 20): Promise<JobRow[]> {
  const { jobs } = tablesOf(db);
  return db.select().from(jobs).where(eq(jobs.type, type)).orderBy(desc(jobs.id)).limit(limit);
}

/**
 * Bytes of uploads waiting in jobs that have not ended (their payload's `uploadBytes`): everyone's, and those of
 * `requestedBy` (the payload's `requestedBy`). The upload quotas read this before another upload is accepted.
 */
export async function unfinishedUploadBytes(db: Db, requestedBy: string): Promise<{ all: number; mine: number }> {
  const { jobs } = tablesOf(db);
  const d = sqlFor(db);
  const bytes = d.jsonNumber(jobs.payload, "uploadBytes");
  const by = d.jsonText(jobs.payload, "requestedBy");
  const row = await first(
    db
      .select({ all: sql<number | string | null>`sum(${bytes})`, mine: sql<number | string | null>`sum(case when ${by} = ${requestedBy} then ${bytes} end)` })
      .from(jobs)
      .where(inArray(jobs.status, ["queued", "running"])),
  );
  return { all: Number(row?.all ?? 0), mine: Number(row?.mine ?? 0) };
}

/** The newest jobs of one type that `requestedBy` started (their payload's `requestedBy`): a person's own reports. */
export async function listRequestedJobsOfType(db: Db, type: string, requestedBy: string, limit = 20): Promise<JobRow[]> {
  const { jobs } = tablesOf(db);
  const by = sqlFor(db).jsonText(jobs.payload, "requestedBy");
  return db
    .select()
    .from(jobs)
    .where(and(eq(jobs.type, type), sql`${by} = ${requestedBy}`))
    .orderBy(desc(jobs.id))
    .limit(limit);
}

/** Jobs of one type that ended with `status` before `before`, oldest first (reports past their retention). */
export async function listJobsOfTypeFinishedBefore(db: Db, type: string, status: JobStatus, before: Date): Promise<JobRow[]> {
  const { jobs } = tablesOf(db);
  return db
    .select()
    .from(jobs)
    .where(and(eq(jobs.type, type), eq(jobs.status, status), lt(jobs.finishedAt, before)))
    .orderBy(asc(jobs.id));
}

/** Deletes one job's row (a finished report its owner removed); resolves to whether there was one. */
export async function deleteJob(db: Db, id: number): Promise<boolean> {
  const { jobs } = tablesOf(db);
  return (await db.delete(jobs).where(eq(jobs.id, id)).returning({ id: jobs.id })).length > 0;
}
