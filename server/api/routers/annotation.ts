/**
 * Human annotation over tRPC: campaigns (researchers), the annotator's queue and labels (the campaign's
 * annotators, whatever their role), adjudication and label files (researchers). Thin: every rule lives in
 * server/services/annotation.
 */
import { MAX_MARKS_PER_LABEL } from "../../domain/annotation/region-marks";
import { z } from "zod";
import { CAMPAIGN_STATUSES } from "../../domain/annotation/campaign-status";
import { MAX_STEP_WINDOW, STEP_WINDOW } from "../../domain/player/paging";
import { trajectoryListInput } from "../../domain/trajectory-list-input";
import { usesTriage } from "../../domain/trajectory-list-query";
import { LABEL_IMPORT_PRESETS, labelImportMappingSchema } from "../../domain/annotation/label-io";
import { ITEM_STATES, LABEL_SCHEMA_SWITCHES, LABEL_VERDICTS, type LabelSchema } from "../../domain/annotation/label-schema";
import { DECISION_CONFIDENCES, DISAGREEMENT_SOURCES, PROTOCOL_TEMPLATES, QA_DECISIONS, TEMPLATE_IDS } from "../../domain/annotation/protocols";
import {
  addTrajectoriesToCampaign,
  adjudicate,
  adjudicationQueue,
  campaignForAnnotator,
  campaignOverview,
  createCampaign,
  describeFilterNamed,
  exportCampaignLabels,
  exportRevealStages,
  decideReveal,
  revealItem,
  labelImportJob,
  startLabelImport,
  itemReview,
  listCampaignSummaries,
  itemStepWindow,
  itemTrajectory,
  myCampaigns,
  myItemLabel,
  myQualification,
  myRecentLabels,
  nextItem,
  lookAheadItem,
  releaseAssignments,
  reopenItem,
  resolveSelection,
  myQaCampaigns,
  isDesignatedQaReviewer,
  qaItem,
  qaItemReview,
  qaItemStepWindow,
  qaItemTrajectory,
  qaQueue,
  submitQaItemReview,
  warmQaItemImages,
  setCampaignAnnotators,
  setCampaignQaReviewers,
  submitQaReview,
  skipItem,
  submitItemLabelAndNext,
  undoItemSubmit,
  updateCampaignSettings,
  warmItemImages,
  type ItemPlayerReads,
} from "../../services/annotation";
import { assertMayTriage, assertTrajectoryBrowsable, visibleLabelsOfTrajectory } from "../../services/access";
import type { Actor } from "../../domain/access/actor";
import { authedProcedure, createTRPCRouter, researcherProcedure, type TrpcContext } from "../trpc";

const id = z.number().int().positive();
/** A campaign's item as annotators and reviewers name it: by its number, never its trajectory. */
const itemRef = z.object({ campaignId: id, itemNo: id });
/** A window of an item's steps (the player pages long trajectories). */
const itemStepWindowInput = itemRef.extend({
  from: z.number().int().nonnegative(),
  count: z.number().int().positive().max(MAX_STEP_WINDOW).default(STEP_WINDOW),
});
/** An item's screenshots to encode at the player's width, from a step on. */
const warmItemImagesInput = itemRef.extend({
  width: z.number().int().positive().max(10_000),
  fromStep: z.number().int().nonnegative().default(0),
  raw: z.boolean().default(false),
});
/**
 * The player's procedures on an item page, labelling or QA: the item's trajectory as that page may show it, a window of
 * its steps, and its screenshots to warm. Each read is the page's own service call, which checks the item as the page
 * does.
 */
function itemPlayerProcedures<T>(trajectory: (db: TrpcContext["db"], actor: Actor, campaignId: number, itemNo: number) => Promise<T>, reads: ItemPlayerReads) {
  return {
    trajectory: authedProcedure.input(itemRef).query(({ ctx, input }) => trajectory(ctx.db, ctx.actor, input.campaignId, input.itemNo)),
    steps: authedProcedure.input(itemStepWindowInput).query(({ ctx, input }) => reads.stepWindow(ctx.db, ctx.actor, input)),
    warmImages: authedProcedure.input(warmItemImagesInput).mutation(async ({ ctx, input }) => ({ queued: await reads.warmImages(ctx, ctx.actor, input) })),
  };
}

const labellingPlayer = itemPlayerProcedures(itemTrajectory, { stepWindow: itemStepWindow, warmImages: warmItemImages });
const qaPlayer = itemPlayerProcedures(qaItemTrajectory, { stepWindow: qaItemStepWindow, warmImages: warmQaItemImages });

