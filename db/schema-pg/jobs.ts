/**
 * The job queue's table on PostgreSQL, mirroring db/schema/jobs.ts (the claim order, leases and cancel flag are
 * documented there).
 */
import { boolean, index, integer, json, pgTable, text } from "drizzle-orm/pg-core";
import type { JobStatus } from "../schema/jobs";
import { epochMs, nowMs } from "./columns";

export const jobs = pgTable(
  "jobs",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    type: text("type").notNull(),
    groupKey: text("group_key"),
    dedupeKey: text("dedupe_key").unique(),
    payload: json("payload").$type<unknown>().notNull(),
    status: text("status").$type<JobStatus>().notNull().default("queued"),
    priority: integer("priority").notNull().default(0),
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull().default(3),
    runAfter: epochMs("run_after").notNull().default(nowMs),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: epochMs("lease_expires_at"),
    cancelRequested: boolean("cancel_requested").notNull().default(false),
    error: text("error"),
    progress: json("progress").$type<unknown>(),
    result: json("result").$type<unknown>(),
    createdAt: epochMs("created_at").notNull().default(nowMs),
    updatedAt: epochMs("updated_at").notNull().default(nowMs),
    startedAt: epochMs("started_at"),
    finishedAt: epochMs("finished_at"),
  },
  (t) => [
    index("jobs_claim_order_idx").on(t.status, t.priority.desc(), t.id),
    index("jobs_group_claim_order_idx").on(t.groupKey, t.status, t.priority.desc(), t.id),
    index("jobs_lease_idx").on(t.status, t.leaseExpiresAt),
  ],
);
