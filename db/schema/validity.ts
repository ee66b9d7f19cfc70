/**
 * The task validity ledger: researchers mark a task broken, outdated, ambiguous or with a wrong reference, with a
 * reason, an evidence link, who and when. Rows are revisions and are never updated: a task's state is its newest
 * row (`valid` clears a flag), and its history stays readable. Analytics leave out trajectories of flagged tasks
 * (server/services/analytics/dataset.ts), so the table carries change-counting triggers (db/schema/changes.ts).
 */
import { users } from "./auth";
import { tasks } from "./core";
import { sqliteKit, type SchemaKit, type TableRefs } from "./columns";

/** The tables this module's tables reference, of the dialect being declared. */
export type ValidityRefs = TableRefs<"users" | "tasks">;

/** The tables of this module, declared once for both dialects (db/schema/columns.ts). */
export function validityTables(k: SchemaKit, { users, tasks }: ValidityRefs) {
  const taskFlags = k.table(
    "task_flags",
    {
      id: k.id(),
      taskId: k.cascadeId("task_id", () => tasks.id),
      /** broken | outdated | ambiguous | wrong_reference | valid (TASK_FLAG_STATUSES); `valid` clears the flag. */
      status: k.text("status").notNull(),
      reason: k.text("reason").notNull(),
      /** A link to what shows it (an issue, a screenshot, a trajectory); null when none was given. */
      evidenceUrl: k.text("evidence_url"),
      /** Who wrote the revision; the name is kept beside the id so the history survives the account. */
      userId: k.text("user_id").references(() => users.id, { onDelete: "set null" }),
      userName: k.text("user_name").notNull(),
      createdAt: k.stamp("created_at"),
    },
    (t) => [k.index("task_flags_task_idx").on(t.taskId, t.id)],
  );
  return { taskFlags };
}

export const { taskFlags } = validityTables(sqliteKit, { users, tasks });
