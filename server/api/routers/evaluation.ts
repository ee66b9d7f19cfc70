/**
 * Automatic evaluators: judge configurations (never with their key), judge batches (estimate, start, progress,
 * cancel, resume), rule verdicts, the verdicts shown next to a trajectory, and improving a judge: stress tests and
 * alignment studies (docs/guide/improving-a-judge.md).
 *
 * Batches started here are only queued: the worker processes make the calls (`npm run worker`; the quick start runs
 * one beside the server), and `npm run cli -- judge --resume ID` can finish a batch from a terminal.
 */
import { z } from "zod";
import { matchingTrajectoryIds } from "../../services/trajectory-views";
import { judgeKeyEnvSchema } from "../../domain/evaluation/judge-endpoint-policy";
import { MAX_BATCH_CONCURRENCY } from "../../domain/evaluation/judge-jobs";
import { parseK, type JudgeK } from "../../domain/evaluation/verdicts";
import { trajectoryListInput } from "../../domain/trajectory-list-input";
import { ValidationError } from "../../errors";
import {
  cancelJudgeBatch,
  createJudgeBatch,
  estimateJudgeBatch,
  judgeBatchFailures,
  judgeBatchProgress,
  listBatches,
  resumeJudgeBatch,
  createJudgeConfig,
  deleteJudgeConfig,
  listJudgeConfigViews,
  requireJudgeConfig,
  setStoredApiKey,
  toView,
  updateJudgeConfig,
  testJudgeEndpoint,
  evaluateRuleVerdicts,
  externalVerdictInput,
  recordExternalVerdict,
  evaluatorSummaries,
  trajectoryEvaluations,
  verdictsOfTrajectory,
  MAX_JUDGE_SAMPLES,
  judgeEndpointSettingsView,
  saveJudgeEndpointSettingsFor,
  createStressTest,
  listStressTests,
  planStressTest,
  stressTestReport,
  alignmentSplitItems,
  alignmentVersions,
  calibrationDisagreements,
  compareAlignmentVersions,
  createAlignment,
  createPromptVersion,
  estimateAlignmentRun,
  listAlignments,
  requireAlignment,
  startAlignmentRun,
  suggestRubric,
} from "../../services/evaluation";
import { assertMayViewEvaluations, assertTrajectoryBrowsable } from "../../services/access";
import { judgeSettings, runtimeEnvironment } from "../../config";
import { PERTURBATION_KINDS } from "../../domain/evaluation/prompt-variants";
import { adminProcedure, authedProcedure, createTRPCRouter, researcherProcedure, sightedResearcherProcedure, type TrpcContext } from "../trpc";

const id = z.number().int().positive();

const options = z
  .object({
    includeActionHistory: z.boolean(),
    includeThoughts: z.boolean(),
    screenshots: z.enum(["marked", "raw"]),
    imageDetail: z.enum(["auto", "low", "high"]),
    maxImageSide: z.number().int().min(16).max(10_000).nullable(),
    askFirstFailingStep: z.boolean(),
    withoutFinalAnswer: z.boolean(),
    askCitations: z.boolean(),
    relevanceThreshold: z.number().int().min(1).max(5),
  })
  .partial();

const configFields = z.object({
  baseUrl: z.string().url().nullable().optional(),
  model: z.string().min(1).max(200).optional(),
  // A closed set of key sources (not any server variable): see judge-endpoint-policy.ts.
  apiKeyEnv: judgeKeyEnvSchema.nullable().optional(),
  temperature: z.number().min(0).max(2).optional(),
  seed: z.number().int().nullable().optional(),
  maxOutputTokens: z.number().int().min(16).max(1_000_000).optional(),
  timeoutMs: z.number().int().min(100).max(3_600_000).optional(),
  maxRetries: z.number().int().min(0).max(20).optional(),
  options: options.optional(),
  /** The built-in protocol ("webvoyager", "key-points", "rubric") or its prompt version. */
  promptVersion: z.string().min(1).max(100).optional(),
  priceInputPerMTok: z.number().min(0).nullable().optional(),
  priceOutputPerMTok: z.number().min(0).nullable().optional(),
});

