/**
 * Trajectories: the filtered list and one trajectory as the player shows it.
 */
import { z } from "zod";
import { trajectoryListInput } from "../../domain/trajectory-list-query";
import { getTrajectoryForPlayer, listTrajectoryPage, trajectoryFilterOptions, warmTrajectoryImages } from "../../services/trajectory-views";
import { assertTrajectoryBrowsable, scopeTrajectoryFilter } from "../../services/annotation";
import { authedProcedure, createTRPCRouter } from "../trpc";

export const trajectoriesRouter = createTRPCRouter({
  /** Annotators get only the trajectories of their campaigns. */
  list: authedProcedure.input(trajectoryListInput).query(({ ctx, input }) => listTrajectoryPage(ctx.db, scopeTrajectoryFilter(ctx.actor, input))),

  filterOptions: authedProcedure.query(({ ctx }) => trajectoryFilterOptions(ctx.db)),

  byId: authedProcedure.input(z.object({ id: z.number().int().positive() })).query(({ ctx, input }) => {
    assertTrajectoryBrowsable(ctx.db, ctx.actor, input.id);
    return getTrajectoryForPlayer(ctx.db, input.id);
  }),

  /** Encode a trajectory's screenshots at the width the player shows them, starting from the current step. */
  warmImages: authedProcedure
    .input(
      z.object({
        id: z.number().int().positive(),
        width: z.number().int().positive().max(10_000),
        fromStep: z.number().int().nonnegative().default(0),
        raw: z.boolean().default(false),
      }),
    )
    .mutation(({ ctx, input }) => {
      assertTrajectoryBrowsable(ctx.db, ctx.actor, input.id);
      return { queued: warmTrajectoryImages(ctx, input) };
    }),
});
