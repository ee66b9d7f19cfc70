/**
 * Running scanners from the dashboard: the page queues a run over a slice of the trajectory list (its filters, a
 * search, a sample) and polls it. A run reads every trajectory of the slice and decodes screenshots, so it runs in
 * a worker (./scanner-job.ts), never in the web request.
 */
import type { AppContext } from "../../context";
import type { Actor } from "../../domain/access/actor";
import { assertSeesWholeCatalog } from "../access/scope";
import { ValidationError } from "../../errors";
import { enqueueRequestedJob, requestedJob, type RequestedJobPayload, type RequestedJobView } from "../jobs/requested-jobs";
import type { SelectionFilter } from "../trajectory-views";
import { requireScanner, type ScannerRunReport } from "./scanners";

export const SCANNER_RUN_JOB_TYPE = "evaluation.scanners";

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
