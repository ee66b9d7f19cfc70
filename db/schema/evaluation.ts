/**
 * Automatic evaluation: LMM judge configurations, their batches, and the verdicts of every evaluator
 * (Verdict's own judges and rule checks, and verdicts imported from other systems).
 *
 * API keys live in their own table so that no query on judge configurations can return one by accident; only
 * the judge service reads `judge_config_secrets`, and nothing sends it to a browser or an export.
 */
import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex, type AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { SplitStratum } from "../../server/domain/evaluation/alignment";
import type { FewShotExample } from "../../server/domain/evaluation/prompt-variants";
import type { CriterionKind, CriterionResult, EvaluatorKind, JudgeOptions, VerdictOrigin, VerdictValue } from "../../server/domain/evaluation/verdicts";
import { annotationCampaigns } from "./annotation";
import { users } from "./auth";
import { trajectories } from "./core";
import { cascadeId } from "./columns";

const nowMs = sql`(unixepoch('subsec') * 1000)`;

export const judgeConfigs = sqliteTable("judge_configs", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull().unique(),
  /** OpenAI-compatible base URL ("http://localhost:11434/v1"); null = the OpenAI API. */
  baseUrl: text("base_url"),
  model: text("model").notNull(),
  /** Name of the environment variable holding the key; used when no key is stored for this configuration. */
  apiKeyEnv: text("api_key_env"),
  temperature: real("temperature").notNull().default(0),
  /** Sent as `seed` for providers that support reproducible sampling; null = not sent. */
  seed: integer("seed"),
  maxOutputTokens: integer("max_output_tokens").notNull().default(1024),
  timeoutMs: integer("timeout_ms").notNull().default(120_000),
  /** Retries of one call on 429, 5xx and timeouts, with exponential backoff. */
  maxRetries: integer("max_retries").notNull().default(5),
  /** Judge prompt version this configuration uses (see server/domain/evaluation/judge-protocol.ts). */
  promptVersion: text("prompt_version").notNull(),
  options: text("options", { mode: "json" }).$type<JudgeOptions>().notNull(),
  /** USD per million tokens, for cost estimates; null = unknown (no estimate). */
  priceInputPerMTok: real("price_input_per_mtok"),
  priceOutputPerMTok: real("price_output_per_mtok"),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
});

/** A key stored server-side for one configuration. Never selected together with the configuration. */
export const judgeConfigSecrets = sqliteTable("judge_config_secrets", {
  configId: integer("config_id")
    .primaryKey()
    .references(() => judgeConfigs.id, { onDelete: "cascade" }),
  apiKey: text("api_key").notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
});

/**
 * The admins' judge endpoint settings, one row (id 1), edited through the admin API. They add to the environment's
 * VERDICT_JUDGE_ALLOWED_HOSTS / VERDICT_JUDGE_ALLOW_LOOPBACK (see server/domain/evaluation/judge-endpoint-policy.ts).
 */
export const judgeEndpointSettings = sqliteTable("judge_endpoint_settings", {
  id: integer("id").primaryKey(),
  /** Normalised "host" or "host:port" entries. */
  allowedHosts: text("allowed_hosts", { mode: "json" }).$type<string[]>().notNull(),
  /** The every-loopback-port switch of earlier versions: no longer honoured, cleared on save, reported while set. */
  allowLoopback: integer("allow_loopback", { mode: "boolean" }).notNull().default(false),
  /** Who saved them last (user id). */
  updatedBy: text("updated_by"),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
});

export const BATCH_STATUSES = ["pending", "running", "succeeded", "failed", "cancelled"] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

