/**
 * Behaviour search (server/domain/trajectories/search-query.ts): every piece of text a trajectory holds, one row per
 * piece, kept by triggers on the tables the text lives in (steps, trajectories, tasks, labels, evaluator_verdicts),
 * so imports, labelling, judging, re-imports and deletions all keep it current without the code that writes them
 * knowing. The full-text index over `body` is engine-specific and lives in the migrations: an FTS5 table
 * (`search_fts`, external content) on SQLite, a GIN index over a tsvector expression on PostgreSQL.
 */
import { trajectories } from "./core";
import { sqliteKit, type SchemaKit, type TableRefs } from "./columns";

/** The tables this module's tables reference, of the dialect being declared. */
export type SearchRefs = TableRefs<"trajectories">;

/** The tables of this module, declared once for both dialects (db/schema/columns.ts). */
export function searchTables(k: SchemaKit, { trajectories }: SearchRefs) {
  const searchEntries = k.table(
    "search_entries",
    {
      id: k.id(),
      trajectoryId: k.cascadeId("trajectory_id", () => trajectories.id),
      /** The step the text is from (thought, action, element, url, error); null for the trajectory's own text. */
      stepId: k.integer("step_id"),
      stepIndex: k.integer("step_index"),
      /** intent | thought | action | element | url | answer | error | note | rationale (SEARCH_FIELDS). */
      field: k.text("field").notNull(),
      /** The label (notes) or verdict (rationales) the text is from, so its edits and deletions reach the entry. */
      sourceId: k.integer("source_id"),
      /** Whose text it is: the annotator key of a note (annotators search their own notes only), the evaluator key of a rationale. */
      owner: k.text("owner"),
      body: k.text("body").notNull(),
    },
    (t) => [
      k.index("search_entries_trajectory_idx").on(t.trajectoryId, t.stepIndex),
      k.index("search_entries_step_idx").on(t.stepId),
      k.index("search_entries_source_idx").on(t.sourceId, t.field),
    ],
  );
  return { searchEntries };
}

export const { searchEntries } = searchTables(sqliteKit, { trajectories });

/**
 * The triggers (migration 0024 / pg 0010) that keep search_entries in step, the same names and events on both
 * engines (SQLite's FTS5 table has three more of its own, search_fts_*, fed from search_entries).
 */
export const SEARCH_TRIGGERS = [
  "steps_search_insert",
  "steps_search_delete",
  "steps_search_update",
  "trajectories_search_insert",
  "trajectories_search_update",
  "tasks_search_update",
  "labels_search_insert",
  "labels_search_delete",
  "labels_search_update",
  "evaluator_verdicts_search_insert",
  "evaluator_verdicts_search_delete",
  "evaluator_verdicts_search_update",
] as const;