const filter = trajectoryListInput.omit({ sort: true, dir: true, page: true, pageSize: true });

const labelSchemaInput = z
  .object({
    // The categories' text is checked by the service, whose errors name the field.
    categories: z.array(z.string()).optional(),
    ...LABEL_SCHEMA_SWITCHES,
    // Each question is checked by the service, whose errors name the question.
    questions: z.array(z.record(z.string(), z.unknown())).max(50).optional(),
    // Checked by the service (length and count), whose errors name the field.
    markLabels: z.array(z.string()).max(100).optional(),
  })
  // A setting this list does not know is refused by name, not dropped: a campaign made without the mark labels its
  // maker asked for would offer the default ones without a word.
  .strict()
  .optional();

/** What an adjudicator or a QA reviewer writes beside the verdict: category, failing step, reasoning, confidence, source. */
const decisionInput = {
  category: z.string().nullable().optional(),
  firstFailingStep: z.number().int().nonnegative().nullable().optional(),
  reason: z.string().max(5000),
  confidence: z.enum(DECISION_CONFIDENCES).nullable().optional(),
  disagreementSource: z.enum(DISAGREEMENT_SOURCES).nullable().optional(),
};
/** A QA review: the consolidated label confirmed, or corrected to a verdict, with the decision's fields. */
const qaReviewInput = {
  decision: z.enum(QA_DECISIONS),
  verdict: z.enum(["success", "failure", "not_executable"]).optional(),
  ...decisionInput,
};

const selection = z.object({ trajectoryIds: z.array(id).max(200_000).optional(), filter: filter.optional() });

