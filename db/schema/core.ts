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
import type { ParsedAction, SomElement, ReferenceAnswer, TaskAttributes, TaskDifficulty } from "../../server/domain/types";
import { sqliteKit, timestamps, type SchemaKit } from "./columns";

/** Task sets, their tasks, and the agent runs that attempt them. */
function taskTables(k: SchemaKit) {
  const taskSets = k.table("task_sets", {
    id: k.id(),
    /** Human name, unique: "WebVoyager", "VisualWebArena shopping", … */
    name: k.text("name").notNull().unique(),
    /** Benchmark family the set comes from: webvoyager | visualwebarena | webarena | demo | adhoc | … */
    benchmark: k.text("benchmark").notNull(),
    description: k.text("description"),
    createdAt: k.stamp("created_at"),
  });

  const tasks = k.table(
    "tasks",
    {
      id: k.id(),
      taskSetId: k.cascadeId("task_set_id", () => taskSets.id),
      /** The benchmark's own id: "Allrecipes--4", "visualwebarena.shopping.12", … */
      externalId: k.text("external_id").notNull(),
      site: k.text("site"),
      intent: k.text("intent").notNull(),
      startUrl: k.text("start_url"),
      /** Input image references (URLs or paths as the benchmark wrote them). */
      inputImages: k
        .json("input_images")
        .$type<string[]>()
        .notNull()
        .default(sql`'[]'`),
      referenceAnswers: k
        .json("reference_answers")
        .$type<ReferenceAnswer[]>()
        .notNull()
        .default(sql`'[]'`),
      /** The benchmark's evaluator config kept verbatim (VWA `eval` object). */
      evaluatorConfig: k.json("evaluator_config").$type<unknown>(),
      difficulty: k.indexedJson("difficulty").$type<TaskDifficulty>(),
      tags: k
        .json("tags")
        .$type<string[]>()
        .notNull()
        .default(sql`'[]'`),
      /** Remaining benchmark fields, verbatim, for evaluators that need them later. */
      extra: k.json("extra").$type<Record<string, unknown>>(),
      /**
       * Fields the source's task file carried beyond what Verdict reads (a fork's `ques_group`, `lang`…), as text
       * values: analytics split any view by them (server/domain/catalog/task-attributes.ts). Null when none.
       */
      attributes: k.json("attributes").$type<TaskAttributes>(),
      contentHash: k.text("content_hash").notNull(),
      createdAt: k.stamp("created_at"),
    },
    (t) => [
      k.uniqueIndex("tasks_set_external_uq").on(t.taskSetId, t.externalId),
      // Serves filters by site and covers the analytics read of tasks (db/repositories/analytics.ts).
      k.index("tasks_site_analytics_idx").on(t.site, t.taskSetId, t.difficulty, t.id),
    ],
  );

  const agentRuns = k.table(
    "agent_runs",
    {
      id: k.id(),
      /**
       * The run as its source names it ("webvoyager:results/20250414_14_44_45", a bundle's run key), unique. Runs
       * stored before identity by content hold the absolute folder here; either way only the folder's own name takes
       * part in a trajectory's identity, and a second run of the same name gets " #2".
       */
      runKey: k.text("run_key").notNull().unique(),
      name: k.text("name").notNull(),
      agentName: k.text("agent_name").notNull(),
      model: k.text("model"),
      /** System that produced the run: webvoyager | visualwebarena | seeact | browsergym | agentrewardbench | verdict-runner | … */
      sourceSystem: k.text("source_system").notNull(),
      config: k.json("config").$type<Record<string, unknown>>(),
      createdAt: k.stamp("created_at"),
    },
    (t) => [k.index("agent_runs_model_idx").on(t.model)],
  );
  return { taskSets, tasks, agentRuns };
}

