/**
 * Deployment profiles (admins): a profile is an allowance to reach a lab's private benchmark sites, so only admins
 * make, change or delete one. Researchers pick one in the New run form through liveRuns.formOptions (names only).
 */
import { z } from "zod";
import { deploymentProfileInputSchema } from "../../domain/live/deployment";
import { createDeploymentProfile, deleteDeploymentProfile, getDeploymentProfile, listDeploymentProfiles, updateDeploymentProfile } from "../../services/live";
import { adminProcedure, createTRPCRouter } from "../trpc";

const id = z.number().int().positive();

export const deploymentProfilesRouter = createTRPCRouter({
  list: adminProcedure.query(async ({ ctx }) => listDeploymentProfiles(ctx.db)),
  byId: adminProcedure.input(z.object({ id })).query(async ({ ctx, input }) => getDeploymentProfile(ctx.db, input.id)),
  create: adminProcedure.input(deploymentProfileInputSchema).mutation(async ({ ctx, input }) => createDeploymentProfile(ctx.db, input)),
  update: adminProcedure
    .input(z.object({ id, profile: deploymentProfileInputSchema }))
    .mutation(async ({ ctx, input }) => updateDeploymentProfile(ctx.db, input.id, input.profile)),
  delete: adminProcedure.input(z.object({ id })).mutation(async ({ ctx, input }) => {
    await deleteDeploymentProfile(ctx.db, input.id);
    return { deleted: input.id };
  }),
});
