/**
 * Automatic evaluation on PostgreSQL: judge configurations (keys in their own table), endpoint settings, batches
 * and evaluator verdicts. Mirrors db/schema/evaluation.ts, where each column is documented.
 */
import { bigint, boolean, doublePrecision, index, integer, json, pgTable, text, uniqueIndex, type AnyPgColumn } from "drizzle-orm/pg-core";
import type { SplitStratum } from "../../server/domain/evaluation/alignment";
import type { FewShotExample } from "../../server/domain/evaluation/prompt-variants";
import type { CriterionKind, CriterionResult, EvaluatorKind, JudgeOptions, VerdictOrigin, VerdictValue } from "../../server/domain/evaluation/verdicts";
import type { BatchStatus, LeftOutItem, RubricSource, RubricSuggestionRecord } from "../schema/evaluation";
import { annotationCampaigns } from "./annotation";
import { users } from "./auth";
import { cascadeId, epochMs, nowMs } from "./columns";
import { trajectories } from "./core";

export const judgeConfigs = pgTable("judge_configs", {
  id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
  name: text("name").notNull().unique(),
  baseUrl: text("base_url"),
  model: text("model").notNull(),
  apiKeyEnv: text("api_key_env"),
  temperature: doublePrecision("temperature").notNull().default(0),
  // bigint: any integer a provider accepts as a seed, as SQLite stores it.
  seed: bigint("seed", { mode: "number" }),
  maxOutputTokens: integer("max_output_tokens").notNull().default(1024),
  timeoutMs: integer("timeout_ms").notNull().default(120_000),
  maxRetries: integer("max_retries").notNull().default(5),
  promptVersion: text("prompt_version").notNull(),
  options: json("options").$type<JudgeOptions>().notNull(),
  priceInputPerMTok: doublePrecision("price_input_per_mtok"),
  priceOutputPerMTok: doublePrecision("price_output_per_mtok"),
  createdAt: epochMs("created_at").notNull().default(nowMs),
  updatedAt: epochMs("updated_at").notNull().default(nowMs),
});

export const judgeConfigSecrets = pgTable("judge_config_secrets", {
  configId: integer("config_id")
    .primaryKey()
    .references(() => judgeConfigs.id, { onDelete: "cascade" }),
  apiKey: text("api_key").notNull(),
  updatedAt: epochMs("updated_at").notNull().default(nowMs),
});

export const judgeEndpointSettings = pgTable("judge_endpoint_settings", {
  id: integer("id").primaryKey(),
  allowedHosts: json("allowed_hosts").$type<string[]>().notNull(),
  /** The every-loopback-port switch of earlier versions: no longer honoured, cleared on save, reported while set. */
  allowLoopback: boolean("allow_loopback").notNull().default(false),
  updatedBy: text("updated_by"),
  updatedAt: epochMs("updated_at").notNull().default(nowMs),
});

export const judgeBatches = pgTable(
  "judge_batches",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    judgeConfigId: integer("judge_config_id")
      .notNull()
      .references(() => judgeConfigs.id, { onDelete: "restrict" }),
    selectionLabel: text("selection_label"),
    trajectoryIds: json("trajectory_ids").$type<number[]>().notNull(),
    kValues: json("k_values").$type<string[]>().notNull(),
    concurrency: integer("concurrency").notNull(),
    force: boolean("force").notNull().default(false),
    status: text("status").$type<BatchStatus>().notNull().default("pending"),
    totalPairs: integer("total_pairs").notNull().default(0),
    skippedExisting: integer("skipped_existing").notNull().default(0),
    estimatedCalls: integer("estimated_calls").notNull().default(0),
    estimatedCostUsd: doublePrecision("estimated_cost_usd"),
    succeeded: integer("succeeded").notNull().default(0),
    failed: integer("failed").notNull().default(0),
    cancelled: integer("cancelled").notNull().default(0),
    error: text("error"),
    createdAt: epochMs("created_at").notNull().default(nowMs),
    startedAt: epochMs("started_at"),
    samples: integer("samples").notNull().default(1),
    finishedAt: epochMs("finished_at"),
    variants: json("variants").$type<string[]>(),
    alignmentId: integer("alignment_id").references((): AnyPgColumn => judgeAlignments.id, { onDelete: "set null" }),
  },
  (t) => [index("judge_batches_config_idx").on(t.judgeConfigId)],
);

