/**
 * Trajectories: the filtered list and one trajectory as the player shows it.
 */
import { z } from "zod";
import { trajectoryListInput } from "../../domain/trajectory-list-query";
import { getTrajectoryForPlayer, listTrajectoryPage, trajectoryFilterOptions, warmTrajectoryImages } from "../../services/trajectory-views";
import { agentHiddenTrajectories, assertTrajectoryBrowsable, hideAgentInRow, hideAgentInTrajectory, scopeTrajectoryFilter } from "../../services/annotation";
import { hasRole } from "../../auth/roles";
import { authedProcedure, createTRPCRouter } from "../trpc";

export const trajectoriesRouter = createTRPCRouter({
  /**
   * Annotators get only the trajectories of their campaigns. Rows in someone's blind queue hide their agent, and an
   * annotator with such rows cannot filter by run or model (the filter would tell which agent made which row).
   */
  list: authedProcedure.input(trajectoryListInput).query(({ ctx, input }) => {
    const hidden = agentHiddenTrajectories(ctx.db, ctx.actor.userId);
    const query = hidden.size && !hasRole(ctx.actor, "researcher") ? { ...input, runId: undefined, model: undefined } : input;
    const page = listTrajectoryPage(ctx.db, scopeTrajectoryFilter(ctx.actor, query));
    return { ...page, rows: page.rows.map((r) => hideAgentInRow(r, hidden)) };
  }),

  filterOptions: authedProcedure.query(({ ctx }) => {
    const options = trajectoryFilterOptions(ctx.db);
    if (hasRole(ctx.actor, "researcher") || agentHiddenTrajectories(ctx.db, ctx.actor.userId).size === 0) return options;
    return { ...options, runs: [], models: [] };
  }),

  byId: authedProcedure.input(z.object({ id: z.number().int().positive() })).query(({ ctx, input }) => {
    assertTrajectoryBrowsable(ctx.db, ctx.actor, input.id);
    return hideAgentInTrajectory(ctx.db, ctx.actor.userId, getTrajectoryForPlayer(ctx.db, input.id));
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
