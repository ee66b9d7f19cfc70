/**
 * Pairwise campaigns over tRPC: researchers create them and read the ranking and the preference pairs; a campaign's
 * annotators get pairs by item number and answer left, right, tie or both fail. Thin: the blind and every check live
 * in server/services/annotation/pairwise.ts.
 */
import { z } from "zod";
import { PAIRWISE_CHOICES } from "../../domain/annotation/pairwise-pairs";
import { MAX_STEP_WINDOW, STEP_WINDOW } from "../../domain/player/paging";
import { trajectoryListInput } from "../../domain/trajectory-list-input";
import {
  createPairwiseCampaign,
  myPairwiseAnswer,
  nextPairwiseItem,
  pairwiseCampaignForAnnotator,
  pairwiseItem,
  pairwisePreferencePairs,
  pairwiseRanking,
  pairwiseStepWindow,
  submitPairwiseAnswer,
} from "../../services/annotation";
import { authedProcedure, createTRPCRouter, researcherProcedure } from "../trpc";

const id = z.number().int().positive();
const item = z.object({ campaignId: id, itemNo: id });

export const pairwiseRouter = createTRPCRouter({
  create: researcherProcedure
    .input(
      z.object({
        name: z.string().min(1).max(200),
        instructions: z.string().max(20_000).optional(),
        annotatorsPerItem: z.number().int().min(1).max(20).optional(),
        annotatorIds: z.array(z.string()).max(1000).optional(),
        trajectoryIds: z.array(id).max(200_000).optional(),
        filter: trajectoryListInput.omit({ sort: true, dir: true, page: true, pageSize: true }).optional(),
        seed: z
          .number()
          .int()
          .min(0)
          .max(2 ** 31 - 1)
          .optional(),
        pairsPerTask: z.number().int().min(1).max(1000).optional(),
      }),
    )
    .mutation(({ ctx, input }) => createPairwiseCampaign(ctx.db, ctx.actor, input)),

  ranking: researcherProcedure.input(z.object({ campaignId: id })).query(({ ctx, input }) => pairwiseRanking(ctx.db, ctx.actor, input.campaignId)),

  preferencePairs: researcherProcedure
    .input(z.object({ campaignId: id }))
    .query(({ ctx, input }) => pairwisePreferencePairs(ctx.db, ctx.actor, input.campaignId)),

  campaign: authedProcedure.input(z.object({ campaignId: id })).query(({ ctx, input }) => pairwiseCampaignForAnnotator(ctx.db, ctx.actor, input.campaignId)),

  next: authedProcedure.input(z.object({ campaignId: id })).mutation(({ ctx, input }) => nextPairwiseItem(ctx.db, ctx.actor, input.campaignId)),

  item: authedProcedure.input(item).query(({ ctx, input }) => pairwiseItem(ctx.db, ctx.actor, input.campaignId, input.itemNo)),

  steps: authedProcedure
    .input(
      item.extend({ side: z.enum(["left", "right"]), from: z.number().int().min(0), count: z.number().int().min(1).max(MAX_STEP_WINDOW).default(STEP_WINDOW) }),
    )
    .query(({ ctx, input }) => pairwiseStepWindow(ctx.db, ctx.actor, input)),

  submit: authedProcedure
    .input(
      item.extend({
        choice: z.enum(PAIRWISE_CHOICES),
        timeSpentMs: z
          .number()
          .int()
          .min(0)
          .max(7 * 24 * 3600 * 1000)
          .optional(),
      }),
    )
    .mutation(({ ctx, input }) => submitPairwiseAnswer(ctx.db, ctx.actor, input)),

  myAnswer: authedProcedure.input(item).query(({ ctx, input }) => myPairwiseAnswer(ctx.db, ctx.actor, input.campaignId, input.itemNo)),
});
