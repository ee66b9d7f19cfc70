/**
 * The task validity ledger: researchers mark a task broken, outdated, ambiguous or with a wrong reference, with a
 * reason, an evidence link, who and when. Rows are revisions and are never updated: a task's state is its newest
 * row (`valid` clears a flag), and its history stays readable. Analytics leave out trajectories of flagged tasks
 * (server/services/analytics/dataset.ts), so the table carries change-counting triggers (db/schema/changes.ts).
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./auth";
import { tasks } from "./core";
import { cascadeId } from "./columns";

export const taskFlags = sqliteTable(
  "task_flags",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    taskId: cascadeId("task_id", () => tasks.id),
    /** broken | outdated | ambiguous | wrong_reference | valid (TASK_FLAG_STATUSES); `valid` clears the flag. */
    status: text("status").notNull(),
    reason: text("reason").notNull(),
    /** A link to what shows it (an issue, a screenshot, a trajectory); null when none was given. */
    evidenceUrl: text("evidence_url"),
    /** Who wrote the revision; the name is kept beside the id so the history survives the account. */
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    userName: text("user_name").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" })
      .notNull()
      .default(sql`(unixepoch('subsec') * 1000)`),
  },
  (t) => [index("task_flags_task_idx").on(t.taskId, t.id)],
);