const kValue = z.union([z.number().int().positive().max(1000), z.literal("full")]);

/** The trajectory list's filters (what the browser shows), without its order and paging. */
const listFilter = trajectoryListInput.omit({ sort: true, dir: true, page: true, pageSize: true });

/** A selection: explicit ids, or the trajectory list's filters. */
const selection = z.union([z.object({ trajectoryIds: z.array(id).min(1).max(1_000_000) }), z.object({ filter: listFilter })]);

const batchInput = z.object({
  config: z.union([id, z.string().min(1)]),
  selection,
  kValues: z.array(kValue).min(1).max(20),
  concurrency: z.number().int().min(1).max(MAX_BATCH_CONCURRENCY).default(4),
  force: z.boolean().default(false),
  selectionLabel: z.string().max(200).optional(),
  /** Replies per item for calibration (temperature > 0). */
  samples: z.number().int().min(1).max(MAX_JUDGE_SAMPLES).default(1),
});

const stressInput = z.object({
  config: z.union([id, z.string().min(1)]),
  campaign: z.union([id, z.string().min(1)]),
  k: kValue.transform((k) => parseK(String(k))),
  perturbations: z.array(z.enum(PERTURBATION_KINDS)).min(1).max(PERTURBATION_KINDS.length).optional(),
  subsetK: z.number().int().min(1).max(1000).optional(),
  seed: z.number().int().min(0).max(4_294_967_295).optional(),
  promptVersionId: id.nullable().optional(),
  concurrency: z.number().int().min(1).max(MAX_BATCH_CONCURRENCY).default(4),
  /** Only the campaign's items the trajectory list's filters select (a search, a run, a site…). */
  filter: listFilter.optional(),
  selectionLabel: z.string().max(200).optional(),
});

/** A stress test's request: the list filter, when given, resolved to the trajectories it selects. */
async function stressRequest(ctx: TrpcContext, input: z.infer<typeof stressInput>) {
  const { filter, ...rest } = input;
  return { ...rest, onlyTrajectoryIds: filter ? await matchingTrajectoryIds(ctx.db, filter) : undefined };
}

async function resolveSelection(ctx: TrpcContext, s: z.infer<typeof selection>): Promise<number[]> {
  // From the list's filters: the same trajectories the list shows, a seeded sample included.
  const ids = "trajectoryIds" in s ? s.trajectoryIds : await matchingTrajectoryIds(ctx.db, s.filter);
  if (ids.length === 0) throw new ValidationError("the selection holds no trajectories");
  return ids;
}

async function batchRequest(ctx: TrpcContext, input: z.infer<typeof batchInput>) {
  return {
    config: input.config,
    trajectoryIds: await resolveSelection(ctx, input.selection),
    kValues: input.kValues.map((k) => parseK(String(k))) as JudgeK[],
    concurrency: input.concurrency,
    force: input.force,
    samples: input.samples,
    selectionLabel: input.selectionLabel ?? ("filter" in input.selection ? "filtered list" : "selected trajectories"),
  };
}

