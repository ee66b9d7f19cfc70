/**
 * Scanners (docs/guide/scanners.md): detectors of environment faults over steps. Researchers and admins list,
 * write and run them and read how far they agree with people's labels; like judges' batch views these show
 * evaluations of many trajectories at once, so they are closed to a researcher still labelling blind. The player's
 * markers (`trajectory`) follow the blind rule per trajectory, as judges' verdicts do.
 */
import { z } from "zod";
import {
  scannerRunJob,
  startScannerRun,
  createScanner,
  removeScanner,
  scannerDetail,
  scannerSummaries,
  trajectoryScannerMatches,
  updateScanner,
} from "../../services/evaluation";
import { trajectoryListInput } from "../../domain/trajectory-list-input";
import { authedProcedure, createTRPCRouter, researcherProcedure, sightedResearcherProcedure } from "../trpc";

const key = z.string().min(1).max(60);
const listFilter = trajectoryListInput.omit({ sort: true, dir: true, page: true, pageSize: true });

/** The definition as the form sends it: checked in full by the service, which names the field it refuses. */
const definition = z.object({}).passthrough();

export const scannersRouter = createTRPCRouter({
  list: sightedResearcherProcedure.query(async ({ ctx }) => await scannerSummaries(ctx.db, ctx.actor)),
  detail: sightedResearcherProcedure.input(z.object({ key })).query(async ({ ctx, input }) => await scannerDetail(ctx.db, ctx.actor, input.key)),
  create: researcherProcedure.input(definition).mutation(async ({ ctx, input }) => await createScanner(ctx.db, ctx.actor, input as never)),
  update: researcherProcedure.input(definition).mutation(async ({ ctx, input }) => await updateScanner(ctx.db, ctx.actor, input as never)),
  remove: researcherProcedure.input(z.object({ key })).mutation(async ({ ctx, input }) => {
    await removeScanner(ctx.db, ctx.actor, input.key);
    return { ok: true };
  }),
  run: sightedResearcherProcedure
    .input(z.object({ scannerKeys: z.array(key).min(1).max(50), filter: listFilter.default({}) }))
    .mutation(async ({ ctx, input }) => ({ jobId: await startScannerRun(ctx, ctx.actor, input) })),
  job: sightedResearcherProcedure
    .input(z.object({ id: z.number().int().positive() }))
    .query(async ({ ctx, input }) => await scannerRunJob(ctx, ctx.actor, input.id)),
  trajectory: authedProcedure
    .input(z.object({ trajectoryId: z.number().int().positive() }))
    .query(async ({ ctx, input }) => await trajectoryScannerMatches(ctx.db, ctx.actor, input.trajectoryId)),
});