export const campaignsRouter = createTRPCRouter({
  /** Researchers see every campaign, annotators the ones they label in. */
  list: authedProcedure.query(({ ctx }) => listCampaignSummaries(ctx.db, ctx.actor)),

  /** How many trajectories a selection holds, before creating a campaign from it. */
  previewSelection: researcherProcedure.input(selection).query(async ({ ctx, input }) => {
    if (input.filter && usesTriage(input.filter)) await assertMayTriage(ctx.db, ctx.actor);
    const ids = await resolveSelection(ctx.db, input);
    return { count: ids.length, description: input.filter ? await describeFilterNamed(ctx.db, input.filter) : `${ids.length} chosen trajectories` };
  }),

  /** The protocol templates a campaign can start from, with their schema and guidelines. */
  templates: researcherProcedure.query(() => TEMPLATE_IDS.map((t) => PROTOCOL_TEMPLATES[t])),

  create: researcherProcedure
    .input(
      selection.extend({
        name: z.string().min(1).max(200),
        template: z.enum(TEMPLATE_IDS).optional(),
        qaReviewerIds: z.array(z.string()).max(1000).optional(),
        instructions: z.string().max(20_000).optional(),
        labelSchema: labelSchemaInput,
        annotatorsPerItem: z.number().int().min(1).max(20).optional(),
        blind: z.boolean().optional(),
        reservationMinutes: z.number().int().min(1).max(1440).optional(),
        annotatorIds: z.array(z.string()).max(1000).optional(),
        /** Blind → reveal → revise: the evaluator id ("key|k|prompt version") shown after each blind submit. */
        revealEvaluator: z.string().max(800).nullable().optional(),
      }),
    )
    .mutation(({ ctx, input }) => createCampaign(ctx.db, ctx.actor, { ...input, labelSchema: input.labelSchema as Partial<LabelSchema> | undefined })),

  overview: researcherProcedure.input(z.object({ id })).query(({ ctx, input }) => campaignOverview(ctx.db, ctx.actor, input.id)),

  update: researcherProcedure
    .input(
      z.object({
        id,
        name: z.string().min(1).max(200).optional(),
        instructions: z.string().max(20_000).optional(),
        annotatorsPerItem: z.number().int().min(1).max(20).optional(),
        blind: z.boolean().optional(),
        reservationMinutes: z.number().int().min(1).max(1440).optional(),
        status: z.enum(CAMPAIGN_STATUSES).optional(),
        labelSchema: labelSchemaInput,
      }),
    )
    .mutation(({ ctx, input }) => {
      const { id: campaignId, labelSchema, ...patch } = input;
      return updateCampaignSettings(ctx.db, ctx.actor, campaignId, { ...patch, labelSchema: labelSchema as Partial<LabelSchema> | undefined });
    }),

  setQaReviewers: researcherProcedure
    .input(z.object({ id, add: z.array(z.string()).max(1000).optional(), remove: z.array(z.string()).max(1000).optional() }))
    .mutation(({ ctx, input }) => setCampaignQaReviewers(ctx.db, ctx.actor, input.id, input)),

  addTrajectories: researcherProcedure
    .input(selection.extend({ id }))
    .mutation(({ ctx, input }) => addTrajectoriesToCampaign(ctx.db, ctx.actor, input.id, input)),

  setAnnotators: researcherProcedure
    .input(z.object({ id, add: z.array(z.string()).max(1000).optional(), remove: z.array(z.string()).max(1000).optional() }))
    .mutation(({ ctx, input }) => setCampaignAnnotators(ctx.db, ctx.actor, input.id, input)),

  adjudicationQueue: researcherProcedure
    .input(
      z.object({
        id,
        states: z.array(z.enum(ITEM_STATES)).optional(),
        page: z.number().int().positive().default(1),
        pageSize: z.number().int().positive().max(500).default(50),
      }),
    )
    .query(({ ctx, input }) =>
      adjudicationQueue(ctx.db, ctx.actor, { campaignId: input.id, states: input.states, page: input.page, pageSize: input.pageSize }),
    ),

  review: researcherProcedure.input(z.object({ id, trajectoryId: id })).query(({ ctx, input }) => itemReview(ctx.db, ctx.actor, input.id, input.trajectoryId)),

  adjudicate: researcherProcedure
    .input(
      z.object({
        id,
        trajectoryId: id,
        verdict: z.enum(["success", "failure", "not_executable"]),
        ...decisionInput,
      }),
    )
    .mutation(({ ctx, input }) => adjudicate(ctx.db, ctx.actor, { campaignId: input.id, ...input })),

  /** QA stage: researchers, and annotators designated as the campaign's QA reviewers (checked by the service). */
  qaQueue: authedProcedure
    .input(
      z.object({
        id,
        status: z.enum(["pending", "done"]).default("pending"),
        page: z.number().int().positive().default(1),
        pageSize: z.number().int().positive().max(500).default(50),
      }),
    )
    .query(({ ctx, input }) => qaQueue(ctx.db, ctx.actor, { campaignId: input.id, status: input.status, page: input.page, pageSize: input.pageSize })),

  qaReview: authedProcedure.input(z.object({ id, trajectoryId: id })).query(({ ctx, input }) => qaItemReview(ctx.db, ctx.actor, input.id, input.trajectoryId)),

  qaSubmit: authedProcedure
    .input(
      z.object({
        id,
        trajectoryId: id,
        ...qaReviewInput,
      }),
    )
    .mutation(({ ctx, input }) => submitQaReview(ctx.db, ctx.actor, { campaignId: input.id, ...input })),

  reopen: researcherProcedure
    .input(z.object({ id, trajectoryId: id, reason: z.string().max(5000).default("") }))
    .mutation(({ ctx, input }) => reopenItem(ctx.db, ctx.actor, { campaignId: input.id, trajectoryId: input.trajectoryId, reason: input.reason })),

  exportLabels: researcherProcedure
    .input(z.object({ id, format: z.enum(["csv", "jsonl"]) }))
    .query(({ ctx, input }) => exportCampaignLabels(ctx.db, ctx.actor, input.id, input.format)),

  /** Blind and informed stages of every reveal, one row per trajectory, reviewer and stage (CUAVerifierBench-like). */
  exportRevealStages: researcherProcedure
    .input(z.object({ id, format: z.enum(["csv", "jsonl"]) }))
    .query(({ ctx, input }) => exportRevealStages(ctx.db, ctx.actor, input.id, input.format)),

  importPresets: researcherProcedure.query(() =>
    Object.entries(LABEL_IMPORT_PRESETS).map(([name, p]) => ({ name, description: p.description, mapping: p.mapping })),
  ),

  /** Queued for a worker (the CSV or workbook is parsed there); the page polls importLabelsJob for the report. */
  importLabels: researcherProcedure
    .input(
      z
        .object({
          csv: z.string().max(10_000_000, "the CSV is larger than 10 MB of text; use npm run cli -- labels import for files this big").optional(),
          xlsxBase64: z
            .base64("the workbook was not sent as base64")
            .max(12_000_000, "the workbook is larger than 9 MB; use npm run cli -- labels import for files this big")
            .optional(),
          sheet: z.string().min(1).max(200).optional(),
          source: z.string().max(300),
          mapping: labelImportMappingSchema,
          campaign: z.union([z.object({ id }), z.object({ name: z.string().min(1).max(200), annotatorsPerItem: z.number().int().min(1).max(20).optional() })]),
          dryRun: z.boolean().optional(),
        })
        .refine((v) => (v.csv === undefined) !== (v.xlsxBase64 === undefined), "send the file either as csv or as xlsxBase64")
        .refine((v) => v.sheet === undefined || v.xlsxBase64 !== undefined, "a sheet is chosen only for a workbook (xlsxBase64)"),
    )
    .mutation(async ({ ctx, input }) => {
      const { csv, xlsxBase64, sheet, ...rest } = input;
      return { jobId: await startLabelImport(ctx, ctx.actor, xlsxBase64 !== undefined ? { ...rest, xlsxBase64, sheet } : { ...rest, csv: csv! }) };
    }),

  /** A label import started by importLabels, for the person who started it: queued, running, its report or why it failed. */
  importLabelsJob: researcherProcedure.input(z.object({ id })).query(async ({ ctx, input }) => await labelImportJob(ctx, ctx.actor, input.id)),
});

