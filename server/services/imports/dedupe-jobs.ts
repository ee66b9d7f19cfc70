/**
 * Merging duplicate trajectories from the dashboard: the page queues the dry run (what a merge would do) and the
 * merge itself as jobs, and polls them. Both read every imported trajectory and may rewrite many campaigns, so they
 * run in a worker (./dedupe-job.ts), never in the web request; the command line (`dedupe`) runs them in its own
 * process.
 */
import type { AppContext } from "../../context";
import { requireRole, type Actor } from "../../domain/access/actor";
import { enqueueRequestedJob, requestedJob, type RequestedJobPayload, type RequestedJobView } from "../jobs";
import type { DedupeReport } from "./dedupe";

export const DEDUPE_JOB_TYPE = "imports.dedupe";

export interface DedupeJobPayload extends RequestedJobPayload {
  /** Work the merge out and roll it back (what the page shows before anyone merges). */
  dryRun: boolean;
}

/** Queues a dry run or a merge for a worker; resolves to the job's id. Admins only, as the merge itself. */
export async function startDedupe(ctx: Pick<AppContext, "db">, actor: Actor, options: { dryRun: boolean }): Promise<number> {
  requireRole(actor, "admin", "merge duplicate trajectories");
  const payload: DedupeJobPayload = { requestedBy: actor.userId, uploadBytes: 0, dryRun: options.dryRun };
  return await enqueueRequestedJob(ctx, DEDUPE_JOB_TYPE, payload);
}

/** The dry run or merge as the page that started it polls it. */
export async function dedupeJob(ctx: Pick<AppContext, "db">, actor: Actor, id: number): Promise<RequestedJobView<DedupeReport>> {
  requireRole(actor, "admin", "merge duplicate trajectories");
  return await requestedJob<DedupeReport>(ctx, actor, DEDUPE_JOB_TYPE, id);
}
