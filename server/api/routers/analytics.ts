/**
 * Analytics: success rates per evaluator, judge-vs-human agreement, human agreement per campaign, error analysis,
 * the trajectories behind any figure, and agreement of an uploaded CSV. Researcher-level reads.
 */
import { z } from "zod";
import { DIFFICULTY_DIMENSIONS, evaluatorIdentitySchema, referenceSpecSchema, selectionSchema } from "../../domain/analytics/selection";
import {
  analyticsOptions,
  analyticsOverview,
  campaignList,
  csvAgreementJob,
  startCsvAgreement,
  drillDown,
  errorAnalysis,
  humanAgreement,
  humanConsensus,
  campaignRegionAgreement,
  judgeAgreementDetail,
  judgeAgreementList,
  judgeDisagreements,
  judgeMeasures,
  failureStepAgreement,
  revealAgreement,
  stepBudgets,
  BUDGET_GROUPINGS,
  clusterRun,
  clusterRuns,
  failureClustersJob,
  mergeClusterPair,
  renameCluster,
  startFailureClusters,
} from "../../services/analytics";
import { clusterSliceInput } from "../../domain/analytics/cluster-slice";
import { judgeCriteriaOfSetting } from "../../services/evaluation";
import { createTRPCRouter, sightedResearcherProcedure } from "../trpc";

const id = z.number().int().positive();

export const analyticsScopeInput = z
  .object({
    taskSetId: id.optional(),
    runId: id.optional(),
    site: z.string().max(500).nullable().optional(),
    /** Count trajectories of tasks flagged in the validity ledger too; left out by default. */
    includeFlagged: z.boolean().optional(),
  })
  .strict();

const common = {
  scope: analyticsScopeInput.default({}),
  /** Campaign whose consolidated labels are the human reference; default: each trajectory's latest campaign. */
  campaignId: id.optional(),
  unparseable: z.enum(["failure", "exclude"]).default("exclude"),
};

/** Judge views: the human reference to measure against, and a split key (site, run, difficulty, a task attribute…). */
const judgeOptions = {
  reference: referenceSpecSchema.optional(),
  by: z.string().min(1).max(200).optional(),
};

/**
 * Largest CSV the page accepts: the text travels in one request, under the upload body limit (VERDICT_MAX_UPLOAD_BYTES,
 * 12 MiB), and is analysed by a worker. The CLI (`agreement csv`) has no limit.
 */
export const MAX_CSV_CHARS = 10_000_000;

