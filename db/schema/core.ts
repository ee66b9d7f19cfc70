/**
 * Verdict's relational schema (SQLite through drizzle).
 *
 * The spine: task sets → tasks; agent runs; trajectories (task × run × attempt) → steps.
 * Screenshots are content-addressed files; the `screenshots` table records what the file store holds.
 * Later domains (annotations, evaluator verdicts, jobs) add their own tables in new migrations.
 *
 * JSON columns hold structures that are always read whole (parsed action, SoM elements, evaluator config);
 * everything that is filtered or aggregated on is a real column with an index.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex, real } from "drizzle-orm/sqlite-core";
import type { ParsedAction, SomElement, ReferenceAnswer, TaskAttributes, TaskDifficulty } from "../../server/domain/types";
import { cascadeId } from "./columns";

const createdAt = () =>
  integer("created_at", { mode: "timestamp_ms" })
    .notNull()
    .default(sql`(unixepoch('subsec') * 1000)`);

export const taskSets = sqliteTable("task_sets", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  /** Human name, unique: "WebVoyager", "VisualWebArena shopping", … */
  name: text("name").notNull().unique(),
  /** Benchmark family the set comes from: webvoyager | visualwebarena | webarena | demo | adhoc | … */
  benchmark: text("benchmark").notNull(),
  description: text("description"),
  createdAt: createdAt(),
});

