/**
 * Automatic evaluation: LMM judge configurations, their batches, and the verdicts of every evaluator
 * (Verdict's own judges and rule checks, and verdicts imported from other systems).
 *
 * API keys live in their own table so that no query on judge configurations can return one by accident; only
 * the judge service reads `judge_config_secrets`, and nothing sends it to a browser or an export.
 */
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { SplitStratum } from "../../server/domain/evaluation/alignment";
import type { FewShotExample } from "../../server/domain/evaluation/prompt-variants";
import type { CriterionKind, CriterionResult, EvaluatorKind, JudgeOptions, VerdictOrigin, VerdictValue } from "../../server/domain/evaluation/verdicts";
import { annotationCampaigns } from "./annotation";
import { users } from "./auth";
import { trajectories } from "./core";
import { sqliteKit, timestamps, type SchemaKit, type TableRefs } from "./columns";

export const BATCH_STATUSES = ["pending", "running", "succeeded", "failed", "cancelled"] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

/** Why a campaign item took no part in an alignment split. */
export interface LeftOutItem {
  trajectoryId: number;
  reason: "unsure" | "not consolidated";
}

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

/** The tables this module's tables reference, of the dialect being declared. */
export type EvaluationRefs = TableRefs<"annotationCampaigns" | "users" | "trajectories">;

/** Judge configurations, their keys and endpoint settings. */
function judgeTables(k: SchemaKit) {
  const judgeConfigs = k.table("judge_configs", {
    id: k.id(),
    name: k.text("name").notNull().unique(),
    /** OpenAI-compatible base URL ("http://localhost:11434/v1"); null = the OpenAI API. */
    baseUrl: k.text("base_url"),
    model: k.text("model").notNull(),
    /** Name of the environment variable holding the key; used when no key is stored for this configuration. */
    apiKeyEnv: k.text("api_key_env"),
    temperature: k.real("temperature").notNull().default(0),
    /** Sent as `seed` for providers that support reproducible sampling; null = not sent. */
    seed: k.bigint("seed"),
    maxOutputTokens: k.integer("max_output_tokens").notNull().default(1024),
    timeoutMs: k.integer("timeout_ms").notNull().default(120_000),
    /** Retries of one call on 429, 5xx and timeouts, with exponential backoff. */
    maxRetries: k.integer("max_retries").notNull().default(5),
    /** Judge prompt version this configuration uses (see server/domain/evaluation/judge-protocol.ts). */
    promptVersion: k.text("prompt_version").notNull(),
    options: k.json("options").$type<JudgeOptions>().notNull(),
    /** USD per million tokens, for cost estimates; null = unknown (no estimate). */
    priceInputPerMTok: k.real("price_input_per_mtok"),
    priceOutputPerMTok: k.real("price_output_per_mtok"),
    ...timestamps(k),
  });

  /** A key stored server-side for one configuration. Never selected together with the configuration. */
  const judgeConfigSecrets = k.table("judge_config_secrets", {
    configId: k.primaryCascadeId("config_id", () => judgeConfigs.id),
    apiKey: k.text("api_key").notNull(),
    updatedAt: k.stamp("updated_at"),
  });

  /**
   * The admins' judge endpoint settings, one row (id 1), edited through the admin API. They add to the environment's
   * VERDICT_JUDGE_ALLOWED_HOSTS / VERDICT_JUDGE_ALLOW_LOOPBACK (see server/domain/evaluation/judge-endpoint-policy.ts).
   */
  const judgeEndpointSettings = k.table("judge_endpoint_settings", {
    id: k.integer("id").primaryKey(),
    /** Normalised "host" or "host:port" entries. */
    allowedHosts: k.json("allowed_hosts").$type<string[]>().notNull(),
    /** The every-loopback-port switch of earlier versions: no longer honoured, cleared on save, reported while set. */
    allowLoopback: k.flag("allow_loopback").notNull().default(false),
    /** Who saved them last (user id). */
    updatedBy: k.text("updated_by"),
    updatedAt: k.stamp("updated_at"),
  });
  return { judgeConfigs, judgeConfigSecrets, judgeEndpointSettings };
}

