/**
 * The worker's side of a dashboard merge of duplicate trajectories (./dedupe-jobs.ts): the dry run or the merge,
 * as the admin who asked, with the role they hold now. Imported by the worker runtime only, never by the web server.
 */
import { getUser } from "../../../db/repositories/accounts/users";
import type { AppContext } from "../../context";
import type { Actor } from "../../domain/access/actor";
import { ValidationError } from "../../errors";
import type { JobHandler } from "../jobs/worker";
import { dedupeTrajectories } from "./dedupe";
import type { DedupeJobPayload } from "./dedupe-jobs";

export function dedupeJobHandler(ctx: AppContext): JobHandler {
  return async ({ job }) => {
    const { requestedBy, dryRun } = job.payload as DedupeJobPayload;
    // One demoted or deactivated since asking merges nothing.
    const user = await getUser(ctx.db, requestedBy);
    if (!user || user.banned) throw new ValidationError("the account that asked for this merge no longer exists or is deactivated");
    const actor: Actor = { userId: user.id, name: user.name, role: user.role };
    return await dedupeTrajectories(ctx.db, actor, { dryRun });
  };
}
