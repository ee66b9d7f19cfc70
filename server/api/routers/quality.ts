/**
 * Annotator quality (researchers only): gold items and a campaign's assignment and gold settings, the annotator
 * quality view, and label files in every format.
 */
import { z } from "zod";
import { ASSIGNMENT_STRATEGIES } from "../../domain/annotation/assignment";
import { LABEL_FORMAT_DESCRIPTIONS, LABEL_FORMATS } from "../../domain/annotation/label-formats";
import { LABEL_VERDICTS } from "../../domain/annotation/label-schema";
import {
  campaignGold,
  campaignQualification,
  exportLabelsAs,
  goldChoices,
  importLabelsAs,
  markGold,
  promoteGold,
  setQualification,
  unmarkGold,
  updateQualitySettings,
} from "../../services/annotation";
import { annotatorQuality, CONSENSUS_MODELS } from "../../services/analytics";
import { createTRPCRouter, researcherProcedure } from "../trpc";

const id = z.number().int().positive();
const share = z.number().min(0).max(1);

export const qualityRouter = createTRPCRouter({
  /** A campaign's gold items, settings and every annotator's accuracy on gold. */
  gold: researcherProcedure.input(z.object({ campaignId: id })).query(({ ctx, input }) => campaignGold(ctx.db, ctx.actor, input.campaignId)),

  markGold: researcherProcedure
    .input(
      z.object({
        campaignId: id,
        trajectoryId: id,
        verdict: z.enum(LABEL_VERDICTS),
        category: z.string().nullable().optional(),
        firstFailingStep: z.number().int().min(0).nullable().optional(),
        // Checked question by question against the campaign's schema (errors name the question).
        answers: z.record(z.string(), z.unknown()).nullable().optional(),
        note: z.string().max(5000).nullable().optional(),
      }),
    )
    .mutation(({ ctx, input }) => markGold(ctx.db, ctx.actor, input)),

  /** The campaigns a trajectory can be marked gold in, with what each one's gold form asks. */
  goldChoices: researcherProcedure.input(z.object({ trajectoryId: id })).query(({ ctx, input }) => goldChoices(ctx.db, ctx.actor, input.trajectoryId)),

  promoteGold: researcherProcedure
    .input(z.object({ campaignId: id, trajectoryIds: z.array(id).min(1).max(10_000) }))
    .mutation(({ ctx, input }) => promoteGold(ctx.db, ctx.actor, input)),

  unmarkGold: researcherProcedure.input(z.object({ campaignId: id, trajectoryId: id })).mutation(({ ctx, input }) => unmarkGold(ctx.db, ctx.actor, input)),

  updateSettings: researcherProcedure
    .input(
      z.object({
        campaignId: id,
        assignmentStrategy: z.enum(ASSIGNMENT_STRATEGIES).optional(),
        goldRate: share.optional(),
        goldWarnBelow: share.nullable().optional(),
        goldBlockBelow: share.nullable().optional(),
        goldMinAnswered: z.number().int().min(1).max(1000).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { campaignId, ...patch } = input;
      const c = await updateQualitySettings(ctx.db, ctx.actor, campaignId, patch);
      return {
        id: c.id,
        assignmentStrategy: c.assignmentStrategy,
        goldRate: c.goldRate,
        goldWarnBelow: c.goldWarnBelow,
        goldBlockBelow: c.goldBlockBelow,
        goldMinAnswered: c.goldMinAnswered,
      };
    }),

  /** A campaign's qualification phase: the pass threshold, its gold items and each annotator's result. */
  qualification: researcherProcedure.input(z.object({ campaignId: id })).query(({ ctx, input }) => campaignQualification(ctx.db, ctx.actor, input.campaignId)),

  /** Turns the qualification phase on (a share that passes and the gold items it is made of, by trajectory) or off (passAt null). */
  setQualification: researcherProcedure
    .input(z.object({ campaignId: id, passAt: share.nullable(), trajectoryIds: z.array(id).max(1000) }))
    .mutation(async ({ ctx, input }) => {
      const c = await setQualification(ctx.db, ctx.actor, input);
      return { id: c.id, qualificationPassAt: c.qualificationPassAt };
    }),

  /** The annotator quality view, for one campaign or (campaignId null) across all. */
  annotators: researcherProcedure
    .input(
      z.object({
        campaignId: id.nullable(),
        model: z.enum(CONSENSUS_MODELS).default("majority"),
        tooFastMs: z.number().min(0).max(3_600_000).default(10_000),
        window: z.number().int().min(1).max(1000).default(20),
      }),
    )
    .query(({ ctx, input }) => annotatorQuality(ctx.db, input)),

  formats: researcherProcedure.query(() => LABEL_FORMATS.map((f) => ({ format: f, description: LABEL_FORMAT_DESCRIPTIONS[f] }))),

  exportLabels: researcherProcedure
    .input(z.object({ campaignId: id, format: z.enum(LABEL_FORMATS) }))
    .query(({ ctx, input }) => exportLabelsAs(ctx.db, ctx.actor, input.campaignId, input.format)),

  importLabels: researcherProcedure
    .input(
      z.object({
        format: z.enum(LABEL_FORMATS),
        text: z.string().max(25_000_000),
        source: z.string().min(1).max(300),
        annotator: z.string().max(200).optional(),
        campaign: z.union([z.object({ id }), z.object({ name: z.string().min(1).max(200), annotatorsPerItem: z.number().int().min(1).max(20).optional() })]),
        dryRun: z.boolean().optional(),
      }),
    )
    .mutation(({ ctx, input }) => importLabelsAs(ctx.db, ctx.actor, input)),
});
