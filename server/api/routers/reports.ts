/**
 * Shareable reports from the dashboard (docs/guide/reports.md): a researcher starts the build of a selection's report
 * (the trajectory list's filters or saved search, a run), the page polls its job for progress, and the zip is then
 * downloaded from /api/reports/<id>/download. The same choices as `npm run cli -- report`. A campaign page asks for
 * its campaign's trajectories; "Your reports" lists a person's reports and removes one.
 */
import { z } from "zod";
import { trajectoryListInput } from "../../domain/trajectory-list-input";
import { deleteReport, myReports, reportJob, startReport } from "../../services/trajectories";
import { createTRPCRouter, researcherProcedure } from "../trpc";

const selection = trajectoryListInput.omit({ sort: true, dir: true, page: true, pageSize: true });

const reportChoices = z.object({
  selection: selection.default({}),
  labels: z.enum(["none", "consolidated", "all"]).default("consolidated"),
  /** "all", or the evaluator refs whose verdicts are published ([] for none). */
  judges: z.union([z.literal("all"), z.array(z.string().min(1).max(800)).max(200)]).default("all"),
  annotatorNames: z.boolean().default(false),
  agreement: z.boolean().default(true),
  title: z.string().trim().min(1).max(200).optional(),
  /** A campaign's trajectories instead of the list selection (the campaign page's button). */
  campaignId: z.number().int().positive().optional(),
});

export const reportsRouter = createTRPCRouter({
  start: researcherProcedure.input(reportChoices).mutation(async ({ ctx, input }) => ({ jobId: await startReport(ctx, ctx.actor, input) })),
  job: researcherProcedure.input(z.object({ id: z.number().int().positive() })).query(async ({ ctx, input }) => await reportJob(ctx, ctx.actor, input.id)),
  mine: researcherProcedure.query(async ({ ctx }) => await myReports(ctx, ctx.actor)),
  remove: researcherProcedure.input(z.object({ id: z.number().int().positive() })).mutation(async ({ ctx, input }) => {
    await deleteReport(ctx, ctx.actor, input.id);
    return { ok: true };
  }),
});