/** Alignment studies of a judge against a labelled campaign, and their prompt versions. */
function alignmentTables(
  k: SchemaKit,
  { annotationCampaigns, users, judgeConfigs }: Pick<EvaluationRefs, "annotationCampaigns" | "users"> & Pick<ReturnType<typeof judgeTables>, "judgeConfigs">,
) {
  /**
   * An alignment study: one judge configuration against one labelled campaign, its items split (seeded, stratified by
   * human label and site) into a calibration part, whose disagreements new prompt versions learn from, and a held-out
   * part every version is measured on. The split is fixed when the study is made.
   */
  const judgeAlignments = k.table(
    "judge_alignments",
    {
      id: k.id(),
      name: k.text("name").notNull().unique(),
      judgeConfigId: k
        .integer("judge_config_id")
        .notNull()
        .references(() => judgeConfigs.id, { onDelete: "restrict" }),
      campaignId: k.cascadeId("campaign_id", () => annotationCampaigns.id),
      /** The screenshot window every version is asked with ("3", "full"). */
      k: k.text("k").notNull(),
      heldOutShare: k.real("held_out_share").notNull(),
      seed: k.bigint("seed").notNull(),
      calibrationIds: k.json("calibration_ids").$type<number[]>().notNull(),
      heldOutIds: k.json("held_out_ids").$type<number[]>().notNull(),
      strata: k.json("strata").$type<SplitStratum[]>().notNull(),
      /** Campaign items without a consolidated success or failure, and why. */
      leftOut: k.json("left_out").$type<LeftOutItem[]>().notNull(),
      createdBy: k.text("created_by").references(() => users.id, { onDelete: "set null" }),
      createdAt: k.stamp("created_at"),
    },
    (t) => [k.index("judge_alignments_config_idx").on(t.judgeConfigId)],
  );

  /**
   * A prompt version of an alignment study. Number 1 is the configuration's own prompt; later ones replace its
   * criteria with a rubric and/or add few-shot examples from the calibration part. Verdicts of version N > 1 record
   * the prompt version with "+pv<id>".
   */
  const judgePromptVersions = k.table(
    "judge_prompt_versions",
    {
      id: k.id(),
      alignmentId: k.cascadeId("alignment_id", () => judgeAlignments.id),
      number: k.integer("number").notNull(),
      parentId: k.integer("parent_id").references((): AnySQLiteColumn => judgePromptVersions.id, { onDelete: "set null" }),
      /** Criteria replacing the protocol's own; null keeps them. */
      rubric: k.text("rubric"),
      rubricSource: k.text("rubric_source").$type<RubricSource>().notNull(),
      examples: k.json("examples").$type<FewShotExample[]>().notNull(),
      suggestion: k.json("suggestion").$type<RubricSuggestionRecord>(),
      note: k.text("note"),
      createdBy: k.text("created_by").references(() => users.id, { onDelete: "set null" }),
      createdAt: k.stamp("created_at"),
    },
    (t) => [k.uniqueIndex("judge_prompt_versions_number_uq").on(t.alignmentId, t.number)],
  );
  return { judgeAlignments, judgePromptVersions };
}