export const judgeRouter = createTRPCRouter({
  configs: createTRPCRouter({
    list: researcherProcedure.query(async ({ ctx }) => await listJudgeConfigViews(ctx.db)),
    byId: researcherProcedure.input(z.object({ id })).query(async ({ ctx, input }) => toView(await requireJudgeConfig(ctx.db, input.id))),
    create: researcherProcedure
      .input(configFields.extend({ name: z.string().min(1).max(100), apiKey: z.string().min(1).max(500).optional() }))
      .mutation(async ({ ctx, input }) => {
        const { apiKey, ...fields } = input;
        const view = await createJudgeConfig(ctx.db, fields, judgeSettings());
        // Write-only: the key is stored server-side and never comes back in any response.
        if (apiKey) await setStoredApiKey(ctx.db, view.id, apiKey);
        return toView(await requireJudgeConfig(ctx.db, view.id));
      }),
    update: researcherProcedure
      .input(z.object({ id, patch: configFields }))
      .mutation(async ({ ctx, input }) => await updateJudgeConfig(ctx.db, input.id, input.patch, judgeSettings())),
    setApiKey: researcherProcedure.input(z.object({ id, apiKey: z.string().min(1).max(500).nullable() })).mutation(async ({ ctx, input }) => {
      await setStoredApiKey(ctx.db, input.id, input.apiKey);
      return { apiKeySource: toView(await requireJudgeConfig(ctx.db, input.id)).apiKeySource };
    }),
    /** One call to a typed (unsaved) endpoint's model list, under the judge address policy; said in plain words. */
    testEndpoint: researcherProcedure
      .input(z.object({ baseUrl: z.string().max(2000).nullable(), model: z.string().max(200).nullable(), apiKey: z.string().min(1).max(500).optional() }))
      .mutation(async ({ ctx, input }) => await testJudgeEndpoint(ctx.db, judgeSettings(), input)),
    remove: researcherProcedure.input(z.object({ id })).mutation(async ({ ctx, input }) => {
      await deleteJudgeConfig(ctx.db, input.id);
      return { removed: input.id };
    }),
  }),

  /**
   * Which hosts judge configurations may call (and send keys to): admins only. Researchers edit configurations, but
   * cannot widen where they point.
   */
  endpointSettings: createTRPCRouter({
    get: adminProcedure.query(async ({ ctx }) => await judgeEndpointSettingsView(ctx.db, judgeSettings())),
    set: adminProcedure
      .input(
        z.object({
          allowedHosts: z.array(z.string().max(300)).max(200),
          // Earlier versions had a switch for every loopback port; a local server is now listed by host and port.
          allowLoopback: z
            .boolean()
            .optional()
            .refine(
              (v) => v !== true,
              "allowLoopback (every port of this machine) no longer exists: list each local judge server as a host, e.g. 127.0.0.1:8000",
            ),
        }),
      )
      .mutation(async ({ ctx, input }) => await saveJudgeEndpointSettingsFor(ctx.db, judgeSettings(), { allowedHosts: input.allowedHosts }, ctx.actor.userId)),
  }),

  batches: createTRPCRouter({
    list: sightedResearcherProcedure.query(async ({ ctx }) => await listBatches(ctx.db)),
    /** Calls, tokens and cost before starting; nothing is created. */
    estimate: sightedResearcherProcedure.input(batchInput).query(async ({ ctx, input }) => {
      const { plan: _plan, ...estimate } = await estimateJudgeBatch(ctx.db, await batchRequest(ctx, input));
      void _plan;
      return estimate;
    }),
    start: sightedResearcherProcedure.input(batchInput).mutation(async ({ ctx, input }) => {
      // Queued only: the workers make the calls (`npm run worker`; the quick start runs one beside the server).
      const { batch, estimate } = await createJudgeBatch(ctx.db, await batchRequest(ctx, input));
      return { batchId: batch.id, estimate };
    }),
    /**
     * Polled every second by the batch page: the batch's trajectory ids (up to a million) are left out and only
     * counted, so a poll stays small however large the batch.
     */
    progress: sightedResearcherProcedure.input(z.object({ id })).query(async ({ ctx, input }) => {
      const { batch, ...progress } = await judgeBatchProgress(ctx.db, input.id);
      const { trajectoryIds, ...rest } = batch;
      return { ...progress, batch: { ...rest, trajectoryCount: trajectoryIds.length } };
    }),
    /** Which trajectories and k values failed, and why (the batch page lists them). */
    failures: sightedResearcherProcedure
      .input(z.object({ id, limit: z.number().int().min(1).max(1000).default(100) }))
      .query(async ({ ctx, input }) => await judgeBatchFailures(ctx.db, input.id, input.limit)),
    cancel: sightedResearcherProcedure.input(z.object({ id })).mutation(async ({ ctx, input }) => await cancelJudgeBatch(ctx.db, input.id)),
    resume: sightedResearcherProcedure.input(z.object({ id })).mutation(async ({ ctx, input }) => await resumeJudgeBatch(ctx.db, input.id)),
  }),

  /** Stress tests: the judge re-asked with what it is shown perturbed (closed to researchers still labelling blind). */
  stress: createTRPCRouter({
    list: sightedResearcherProcedure.query(async ({ ctx }) => await listStressTests(ctx.db)),
    /** What a stress test would ask and cost; nothing is created or sent. */
    estimate: sightedResearcherProcedure.input(stressInput).query(async ({ ctx, input }) => await planStressTest(ctx.db, await stressRequest(ctx, input))),
    start: sightedResearcherProcedure.input(stressInput).mutation(async ({ ctx, input }) => {
      // Queued only, like a batch: the workers make the calls.
      const { stressTest, batch, plan } = await createStressTest(ctx.db, { ...(await stressRequest(ctx, input)), createdBy: ctx.actor.userId });
      return { stressTestId: stressTest.id, batchId: batch.id, plan };
    }),
    report: sightedResearcherProcedure
      .input(z.object({ id, unparseable: z.enum(["failure", "exclude"]).default("failure") }))
      .query(async ({ ctx, input }) => await stressTestReport(ctx.db, input.id, { policy: input.unparseable })),
  }),

  /** Alignment studies: split, prompt versions from disagreements, κ per version on the held-out part. */
  alignment: createTRPCRouter({
    list: sightedResearcherProcedure.query(async ({ ctx }) => await listAlignments(ctx.db)),
    create: sightedResearcherProcedure
      .input(
        z.object({
          name: z.string().min(1).max(200),
          config: z.union([id, z.string().min(1)]),
          campaign: z.union([id, z.string().min(1)]),
          k: kValue,
          heldOutShare: z.number().gt(0).lt(1).default(0.5),
          seed: z.number().int().min(0).max(4_294_967_295).default(1),
        }),
      )
      .mutation(async ({ ctx, input }) => {
        const { alignment, versions } = await createAlignment(ctx.db, { ...input, k: parseK(String(input.k)), createdBy: ctx.actor.userId });
        return { alignment, versions };
      }),
    split: sightedResearcherProcedure.input(z.object({ id })).query(async ({ ctx, input }) => {
      const a = await requireAlignment(ctx.db, input.id);
      return {
        id: a.id,
        name: a.name,
        seed: a.seed,
        heldOutShare: a.heldOutShare,
        calibrationIds: a.calibrationIds,
        heldOutIds: a.heldOutIds,
        strata: a.strata,
        leftOut: a.leftOut,
      };
    }),
    /** The split item by item (part, people's label, site, task): the study page's table and CSV export. */
    splitItems: sightedResearcherProcedure.input(z.object({ id })).query(async ({ ctx, input }) => await alignmentSplitItems(ctx.db, input.id)),
    disagreements: sightedResearcherProcedure.input(z.object({ id })).query(async ({ ctx, input }) => await calibrationDisagreements(ctx.db, input.id)),
    createVersion: sightedResearcherProcedure
      .input(
        z.object({
          id,
          examples: z.array(id).max(50).optional(),
          rubric: z.string().max(20_000).nullable().optional(),
          rubricSource: z.enum(["researcher", "judge-model", "judge-model-edited"]).default("researcher"),
          /** The judge model's proposal (from suggest) the rubric was taken from, kept with the version. */
          suggestion: z
            .object({
              reply: z.string().max(100_000),
              rubric: z.string().max(20_000),
              warning: z.string().max(2_000).nullable(),
              model: z.string().max(200).nullable(),
              inputTokens: z.number().int().min(0).nullable(),
              outputTokens: z.number().int().min(0).nullable(),
              costUsd: z.number().min(0).nullable(),
            })
            .nullable()
            .optional(),
          note: z.string().max(2_000).nullable().optional(),
          parentNumber: z.number().int().positive().optional(),
        }),
      )
      .mutation(async ({ ctx, input }) => {
        const { id: studyId, ...req } = input;
        return await createPromptVersion(ctx.db, studyId, { ...req, createdBy: ctx.actor.userId });
      }),
    /** The judge model's proposal; nothing is stored (createVersion with rubricSource judge-model saves it). */
    suggest: sightedResearcherProcedure
      .input(z.object({ id }))
      .mutation(async ({ ctx, input }) => await suggestRubric({ db: ctx.db, env: runtimeEnvironment() }, input.id)),
    estimateRun: sightedResearcherProcedure
      .input(z.object({ id, version: z.number().int().positive().default(1), concurrency: z.number().int().min(1).max(MAX_BATCH_CONCURRENCY).default(4) }))
      .query(async ({ ctx, input }) => await estimateAlignmentRun(ctx.db, input.id, input.version, input.concurrency)),
    startRun: sightedResearcherProcedure
      .input(z.object({ id, version: z.number().int().positive().default(1), concurrency: z.number().int().min(1).max(MAX_BATCH_CONCURRENCY).default(4) }))
      .mutation(async ({ ctx, input }) => {
        // Queued only, like a batch: the workers make the calls.
        const { batch, estimate } = await startAlignmentRun(ctx.db, input.id, input.version, input.concurrency);
        return { batchId: batch.id, estimate };
      }),
    versions: sightedResearcherProcedure
      .input(z.object({ id, unparseable: z.enum(["failure", "exclude"]).default("failure") }))
      .query(async ({ ctx, input }) => await alignmentVersions(ctx.db, input.id, { policy: input.unparseable })),
    /** Two versions side by side: the prompt diff and the held-out items that flipped from a to b. */
    compare: sightedResearcherProcedure
      .input(z.object({ id, a: z.number().int().positive(), b: z.number().int().positive(), unparseable: z.enum(["failure", "exclude"]).default("failure") }))
      .query(async ({ ctx, input }) => await compareAlignmentVersions(ctx.db, input.id, input.a, input.b, { policy: input.unparseable })),
  }),

  verdicts: createTRPCRouter({
    /** Any signed-in user who may see the trajectory; the blind rule hides them from its annotators until they label it. */
    forTrajectory: authedProcedure.input(z.object({ trajectoryId: id })).query(async ({ ctx, input }) => {
      await assertTrajectoryBrowsable(ctx.db, ctx.actor, input.trajectoryId);
      await assertMayViewEvaluations(ctx.db, ctx.actor.userId, input.trajectoryId);
      return await verdictsOfTrajectory(ctx.db, input.trajectoryId);
    }),
    /**
     * The player's evaluations panel: verdicts with the steps each judge saw, rule config, labels with history and
     * consolidated labels. Same blind rule as above, answered as `hidden` so the panel can say why it is empty.
     */
    panel: authedProcedure
      .input(z.object({ trajectoryId: id }))
      .query(async ({ ctx, input }) => await trajectoryEvaluations(ctx.db, ctx.actor, input.trajectoryId)),
    /** Evaluators with verdicts, by k and prompt version: the agreement views' evaluator choices. */
    evaluators: sightedResearcherProcedure.query(async ({ ctx }) => await evaluatorSummaries(ctx.db)),
    /** A verdict from an evaluator outside Verdict (the push API's POST /api/v1/trajectories/<id>/verdicts). */
    record: sightedResearcherProcedure
      .input(externalVerdictInput)
      .mutation(async ({ ctx, input }) => await recordExternalVerdict(ctx.db, input, ctx.actor.userId)),
  }),

  rules: createTRPCRouter({
    run: sightedResearcherProcedure
      .input(
        z.object({
          selection,
          force: z.boolean().default(false),
          fuzzyConfig: z
            .union([id, z.string().min(1)])
            .nullable()
            .default(null),
          siteUrls: z.record(z.string().regex(/^[A-Z_]+$/), z.string().url()).default({}),
        }),
      )
      .mutation(async ({ ctx, input }) =>
        evaluateRuleVerdicts(
          { db: ctx.db, env: runtimeEnvironment() },
          { trajectoryIds: await resolveSelection(ctx, input.selection), force: input.force, fuzzyConfig: input.fuzzyConfig, siteUrls: input.siteUrls },
        ),
      ),
  }),
});
