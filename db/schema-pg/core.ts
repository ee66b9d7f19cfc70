/**
 * The catalogue on PostgreSQL: task sets → tasks; agent runs; trajectories → steps; screenshots.
 * Mirrors db/schema/core.ts table for table (tests/integration/schema-parity.test.ts holds the two together);
 * the meaning of each column is documented there.
 */
import { boolean, doublePrecision, index, integer, json, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import type { ParsedAction, ReferenceAnswer, SomElement, TaskAttributes, TaskDifficulty } from "../../server/domain/types";
import { cascadeId, epochMs, nowMs } from "./columns";

const createdAt = () => epochMs("created_at").notNull().default(nowMs);

export const taskSets = pgTable("task_sets", {
  id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
  name: text("name").notNull().unique(),
  benchmark: text("benchmark").notNull(),
  description: text("description"),
  createdAt: createdAt(),
});

export const tasks = pgTable(
  "tasks",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    taskSetId: cascadeId("task_set_id", () => taskSets.id),
    externalId: text("external_id").notNull(),
    site: text("site"),
    intent: text("intent").notNull(),
    startUrl: text("start_url"),
    inputImages: json("input_images")
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    referenceAnswers: json("reference_answers")
      .$type<ReferenceAnswer[]>()
      .notNull()
      .default(sql`'[]'`),
    evaluatorConfig: json("evaluator_config").$type<unknown>(),
    // jsonb, unlike the other JSON columns: it is a key of tasks_site_analytics_idx, and json has no btree ordering.
    difficulty: jsonb("difficulty").$type<TaskDifficulty>(),
    tags: json("tags")
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    extra: json("extra").$type<Record<string, unknown>>(),
    attributes: json("attributes").$type<TaskAttributes>(),
    contentHash: text("content_hash").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("tasks_set_external_uq").on(t.taskSetId, t.externalId),
    // Covers the analytics read of tasks, id included: a PostgreSQL index holds no row id of its own (SQLite's does).
    index("tasks_site_analytics_idx").on(t.site, t.taskSetId, t.difficulty, t.id),
  ],
);

export const agentRuns = pgTable(
  "agent_runs",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    runKey: text("run_key").notNull().unique(),
    name: text("name").notNull(),
    agentName: text("agent_name").notNull(),
    model: text("model"),
    sourceSystem: text("source_system").notNull(),
    config: json("config").$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [index("agent_runs_model_idx").on(t.model)],
);

export const trajectories = pgTable(
  "trajectories",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    runId: cascadeId("run_id", () => agentRuns.id),
    taskId: integer("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "restrict" }),
    attempt: integer("attempt").notNull().default(0),
    finalAnswer: text("final_answer"),
    outcome: text("outcome").notNull(),
    outcomeDetail: text("outcome_detail"),
    stepCount: integer("step_count").notNull(),
    sourceFormat: text("source_format").notNull(),
    sourcePath: text("source_path"),
    contentHash: text("content_hash").notNull(),
    identityHash: text("identity_hash"),
    createdAt: createdAt(),
    updatedAt: epochMs("updated_at").notNull().default(nowMs),
  },
  (t) => [
    uniqueIndex("trajectories_run_task_attempt_uq").on(t.runId, t.taskId, t.attempt),
    index("trajectories_task_idx").on(t.taskId),
    index("trajectories_outcome_idx").on(t.outcome),
    // Covers the analytics read of trajectories, id included: a PostgreSQL index holds no row id of its own.
    index("trajectories_steps_idx").on(t.stepCount, t.runId, t.taskId, t.id),
    index("trajectories_updated_idx").on(t.updatedAt),
    index("trajectories_identity_idx").on(t.identityHash),
    index("trajectories_content_idx").on(t.contentHash),
  ],
);

export const steps = pgTable(
  "steps",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    index: integer("idx").notNull(),
    screenshotHash: text("screenshot_hash").references(() => screenshots.hash),
    rawScreenshotHash: text("raw_screenshot_hash").references(() => screenshots.hash),
    marksBurnedIn: boolean("marks_burned_in").notNull().default(false),
    url: text("url"),
    thought: text("thought"),
    actionRaw: text("action_raw"),
    action: json("action").$type<ParsedAction>().notNull(),
    elements: json("elements").$type<SomElement[]>(),
    error: text("error"),
    durationMs: doublePrecision("duration_ms"),
  },
  (t) => [
    uniqueIndex("steps_trajectory_idx_uq").on(t.trajectoryId, t.index),
    index("steps_screenshot_hash_idx").on(t.screenshotHash, t.trajectoryId),
    index("steps_raw_screenshot_hash_idx").on(t.rawScreenshotHash, t.trajectoryId),
  ],
);

export const screenshots = pgTable("screenshots", {
  hash: text("hash").primaryKey(),
  mime: text("mime").notNull(),
  width: integer("width").notNull(),
  height: integer("height").notNull(),
  bytes: integer("bytes").notNull(),
  dhash: text("dhash"),
  createdAt: createdAt(),
});
