/**
 * Imports from the dashboard: what the Import page offers, an admin's import of a server path, and the status of
 * an import job (polled by the page for its progress bar and report), and an admin's merge of trajectories earlier
 * imports stored twice (a dry run to look first), both run by a worker. Uploads go through POST /api/imports.
 */
import { z } from "zod";
import { importLimitsFromEnv } from "../../config";
import { hasRole } from "../../domain/access/actor";
import { dedupeJob, importJobStatus, IMPORTERS, recentImports, resolveServerPath, startDedupe, startImport } from "../../services/imports";
import { adminProcedure, createTRPCRouter, researcherProcedure } from "../trpc";

export const importsRouter = createTRPCRouter({
  formOptions: researcherProcedure.query(async ({ ctx }) => {
    const limits = ctx.config.importLimits ?? importLimitsFromEnv({} as NodeJS.ProcessEnv);
    const admin = ctx.session ? hasRole(ctx.session, "admin") : false;
    return {
      formats: IMPORTERS.map((i) => ({ format: i.format, description: i.description })),
      maxUploadBytes: limits.maxUploadBytes,
      zip: { maxEntries: limits.zipMaxEntries, maxTotalBytes: limits.zipMaxTotalBytes, maxRatio: limits.zipMaxRatio },
      /** Only admins learn where the server folder is, and only when one is configured. */
      importRoot: admin ? (ctx.config.importRoot ?? null) : null,
      canImportServerPaths: admin,
    };
  }),

  recent: researcherProcedure.query(async ({ ctx }) => recentImports(ctx)),

  status: researcherProcedure.input(z.object({ id: z.number().int().positive() })).query(async ({ ctx, input }) => importJobStatus(ctx, input.id)),

  /** Queues a worker's dry run (what a merge would do, rolled back) or the merge of duplicate trajectories. */
  dedupe: adminProcedure.input(z.object({ dryRun: z.boolean() })).mutation(async ({ ctx, input }) => ({ jobId: await startDedupe(ctx, ctx.actor, input) })),

  /** A queued dry run or merge, polled by the duplicates page: its status, then its report or why it failed. */
  dedupeJob: adminProcedure.input(z.object({ id: z.number().int().positive() })).query(async ({ ctx, input }) => dedupeJob(ctx, ctx.actor, input.id)),

  startFromPath: adminProcedure.input(z.object({ path: z.string().max(4096), format: z.string().max(64).optional() })).mutation(async ({ ctx, input }) => {
    const real = await resolveServerPath(ctx, input.path);
    return { jobId: await startImport(ctx, { kind: "path", path: real }, { format: input.format, requestedBy: ctx.session?.userId ?? null }) };
  }),
});
