/**
 * Shareable reports from the dashboard: the web server queues the build of a selection's report as a job, a worker
 * builds it as the person who asked (with the role and blind scope they have when it runs: ./report-job.ts) and
 * streams its zip into the report files (storage/report-files.ts), and the page polls the job for its progress and
 * then downloads the zip.
 *
 * The download is checked again when it is asked for: only the person who asked (or an admin) sees the job, they
 * must still be a researcher, and a report built while they saw the whole catalog holds labels and verdicts that
 * anyone labelling blind now may not see, so it is refused to them (the same rule as the report's content).
 *
 * A report is kept for VERDICT_REPORT_RETENTION_DAYS after it was built: then its download is refused as expired,
 * and the clean-up (`expireReports`, run by `npm run cli -- gc-screenshots`) removes its zip.
 */
import type { Readable } from "node:stream";
import { getUser } from "../../../db/repositories/accounts/users";
import { campaignItemIds, getCampaign } from "../../../db/repositories/annotation/campaigns";
import { deleteJob, listRequestedJobsOfType, listJobsOfTypeFinishedBefore } from "../../../db/repositories/jobs";
import { DEFAULT_REPORT_RETENTION_DAYS, type VerdictConfig } from "../../config";
import { requireRole, type Actor } from "../../domain/access/actor";
import type { AppContext } from "../../context";
import { MAX_IDS } from "../../domain/trajectory-list-query";
import { AppError, ConflictError, NotFoundError, ValidationError } from "../../errors";
import { reportFilesFor, newReportKey } from "../../storage/report-files";
import { seesWholeCatalog } from "../access";
import { enqueueJobs, enqueueRequestedJob, requestedJob, type JobHandler, type RequestedJobPayload, type RequestedJobView } from "../jobs";
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

/**
 * A campaign's trajectories as the report's selection (the campaign page's Download report). The worker still
 * narrows them to what the person may browse, as for any selection.
 */
async function campaignSelection(ctx: Pick<AppContext, "db">, campaignId: number): Promise<number[]> {
  const campaign = await getCampaign(ctx.db, campaignId);
  if (!campaign) throw new NotFoundError("campaign", campaignId);
  const ids = (await campaignItemIds(ctx.db, campaignId)).map((i) => i.trajectoryId);
  if (!ids.length) throw new ValidationError(`Nothing to report: campaign “${campaign.name}” holds no trajectories`);
  if (ids.length > MAX_IDS) {
    throw new ValidationError(
      `Campaign “${campaign.name}” holds ${ids.length} trajectories; a report from its page takes at most ${MAX_IDS}: build it from the trajectory list with a filter or a sample`,
    );
  }
  return ids.sort((a, b) => a - b);
}

