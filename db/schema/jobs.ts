/**
 * A generic job queue kept in SQLite, shared by judge batches and the live runner.
 *
 * Workers claim a queued job atomically (one UPDATE … RETURNING inside an immediate transaction) and hold it with
 * a lease they renew by heartbeat. A worker that dies stops renewing; once the lease expires the job goes back to
 * the queue (or fails, when its attempts are used up) with the reason recorded. Cancelling sets a flag that the
 * running work polls, so a job is never killed half-way through a database write.
 */
import { sqliteKit, timestamps, type SchemaKit } from "./columns";

export const JOB_STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** The job queue's table, declared once for both dialects (db/schema/columns.ts). */
export function jobTables(k: SchemaKit) {
  const jobs = k.table(
    "jobs",
    {
      id: k.id(),
      /** Which handler runs it: "judge.verdict", "runner.task", … */
      type: k.text("type").notNull(),
      /** Jobs of one unit of work (a judge batch, a live run) share it; progress, cancel and resume act on a group. */
      groupKey: k.text("group_key"),
      /** Makes enqueueing idempotent: a second job with the same key is not created. Null = no such identity. */
      dedupeKey: k.text("dedupe_key").unique(),
      payload: k.json("payload").$type<unknown>().notNull(),
      status: k.text("status").$type<JobStatus>().notNull().default("queued"),
      /** Higher runs first; ties run in insertion order. */
      priority: k.integer("priority").notNull().default(0),
      /** Times the job was claimed (a lease that expired counts as an attempt). */
      attempts: k.integer("attempts").notNull().default(0),
      maxAttempts: k.integer("max_attempts").notNull().default(3),
      /** Not claimable before this time (backoff after a retryable failure). */
      runAfter: k.stamp("run_after"),
      leaseOwner: k.text("lease_owner"),
      leaseExpiresAt: k.time("lease_expires_at"),
      cancelRequested: k.flag("cancel_requested").notNull().default(false),
      error: k.text("error"),
      /** Free-form progress the handler reports while it runs ({ step: 3, of: 10 } …). */
      progress: k.json("progress").$type<unknown>(),
      result: k.json("result").$type<unknown>(),
      ...timestamps(k),
      startedAt: k.time("started_at"),
      finishedAt: k.time("finished_at"),
    },
    // The claim picks `status = 'queued' order by priority desc, id`: these indexes hold rows in exactly that order
    // (globally, and within a group), so a claim reads the first due row instead of sorting the whole queue.
    (t) => [
      k.index("jobs_claim_order_idx").on(t.status, k.desc(t.priority), t.id),
      k.index("jobs_group_claim_order_idx").on(t.groupKey, t.status, k.desc(t.priority), t.id),
      k.index("jobs_lease_idx").on(t.status, t.leaseExpiresAt),
    ],
  );
  return { jobs };
}

export const { jobs } = jobTables(sqliteKit);

export type JobRow = typeof jobs.$inferSelect;