/**
 * The annotator's side. Items are addressed by their campaign-local number, never by trajectory id (see
 * server/services/annotation/labelling.ts).
 */
export const labellingRouter = createTRPCRouter({
  /** The annotator's campaigns with how much is left for them (their own progress only). */
  myCampaigns: authedProcedure.query(({ ctx }) => myCampaigns(ctx.db, ctx.actor)),

  /** Campaign settings an annotator needs: instructions and label schema. */
  campaign: authedProcedure.input(z.object({ id })).query(({ ctx, input }) => campaignForAnnotator(ctx.db, ctx.actor, input.id)),

  /** Where the annotator stands in the campaign's qualification (null without one): counts and the item to answer next. */
  qualification: authedProcedure.input(z.object({ campaignId: id })).query(({ ctx, input }) => myQualification(ctx.db, ctx.actor, input.campaignId)),

  next: authedProcedure.input(z.object({ campaignId: id })).mutation(({ ctx, input }) => nextItem(ctx.db, ctx.actor, input.campaignId)),

  /**
   * Submit & next's look-ahead from the item on screen: the item `next` would most likely hand out after its submit,
   * with its player data and the annotator's own label on it (what `item` and `mine` answer). Reserves nothing.
   * With `pending`, as if those items' submits were stored too.
   */
  lookAhead: authedProcedure
    // `pending`: items whose Submit & next the page has sent and not yet seen answered (it showed the next item first).
    .input(itemRef.extend({ pending: z.array(id).max(8).optional() }))
    .query(({ ctx, input }) => lookAheadItem(ctx.db, ctx.actor, input.campaignId, input.itemNo, {}, input.pending)),

  skip: authedProcedure.input(itemRef).mutation(({ ctx, input }) => skipItem(ctx.db, ctx.actor, input.campaignId, input.itemNo)),

  release: authedProcedure
    .input(z.object({ campaignId: id }))
    .mutation(async ({ ctx, input }) => ({ released: await releaseAssignments(ctx.db, ctx.actor, input.campaignId) })),

  submit: authedProcedure
    .input(
      z.object({
        campaignId: id,
        itemNo: id,
        verdict: z.enum(LABEL_VERDICTS),
        category: z.string().max(200).nullable().optional(),
        firstFailingStep: z.number().int().nonnegative().nullable().optional(),
        note: z.string().max(10_000).nullable().optional(),
        answers: z.record(z.string(), z.unknown()).optional(),
        // Each mark is checked against its step's screenshot by the service, which names the mark at fault.
        marks: z.array(z.unknown()).max(MAX_MARKS_PER_LABEL).nullable().optional(),
        timeSpentMs: z
          .number()
          .nonnegative()
          .max(7 * 24 * 3_600_000)
          .nullable()
          .optional(),
        stepsViewed: z.array(z.number().int().nonnegative()).max(10_000).nullable().optional(),
        idempotencyKey: z.string().min(8).max(128),
        baseRevision: z.number().int().positive().nullable().optional(),
        /** Submit & next: also reserve and return the next item (`next`, null when none), in the same call. */
        andNext: z.boolean().optional(),
      }),
    )
    .mutation(({ ctx, input }) => submitItemLabelAndNext(ctx.db, ctx.actor, input)),

  undo: authedProcedure
    .input(z.object({ campaignId: id, revisionId: id.nullable().optional(), idempotencyKey: z.string().min(8).max(128) }))
    .mutation(({ ctx, input }) => undoItemSubmit(ctx.db, ctx.actor, input)),

  /**
   * Blind → reveal → revise: after the blind submit, the campaign's evaluator on the item (refused before it). A
   * mutation: the first call records the reveal, which makes the blind label final.
   */
  reveal: authedProcedure.input(itemRef).mutation(({ ctx, input }) => revealItem(ctx.db, ctx.actor, input.campaignId, input.itemNo)),

  /** Keep or revise the label after the reveal, with a reason (the informed stage; recorded once). */
  decideReveal: authedProcedure
    .input(
      z.object({
        campaignId: id,
        itemNo: id,
        decision: z.enum(["keep", "revise"]),
        verdict: z.enum(LABEL_VERDICTS).nullable().optional(),
        category: z.string().max(200).nullable().optional(),
        firstFailingStep: z.number().int().nonnegative().nullable().optional(),
        reason: z.string().max(5000),
      }),
    )
    .mutation(({ ctx, input }) => decideReveal(ctx.db, ctx.actor, input)),

  /** The annotator's own label on an item, its history, and what "undo" would revert. */
  mine: authedProcedure.input(itemRef).query(({ ctx, input }) => myItemLabel(ctx.db, ctx.actor, input.campaignId, input.itemNo)),

  /** The item's trajectory as the player shows it, with what the blind rule hides taken out. */
  item: labellingPlayer.trajectory,

  /** Full details of a window of the item's steps (the player pages long trajectories; see itemStepWindow). */
  itemSteps: labellingPlayer.steps,

  /** Encode an item's screenshots at the width the player shows them, starting from the current step. */
  warmImages: labellingPlayer.warmImages,

  /** The annotator's recent labels in a campaign (to go back and revise). */
  done: authedProcedure
    .input(z.object({ campaignId: id, limit: z.number().int().positive().max(500).default(50) }))
    .query(({ ctx, input }) => myRecentLabels(ctx.db, ctx.actor, input.campaignId, input.limit)),

  /** Labels on a trajectory the caller may browse (blind rule applied on the server). */
  ofTrajectory: authedProcedure.input(z.object({ trajectoryId: id })).query(async ({ ctx, input }) => {
    await assertTrajectoryBrowsable(ctx.db, ctx.actor, input.trajectoryId);
    return visibleLabelsOfTrajectory(ctx.db, ctx.actor, input.trajectoryId);
  }),
});

