/**
 * The worker's side of a report asked for on the dashboard (./report-jobs.ts): build the selection's report as the
 * person who asked, with the role and blind scope they have now, and stream its zip into the report files.
 * Imported by the worker runtime only, never by the web server.
 */
import type { AppContext } from "../../context";
import type { JobHandler } from "../jobs/worker";
import { reportFilesFor } from "../../storage/report-files";
import { seesWholeCatalog } from "../access";
import { reportActor, type ReportJobPayload, type ReportJobProgress, type ReportJobResult } from "./report-jobs";
import { buildReport, storeReportZip } from "./static-report";

export function reportJobHandler(ctx: AppContext): JobHandler {
  return async ({ job, signal, reportProgress }): Promise<ReportJobResult> => {
    const { options, key, requestedBy } = job.payload as ReportJobPayload;
    const actor = await reportActor(ctx, requestedBy);
    const blind = !(await seesWholeCatalog(ctx.db, actor));
    const progress = (p: ReportJobProgress) => reportProgress(p);
    const files = await buildReport(ctx.db, actor, options, (done, total) => {
      signal.throwIfAborted();
      progress({ phase: "reading", done, total });
    });
    progress({ phase: "writing", done: files.manifest.counts.trajectories, total: files.manifest.counts.trajectories });
    const bytes = await storeReportZip(ctx.store, files, reportFilesFor(ctx.config), key);
    const { title, counts, published, withheld } = files.manifest;
    return { key, bytes, blind, manifest: { title, counts, published, withheld } };
  };
}
