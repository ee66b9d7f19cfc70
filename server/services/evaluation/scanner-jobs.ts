/**
 * Running scanners from the dashboard: the page queues a run over a slice of the trajectory list (its filters, a
 * search, a sample) and polls it. A run reads every trajectory of the slice and decodes screenshots, so it runs in
 * a worker (./scanner-job.ts), never in the web request.
 */
import type { AppContext } from "../../context";
import type { Actor } from "../../domain/access/actor";
import { assertSeesWholeCatalog } from "../access";
import { ValidationError } from "../../errors";
import { enqueueRequestedJob, requestedJob, type RequestedJobPayload, type RequestedJobView } from "../jobs";
import { matchingTrajectoryIds, type SelectionFilter } from "../trajectory-views";
import { requireScanner, type ScannerRunReport } from "./scanners";

export const SCANNER_RUN_JOB_TYPE = "evaluation.scanners";
/**
 * Most trajectories one run scans. A run holds the worker lane that label imports, CSV agreement and dedupe also wait
 * in, so a larger slice is refused with this figure (scan it in parts) rather than queued for hours.
 */
export const MAX_SCANNED_TRAJECTORIES = 20_000;

/** The slice's trajectories, or a refusal naming the limit when they are more than one run scans. */
export async function scannerSlice(db: AppContext["db"], filter: SelectionFilter, most = MAX_SCANNED_TRAJECTORIES): Promise<number[]> {
  const ids = await matchingTrajectoryIds(db, filter, most + 1);
  if (ids.length > most) {
    throw new ValidationError(
      `this slice has more than ${most.toLocaleString("en")} trajectories, more than one scanner run reads: narrow it (a run, a site, a search) and scan each part`,
      "filter",
    );
  }
  return ids;
}

export interface ScannerRunPayload extends RequestedJobPayload {
  scannerKeys: string[];
  /** The trajectory list's filters the slice was chosen with (resolved by the worker, as the list shows it). */
  filter: SelectionFilter;
}

export interface ScannerRunProgress {
  done: number;
  total: number;
}

/** Queues a run of the given scanners over a slice; resolves to the job's id. Researchers and admins. */
export async function startScannerRun(ctx: Pick<AppContext, "db">, actor: Actor, input: { scannerKeys: string[]; filter: SelectionFilter }): Promise<number> {
  await assertSeesWholeCatalog(ctx.db, actor, "scanner runs");
  const keys = [...new Set(input.scannerKeys)];
  if (!keys.length) throw new ValidationError("scannerKeys: choose at least one scanner", "scannerKeys");
  for (const key of keys) await requireScanner(ctx.db, key);
  await scannerSlice(ctx.db, input.filter);
  const payload: ScannerRunPayload = { requestedBy: actor.userId, uploadBytes: 0, scannerKeys: keys, filter: input.filter };
  return await enqueueRequestedJob(ctx, SCANNER_RUN_JOB_TYPE, payload);
}

/** The run as the page that started it polls it, with its progress while it runs. */
export async function scannerRunJob(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  id: number,
): Promise<RequestedJobView<ScannerRunReport> & { progress: ScannerRunProgress | null }> {
  // Its result holds findings (trajectories matched, problems): closed again if they started labelling blind since.
  await assertSeesWholeCatalog(ctx.db, actor, "scanner runs");
  const view = await requestedJob<ScannerRunReport>(ctx, actor, SCANNER_RUN_JOB_TYPE, id);
  return { ...view, progress: view.progress as ScannerRunProgress | null };
}