/**
 * The QA page (`/qa/<campaign>/<item>`): designated QA reviewers, who may be plain annotators, review items whose
 * labelling is over, by campaign-local item number. The service checks the designation and the blind rule.
 */
export const qaRouter = createTRPCRouter({
  /** Whether the caller is a designated QA reviewer of any campaign (the nav shows the QA page). */
  isReviewer: authedProcedure.query(({ ctx }) => isDesignatedQaReviewer(ctx.db, ctx.actor)),

  /** The campaigns the caller is a designated QA reviewer of, with the items waiting. */
  campaigns: authedProcedure.query(({ ctx }) => myQaCampaigns(ctx.db, ctx.actor)),

  /** Items waiting for QA (disputed first under that strategy), with their labels in brief. */
  queue: authedProcedure
    .input(
      z.object({
        campaignId: id,
        status: z.enum(["pending", "done"]).default("pending"),
        page: z.number().int().positive().default(1),
        pageSize: z.number().int().positive().max(500).default(50),
      }),
    )
    .query(({ ctx, input }) => qaQueue(ctx.db, ctx.actor, input)),

  /** One item's labels side by side and its consolidated label. */
  item: authedProcedure.input(itemRef).query(({ ctx, input }) => qaItem(ctx.db, ctx.actor, input.campaignId, input.itemNo)),

  /** The item's trajectory for the player (agent hidden from annotators), a window of its steps, its images to warm. */
  ...qaPlayer,

  /** Approve the consolidated label ("confirmed") or override it ("corrected"), with the reviewer's reasoning. */
  submit: authedProcedure
    .input(
      z.object({
        campaignId: id,
        itemNo: id,
        ...qaReviewInput,
      }),
    )
    .mutation(({ ctx, input }) => submitQaItemReview(ctx.db, ctx.actor, input)),
});