/** Queues the build of a report for a worker (of a list selection, or of a campaign's trajectories); resolves to the job's id. */
export async function startReport(ctx: Pick<AppContext, "db">, actor: Actor, request: ReportOptions & { campaignId?: number }): Promise<number> {
  requireRole(actor, "researcher", "build shareable reports");
  const { campaignId, ...options } = request;
  if (campaignId !== undefined) options.selection = { ids: await campaignSelection(ctx, campaignId) };
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

/** When a report built at `finishedAt` stops being downloadable. */
export function reportExpiresAt(config: Pick<VerdictConfig, "reportRetentionDays">, finishedAt: Date): Date {
  return new Date(finishedAt.getTime() + (config.reportRetentionDays ?? DEFAULT_REPORT_RETENTION_DAYS) * 86_400_000);
}

/** One of a person's reports as their list shows it. */
export interface MyReport {
  id: number;
  status: RequestedJobView<unknown>["status"];
  title: string | null;
  trajectories: number | null;
  bytes: number | null;
  error: string | null;
  createdAt: Date;
  /** When its download stops (null until it is built); `expired` once that has passed. */
  expiresAt: Date | null;
  expired: boolean;
}

/** The reports the actor asked for, newest first (admins too see only their own here). */
export async function myReports(ctx: Pick<AppContext, "db" | "config">, actor: Actor, now = new Date()): Promise<MyReport[]> {
  requireRole(actor, "researcher", "build shareable reports");
  const rows = await listRequestedJobsOfType(ctx.db, REPORT_JOB_TYPE, actor.userId, 50);
  return rows.map((job) => {
    const result = job.status === "succeeded" ? (job.result as ReportJobResult) : null;
    const expiresAt = result && job.finishedAt ? reportExpiresAt(ctx.config, job.finishedAt) : null;
    return {
      id: job.id,
      status: job.status,
      title: result?.manifest.title ?? (job.payload as ReportJobPayload).options.title ?? null,
      trajectories: result?.manifest.counts.trajectories ?? null,
      bytes: result?.bytes ?? null,
      error: job.status === "failed" ? (job.error ?? "The report could not be built") : null,
      createdAt: job.createdAt,
      expiresAt,
      expired: !!expiresAt && expiresAt <= now,
    };
  });
}

/** The finished report's zip for its download, after the checks above. */
export async function openReportDownload(
  ctx: Pick<AppContext, "db" | "config">,
  actor: Actor,
  id: number,
  now = new Date(),
): Promise<{ body: Readable; size: number; fileName: string }> {
  const view = await requestedJob<ReportJobResult>(ctx, actor, REPORT_JOB_TYPE, id);
  requireRole(actor, "researcher", "download shareable reports");
  if (!view.result) throw new NotFoundError("report", id);
  const expiresAt = reportExpiresAt(ctx.config, view.finishedAt ?? view.createdAt);
  if (expiresAt <= now) throw new AppError("NOT_FOUND", `Report ${id} expired on ${expiresAt.toISOString().slice(0, 10)}: ask for a new one`);
  if (!view.result.blind && !(await seesWholeCatalog(ctx.db, actor))) {
    throw new AppError("FORBIDDEN", "This report holds labels and verdicts, and you now label some trajectories blind: ask for a new report");
  }
  const opened = await reportFilesFor(ctx.config).open(view.result.key);
  if (!opened) throw new AppError("NOT_FOUND", `Report ${id} has no file any more (it was removed from the report files): ask for a new one`);
  return { ...opened, fileName: `verdict-report-${id}.zip` };
}

/**
 * Removes the zips of reports built more than the retention ago (their downloads are refused already). Removing a
 * zip that is gone is not an error, so a clean-up that stopped midway is simply run again.
 */
export async function expireReports(
  ctx: Pick<AppContext, "db" | "config">,
  options: { now?: Date; dryRun?: boolean } = {},
): Promise<{ removed: number[]; location: string }> {
  const now = options.now ?? new Date();
  const files = reportFilesFor(ctx.config);
  const cutoff = new Date(now.getTime() - (ctx.config.reportRetentionDays ?? DEFAULT_REPORT_RETENTION_DAYS) * 86_400_000);
  const removed: number[] = [];
  for (const job of await listJobsOfTypeFinishedBefore(ctx.db, REPORT_JOB_TYPE, "succeeded", cutoff)) {
    const key = (job.result as Partial<ReportJobResult> | null)?.key;
    if (!key) continue;
    if (!options.dryRun) await files.remove(key);
    removed.push(job.id);
  }
  return { removed, location: files.location };
}

/**
 * Removes one of the actor's reports: its zip and its entry in their list. A report still being built is refused
 * (it would write its zip after); another person's report is not found, as for its download.
 */
export async function deleteReport(ctx: Pick<AppContext, "db" | "config">, actor: Actor, id: number): Promise<void> {
  requireRole(actor, "researcher", "remove shareable reports");
  const view = await requestedJob<ReportJobResult>(ctx, actor, REPORT_JOB_TYPE, id);
  if (view.status === "queued" || view.status === "running") throw new ConflictError(`Report ${id} is still being built: remove it once it is done`);
  if (view.result?.key) await reportFilesFor(ctx.config).remove(view.result.key);
  await deleteJob(ctx.db, id);
}

export const REPORTS_EXPIRE_JOB_TYPE = "reports.expire";

/** How often a worker queues the removal of expired reports' zips: hourly. */
export const REPORTS_EXPIRE_EVERY_MS = 3_600_000;

/**
 * Queues the removal of expired reports for the period `now` falls in. Every worker asks each period and the
 * queue keeps one job per period, so an installation with many workers removes them once.
 */
export async function enqueueReportsExpiry(ctx: Pick<AppContext, "db">, now = new Date(), everyMs = REPORTS_EXPIRE_EVERY_MS): Promise<boolean> {
  const period = Math.floor(now.getTime() / everyMs);
  const key = `${REPORTS_EXPIRE_JOB_TYPE}:${everyMs}:${period}`;
  return (await enqueueJobs(ctx.db, [{ type: REPORTS_EXPIRE_JOB_TYPE, payload: {}, groupKey: REPORTS_EXPIRE_JOB_TYPE, dedupeKey: key, maxAttempts: 3 }])) > 0;
}

export function reportsExpireJobHandler(ctx: Pick<AppContext, "db" | "config">): JobHandler {
  return async () => {
    const { removed } = await expireReports(ctx);
    return { removed };
  };
}