export const tasks = sqliteTable(
  "tasks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    taskSetId: cascadeId("task_set_id", () => taskSets.id),
    /** The benchmark's own id: "Allrecipes--4", "visualwebarena.shopping.12", … */
    externalId: text("external_id").notNull(),
    site: text("site"),
    intent: text("intent").notNull(),
    startUrl: text("start_url"),
    /** Input image references (URLs or paths as the benchmark wrote them). */
    inputImages: text("input_images", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    referenceAnswers: text("reference_answers", { mode: "json" })
      .$type<ReferenceAnswer[]>()
      .notNull()
      .default(sql`'[]'`),
    /** The benchmark's evaluator config kept verbatim (VWA `eval` object). */
    evaluatorConfig: text("evaluator_config", { mode: "json" }).$type<unknown>(),
    difficulty: text("difficulty", { mode: "json" }).$type<TaskDifficulty>(),
    tags: text("tags", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    /** Remaining benchmark fields, verbatim, for evaluators that need them later. */
    extra: text("extra", { mode: "json" }).$type<Record<string, unknown>>(),
    /**
     * Fields the source's task file carried beyond what Verdict reads (a fork's `ques_group`, `lang`…), as text
     * values: analytics split any view by them (server/domain/catalog/task-attributes.ts). Null when none.
     */
    attributes: text("attributes", { mode: "json" }).$type<TaskAttributes>(),
    contentHash: text("content_hash").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("tasks_set_external_uq").on(t.taskSetId, t.externalId),
    // Serves filters by site and covers the analytics read of tasks (db/repositories/analytics.ts).
    index("tasks_site_analytics_idx").on(t.site, t.taskSetId, t.difficulty, t.id),
  ],
);

export const agentRuns = sqliteTable(
  "agent_runs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /**
     * The run as its source names it ("webvoyager:results/20250414_14_44_45", a bundle's run key), unique. Runs
     * stored before identity by content hold the absolute folder here; either way only the folder's own name takes
     * part in a trajectory's identity, and a second run of the same name gets " #2".
     */
    runKey: text("run_key").notNull().unique(),
    name: text("name").notNull(),
    agentName: text("agent_name").notNull(),
    model: text("model"),
    /** System that produced the run: webvoyager | visualwebarena | seeact | browsergym | agentrewardbench | verdict-runner | … */
    sourceSystem: text("source_system").notNull(),
    config: text("config", { mode: "json" }).$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [index("agent_runs_model_idx").on(t.model)],
);

export const trajectories = sqliteTable(
  "trajectories",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    runId: cascadeId("run_id", () => agentRuns.id),
    taskId: integer("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "restrict" }),
    attempt: integer("attempt").notNull().default(0),
    finalAnswer: text("final_answer"),
    /** answered | step_limit | error | cancelled | running | unknown */
    outcome: text("outcome").notNull(),
    outcomeDetail: text("outcome_detail"),
    stepCount: integer("step_count").notNull(),
    /** Importer format and the path it was read from. */
    sourceFormat: text("source_format").notNull(),
    sourcePath: text("source_path"),
    /**
     * Imports: "v2:" + sha256 of the run folder's own name, task, attempt and the trajectory as stored (steps with
     * image hashes, answer, outcome; server/domain/imports/identity.ts), so equal content is found wherever it was
     * imported from; rows stored earlier get theirs on the next import or dedupe. Live runs: their own content hash.
     */
    contentHash: text("content_hash").notNull(),
    /**
     * Imports: sha256 of the run folder's own name, task, attempt and the bytes of the trajectory's own files, so
     * the same files read again (by a newer Verdict too) are the same trajectory. Null for live runs, formats whose
     * importer names no files, and rows imported before it existed.
     */
    identityHash: text("identity_hash"),
    createdAt: createdAt(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" })
      .notNull()
      .default(sql`(unixepoch('subsec') * 1000)`),
  },
  (t) => [
    uniqueIndex("trajectories_run_task_attempt_uq").on(t.runId, t.taskId, t.attempt),
    index("trajectories_task_idx").on(t.taskId),
    index("trajectories_outcome_idx").on(t.outcome),
    // Serves step-count filters and covers the analytics read of trajectories (db/repositories/analytics.ts).
    index("trajectories_steps_idx").on(t.stepCount, t.runId, t.taskId, t.id),
    index("trajectories_updated_idx").on(t.updatedAt),
    index("trajectories_identity_idx").on(t.identityHash),
    index("trajectories_content_idx").on(t.contentHash),
  ],
);

export const steps = sqliteTable(
  "steps",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    index: integer("idx").notNull(),
    screenshotHash: text("screenshot_hash").references(() => screenshots.hash),
    /** Unmarked screenshot, when the source kept one. */
    rawScreenshotHash: text("raw_screenshot_hash").references(() => screenshots.hash),
    /** True when Set-of-Marks boxes are burned into `screenshotHash`'s pixels. */
    marksBurnedIn: integer("marks_burned_in", { mode: "boolean" }).notNull().default(false),
    url: text("url"),
    thought: text("thought"),
    actionRaw: text("action_raw"),
    action: text("action", { mode: "json" }).$type<ParsedAction>().notNull(),
    elements: text("elements", { mode: "json" }).$type<SomElement[]>(),
    error: text("error"),
    /** Milliseconds the step took, when the source recorded it. */
    durationMs: real("duration_ms"),
  },
  (t) => [
    uniqueIndex("steps_trajectory_idx_uq").on(t.trajectoryId, t.index),
    // The screenshot route checks that a requested image belongs to a trajectory the viewer may see.
    index("steps_screenshot_hash_idx").on(t.screenshotHash, t.trajectoryId),
    index("steps_raw_screenshot_hash_idx").on(t.rawScreenshotHash, t.trajectoryId),
  ],
);

export const screenshots = sqliteTable("screenshots", {
  /** sha256 hex of the file's bytes; also its name in the file store. */
  hash: text("hash").primaryKey(),
  mime: text("mime").notNull(),
  width: integer("width").notNull(),
  height: integer("height").notNull(),
  bytes: integer("bytes").notNull(),
  /**
   * Difference hash (64 hex digits, server/domain/evaluation/heuristics/dhash.ts) telling near-identical screens
   * apart from changed ones; computed when the loop heuristic first needs it, null until then.
   */
  dhash: text("dhash"),
  createdAt: createdAt(),
});

export type TaskSetRow = typeof taskSets.$inferSelect;
export type TaskRow = typeof tasks.$inferSelect;
export type AgentRunRow = typeof agentRuns.$inferSelect;
export type TrajectoryRow = typeof trajectories.$inferSelect;
export type StepRow = typeof steps.$inferSelect;
export type ScreenshotRow = typeof screenshots.$inferSelect;