export const evaluatorVerdicts = pgTable(
  "evaluator_verdicts",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    kind: text("kind").$type<EvaluatorKind>().notNull(),
    origin: text("origin").$type<VerdictOrigin>().notNull(),
    evaluatorKey: text("evaluator_key").notNull(),
    evaluatorName: text("evaluator_name").notNull(),
    judgeConfigId: integer("judge_config_id").references(() => judgeConfigs.id, { onDelete: "set null" }),
    batchId: integer("batch_id").references(() => judgeBatches.id, { onDelete: "set null" }),
    k: text("k").notNull().default(""),
    promptVersion: text("prompt_version").notNull().default(""),
    stepIndices: json("step_indices").$type<number[]>(),
    verdict: text("verdict").$type<VerdictValue>().notNull(),
    score: doublePrecision("score"),
    rationale: text("rationale"),
    rawReply: text("raw_reply"),
    details: json("details").$type<Record<string, unknown>>(),
    model: text("model"),
    inputTokens: integer("input_tokens"),
    outputTokens: integer("output_tokens"),
    latencyMs: integer("latency_ms"),
    costUsd: doublePrecision("cost_usd"),
    createdAt: epochMs("created_at").notNull().default(nowMs),
    updatedAt: epochMs("updated_at").notNull().default(nowMs),
    sampleCount: integer("sample_count"),
    sampleSuccesses: integer("sample_successes"),
    sampleFailures: integer("sample_failures"),
    firstFailingStep: integer("first_failing_step"),
    changeVersion: bigint("change_version", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    uniqueIndex("evaluator_verdicts_identity_uq").on(t.trajectoryId, t.evaluatorKey, t.k, t.promptVersion),
    index("evaluator_verdicts_analytics_idx").on(
      t.evaluatorKey,
      t.k,
      t.promptVersion,
      t.verdict,
      t.trajectoryId,
      t.sampleCount,
      t.sampleSuccesses,
      t.sampleFailures,
      t.firstFailingStep,
      t.id,
    ),
    index("evaluator_verdicts_batch_idx").on(t.batchId),
    index("evaluator_verdicts_change_idx").on(t.changeVersion),
  ],
);

/** A staged protocol's criteria and a judge's citations: mirror db/schema/evaluation.ts, where each is documented. */
export const verdictCriteria = pgTable(
  "verdict_criteria",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    verdictId: cascadeId("verdict_id", () => evaluatorVerdicts.id),
    position: integer("position").notNull(),
    kind: text("kind").$type<CriterionKind>().notNull(),
    text: text("text").notNull(),
    result: text("result").$type<CriterionResult>().notNull(),
  },
  (t) => [uniqueIndex("verdict_criteria_position_uq").on(t.verdictId, t.position)],
);

export const verdictCitations = pgTable(
  "verdict_citations",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    verdictId: cascadeId("verdict_id", () => evaluatorVerdicts.id),
    position: integer("position").notNull(),
    stepNumber: integer("step_number"),
    stepIndex: integer("step_index"),
    box: json("box").$type<[number, number, number, number]>(),
    note: text("note"),
    problem: text("problem"),
  },
  (t) => [uniqueIndex("verdict_citations_position_uq").on(t.verdictId, t.position)],
);

/** Alignment studies, their prompt versions and stress tests: mirrors db/schema/evaluation.ts, where each is documented. */
export const judgeAlignments = pgTable(
  "judge_alignments",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    name: text("name").notNull().unique(),
    judgeConfigId: integer("judge_config_id")
      .notNull()
      .references(() => judgeConfigs.id, { onDelete: "restrict" }),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    k: text("k").notNull(),
    heldOutShare: doublePrecision("held_out_share").notNull(),
    seed: bigint("seed", { mode: "number" }).notNull(),
    calibrationIds: json("calibration_ids").$type<number[]>().notNull(),
    heldOutIds: json("held_out_ids").$type<number[]>().notNull(),
    strata: json("strata").$type<SplitStratum[]>().notNull(),
    leftOut: json("left_out").$type<LeftOutItem[]>().notNull(),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: epochMs("created_at").notNull().default(nowMs),
  },
  (t) => [index("judge_alignments_config_idx").on(t.judgeConfigId)],
);

export const judgePromptVersions = pgTable(
  "judge_prompt_versions",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    alignmentId: cascadeId("alignment_id", () => judgeAlignments.id),
    number: integer("number").notNull(),
    parentId: integer("parent_id").references((): AnyPgColumn => judgePromptVersions.id, { onDelete: "set null" }),
    rubric: text("rubric"),
    rubricSource: text("rubric_source").$type<RubricSource>().notNull(),
    examples: json("examples").$type<FewShotExample[]>().notNull(),
    suggestion: json("suggestion").$type<RubricSuggestionRecord>(),
    note: text("note"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: epochMs("created_at").notNull().default(nowMs),
  },
  (t) => [uniqueIndex("judge_prompt_versions_number_uq").on(t.alignmentId, t.number)],
);

export const judgeStressTests = pgTable(
  "judge_stress_tests",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    judgeConfigId: integer("judge_config_id")
      .notNull()
      .references(() => judgeConfigs.id, { onDelete: "restrict" }),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    promptVersionId: integer("prompt_version_id").references(() => judgePromptVersions.id, { onDelete: "restrict" }),
    k: text("k").notNull(),
    seed: bigint("seed", { mode: "number" }).notNull(),
    perturbations: json("perturbations").$type<string[]>().notNull(),
    skipped: json("skipped").$type<{ perturbation: string; reason: string }[]>().notNull(),
    trajectoryIds: json("trajectory_ids").$type<number[]>().notNull(),
    batchId: integer("batch_id").references(() => judgeBatches.id, { onDelete: "set null" }),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: epochMs("created_at").notNull().default(nowMs),
  },
  (t) => [index("judge_stress_tests_config_idx").on(t.judgeConfigId)],
);
