/**
 * Shareable reports from the dashboard: the web server queues the build of a selection's report as a job, a worker
 * builds it as the person who asked (with the role and blind scope they have when it runs: ./report-job.ts) and
 * streams its zip into the report files (storage/report-files.ts), and the page polls the job for its progress and
 * then downloads the zip.
 *
 * The download is checked again when it is asked for: only the person who asked (or an admin) sees the job, they
 * must still be a researcher, and a report built while they saw the whole catalog holds labels and verdicts that
 * anyone labelling blind now may not see, so it is refused to them (the same rule as the report's content).
 */
import type { Readable } from "node:stream";
import { getUser } from "../../../db/repositories/accounts/users";
import { requireRole, type Actor } from "../../domain/access/actor";
import type { AppContext } from "../../context";
import { AppError, NotFoundError } from "../../errors";
import { reportFilesFor, newReportKey } from "../../storage/report-files";
import { seesWholeCatalog } from "../access";
import { enqueueRequestedJob, requestedJob, type RequestedJobPayload, type RequestedJobView } from "../jobs/requested-jobs";
import type { ReportManifest, ReportOptions } from "./static-report";

export const REPORT_JOB_TYPE = "report.build";

export interface ReportJobPayload extends RequestedJobPayload {
  options: ReportOptions;
  /** Where the zip goes in the report files, chosen when the job is queued. */
  key: string;
}

export interface ReportJobResult {
  key: string;
  bytes: number;
  /** Built for someone labelling blind: no labels, verdicts or agreement in it. */
  blind: boolean;
  manifest: Pick<ReportManifest, "title" | "counts" | "published" | "withheld">;
}

/** What the page shows while the report is built: trajectories read of the selection, then the zip being written. */
export interface ReportJobProgress {
  phase: "reading" | "writing";
  done: number;
  total: number;
}

/** The person a queued report acts for, with the role they have now; refused when they are gone or deactivated. */
export async function reportActor(ctx: Pick<AppContext, "db">, userId: string): Promise<Actor> {
  const user = await getUser(ctx.db, userId);
  if (!user || user.banned) throw new AppError("FORBIDDEN", "The account that asked for this report no longer exists or is deactivated");
  return { userId: user.id, name: user.name, role: user.role };
}

/** Queues the build of a report for a worker; resolves to the job's id. */
export async function startReport(ctx: Pick<AppContext, "db">, actor: Actor, options: ReportOptions): Promise<number> {
  requireRole(actor, "researcher", "build shareable reports");
  const payload: ReportJobPayload = { requestedBy: actor.userId, uploadBytes: 0, options, key: newReportKey() };
  return await enqueueRequestedJob(ctx, REPORT_JOB_TYPE, payload);
}

/** The report's job as the page that asked for it polls it (the storage key left out). */
export async function reportJob(ctx: Pick<AppContext, "db">, actor: Actor, id: number): Promise<RequestedJobView<Omit<ReportJobResult, "key">>> {
  const view = await requestedJob<ReportJobResult>(ctx, actor, REPORT_JOB_TYPE, id);
  if (!view.result) return { ...view, result: null };
  const { key: _key, ...result } = view.result;
  return { ...view, result };
}

/** The finished report's zip for its download, after the checks above. */
export async function openReportDownload(
  ctx: Pick<AppContext, "db" | "config">,
  actor: Actor,
  id: number,
): Promise<{ body: Readable; size: number; fileName: string }> {
  const view = await requestedJob<ReportJobResult>(ctx, actor, REPORT_JOB_TYPE, id);
  requireRole(actor, "researcher", "download shareable reports");
  if (!view.result) throw new NotFoundError("report", id);
  if (!view.result.blind && !(await seesWholeCatalog(ctx.db, actor))) {
    throw new AppError("FORBIDDEN", "This report holds labels and verdicts, and you now label some trajectories blind: ask for a new report");
  }
  const opened = await reportFilesFor(ctx.config).open(view.result.key);
  if (!opened) throw new NotFoundError("report", id);
  return { ...opened, fileName: `verdict-report-${id}.zip` };
}