/** A judge batch: one configuration over a selection of trajectories × several k values. Its jobs carry group key `judge-batch:<id>`. */
export const judgeBatches = sqliteTable(
  "judge_batches",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    judgeConfigId: integer("judge_config_id")
      .notNull()
      .references(() => judgeConfigs.id, { onDelete: "restrict" }),
    /** Where the selection came from, for people: "run 3", "all", "campaign 2", "filter: site=reddit". */
    selectionLabel: text("selection_label"),
    trajectoryIds: text("trajectory_ids", { mode: "json" }).$type<number[]>().notNull(),
    /** k values as written in verdicts: "1", "3", "full". */
    kValues: text("k_values", { mode: "json" }).$type<string[]>().notNull(),
    concurrency: integer("concurrency").notNull(),
    /** Recompute verdicts that are already stored. */
    force: integer("force", { mode: "boolean" }).notNull().default(false),
    /** Replies asked for per (trajectory, k): several samples at temperature > 0 give the judge's confidence. */
    samples: integer("samples").notNull().default(1),
    /**
     * Variants of the configuration's prompt the batch asks with, as text (server/domain/evaluation/prompt-variants.ts:
     * "pv12", "shuffle-s7", …); each (trajectory, k) is judged once per variant. Null = the configuration's own prompt.
     */
    variants: text("variants", { mode: "json" }).$type<string[]>(),
    /** The alignment study the batch runs for (its base version on every item, or a new version on the held-out part). */
    alignmentId: integer("alignment_id").references((): AnySQLiteColumn => judgeAlignments.id, { onDelete: "set null" }),
    status: text("status").$type<BatchStatus>().notNull().default("pending"),
    /** Pairs (trajectory, k) in the selection, and how many of them already had a verdict when the batch was made. */
    totalPairs: integer("total_pairs").notNull().default(0),
    skippedExisting: integer("skipped_existing").notNull().default(0),
    estimatedCalls: integer("estimated_calls").notNull().default(0),
    estimatedCostUsd: real("estimated_cost_usd"),
    /** Job counts, refreshed whenever a run of the batch ends. */
    succeeded: integer("succeeded").notNull().default(0),
    failed: integer("failed").notNull().default(0),
    cancelled: integer("cancelled").notNull().default(0),
    error: text("error"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
    startedAt: integer("started_at", { mode: "timestamp_ms" }),
    finishedAt: integer("finished_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("judge_batches_config_idx").on(t.judgeConfigId)],
);

export const evaluatorVerdicts = sqliteTable(
  "evaluator_verdicts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    kind: text("kind").$type<EvaluatorKind>().notNull(),
    origin: text("origin").$type<VerdictOrigin>().notNull(),
    /**
     * Identity of the evaluator, the first part of the uniqueness key: "judge:<config id>", "rule:vwa",
     * "import:<system>:<name>". Re-running the same evaluator replaces its verdict instead of adding one.
     */
    evaluatorKey: text("evaluator_key").notNull(),
    /** Name shown to people (configuration name, "VisualWebArena rules", the imported judge's name). */
    evaluatorName: text("evaluator_name").notNull(),
    judgeConfigId: integer("judge_config_id").references(() => judgeConfigs.id, { onDelete: "set null" }),
    batchId: integer("batch_id").references(() => judgeBatches.id, { onDelete: "set null" }),
    /** Judges: "1", "3", "full". Empty for evaluators without a screenshot window. */
    k: text("k").notNull().default(""),
    /** Judges: the prompt version; rules: the rule implementation version; imports: empty. */
    promptVersion: text("prompt_version").notNull().default(""),
    /** Step indices whose screenshots the judge was sent, oldest first. */
    stepIndices: text("step_indices", { mode: "json" }).$type<number[]>(),
    verdict: text("verdict").$type<VerdictValue>().notNull(),
    /** Rules: the benchmark's score (product of checks); imports: the source's score; judges: 1/0 or null. */
    score: real("score"),
    rationale: text("rationale"),
    /** The judge's reply exactly as received; imports: the source record as JSON text. */
    rawReply: text("raw_reply"),
    /**
     * Judges asked for several samples of one item (batch option `samples`, temperature > 0): how many replies came
     * back, and how many of them said success and failure (the rest were unparseable). `verdict` is the majority;
     * the share of parseable samples saying success is the judge's confidence for calibration. Null = one sample.
     */
    sampleCount: integer("sample_count"),
    sampleSuccesses: integer("sample_successes"),
    sampleFailures: integer("sample_failures"),
    /**
     * The first step (0-based index) the evaluator says went wrong: a judge asked for it by its prompt option, a
     * heuristic the step it fires on. Null = not given (rules give none; a judge reply without a parseable step
     * says so in details.failureStep).
     */
    firstFailingStep: integer("first_failing_step"),
    /** Rules: per-check results; judges: request facts (image sizes, attempts, finish reason); not_evaluable reasons. */
    details: text("details", { mode: "json" }).$type<Record<string, unknown>>(),
    /** Model that answered, as the endpoint reported it. */
    model: text("model"),
    inputTokens: integer("input_tokens"),
    outputTokens: integer("output_tokens"),
    latencyMs: integer("latency_ms"),
    costUsd: real("cost_usd"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
    /**
     * The evaluator_verdicts change counter (db/schema/changes.ts) as this row's write left it, stamped by the
     * counting triggers: analytics that hold the verdicts in memory read only the rows stamped after their copy,
     * so a judge writing one verdict does not make every open view read them all again.
     */
    changeVersion: integer("change_version").notNull().default(0),
  },
  (t) => [
    uniqueIndex("evaluator_verdicts_identity_uq").on(t.trajectoryId, t.evaluatorKey, t.k, t.promptVersion),
    // Covers the analytics read of verdicts grouped by evaluator setting and verdict, every column it reads (the
    // samples and the first failing step too: without them each of the 300,000 verdicts of a large study is looked
    // up in the wide table, rationale and reply included); also serves look-ups by key.
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

/**
 * What a staged judge protocol graded on the way to its verdict, one row per criterion: the key points of the
 * key-point protocol (each MET or NOT MET), the outcome and process criteria of the rubric protocol (each PASS or
 * FAIL). Replaced with their verdict (server/domain/evaluation/staged-protocols.ts).
 */
export const verdictCriteria = sqliteTable(
  "verdict_criteria",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    verdictId: cascadeId("verdict_id", () => evaluatorVerdicts.id),
    /** 1-based, in the order the judge listed them. */
    position: integer("position").notNull(),
    kind: text("kind").$type<CriterionKind>().notNull(),
    text: text("text").notNull(),
    result: text("result").$type<CriterionResult>().notNull(),
  },
  (t) => [uniqueIndex("verdict_criteria_position_uq").on(t.verdictId, t.position)],
);

/**
 * The steps (and regions) a judge cited as its evidence, with whether Verdict could check them: a step the
 * trajectory does not have, or a box outside its screenshot, is kept with its problem (server/domain/evaluation/citations.ts).
 */
export const verdictCitations = sqliteTable(
  "verdict_citations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    verdictId: cascadeId("verdict_id", () => evaluatorVerdicts.id),
    /** 1-based, in the order the reply gave them. */
    position: integer("position").notNull(),
    /** The step number as the judge wrote it (the prompt numbers steps from 1); null when the line gave none. */
    stepNumber: integer("step_number"),
    /** The step's stored index; null when the trajectory has no such step. */
    stepIndex: integer("step_index"),
    /** [x1, y1, x2, y2] in the screenshot's pixels, when the judge gave a box. */
    box: text("box", { mode: "json" }).$type<[number, number, number, number]>(),
    /** What the judge said the step shows. */
    note: text("note"),
    /** Why the citation cannot be checked; null = it can. */
    problem: text("problem"),
  },
  (t) => [uniqueIndex("verdict_citations_position_uq").on(t.verdictId, t.position)],
);

/** Why a campaign item took no part in an alignment split. */
export interface LeftOutItem {
  trajectoryId: number;
  reason: "unsure" | "not consolidated";
}

/**
 * An alignment study: one judge configuration against one labelled campaign, its items split (seeded, stratified by
 * human label and site) into a calibration part, whose disagreements new prompt versions learn from, and a held-out
 * part every version is measured on. The split is fixed when the study is made.
 */
export const judgeAlignments = sqliteTable(
  "judge_alignments",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull().unique(),
    judgeConfigId: integer("judge_config_id")
      .notNull()
      .references(() => judgeConfigs.id, { onDelete: "restrict" }),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    /** The screenshot window every version is asked with ("3", "full"). */
    k: text("k").notNull(),
    heldOutShare: real("held_out_share").notNull(),
    seed: integer("seed").notNull(),
    calibrationIds: text("calibration_ids", { mode: "json" }).$type<number[]>().notNull(),
    heldOutIds: text("held_out_ids", { mode: "json" }).$type<number[]>().notNull(),
    strata: text("strata", { mode: "json" }).$type<SplitStratum[]>().notNull(),
    /** Campaign items without a consolidated success or failure, and why. */
    leftOut: text("left_out", { mode: "json" }).$type<LeftOutItem[]>().notNull(),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [index("judge_alignments_config_idx").on(t.judgeConfigId)],
);

export type RubricSource = "protocol" | "researcher" | "judge-model" | "judge-model-edited";

/** What the judge model proposed when asked for a rubric, kept with the version made from it. */
export interface RubricSuggestionRecord {
  reply: string;
  rubric: string;
  warning: string | null;
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
}

/**
 * A prompt version of an alignment study. Number 1 is the configuration's own prompt; later ones replace its
 * criteria with a rubric and/or add few-shot examples from the calibration part. Verdicts of version N > 1 record
 * the prompt version with "+pv<id>".
 */
export const judgePromptVersions = sqliteTable(
  "judge_prompt_versions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    alignmentId: cascadeId("alignment_id", () => judgeAlignments.id),
    number: integer("number").notNull(),
    parentId: integer("parent_id").references((): AnySQLiteColumn => judgePromptVersions.id, { onDelete: "set null" }),
    /** Criteria replacing the protocol's own; null keeps them. */
    rubric: text("rubric"),
    rubricSource: text("rubric_source").$type<RubricSource>().notNull(),
    examples: text("examples", { mode: "json" }).$type<FewShotExample[]>().notNull(),
    suggestion: text("suggestion", { mode: "json" }).$type<RubricSuggestionRecord>(),
    note: text("note"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [uniqueIndex("judge_prompt_versions_number_uq").on(t.alignmentId, t.number)],
);

/**
 * A stress test: a judge configuration re-asked on labelled trajectories with what it is shown perturbed (variants
 * "shuffle-s…", "subset…", "no-answer", "no-history"), next to its own prompt, in one judge batch.
 */
export const judgeStressTests = sqliteTable(
  "judge_stress_tests",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    judgeConfigId: integer("judge_config_id")
      .notNull()
      .references(() => judgeConfigs.id, { onDelete: "restrict" }),
    /** Where the human labels come from (its consolidated labels). */
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    /** Stress an alignment study's version instead of the configuration's own prompt. */
    promptVersionId: integer("prompt_version_id").references(() => judgePromptVersions.id, { onDelete: "restrict" }),
    k: text("k").notNull(),
    seed: integer("seed").notNull(),
    /** The perturbations asked for, as variant text without the prompt version. */
    perturbations: text("perturbations", { mode: "json" }).$type<string[]>().notNull(),
    /** Perturbations left out because they would change nothing for this configuration, and why. */
    skipped: text("skipped", { mode: "json" }).$type<{ perturbation: string; reason: string }[]>().notNull(),
    trajectoryIds: text("trajectory_ids", { mode: "json" }).$type<number[]>().notNull(),
    batchId: integer("batch_id").references(() => judgeBatches.id, { onDelete: "set null" }),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [index("judge_stress_tests_config_idx").on(t.judgeConfigId)],
);

export type JudgeAlignmentRow = typeof judgeAlignments.$inferSelect;
export type JudgePromptVersionRow = typeof judgePromptVersions.$inferSelect;
export type JudgeStressTestRow = typeof judgeStressTests.$inferSelect;
export type JudgeConfigRow = typeof judgeConfigs.$inferSelect;
export type JudgeBatchRow = typeof judgeBatches.$inferSelect;
export type EvaluatorVerdictRow = typeof evaluatorVerdicts.$inferSelect;
export type VerdictCriterionRow = typeof verdictCriteria.$inferSelect;
export type VerdictCitationRow = typeof verdictCitations.$inferSelect;