/** Judge batches, and the stress tests that run one. */
function batchTables(
  k: SchemaKit,
  {
    annotationCampaigns,
    users,
    judgeConfigs,
    judgeAlignments,
    judgePromptVersions,
  }: Pick<EvaluationRefs, "annotationCampaigns" | "users"> &
    Pick<ReturnType<typeof judgeTables>, "judgeConfigs"> &
    Pick<ReturnType<typeof alignmentTables>, "judgeAlignments" | "judgePromptVersions">,
) {
  /** A judge batch: one configuration over a selection of trajectories × several k values. Its jobs carry group key `judge-batch:<id>`. */
  const judgeBatches = k.table(
    "judge_batches",
    {
      id: k.id(),
      judgeConfigId: k
        .integer("judge_config_id")
        .notNull()
        .references(() => judgeConfigs.id, { onDelete: "restrict" }),
      /** Where the selection came from, for people: "run 3", "all", "campaign 2", "filter: site=reddit". */
      selectionLabel: k.text("selection_label"),
      trajectoryIds: k.json("trajectory_ids").$type<number[]>().notNull(),
      /** k values as written in verdicts: "1", "3", "full". */
      kValues: k.json("k_values").$type<string[]>().notNull(),
      concurrency: k.integer("concurrency").notNull(),
      /** Recompute verdicts that are already stored. */
      force: k.flag("force").notNull().default(false),
      /** Replies asked for per (trajectory, k): several samples at temperature > 0 give the judge's confidence. */
      samples: k.integer("samples").notNull().default(1),
      /**
       * Variants of the configuration's prompt the batch asks with, as text (server/domain/evaluation/prompt-variants.ts:
       * "pv12", "shuffle-s7", …); each (trajectory, k) is judged once per variant. Null = the configuration's own prompt.
       */
      variants: k.json("variants").$type<string[]>(),
      /** The alignment study the batch runs for (its base version on every item, or a new version on the held-out part). */
      alignmentId: k.integer("alignment_id").references((): AnySQLiteColumn => judgeAlignments.id, { onDelete: "set null" }),
      status: k.text("status").$type<BatchStatus>().notNull().default("pending"),
      /** Pairs (trajectory, k) in the selection, and how many of them already had a verdict when the batch was made. */
      totalPairs: k.integer("total_pairs").notNull().default(0),
      skippedExisting: k.integer("skipped_existing").notNull().default(0),
      estimatedCalls: k.integer("estimated_calls").notNull().default(0),
      estimatedCostUsd: k.real("estimated_cost_usd"),
      /** Job counts, refreshed whenever a run of the batch ends. */
      succeeded: k.integer("succeeded").notNull().default(0),
      failed: k.integer("failed").notNull().default(0),
      cancelled: k.integer("cancelled").notNull().default(0),
      error: k.text("error"),
      createdAt: k.stamp("created_at"),
      startedAt: k.time("started_at"),
      finishedAt: k.time("finished_at"),
    },
    (t) => [k.index("judge_batches_config_idx").on(t.judgeConfigId)],
  );

  /**
   * A stress test: a judge configuration re-asked on labelled trajectories with what it is shown perturbed (variants
   * "shuffle-s…", "subset…", "no-answer", "no-history"), next to its own prompt, in one judge batch.
   */
  const judgeStressTests = k.table(
    "judge_stress_tests",
    {
      id: k.id(),
      judgeConfigId: k
        .integer("judge_config_id")
        .notNull()
        .references(() => judgeConfigs.id, { onDelete: "restrict" }),
      /** Where the human labels come from (its consolidated labels). */
      campaignId: k.cascadeId("campaign_id", () => annotationCampaigns.id),
      /** Stress an alignment study's version instead of the configuration's own prompt. */
      promptVersionId: k.integer("prompt_version_id").references(() => judgePromptVersions.id, { onDelete: "restrict" }),
      k: k.text("k").notNull(),
      seed: k.bigint("seed").notNull(),
      /** The perturbations asked for, as variant text without the prompt version. */
      perturbations: k.json("perturbations").$type<string[]>().notNull(),
      /** Perturbations left out because they would change nothing for this configuration, and why. */
      skipped: k.json("skipped").$type<{ perturbation: string; reason: string }[]>().notNull(),
      trajectoryIds: k.json("trajectory_ids").$type<number[]>().notNull(),
      batchId: k.integer("batch_id").references(() => judgeBatches.id, { onDelete: "set null" }),
      createdBy: k.text("created_by").references(() => users.id, { onDelete: "set null" }),
      createdAt: k.stamp("created_at"),
    },
    (t) => [k.index("judge_stress_tests_config_idx").on(t.judgeConfigId)],
  );
  return { judgeBatches, judgeStressTests };
}

