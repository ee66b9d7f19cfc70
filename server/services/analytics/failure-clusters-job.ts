/**
 * The worker's side of a failure-cluster run (./failure-clusters.ts): computed as the researcher who asked, with the
 * role they hold now (one demoted, deactivated or labelling blind since asking gets nothing), then saved. Imported by
 * the worker runtime only, never by the web server.
 */
import { getUser } from "../../../db/repositories/accounts/users";
import type { AppContext } from "../../context";
import type { Actor } from "../../domain/access/actor";
import { ValidationError } from "../../errors";
import { assertSeesWholeCatalog } from "../access";
import type { JobHandler } from "../jobs/worker";
import { computeFailureClusters, saveFailureClusters, type ClusterJobPayload } from "./failure-clusters";

export function failureClustersJobHandler(ctx: AppContext): JobHandler {
  return async ({ job, reportProgress }) => {
    const { requestedBy, slice } = job.payload as ClusterJobPayload;
    const user = await getUser(ctx.db, requestedBy);
    if (!user || user.banned) throw new ValidationError("the account that asked for these clusters no longer exists or is deactivated");
    const actor: Actor = { userId: user.id, name: user.name, role: user.role };
    await assertSeesWholeCatalog(ctx.db, actor, "failure clusters");
    const result = await computeFailureClusters(ctx.db, slice, reportProgress);
    reportProgress({ stage: "saving", done: 1 });
    return { runId: await saveFailureClusters(ctx.db, actor, slice, result) };
  };
}
