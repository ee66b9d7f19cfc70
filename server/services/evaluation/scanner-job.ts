/**
 * The worker's side of a scanner run (./scanner-jobs.ts): the slice resolved as the researcher's list showed it,
 * every chosen scanner over every trajectory of it, with progress per trajectory. Runs as the researcher who asked,
 * with the role they hold now. Imported by the worker runtime only, never by the web server.
 */
import { getUser } from "../../../db/repositories/accounts/users";
import type { AppContext } from "../../context";
import { hasRole } from "../../domain/access/actor";
import { ValidationError } from "../../errors";
import { assertSeesWholeCatalog } from "../access";
import type { JobHandler } from "../jobs/worker";
import { scannerSlice, type ScannerRunPayload } from "./scanner-jobs";
import { requireScanner, scanTrajectories } from "./scanners";

export function scannerRunJobHandler(ctx: AppContext): JobHandler {
  return async ({ job, signal, reportProgress }) => {
    const { requestedBy, scannerKeys, filter } = job.payload as ScannerRunPayload;
    // One demoted or deactivated since asking scans nothing, nor one who started labelling blind since.
    const user = await getUser(ctx.db, requestedBy);
    if (!user || user.banned || !hasRole({ role: user.role }, "researcher")) {
      throw new ValidationError("the account that asked for this run no longer exists, is deactivated or is no longer a researcher");
    }
    await assertSeesWholeCatalog(ctx.db, { userId: user.id, name: user.name, role: user.role }, "scanner runs");
    const defs = [];
    for (const key of scannerKeys) defs.push(await requireScanner(ctx.db, key));
    const ids = await scannerSlice(ctx.db, filter);
    reportProgress({ done: 0, total: ids.length });
    // About a hundred progress writes per run, whatever its size.
    const every = Math.max(1, Math.floor(ids.length / 100));
    const onProgress = (done: number, total: number) => {
      if (done % every === 0 || done === total) reportProgress({ done, total });
    };
    return await scanTrajectories({ db: ctx.db, store: ctx.store }, defs, ids, { signal, onProgress });
  };
}