/** Evaluator verdicts with the criteria and citations behind them. */
function verdictTables(
  k: SchemaKit,
  {
    trajectories,
    judgeConfigs,
    judgeBatches,
  }: Pick<EvaluationRefs, "trajectories"> & Pick<ReturnType<typeof judgeTables>, "judgeConfigs"> & Pick<ReturnType<typeof batchTables>, "judgeBatches">,
) {
  const evaluatorVerdicts = k.table(
    "evaluator_verdicts",
    {
      id: k.id(),
      trajectoryId: k.cascadeId("trajectory_id", () => trajectories.id),
      kind: k.text("kind").$type<EvaluatorKind>().notNull(),
      origin: k.text("origin").$type<VerdictOrigin>().notNull(),
      /**
       * Identity of the evaluator, the first part of the uniqueness key: "judge:<config id>", "rule:vwa",
       * "import:<system>:<name>". Re-running the same evaluator replaces its verdict instead of adding one.
       */
      evaluatorKey: k.text("evaluator_key").notNull(),
      /** Name shown to people (configuration name, "VisualWebArena rules", the imported judge's name). */
      evaluatorName: k.text("evaluator_name").notNull(),
      judgeConfigId: k.integer("judge_config_id").references(() => judgeConfigs.id, { onDelete: "set null" }),
      batchId: k.integer("batch_id").references(() => judgeBatches.id, { onDelete: "set null" }),
      /** Judges: "1", "3", "full". Empty for evaluators without a screenshot window. */
      k: k.text("k").notNull().default(""),
      /** Judges: the prompt version; rules: the rule implementation version; imports: empty. */
      promptVersion: k.text("prompt_version").notNull().default(""),
      /** Step indices whose screenshots the judge was sent, oldest first. */
      stepIndices: k.json("step_indices").$type<number[]>(),
      verdict: k.text("verdict").$type<VerdictValue>().notNull(),
      /** Rules: the benchmark's score (product of checks); imports: the source's score; judges: 1/0 or null. */
      score: k.real("score"),
      rationale: k.text("rationale"),
      /** The judge's reply exactly as received; imports: the source record as JSON text. */
      rawReply: k.text("raw_reply"),
      /**
       * Judges asked for several samples of one item (batch option `samples`, temperature > 0): how many replies came
       * back, and how many of them said success and failure (the rest were unparseable). `verdict` is the majority;
       * the share of parseable samples saying success is the judge's confidence for calibration. Null = one sample.
       */
      sampleCount: k.integer("sample_count"),
      sampleSuccesses: k.integer("sample_successes"),
      sampleFailures: k.integer("sample_failures"),
      /**
       * The first step (0-based index) the evaluator says went wrong: a judge asked for it by its prompt option, a
       * heuristic the step it fires on. Null = not given (rules give none; a judge reply without a parseable step
       * says so in details.failureStep).
       */
      firstFailingStep: k.integer("first_failing_step"),
      /** Rules: per-check results; judges: request facts (image sizes, attempts, finish reason); not_evaluable reasons. */
      details: k.json("details").$type<Record<string, unknown>>(),
      /** Model that answered, as the endpoint reported it. */
      model: k.text("model"),
      inputTokens: k.integer("input_tokens"),
      outputTokens: k.integer("output_tokens"),
      latencyMs: k.integer("latency_ms"),
      costUsd: k.real("cost_usd"),
      ...timestamps(k),
      /**
       * The evaluator_verdicts change counter (db/schema/changes.ts) as this row's write left it, stamped by the
       * counting triggers: analytics that hold the verdicts in memory read only the rows stamped after their copy,
       * so a judge writing one verdict does not make every open view read them all again.
       */
      changeVersion: k.bigint("change_version").notNull().default(0),
    },
    (t) => [
      k.uniqueIndex("evaluator_verdicts_identity_uq").on(t.trajectoryId, t.evaluatorKey, t.k, t.promptVersion),
      // Covers the analytics read of verdicts grouped by evaluator setting and verdict, every column it reads (the
      // samples and the first failing step too: without them each of the 300,000 verdicts of a large study is looked
      // up in the wide table, rationale and reply included); also serves look-ups by key.
      k
        .index("evaluator_verdicts_analytics_idx")
        .on(t.evaluatorKey, t.k, t.promptVersion, t.verdict, t.trajectoryId, t.sampleCount, t.sampleSuccesses, t.sampleFailures, t.firstFailingStep, t.id),
      k.index("evaluator_verdicts_batch_idx").on(t.batchId),
      k.index("evaluator_verdicts_change_idx").on(t.changeVersion),
    ],
  );

  /**
   * What a staged judge protocol graded on the way to its verdict, one row per criterion: the key points of the
   * key-point protocol (each MET or NOT MET), the outcome and process criteria of the rubric protocol (each PASS or
   * FAIL). Replaced with their verdict (server/domain/evaluation/staged-protocols.ts).
   */
  const verdictCriteria = k.table(
    "verdict_criteria",
    {
      id: k.id(),
      verdictId: k.cascadeId("verdict_id", () => evaluatorVerdicts.id),
      /** 1-based, in the order the judge listed them. */
      position: k.integer("position").notNull(),
      kind: k.text("kind").$type<CriterionKind>().notNull(),
      text: k.text("text").notNull(),
      result: k.text("result").$type<CriterionResult>().notNull(),
    },
    (t) => [k.uniqueIndex("verdict_criteria_position_uq").on(t.verdictId, t.position)],
  );

  /**
   * The steps (and regions) a judge cited as its evidence, with whether Verdict could check them: a step the
   * trajectory does not have, or a box outside its screenshot, is kept with its problem (server/domain/evaluation/citations.ts).
   */
  const verdictCitations = k.table(
    "verdict_citations",
    {
      id: k.id(),
      verdictId: k.cascadeId("verdict_id", () => evaluatorVerdicts.id),
      /** 1-based, in the order the reply gave them. */
      position: k.integer("position").notNull(),
      /** The step number as the judge wrote it (the prompt numbers steps from 1); null when the line gave none. */
      stepNumber: k.integer("step_number"),
      /** The step's stored index; null when the trajectory has no such step. */
      stepIndex: k.integer("step_index"),
      /** [x1, y1, x2, y2] in the screenshot's pixels, when the judge gave a box. */
      box: k.json("box").$type<[number, number, number, number]>(),
      /** What the judge said the step shows. */
      note: k.text("note"),
      /** Why the citation cannot be checked; null = it can. */
      problem: k.text("problem"),
    },
    (t) => [k.uniqueIndex("verdict_citations_position_uq").on(t.verdictId, t.position)],
  );
  return { evaluatorVerdicts, verdictCriteria, verdictCitations };
}

