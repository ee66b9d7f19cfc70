/**
 * Task sets, tasks and agent runs: their own pages with what ran and how it ended.
 */
import { z } from "zod";
import { runList, runOverview, taskOverview, taskSetList, taskSetOverview } from "../../services/trajectory-views";
import { agentHiddenTrajectories, browsableTrajectoryIds, hideAgentInRow } from "../../services/annotation";
import { authedProcedure, createTRPCRouter } from "../trpc";

const byId = z.object({ id: z.number().int().positive() });

export const taskSetsRouter = createTRPCRouter({
  list: authedProcedure.query(({ ctx }) => taskSetList(ctx.db)),
  byId: authedProcedure
    .input(
      byId.extend({
        q: z.string().max(500).optional(),
        site: z.string().max(200).optional(),
        page: z.number().int().positive().default(1),
        pageSize: z.number().int().positive().max(500).default(100),
      }),
    )
    .query(({ ctx, input }) => taskSetOverview(ctx.db, input.id, input)),
});

export const tasksRouter = createTRPCRouter({
  /** Annotators see only the task's trajectories that are in their campaigns. */
  byId: authedProcedure.input(byId).query(({ ctx, input }) => {
    const overview = taskOverview(ctx.db, input.id);
    const allowed = browsableTrajectoryIds(ctx.db, ctx.actor);
    const set = allowed === null ? null : new Set(allowed);
    const hidden = agentHiddenTrajectories(ctx.db, ctx.actor.userId);
    return { ...overview, trajectories: overview.trajectories.filter((t) => !set || set.has(t.id)).map((t) => hideAgentInRow(t, hidden)) };
  }),
});

export const runsRouter = createTRPCRouter({
  list: authedProcedure.query(({ ctx }) => runList(ctx.db)),
  byId: authedProcedure.input(byId).query(({ ctx, input }) => runOverview(ctx.db, input.id)),
});
