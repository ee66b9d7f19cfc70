/**
 * Behaviour search entries on PostgreSQL, as db/schema/search.ts documents them. Each entry's words are also kept
 * as a stored tsvector column, `body_words`, with the GIN full-text index on it: both are in the migrations (pg 0010,
 * 0018), since drizzle does not model tsvector columns; triggers write the rows, so no insert here names it.
 */
import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { trajectories } from "./core";
import { cascadeId } from "./columns";

export const searchEntries = pgTable(
  "search_entries",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
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
