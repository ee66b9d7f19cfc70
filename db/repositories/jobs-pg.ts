/**
 * The job queue's bookkeeping on PostgreSQL (the `jobs` table of db/schema-pg/jobs.ts): every query the pg-boss
 * engine (server/services/jobs/pgboss-queue.ts) runs on Verdict's own table lives here. pg-boss delivers the jobs;
 * this table says what each one is, who holds it, whether it was asked to stop, and how it ended.
 *
 * Exactly once: every update made for a running job is one statement whose WHERE names the lease owner and the
 * `running` status. PostgreSQL re-checks that condition on the newest row version under the row lock, so when a
 * late worker (lease expired, job taken by another) and the new holder race, only the holder's write lands.
 */
import type pg from "pg";
import { sql, type SQL } from "drizzle-orm";
import { rawAll, type Db } from "../database";
import type { JobCounts, NewJob } from "./jobs";
import type { JobRow, JobStatus } from "../schema/index";

/** A pool or a client inside a transaction. */
export type PgQueryable = Pick<pg.Pool, "query"> | pg.PoolClient;

/**
 * The installation's database as a PgQueryable whose statements run where the caller's run: inside the open
 * `withTransaction`, if any. A service that creates a batch or a live run inserts its jobs (and their pg-boss
 * deliveries) in the same transaction as the batch or run row, so a worker never sees one without the other.
 */
export function queryableOf(db: Db): Pick<pg.Pool, "query"> {
  return {
    query: (async (text: string, values: unknown[] = []) => {
      // "$n" placeholders become drizzle parameters, so the statement goes through the database's own executor.
      const parts = text.split(/\$(\d+)/);
      const query: SQL = sql.empty();
      parts.forEach((part, i) => query.append(i % 2 === 0 ? sql.raw(part) : sql`${values[Number(part) - 1] ?? null}`));
      const rows = await rawAll(db, query);
      return { rows, rowCount: rows.length };
    }) as unknown as pg.Pool["query"],
  };
}

export interface PgClaimFilter {
  types?: string[];
  groupKey?: string;
  /** Claim this job only (the one a pg-boss delivery names). */
  id?: number;
}

/** Any one key serialising claims; "vrdj" in ASCII, next to the migrations' "vrdc". */
const CLAIM_LOCK_KEY = 0x7672_646a;

type Raw = Record<string, unknown>;

const ms = (v: unknown): Date => new Date(Number(v));
const msOrNull = (v: unknown): Date | null => (v == null ? null : new Date(Number(v)));

/** A row as the SQLite repository returns it, so handlers see one shape on both engines. */
export function toJobRow(r: Raw): JobRow {
  return {
    id: Number(r.id),
    type: String(r.type),
    groupKey: (r.group_key as string | null) ?? null,
    dedupeKey: (r.dedupe_key as string | null) ?? null,
    payload: r.payload,
    status: r.status as JobStatus,
    priority: Number(r.priority),
    attempts: Number(r.attempts),
    maxAttempts: Number(r.max_attempts),
    runAfter: ms(r.run_after),
    leaseOwner: (r.lease_owner as string | null) ?? null,
    leaseExpiresAt: msOrNull(r.lease_expires_at),
    cancelRequested: Boolean(r.cancel_requested),
    error: (r.error as string | null) ?? null,
    progress: r.progress ?? null,
    result: r.result ?? null,
    createdAt: ms(r.created_at),
    updatedAt: ms(r.updated_at),
    startedAt: msOrNull(r.started_at),
    finishedAt: msOrNull(r.finished_at),
  };
}

const json = (v: unknown) => JSON.stringify(v ?? null);

/** Inserts jobs, skipping dedupe keys that exist; returns the created ones (for their pg-boss deliveries). */
export async function insertJobs(q: PgQueryable, items: NewJob[], now = Date.now()): Promise<{ id: number; type: string; priority: number; runAfter: Date }[]> {
  const out: { id: number; type: string; priority: number; runAfter: Date }[] = [];
  for (let i = 0; i < items.length; i += 500) {
    const chunk = items.slice(i, i + 500);
    const { rows } = await q.query(
      `insert into jobs (type, payload, group_key, dedupe_key, priority, max_attempts, run_after, created_at, updated_at)
       select t.type, t.payload::json, t.group_key, t.dedupe_key, t.priority, t.max_attempts, t.run_after, $2, $2
       from json_to_recordset($1::json) as t(type text, payload text, group_key text, dedupe_key text, priority int, max_attempts int, run_after bigint)
       on conflict (dedupe_key) do nothing
       returning id, type, priority, run_after`,
      [
        JSON.stringify(
          chunk.map((j) => ({
            type: j.type,
            payload: json(j.payload),
            group_key: j.groupKey ?? null,
            dedupe_key: j.dedupeKey ?? null,
            priority: j.priority ?? 0,
            max_attempts: j.maxAttempts ?? 3,
            run_after: j.runAfter ? j.runAfter.getTime() : now,
          })),
        ),
        now,
      ],
    );
    for (const r of rows) out.push({ id: Number(r.id), type: String(r.type), priority: Number(r.priority), runAfter: ms(r.run_after) });
  }
  return out;
}

