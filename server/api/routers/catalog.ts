/**
 * Task sets, tasks and agent runs: their own pages with what ran and how it ended.
 */
import { z } from "zod";
import { runList, runOverview, taskOverview, taskSetList, taskSetOverview } from "../../services/trajectory-views";
import { createTRPCRouter, publicProcedure } from "../trpc";

const byId = z.object({ id: z.number().int().positive() });

export const taskSetsRouter = createTRPCRouter({
  list: publicProcedure.query(({ ctx }) => taskSetList(ctx.db)),
  byId: publicProcedure
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
  byId: publicProcedure.input(byId).query(({ ctx, input }) => taskOverview(ctx.db, input.id)),
});

export const runsRouter = createTRPCRouter({
  list: publicProcedure.query(({ ctx }) => runList(ctx.db)),
  byId: publicProcedure.input(byId).query(({ ctx, input }) => runOverview(ctx.db, input.id)),
});
