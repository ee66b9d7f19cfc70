/**
 * Behaviour search entries on PostgreSQL, as db/schema/search.ts documents them; the GIN full-text index over
 * `body` is in the migration (an expression drizzle does not model).
 */
import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { trajectories } from "./core";

export const searchEntries = pgTable(
  "search_entries",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    trajectoryId: integer("trajectory_id")
      .notNull()
      .references(() => trajectories.id, { onDelete: "cascade" }),
    /** The step the text is from (thought, action, element, url, error); null for the trajectory's own text. */
    stepId: integer("step_id"),
    stepIndex: integer("step_index"),
    /** intent | thought | action | element | url | answer | error | note | rationale (SEARCH_FIELDS). */
    field: text("field").notNull(),
    /** The label (notes) or verdict (rationales) the text is from, so its edits and deletions reach the entry. */
    sourceId: integer("source_id"),
    /** Whose text it is: the annotator key of a note (annotators search their own notes only), the evaluator key of a rationale. */
    owner: text("owner"),
    body: text("body").notNull(),
  },
  (t) => [
    index("search_entries_trajectory_idx").on(t.trajectoryId, t.stepIndex),
    index("search_entries_step_idx").on(t.stepId),
    index("search_entries_source_idx").on(t.sourceId, t.field),
  ],
);
