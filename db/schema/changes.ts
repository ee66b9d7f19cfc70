/**
 * Per-table change counters, bumped by SQLite triggers (migration 0007) whenever a row of a counted table is
 * inserted, deleted, or has a column changed that analytics read. Every connection and process (web server,
 * worker, CLI) goes through the triggers, so a reader can tell which of its cached tables are still current by
 * comparing counters, instead of dropping everything on any write.
 *
 * Triggers are not part of drizzle's schema model: a migration that rebuilds one of these tables must create its
 * triggers again (tests/integration/change-counters.test.ts fails when one is missing).
 */
import { sqliteKit, type SchemaKit } from "./columns";

/** The tables with counters, and the columns whose updates count (inserts and deletes always count). */
export const COUNTED_TABLES = {
  // Attributes split every view (server/services/analytics/splits.ts): a re-import that changes them must count.
  tasks: ["site", "task_set_id", "difficulty", "attributes"],
  // outcome: an infrastructure error or a blocked page takes a trajectory out of every rate (a live run sets it last).
  trajectories: ["run_id", "task_id", "step_count", "outcome"],
  evaluator_verdicts: [
    "trajectory_id",
    "evaluator_key",
    "k",
    "prompt_version",
    "verdict",
    "sample_count",
    "sample_successes",
    "sample_failures",
    "first_failing_step",
  ],
  labels: ["campaign_id", "status", "annotator_key", "verdict", "category", "item_id", "trajectory_id", "first_failing_step"],
  consolidated_labels: ["campaign_id", "verdict", "category", "trajectory_id", "first_failing_step"],
  // Revisions are only inserted; the update trigger is there for a hand edit of the ledger.
  task_flags: ["task_id", "status"],
} as const;

export type CountedTable = keyof typeof COUNTED_TABLES;

/**
 * Not a table: moves when a verdict row is deleted or changes identity (trajectory, evaluator, k, prompt version).
 * Verdict rows carry the evaluator_verdicts counter of their last counted write (change_version), so a reader
 * holding the verdicts can fetch only newer rows; a removal leaves no row to fetch, and this counter says so.
 */
export const VERDICT_REMOVALS_COUNTER = "evaluator_verdicts_removed";

/**
 * Not a table: moves when a label row is deleted or changes identity (campaign, item, annotator). Label rows carry
 * the labels counter of their last counted write (change_version), as verdict rows do, so the analytics patch a
 * campaign's labels in place of reading them all again; a removal leaves no row to fetch, and this counter says so.
 */
export const LABEL_REMOVALS_COUNTER = "labels_removed";

/** Every counter row: the counted tables and the verdict and label removals. */
export type ChangeCounter = CountedTable | typeof VERDICT_REMOVALS_COUNTER | typeof LABEL_REMOVALS_COUNTER;

/** The tables of this module, declared once for both dialects (db/schema/columns.ts). */
export function changeTables(k: SchemaKit) {
  const changeCounters = k.table("change_counters", {
    /** Table name. */
    name: k.text("name").primaryKey(),
    /** Counters only grow, one step per counted row written, for the life of the installation. */
    version: k.bigint("version").notNull().default(0),
  });

  /**
   * Bootstrap results of the analytics (intervals of Fleiss' κ and α, clustered judge error rates) kept across
   * restarts (server/services/analytics/dataset.ts). A result depends only on its input, which its memo key spells out
   * in full, so a row never goes stale while the drawing code stays the same (the key starts with a format version
   * that changes with it). `id` is a digest of kind and key; the newest rows are kept, older ones deleted.
   */
  const analyticsMemos = k.table("analytics_memos", {
    id: k.text("id").primaryKey(),
    kind: k.text("kind").notNull(),
    memoKey: k.text("memo_key").notNull(),
    /** superjson of the result, so NaN, Infinity and undefined come back as they were. */
    value: k.text("value").notNull(),
    /** Milliseconds since the epoch; the order the newest rows are kept in. */
    writtenAt: k.bigint("written_at").notNull(),
  });

  /**
   * The data the analytics views start from (trajectory facts, consolidated references, a judge's or every evaluator's
   * verdicts, a campaign's labels: server/services/analytics/snapshots.ts), kept across restarts so the first view after
   * one reads them instead of recomputing them (issue 32). A row is exact for the change counters it was read at
   * (`versions`, JSON of every counter; `stamp`, the counters of the tables it depends on): a process uses it when the
   * stamp still matches, brings it up to date with the rows written since when it can (labels, verdicts), and reads
   * everything again otherwise. `format` changes whenever the encoding or what a key holds changes.
   */
  const analyticsSnapshots = k.table("analytics_snapshots", {
    /** What the row holds, e.g. `facts`, `verdicts:*`, `labels:3` (dataset.ts's cache keys). */
    key: k.text("key").primaryKey(),
    format: k.text("format").notNull(),
    stamp: k.text("stamp").notNull(),
    versions: k.text("versions").notNull(),
    /** The value, encoded (typed arrays as raw bytes after a JSON header). */
    value: k.bytes("value").notNull(),
    /** Milliseconds since the epoch. */
    writtenAt: k.bigint("written_at").notNull(),
  });
  return { changeCounters, analyticsMemos, analyticsSnapshots };
}

export const { changeCounters, analyticsMemos, analyticsSnapshots } = changeTables(sqliteKit);