/** The tables of this module, declared once for both dialects (db/schema/columns.ts). */
export function evaluationTables(k: SchemaKit, refs: EvaluationRefs) {
  const judge = judgeTables(k);
  const alignment = alignmentTables(k, { ...refs, ...judge });
  const batch = batchTables(k, { ...refs, ...judge, ...alignment });
  const verdict = verdictTables(k, { ...refs, ...judge, ...alignment, ...batch });
  return { ...judge, ...alignment, ...batch, ...verdict };
}

export const {
  judgeConfigs,
  judgeConfigSecrets,
  judgeEndpointSettings,
  judgeBatches,
  evaluatorVerdicts,
  verdictCriteria,
  verdictCitations,
  judgeAlignments,
  judgePromptVersions,
  judgeStressTests,
} = evaluationTables(sqliteKit, { annotationCampaigns, users, trajectories });

export type JudgeAlignmentRow = typeof judgeAlignments.$inferSelect;
export type JudgePromptVersionRow = typeof judgePromptVersions.$inferSelect;
export type JudgeStressTestRow = typeof judgeStressTests.$inferSelect;
export type JudgeConfigRow = typeof judgeConfigs.$inferSelect;
export type JudgeBatchRow = typeof judgeBatches.$inferSelect;
export type EvaluatorVerdictRow = typeof evaluatorVerdicts.$inferSelect;
export type VerdictCriterionRow = typeof verdictCriteria.$inferSelect;
export type VerdictCitationRow = typeof verdictCitations.$inferSelect;
