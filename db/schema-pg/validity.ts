/** The task validity ledger on PostgreSQL; see db/schema/validity.ts for its meaning. */
import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { users } from "./auth";
import { tasks } from "./core";
import { cascadeId, epochMs, nowMs } from "./columns";

export const taskFlags = pgTable(
  "task_flags",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    taskId: cascadeId("task_id", () => tasks.id),
    status: text("status").notNull(),
    reason: text("reason").notNull(),
    evidenceUrl: text("evidence_url"),
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    userName: text("user_name").notNull(),
    createdAt: epochMs("created_at").notNull().default(nowMs),
  },
  (t) => [index("task_flags_task_idx").on(t.taskId, t.id)],
);
