/**
 * Trajectories: the filtered list and one trajectory as the player shows it.
 */
import { z } from "zod";
import { trajectoryListInput } from "../../domain/trajectory-list-query";
import { getTrajectoryForPlayer, listTrajectoryPage, trajectoryFilterOptions, warmTrajectoryImages } from "../../services/trajectory-views";
import { createTRPCRouter, publicProcedure } from "../trpc";

export const trajectoriesRouter = createTRPCRouter({
  list: publicProcedure.input(trajectoryListInput).query(({ ctx, input }) => listTrajectoryPage(ctx.db, input)),

  filterOptions: publicProcedure.query(({ ctx }) => trajectoryFilterOptions(ctx.db)),

  byId: publicProcedure
    .input(z.object({ id: z.number().int().positive() }))
    .query(({ ctx, input }) => getTrajectoryForPlayer(ctx.db, input.id)),

  /** Encode a trajectory's screenshots at the width the player shows them, starting from the current step. */
  warmImages: publicProcedure
    .input(
      z.object({
        id: z.number().int().positive(),
        width: z.number().int().positive().max(10_000),
        fromStep: z.number().int().nonnegative().default(0),
        raw: z.boolean().default(false),
      }),
    )
    .mutation(({ ctx, input }) => ({ queued: warmTrajectoryImages(ctx, input) })),
});