export const analyticsRouter = createTRPCRouter({
  options: sightedResearcherProcedure
    .input(z.object({ campaignId: id.optional() }).optional())
    .query(async ({ ctx, input }) => await analyticsOptions(ctx.db, { campaignId: input?.campaignId })),

  overview: sightedResearcherProcedure
    .input(z.object({ ...common, difficulty: z.enum(DIFFICULTY_DIMENSIONS).default("overall"), by: judgeOptions.by }))
    .query(async ({ ctx, input }) => await analyticsOverview(ctx.db, input)),

  judges: sightedResearcherProcedure.input(z.object({ ...common, ...judgeOptions })).query(async ({ ctx, input }) => await judgeAgreementList(ctx.db, input)),

  /** False-positive/negative rates and success-rate gap with task-clustered intervals, calibration, agent ranking. */
  judgeMeasures: sightedResearcherProcedure
    .input(z.object({ ...common, by: judgeOptions.by }))
    .query(async ({ ctx, input }) => await judgeMeasures(ctx.db, input)),

  /** First failing step agreement: annotator pairs, and each evaluator that gives a step against the consolidated one. */
  failureSteps: sightedResearcherProcedure
    .input(z.object({ scope: common.scope, campaignId: common.campaignId }))
    .query(async ({ ctx, input }) => await failureStepAgreement(ctx.db, input)),

  /** Blind → reveal → revise: flip rates, κ before and after the reveal, category flips, per evaluator shown. */
  reveal: sightedResearcherProcedure.input(z.object({ campaignId: common.campaignId })).query(async ({ ctx, input }) => await revealAgreement(ctx.db, input)),

  judge: sightedResearcherProcedure
    .input(
      z.object({
        ...common,
        ...judgeOptions,
        evaluatorKey: z.string().min(1).max(500),
        k: z.string().max(50).optional(),
        promptVersion: z.string().max(200).optional(),
        bootstrap: z.object({ replicates: z.number().int().min(100).max(10_000).default(2000), seed: z.number().int().default(1) }).optional(),
      }),
    )
    .query(async ({ ctx, input }) => await judgeAgreementDetail(ctx.db, input)),

  /** A key-point or rubric judge's criteria against people: per kind, per criterion, the disagreements (null for other evaluators). */
  judgeCriteria: sightedResearcherProcedure
    .input(z.object({ evaluatorKey: z.string().min(1).max(500), k: z.string().max(50), campaignId: common.campaignId }))
    .query(async ({ ctx, input }) => await judgeCriteriaOfSetting(ctx.db, input)),

  disagreements: sightedResearcherProcedure
    .input(
      z.object({
        ...common,
        reference: judgeOptions.reference,
        identity: evaluatorIdentitySchema,
        kind: z.enum(["all", "false_success", "false_failure", "unparseable"]).default("all"),
        page: z.number().int().positive().default(1),
        pageSize: z.number().int().positive().max(500).default(50),
      }),
    )
    .query(async ({ ctx, input }) => await judgeDisagreements(ctx.db, input)),

  /** Success had every trajectory been stopped after k steps, per agent run or site, with Wilson intervals. */
  stepBudget: sightedResearcherProcedure
    .input(z.object({ scope: common.scope, campaignId: common.campaignId, by: z.enum(BUDGET_GROUPINGS).default("run") }))
    .query(async ({ ctx, input }) => await stepBudgets(ctx.db, input)),

  campaigns: sightedResearcherProcedure.query(async ({ ctx }) => await campaignList(ctx.db)),

  humans: sightedResearcherProcedure
    .input(z.object({ campaignId: id, by: judgeOptions.by, includeFlagged: z.boolean().optional() }))
    .query(async ({ ctx, input }) => await humanAgreement(ctx.db, input.campaignId, input.by, { includeFlagged: input.includeFlagged })),

  /** Agreement on region marks between a campaign's annotators (mean IoU, share matched, points). */
  regions: sightedResearcherProcedure
    .input(z.object({ campaignId: id }))
    .query(async ({ ctx, input }) => await campaignRegionAgreement(ctx.db, input.campaignId)),

  humanConsensus: sightedResearcherProcedure
    .input(z.object({ campaignId: id, level: z.enum(["verdict", "label"]).default("label") }))
    .query(async ({ ctx, input }) => await humanConsensus(ctx.db, input.campaignId, input.level)),

  errors: sightedResearcherProcedure
    .input(z.object({ scope: common.scope, campaignId: common.campaignId, by: judgeOptions.by }))
    .query(async ({ ctx, input }) => await errorAnalysis(ctx.db, input)),

  drill: sightedResearcherProcedure
    .input(z.object({ sel: selectionSchema, page: z.number().int().positive().default(1), pageSize: z.number().int().positive().max(500).default(50) }))
    .query(async ({ ctx, input }) => await drillDown(ctx.db, input)),

  csvAgreement: sightedResearcherProcedure
    .input(
      z.object({
        fileName: z.string().min(1).max(300),
        text: z
          .string()
          .max(MAX_CSV_CHARS, `the CSV is larger than ${MAX_CSV_CHARS / 1_000_000} MB of text; use npm run cli -- agreement csv for files this big`),
        itemColumns: z.array(z.string()).min(1, "pick at least one item column").max(20),
        raterColumn: z.string(),
        labelColumn: z.string(),
        delimiter: z.string().length(1).default(","),
        minSharedItems: z.number().int().min(1).max(1_000_000).default(10),
      }),
    )
    // Queued for a worker, which parses and analyses the file; the page polls csvAgreementJob for the result.
    .mutation(async ({ ctx, input }) => ({ jobId: await startCsvAgreement(ctx, ctx.actor, input) })),

  /** The analysis started by csvAgreement, for the person who started it: queued, running, its result or why it failed. */
  csvAgreementJob: sightedResearcherProcedure.input(z.object({ id })).query(async ({ ctx, input }) => await csvAgreementJob(ctx, ctx.actor, input.id)),

  /** Failure clusters of a list slice, computed by a worker; the page polls clusterJob, then opens the saved run. */
  clusterStart: sightedResearcherProcedure
    .input(clusterSliceInput)
    .mutation(async ({ ctx, input }) => ({ jobId: await startFailureClusters(ctx, ctx.actor, input) })),
  clusterJob: sightedResearcherProcedure.input(z.object({ id })).query(async ({ ctx, input }) => await failureClustersJob(ctx, ctx.actor, input.id)),
  clusterRuns: sightedResearcherProcedure.query(async ({ ctx }) => await clusterRuns(ctx.db, ctx.actor)),
  clusterRun: sightedResearcherProcedure.input(z.object({ id })).query(async ({ ctx, input }) => await clusterRun(ctx.db, ctx.actor, input.id)),
  clusterRename: sightedResearcherProcedure
    .input(z.object({ runId: id, key: id, name: z.string().max(200) }))
    .mutation(async ({ ctx, input }) => await renameCluster(ctx.db, ctx.actor, input)),
  clusterMerge: sightedResearcherProcedure
    .input(z.object({ runId: id, into: id, from: id }))
    .mutation(async ({ ctx, input }) => await mergeClusterPair(ctx.db, ctx.actor, input)),
});