/** Trajectories, their steps and the screenshots they show. */
function trajectoryTables(k: SchemaKit, { tasks, agentRuns }: Pick<ReturnType<typeof taskTables>, "tasks" | "agentRuns">) {
  const trajectories = k.table(
    "trajectories",
    {
      id: k.id(),
      runId: k.cascadeId("run_id", () => agentRuns.id),
      taskId: k
        .integer("task_id")
        .notNull()
        .references(() => tasks.id, { onDelete: "restrict" }),
      attempt: k.integer("attempt").notNull().default(0),
      finalAnswer: k.text("final_answer"),
      /** answered | step_limit | error | cancelled | running | unknown */
      outcome: k.text("outcome").notNull(),
      outcomeDetail: k.text("outcome_detail"),
      stepCount: k.integer("step_count").notNull(),
      /** Importer format and the path it was read from. */
      sourceFormat: k.text("source_format").notNull(),
      sourcePath: k.text("source_path"),
      /**
       * Imports: "v2:" + sha256 of the run folder's own name, task, attempt and the trajectory as stored (steps with
       * image hashes, answer, outcome; server/domain/imports/identity.ts), so equal content is found wherever it was
       * imported from; rows stored earlier get theirs on the next import or dedupe. Live runs: their own content hash.
       */
      contentHash: k.text("content_hash").notNull(),
      /**
       * Imports: sha256 of the run folder's own name, task, attempt and the bytes of the trajectory's own files, so
       * the same files read again (by a newer Verdict too) are the same trajectory. Null for live runs, formats whose
       * importer names no files, and rows imported before it existed.
       */
      identityHash: k.text("identity_hash"),
      ...timestamps(k),
    },
    (t) => [
      k.uniqueIndex("trajectories_run_task_attempt_uq").on(t.runId, t.taskId, t.attempt),
      k.index("trajectories_task_idx").on(t.taskId),
      k.index("trajectories_outcome_idx").on(t.outcome),
      // Serves step-count filters and covers the analytics read of trajectories (db/repositories/analytics.ts).
      k.index("trajectories_steps_idx").on(t.stepCount, t.runId, t.taskId, t.id),
      k.index("trajectories_updated_idx").on(t.updatedAt),
      k.index("trajectories_identity_idx").on(t.identityHash),
      k.index("trajectories_content_idx").on(t.contentHash),
    ],
  );

  const steps = k.table(
    "steps",
    {
      id: k.id(),
      trajectoryId: k.cascadeId("trajectory_id", () => trajectories.id),
      index: k.integer("idx").notNull(),
      screenshotHash: k.text("screenshot_hash").references(() => screenshots.hash),
      /** Unmarked screenshot, when the source kept one. */
      rawScreenshotHash: k.text("raw_screenshot_hash").references(() => screenshots.hash),
      /** True when Set-of-Marks boxes are burned into `screenshotHash`'s pixels. */
      marksBurnedIn: k.flag("marks_burned_in").notNull().default(false),
      url: k.text("url"),
      thought: k.text("thought"),
      actionRaw: k.text("action_raw"),
      action: k.json("action").$type<ParsedAction>().notNull(),
      elements: k.json("elements").$type<SomElement[]>(),
      error: k.text("error"),
      /** Milliseconds the step took, when the source recorded it. */
      durationMs: k.real("duration_ms"),
    },
    (t) => [
      k.uniqueIndex("steps_trajectory_idx_uq").on(t.trajectoryId, t.index),
      // The screenshot route checks that a requested image belongs to a trajectory the viewer may see.
      k.index("steps_screenshot_hash_idx").on(t.screenshotHash, t.trajectoryId),
      k.index("steps_raw_screenshot_hash_idx").on(t.rawScreenshotHash, t.trajectoryId),
    ],
  );

  const screenshots = k.table("screenshots", {
    /** sha256 hex of the file's bytes; also its name in the file store. */
    hash: k.text("hash").primaryKey(),
    mime: k.text("mime").notNull(),
    width: k.integer("width").notNull(),
    height: k.integer("height").notNull(),
    bytes: k.integer("bytes").notNull(),
    /**
     * Difference hash (64 hex digits, server/domain/evaluation/heuristics/dhash.ts) telling near-identical screens
     * apart from changed ones; computed when the loop heuristic first needs it, null until then.
     */
    dhash: k.text("dhash"),
    createdAt: k.stamp("created_at"),
  });
  return { trajectories, steps, screenshots };
}

/** The tables of this module, declared once for both dialects (db/schema/columns.ts). */
export function coreTables(k: SchemaKit) {
  const task = taskTables(k);
  const trajectory = trajectoryTables(k, task);
  return { ...task, ...trajectory };
}

export const { taskSets, tasks, agentRuns, trajectories, steps, screenshots } = coreTables(sqliteKit);

export type TaskSetRow = typeof taskSets.$inferSelect;
export type TaskRow = typeof tasks.$inferSelect;
export type AgentRunRow = typeof agentRuns.$inferSelect;
export type TrajectoryRow = typeof trajectories.$inferSelect;
export type StepRow = typeof steps.$inferSelect;
export type ScreenshotRow = typeof screenshots.$inferSelect;
