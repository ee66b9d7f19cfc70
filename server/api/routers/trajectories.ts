/**
 * Trajectories: the filtered list and one trajectory as the player shows it, each narrowed to what the viewer may
 * browse (server/services/access/scope.ts). Trajectories someone labels blind are not reached here at all
 * until they have labelled them: they open them as campaign items (labelling.item).
 */
import { z } from "zod";
import { MAX_STEP_WINDOW, STEP_WINDOW } from "../../domain/player/paging";
import { trajectoryListInput } from "../../domain/trajectory-list-input";
import { usesTriage } from "../../domain/trajectory-list-query";
import {
  getStepWindow,
  getTrajectoryForPlayer,
  listTrajectoryPage,
  trajectoryFilterOptions,
  triageFilterOptions,
  warmTrajectoryImages,
} from "../../services/trajectory-views";
import { assertMayTriage, assertTrajectoryBrowsable, scopeTrajectoryFilter, seesWholeCatalog } from "../../services/access";
import { resolveStepLink } from "../../services/trajectories";
import { authedProcedure, createTRPCRouter } from "../trpc";

export const trajectoriesRouter = createTRPCRouter({
  /** Researchers and admins also get each row's labels and verdicts (triage); others may not filter on them. */
  list: authedProcedure.input(trajectoryListInput).query(async ({ ctx, input }) => {
    const triage = await seesWholeCatalog(ctx.db, ctx.actor);
    if (!triage && (usesTriage(input) || input.sample !== undefined)) await assertMayTriage(ctx.db, ctx.actor);
    const page = await listTrajectoryPage(ctx.db, await scopeTrajectoryFilter(ctx.db, ctx.actor, input), { triage });
    return { ...page, triage, rows: page.rows.map((r) => ({ ...r, agentHidden: false })) };
  }),

  /** Whether the viewer sees the whole catalog (runs, models, triage), or only their campaigns' trajectories. */
  browsingScope: authedProcedure.query(async ({ ctx }) => ({ wholeCatalog: await seesWholeCatalog(ctx.db, ctx.actor) })),

  /** The menus list every run and model: only for viewers who see the whole catalog. */
  filterOptions: authedProcedure.query(async ({ ctx }) => {
    const options = await trajectoryFilterOptions(ctx.db);
    if (await seesWholeCatalog(ctx.db, ctx.actor)) return { ...options, ...(await triageFilterOptions(ctx.db)) };
    return { ...options, taskSets: [], runs: [], models: [], categories: [], evaluators: [] };
  }),

  /** A stable step link's trajectory (/t/<key>?id=…): its row now, if the viewer may browse it. */
  resolveLink: authedProcedure
    .input(z.object({ key: z.string().regex(/^[0-9a-fA-F]{16,128}$/), id: z.number().int().positive().optional() }))
    .query(async ({ ctx, input }) => ({ id: await resolveStepLink(ctx.db, ctx.actor, input) })),

  byId: authedProcedure.input(z.object({ id: z.number().int().positive() })).query(async ({ ctx, input }) => {
    await assertTrajectoryBrowsable(ctx.db, ctx.actor, input.id);
    return getTrajectoryForPlayer(ctx.db, input.id);
  }),
  /** Full details of a window of steps from position `from` (byId carries the first window and the index of all). */
  steps: authedProcedure
    .input(
      z.object({
        id: z.number().int().positive(),
        from: z.number().int().nonnegative(),
        count: z.number().int().positive().max(MAX_STEP_WINDOW).default(STEP_WINDOW),
      }),
    )
    .query(async ({ ctx, input }) => {
      await assertTrajectoryBrowsable(ctx.db, ctx.actor, input.id);
      return getStepWindow(ctx.db, input.id, input.from, input.count);
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
    .mutation(async ({ ctx, input }) => {
      await assertTrajectoryBrowsable(ctx.db, ctx.actor, input.id);
      return { queued: await warmTrajectoryImages(ctx, input) };
    }),
});
