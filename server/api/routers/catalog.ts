/**
 * Task sets, tasks and agent runs: their own pages with what ran and how it ended. Runs and task sets (and their
 * per-run figures) are researchers' views, closed while they label blind; a task is shown to anyone who may
 * browse one of its trajectories, with only those trajectories (server/services/access/scope.ts).
 */
import { z } from "zod";
import { runList, runOverview, taskForViewer, taskSetList, taskSetOverview } from "../../services/trajectory-views";
import { assertSeesWholeCatalog } from "../../services/access";
import { flagTask, taskValidity } from "../../services/catalog";
import { taskFlagInputSchema } from "../../domain/catalog/task-validity";
import { authedProcedure, createTRPCRouter, researcherProcedure } from "../trpc";

const byId = z.object({ id: z.number().int().positive() });

export const taskSetsRouter = createTRPCRouter({
  list: researcherProcedure.query(async ({ ctx }) => {
    await assertSeesWholeCatalog(ctx.db, ctx.actor, "task sets");
    return taskSetList(ctx.db);
  }),
  byId: researcherProcedure
    .input(
      byId.extend({
        q: z.string().max(500).optional(),
        site: z.string().max(200).optional(),
        page: z.number().int().positive().default(1),
        pageSize: z.number().int().positive().max(500).default(100),
      }),
    )
    .query(async ({ ctx, input }) => {
      await assertSeesWholeCatalog(ctx.db, ctx.actor, "task sets");
      return taskSetOverview(ctx.db, input.id, input);
    }),
});

export const tasksRouter = createTRPCRouter({
  byId: authedProcedure.input(byId).query(async ({ ctx, input }) => taskForViewer(ctx.db, ctx.actor, input.id)),

  /** A task's validity ledger: every revision, oldest first, and the current one (researchers and admins). */
  validity: researcherProcedure.input(byId).query(async ({ ctx, input }) => taskValidity(ctx.db, ctx.actor, input.id)),

  /** Flags a task broken, outdated, ambiguous or with a wrong reference, or clears it (`valid`): a new revision. */
  flag: researcherProcedure.input(taskFlagInputSchema).mutation(async ({ ctx, input }) => flagTask(ctx.db, ctx.actor, input)),
});

export const runsRouter = createTRPCRouter({
  list: researcherProcedure.query(async ({ ctx }) => {
    await assertSeesWholeCatalog(ctx.db, ctx.actor, "agent runs");
    return runList(ctx.db);
  }),
  byId: researcherProcedure.input(byId).query(async ({ ctx, input }) => {
    await assertSeesWholeCatalog(ctx.db, ctx.actor, "agent runs");
    return runOverview(ctx.db, input.id);
  }),
});
