/**
 * A generic job queue kept in SQLite, shared by judge batches and the live runner.
 *
 * Workers claim a queued job atomically (one UPDATE … RETURNING inside an immediate transaction) and hold it with
 * a lease they renew by heartbeat. A worker that dies stops renewing; once the lease expires the job goes back to
 * the queue (or fails, when its attempts are used up) with the reason recorded. Cancelling sets a flag that the
 * running work polls, so a job is never killed half-way through a database write.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const JOB_STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

const nowMs = sql`(unixepoch('subsec') * 1000)`;

export const jobs = sqliteTable(
  "jobs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** Which handler runs it: "judge.verdict", "runner.task", … */
    type: text("type").notNull(),
    /** Jobs of one unit of work (a judge batch, a live run) share it; progress, cancel and resume act on a group. */
    groupKey: text("group_key"),
    /** Makes enqueueing idempotent: a second job with the same key is not created. Null = no such identity. */
    dedupeKey: text("dedupe_key").unique(),
    payload: text("payload", { mode: "json" }).$type<unknown>().notNull(),
    status: text("status").$type<JobStatus>().notNull().default("queued"),
    /** Higher runs first; ties run in insertion order. */
    priority: integer("priority").notNull().default(0),
    /** Times the job was claimed (a lease that expired counts as an attempt). */
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull().default(3),
    /** Not claimable before this time (backoff after a retryable failure). */
    runAfter: integer("run_after", { mode: "timestamp_ms" }).notNull().default(nowMs),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: integer("lease_expires_at", { mode: "timestamp_ms" }),
    cancelRequested: integer("cancel_requested", { mode: "boolean" }).notNull().default(false),
    error: text("error"),
    /** Free-form progress the handler reports while it runs ({ step: 3, of: 10 } …). */
    progress: text("progress", { mode: "json" }).$type<unknown>(),
    result: text("result", { mode: "json" }).$type<unknown>(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
    startedAt: integer("started_at", { mode: "timestamp_ms" }),
    finishedAt: integer("finished_at", { mode: "timestamp_ms" }),
  },
  // The claim picks `status = 'queued' order by priority desc, id`: these indexes hold rows in exactly that order
  // (globally, and within a group), so a claim reads the first due row instead of sorting the whole queue.
  (t) => [
    index("jobs_claim_order_idx").on(t.status, sql`${t.priority} desc`, t.id),
    index("jobs_group_claim_order_idx").on(t.groupKey, t.status, sql`${t.priority} desc`, t.id),
    index("jobs_lease_idx").on(t.status, t.leaseExpiresAt),
  ],
);

export type JobRow = typeof jobs.$inferSelect;