export async function getJobPg(q: PgQueryable, id: number): Promise<JobRow | undefined> {
  const { rows } = await q.query("select * from jobs where id = $1", [id]);
  return rows[0] ? toJobRow(rows[0]) : undefined;
}

/**
 * Takes the next claimable job for `owner` (queued, due, not cancelled, within its group's concurrency), highest
 * priority first. Claims run one at a time under a transaction-scoped advisory lock: a group's concurrency limit
 * counts running jobs, and two workers counting at once could both start one more.
 */
export async function claimJobPg(pool: pg.Pool, owner: string, leaseMs: number, filter: PgClaimFilter, now = Date.now()): Promise<JobRow | undefined> {
  if (filter.types && filter.types.length === 0) return undefined;
  const client = await pool.connect();
  try {
    await client.query("begin");
    await client.query("select pg_advisory_xact_lock($1)", [CLAIM_LOCK_KEY]);
    const { rows } = await client.query(
      `update jobs set status = 'running', lease_owner = $1, lease_expires_at = $2, attempts = attempts + 1,
              started_at = coalesce(started_at, $3), updated_at = $3, error = null
       where id = (
         select j.id from jobs j
         where j.status = 'queued' and j.run_after <= $3 and not j.cancel_requested
           and ($4::text[] is null or j.type = any($4::text[]))
           and ($5::text is null or j.group_key = $5)
           and ($6::int is null or j.id = $6)
           and (j.payload->>'groupConcurrency' is null
                or (select count(*) from jobs r where r.group_key = j.group_key and r.status = 'running') < (j.payload->>'groupConcurrency')::int)
         order by j.priority desc, j.id
         limit 1)
       and status = 'queued'
       returning *`,
      [owner, now + leaseMs, now, filter.types ?? null, filter.groupKey ?? null, filter.id ?? null],
    );
    await client.query("commit");
    return rows[0] ? toJobRow(rows[0]) : undefined;
  } catch (e) {
    await client.query("rollback").catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

export async function heartbeatJobsPg(q: PgQueryable, owner: string, ids: number[], leaseMs: number, now = Date.now()) {
  if (ids.length === 0) return { cancelRequested: [] as number[], lost: [] as number[] };
  const { rows } = await q.query(
    `update jobs set lease_expires_at = $1, updated_at = $2
     where id = any($3::int[]) and lease_owner = $4 and status = 'running'
     returning id, cancel_requested`,
    [now + leaseMs, now, ids, owner],
  );
  const held = new Set(rows.map((r) => Number(r.id)));
  return {
    cancelRequested: rows.filter((r) => r.cancel_requested).map((r) => Number(r.id)),
    lost: ids.filter((id) => !held.has(id)),
  };
}

export async function setJobProgressPg(q: PgQueryable, id: number, owner: string, progress: unknown): Promise<boolean> {
  const r = await q.query("update jobs set progress = $1::json, updated_at = $2 where id = $3 and lease_owner = $4 and status = 'running'", [
    json(progress),
    Date.now(),
    id,
    owner,
  ]);
  return (r.rowCount ?? 0) > 0;
}

export async function completeJobPg(q: PgQueryable, id: number, owner: string, result: unknown, now = Date.now()): Promise<boolean> {
  const r = await q.query(
    `update jobs set status = 'succeeded', result = $1::json, lease_owner = null, lease_expires_at = null, finished_at = $2, updated_at = $2
     where id = $3 and lease_owner = $4 and status = 'running'`,
    [json(result), now, id, owner],
  );
  return (r.rowCount ?? 0) > 0;
}

/** A failed attempt: requeued after the delay while attempts remain and the error is retryable, else failed. */
export async function failJobPg(
  q: PgQueryable,
  id: number,
  owner: string,
  error: string,
  opts: { retryable: boolean; retryAfterMs?: number; result?: unknown },
  now = Date.now(),
): Promise<{ outcome: "requeued" | "failed" | "lost"; job?: JobRow }> {
  const { rows } = await q.query(
    `update jobs set
       status = case when $1::boolean and attempts < max_attempts and not cancel_requested then 'queued' else 'failed' end,
       run_after = case when $1::boolean and attempts < max_attempts and not cancel_requested then $2::bigint else run_after end,
       finished_at = case when $1::boolean and attempts < max_attempts and not cancel_requested then null else $3::bigint end,
       error = $4, result = $7::json, lease_owner = null, lease_expires_at = null, updated_at = $3
     where id = $5 and lease_owner = $6 and status = 'running'
     returning *`,
    [opts.retryable, now + (opts.retryAfterMs ?? 0), now, error, id, owner, json(opts.result ?? null)],
  );
  if (!rows[0]) return { outcome: "lost" };
  const job = toJobRow(rows[0]);
  return { outcome: job.status === "queued" ? "requeued" : "failed", job };
}

export async function markJobCancelledPg(q: PgQueryable, id: number, owner: string, now = Date.now()): Promise<boolean> {
  const r = await q.query(
    `update jobs set status = 'cancelled', lease_owner = null, lease_expires_at = null, finished_at = $1, updated_at = $1
     where id = $2 and lease_owner = $3 and status = 'running'`,
    [now, id, owner],
  );
  return (r.rowCount ?? 0) > 0;
}

/** Gives a held job back uncounted; a job whose cancel was requested meanwhile ends cancelled instead. */
export async function releaseJobPg(q: PgQueryable, id: number, owner: string, now = Date.now()): Promise<JobRow | undefined> {
  const { rows } = await q.query(
    `update jobs set status = case when cancel_requested then 'cancelled' else 'queued' end,
       attempts = greatest(attempts - 1, 0), lease_owner = null, lease_expires_at = null, run_after = $1,
       finished_at = case when cancel_requested then $1::bigint else null end, updated_at = $1
     where id = $2 and lease_owner = $3 and status = 'running'
     returning *`,
    [now, id, owner],
  );
  return rows[0] ? toJobRow(rows[0]) : undefined;
}

/** Running jobs whose lease ran out; returns the requeued ones (they need a new delivery) and the counts. */
export async function reclaimExpiredLeasesPg(q: PgQueryable, now = Date.now()) {
  const { rows } = await q.query(
    `update jobs set
       status = case when cancel_requested then 'cancelled' when attempts < max_attempts then 'queued' else 'failed' end,
       finished_at = case when cancel_requested or attempts >= max_attempts then $1::bigint else null end,
       run_after = case when not cancel_requested and attempts < max_attempts then $1::bigint else run_after end,
       error = 'lease of worker ' || coalesce(lease_owner, '?') || ' expired at attempt ' || attempts,
       lease_owner = null, lease_expires_at = null, updated_at = $1
     where status = 'running' and lease_expires_at <= $1::bigint
     returning *`,
    [now],
  );
  const jobs = rows.map(toJobRow);
  const requeued = jobs.filter((j) => j.status === "queued");
  return {
    requeued,
    counts: {
      requeued: requeued.length,
      failed: jobs.filter((j) => j.status === "failed").length,
      cancelled: jobs.filter((j) => j.status === "cancelled").length,
    },
  };
}

export async function cancelJobGroupPg(pool: pg.Pool, groupKey: string, now = Date.now()) {
  const client = await pool.connect();
  try {
    await client.query("begin");
    const c = await client.query(
      "update jobs set status = 'cancelled', cancel_requested = true, finished_at = $1, updated_at = $1 where group_key = $2 and status = 'queued'",
      [now, groupKey],
    );
    const s = await client.query("update jobs set cancel_requested = true, updated_at = $1 where group_key = $2 and status = 'running'", [now, groupKey]);
    await client.query("commit");
    return { cancelled: c.rowCount ?? 0, signalled: s.rowCount ?? 0 };
  } catch (e) {
    await client.query("rollback").catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

export async function requestJobCancelPg(q: PgQueryable, id: number, now = Date.now()): Promise<JobStatus | undefined> {
  // One statement: the old status comes from the row as locked, so a claim cannot slip in between.
  const { rows } = await q.query(
    `with old as (select id, status from jobs where id = $1 for update)
     update jobs j set cancel_requested = case when old.status in ('queued', 'running') then true else j.cancel_requested end,
       status = case when old.status = 'queued' then 'cancelled' else j.status end,
       finished_at = case when old.status = 'queued' then $2::bigint else j.finished_at end,
       updated_at = $2
     from old where j.id = old.id
     returning old.status as old_status`,
    [id, now],
  );
  if (!rows[0]) return undefined;
  const old = rows[0].old_status as JobStatus;
  return old === "queued" ? "cancelled" : old;
}

/** Requeues a group's cancelled (and, when asked, failed) jobs; returns them (they need new deliveries). */
export async function requeueJobGroupPg(q: PgQueryable, groupKey: string, opts: { includeFailed: boolean }, now = Date.now()): Promise<JobRow[]> {
  const statuses: JobStatus[] = opts.includeFailed ? ["cancelled", "failed"] : ["cancelled"];
  const { rows } = await q.query(
    `update jobs set status = 'queued', cancel_requested = false, attempts = 0, error = null, run_after = $1,
       finished_at = null, lease_owner = null, lease_expires_at = null, updated_at = $1
     where group_key = $2 and (status = any($3::text[]) or (status = 'queued' and cancel_requested))
     returning *`,
    [now, groupKey, statuses],
  );
  return rows.map(toJobRow);
}

export async function countJobsByStatusPg(q: PgQueryable, groupKey: string): Promise<JobCounts> {
  const { rows } = await q.query("select status, count(*)::int as n from jobs where group_key = $1 group by status", [groupKey]);
  const out: JobCounts = { queued: 0, running: 0, succeeded: 0, failed: 0, cancelled: 0, total: 0 };
  for (const r of rows) {
    out[r.status as JobStatus] = Number(r.n);
    out.total += Number(r.n);
  }
  return out;
}

export async function recentFinishRatePg(q: PgQueryable, groupKey: string, windowMs = 60_000, now = Date.now()): Promise<number | null> {
  const since = now - windowMs;
  const { rows } = await q.query(
    "select count(*)::int as n, min(started_at) as first_start from jobs where group_key = $1 and status in ('succeeded', 'failed') and finished_at >= $2",
    [groupKey, since],
  );
  const n = Number(rows[0]?.n ?? 0);
  if (n === 0) return null;
  const from = Math.max(since, Number(rows[0].first_start ?? since));
  return n / Math.max(0.001, (now - from) / 1000);
}

export async function failedJobErrorsPg(q: PgQueryable, groupKey: string, limit = 10) {
  const { rows } = await q.query(
    "select coalesce(error, '') as error, count(*)::int as n from jobs where group_key = $1 and status = 'failed' group by error order by count(*) desc limit $2",
    [groupKey, limit],
  );
  return rows.map((r) => ({ error: String(r.error), n: Number(r.n) }));
}

function filterSql(filter: PgClaimFilter, first: number): { where: string; params: unknown[] } {
  const conds: string[] = [];
  const params: unknown[] = [];
  if (filter.groupKey !== undefined) {
    params.push(filter.groupKey);
    conds.push(`group_key = $${first + params.length - 1}`);
  }
  if (filter.types) {
    params.push(filter.types);
    conds.push(`type = any($${first + params.length - 1}::text[])`);
  }
  return { where: conds.map((c) => ` and ${c}`).join(""), params };
}

export async function hasPendingJobsPg(q: PgQueryable, filter: PgClaimFilter): Promise<boolean> {
  const f = filterSql(filter, 1);
  const { rows } = await q.query(`select 1 from jobs where status in ('queued', 'running')${f.where} limit 1`, f.params);
  return rows.length > 0;
}

export async function nextRunAfterPg(q: PgQueryable, filter: PgClaimFilter): Promise<Date | undefined> {
  const f = filterSql(filter, 1);
  const { rows } = await q.query(`select min(run_after) as at from jobs where status = 'queued'${f.where}`, f.params);
  return rows[0]?.at == null ? undefined : ms(rows[0].at);
}

export async function listJobsPg(q: PgQueryable, filter: { groupKey?: string; status?: JobStatus; limit?: number } = {}): Promise<JobRow[]> {
  const { rows } = await q.query("select * from jobs where ($1::text is null or group_key = $1) and ($2::text is null or status = $2) order by id limit $3", [
    filter.groupKey ?? null,
    filter.status ?? null,
    filter.limit ?? 10_000,
  ]);
  return rows.map(toJobRow);
}
