/**
 * Imports started from the dashboard's Import page: each is one job of the installation's queue, which the web
 * server only enqueues and a worker process runs (`npm run worker`; the quick start starts one beside the server),
 * so a hostile or simply enormous upload costs a worker its memory cap, never the web server. A worker that dies
 * mid-import leaves its lease to expire: the job then fails saying so (imports are not retried; what was committed
 * stays, and importing again skips it).
 *
 * Sources: a .zip uploaded to `<dataDir>/imports/` (researchers), or a path on the server under
 * VERDICT_IMPORT_ROOT (admins). With a bucket configured the uploaded zip waits in the bucket instead
 * (storage/upload-staging.ts), since the worker that runs the job need not be on the machine that received it. A zip
 * that no importer reads as it is (only Verdict bundles are read as zips) is extracted next to it, within the zip
 * limits, and the folder is sniffed instead.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { getJob, listRecentJobsOfType } from "../../../db/repositories/jobs";
import type { JobRow } from "../../../db/schema/index";
import type { AppContext } from "../../context";
import { importLimitsFromEnv } from "../../config";
import { AppError, NotFoundError, ValidationError } from "../../errors";
import { detectImporter, getImporter } from "../../importers/registry";
import { ImportError } from "../../importers/types";
import { enqueueJobs, jobsOfGroup, JobRefusedError, runWorker, type JobOutcome, type WorkerSummary } from "../jobs";
import { ImportRefusedError, runImport, type ImportReport, type ImportRequest } from "./ingest";
import { uploadStagingFor, uploadsFolder } from "../../storage/upload-staging";
import { openZipSource } from "./zip-source";
import { warmFirstViews } from "../trajectory-views";
import { enqueueRulesApply } from "../automation";

export const IMPORT_JOB_TYPE = "import.source";

/**
 * An upload is `file` on the server that received it, or, when `staged` is set, the object of that key in the
 * installation's upload staging area (each run copies it to its own imports folder).
 */
export type ImportSource = { kind: "upload"; file: string; name: string; staged?: string } | { kind: "path"; path: string };

export interface ImportJobPayload {
  source: ImportSource;
  format: string;
  /** Who started it (user id), for the list of recent imports and the upload quotas. */
  requestedBy: string | null;
  /** Size of the uploaded zip, counted against the upload quotas until the import has ended (jobs/upload-quota.ts). */
  uploadBytes?: number;
  /** "push": sent by a script through the HTTP API (automation rules tell it from the Import page's uploads). */
  via?: "page" | "push";
}

export interface ImportJobProgress {
  done: number;
  total: number | null;
  label: string;
  phase: "extracting" | "importing";
}

export interface ImportJobView {
  id: number;
  status: JobRow["status"];
  source: string;
  format: string;
  progress: ImportJobProgress | null;
  report: ImportReport | null;
  /** Why the import failed, and what was skipped if nothing could be imported. */
  error: string | null;
  skipped: { path: string; reason: string }[];
  createdAt: Date;
  finishedAt: Date | null;
}

/** Where uploads and their extracted folders live while their import runs. */
export async function importsDir(ctx: AppContext): Promise<string> {
  return uploadsFolder(ctx.config.dataDir);
}

export async function newUploadPath(ctx: AppContext): Promise<string> {
  return path.join(await importsDir(ctx), `upload-${Date.now()}-${crypto.randomBytes(6).toString("hex")}.zip`);
}

/** The source as the person knows it: the zip's name, or the path below the import root (never the server's). */
function sourceLabel(s: ImportSource, importRoot: string | undefined): string {
  if (s.kind === "upload") return s.name;
  if (!importRoot) return path.basename(s.path);
  let root = path.resolve(importRoot);
  try {
    root = fs.realpathSync(root);
  } catch {
    // the root is gone; the path still says where below it
  }
  const rel = path.relative(root, s.path);
  return !rel ? path.basename(root) : rel.startsWith("..") || path.isAbsolute(rel) ? path.basename(s.path) : rel.split(path.sep).join("/");
}

/**
 * Resolves an admin's server path against VERDICT_IMPORT_ROOT: symlinks are followed first, so a link inside
 * the root that points outside it is refused too.
 */
export async function resolveServerPath(ctx: AppContext, input: string): Promise<string> {
  const root = ctx.config.importRoot;
  if (!root) throw new AppError("PRECONDITION_FAILED", "Importing server paths is off: set VERDICT_IMPORT_ROOT to the folder admins may import from");
  if (!input.trim()) throw new ValidationError("path: give a file or folder under the import root");
  let realRoot: string;
  try {
    realRoot = fs.realpathSync(root);
  } catch {
    throw new AppError("PRECONDITION_FAILED", `VERDICT_IMPORT_ROOT ${root} does not exist on the server`);
  }
  const candidate = path.resolve(realRoot, input);
  let real: string;
  try {
    real = fs.realpathSync(candidate);
  } catch {
    throw new ValidationError(`path: ${input} does not exist under the import root ${root}`);
  }
  if (real !== realRoot && !real.startsWith(realRoot + path.sep)) {
    throw new ValidationError(`path: ${input} is outside the import root ${root}${real !== candidate ? ` (it leads to ${real})` : ""}`);
  }
  return real;
}

function checkFormat(format: string | undefined): string {
  const f = format?.trim() || "auto";
  if (f !== "auto") {
    try {
      getImporter(f);
    } catch (e) {
      if (e instanceof ImportError) throw new ValidationError(`format: ${e.problem}`);
      throw e;
    }
  }
  return f;
}

/** Queues an import for a worker to run. Returns the job id. */
export async function startImport(
  ctx: AppContext,
  source: ImportSource,
  opts: { format?: string; requestedBy: string | null; via?: "page" | "push" },
): Promise<number> {
  const groupKey = `import:${crypto.randomUUID()}`;
  const format = checkFormat(opts.format);
  // The zip's size for the upload quotas, measured before it may move to the bucket.
  const uploadBytes = source.kind === "upload" && !source.staged ? (await fsp.stat(source.file)).size : undefined;
  const staging = source.kind === "upload" && !source.staged ? uploadStagingFor(ctx.config.objectStorage) : null;
  if (staging && source.kind === "upload") {
    const key = path.basename(source.file);
    await staging.stage(source.file, key);
    source = { ...source, staged: key };
  }
  const payload: ImportJobPayload = {
    source,
    format,
    requestedBy: opts.requestedBy,
    ...(uploadBytes !== undefined ? { uploadBytes } : {}),
    ...(opts.via === "push" ? { via: "push" as const } : {}),
  };
  try {
    // One attempt: a failed import is reported, not retried (what it committed stays; re-importing is idempotent).
    await enqueueJobs(ctx.db, [{ type: IMPORT_JOB_TYPE, payload, groupKey, maxAttempts: 1 }]);
  } catch (e) {
    if (staging && source.kind === "upload") await staging.remove(source.staged!).catch(() => undefined);
    throw e;
  }
  return (await jobsOfGroup(ctx.db, groupKey))[0]!.id;
}

/** How long an import job's lease lasts without a heartbeat: a worker that died gives its import up after this. */
export const IMPORT_LEASE_MS = 30_000;

export interface ImportWorkerOptions {
  concurrency?: number;
  signal?: AbortSignal;
  owner?: string;
  /** Return once no import is queued or running anywhere (tests, one-off drains); otherwise run until `signal`. */
  untilIdle?: boolean;
  onJobEnd?: (job: JobRow, outcome: JobOutcome, error?: string) => void;
  onQueueTrouble?: (event: { recovered: boolean; error?: string }) => void;
}

/** A worker's import lane: runs queued imports of every web server's users, one at a time by default. */
export async function runImportWorker(ctx: AppContext, opts: ImportWorkerOptions = {}): Promise<WorkerSummary> {
  return runWorker({
    db: ctx.db,
    handlers: { [IMPORT_JOB_TYPE]: (job) => runImportJob(ctx, job.job, job.signal, job.reportProgress) },
    concurrency: opts.concurrency ?? 1,
    owner: opts.owner,
    untilIdle: opts.untilIdle,
    signal: opts.signal,
    leaseMs: IMPORT_LEASE_MS,
    onJobEnd: opts.onJobEnd,
    onQueueTrouble: opts.onQueueTrouble,
  });
}

/** The job's work: extract when needed, import, clean up the upload. */
export async function runImportJob(ctx: AppContext, job: JobRow, signal: AbortSignal, reportProgress: (p: ImportJobProgress) => void): Promise<ImportReport> {
  const payload = job.payload as ImportJobPayload;
  const cleanup: string[] = [];
  // Copies of a staged upload on this machine: removed whatever happens, the staged object stays until the end.
  const localCopies: string[] = [];
  const source = payload.source;
  const staging = source.kind === "upload" && source.staged ? uploadStagingFor(ctx.config.objectStorage) : null;
  let zipFile = source.kind === "upload" ? source.file : "";
  let finished = false;
  try {
    if (source.kind === "upload" && source.staged) {
      if (!staging) throw new Error(`${source.name}: the upload waits in object storage, which this worker is not configured for (VERDICT_S3_BUCKET)`);
      zipFile = path.join(await importsDir(ctx), source.staged);
      await fsp.mkdir(path.dirname(zipFile), { recursive: true });
      localCopies.push(zipFile, `${zipFile}.d`);
      if (!(await staging.fetch(source.staged, zipFile))) {
        finished = true;
        throw new Error(`${source.name}: the uploaded file is no longer in ${staging.location}; upload it again`);
      }
    }
    let input = source.kind === "upload" ? zipFile : source.path;
    if (source.kind === "upload") cleanup.push(zipFile);
    let importer = payload.format !== "auto" ? getImporter(payload.format) : null;
    // What the import may read and how it names things: an upload reads nothing outside what it unpacked and is
    // named as the zip and the paths inside it; a server path reads nothing outside the import root.
    let where: Pick<ImportRequest, "renamed" | "boundary" | "shownAs"> =
      source.kind === "upload"
        ? { boundary: zipFile, shownAs: { dir: zipFile, label: source.name, archive: true } }
        : ctx.config.importRoot
          ? { boundary: ctx.config.importRoot }
          : {};
    if (source.kind === "upload") {
      const limits = ctx.config.importLimits ?? importLimitsFromEnv({} as NodeJS.ProcessEnv);
      cleanup.push(`${zipFile}.d`);
      const opened = await openZipSource(zipFile, `${zipFile}.d`, {
        limits,
        importer,
        onUnpacking: () => reportProgress({ done: 0, total: null, label: source.name, phase: "extracting" }),
      });
      input = opened.input;
      if (opened.unpacked) where = uploadWhere(opened.unpacked, source.name);
      if (!importer) {
        const name = source.name;
        importer = await detectImporter(input).catch((e: unknown) => {
          throw e instanceof ImportError ? new ImportError(name, `${e.problem.replace(/; pass --format$/, "")}; choose the format`) : e;
        });
      }
    }
    if (!importer) importer = await detectImporter(input);
    let last = 0;
    const report = await runImport(ctx, {
      path: input,
      importer,
      ...where,
      signal,
      onProgress: (p) => {
        const now = Date.now();
        if (now - last < 200 && p.done !== p.total) return;
        last = now;
        reportProgress({ ...p, phase: "importing" });
      },
    });
    finished = true;
    // Encode what the first view of each new trajectory shows, in the background: whoever opens one from the
    // report finds its screenshot ready.
    await warmFirstViews(
      ctx,
      report.trajectories.filter((t) => t.status !== "unchanged").map((t) => t.id),
    );
    await queueRules(ctx, job, report);
    // Paths in the report are already as the person knows them (inside their zip, or below the import root).
    return report;
  } catch (e) {
    const named = uploadNames(source, zipFile);
    if (e instanceof ImportRefusedError) {
      // Nothing importable: the job fails, and keeps every skipped file and its reason for the page to list.
      finished = true;
      const refused: RefusedImport = { skipped: e.skipped.map((x) => ({ path: named(x.path), reason: x.reason })) };
      throw new JobRefusedError(named(e.message), refused);
    }
    if (e instanceof ImportError && source.kind === "upload") {
      finished = !signal.aborted;
      throw new Error(named(e.message));
    }
    finished = !signal.aborted;
    throw e;
  } finally {
    // An interrupted job goes back to the queue and needs its upload; a finished or failed one does not.
    if (finished) for (const p of cleanup) await fsp.rm(p, { recursive: true, force: true });
    for (const p of localCopies) await fsp.rm(p, { recursive: true, force: true });
    // A staged zip left behind (the bucket unreachable just now) only takes space; the import itself is done.
    if (finished && staging && source.kind === "upload") await staging.remove(source.staged!).catch(() => undefined);
  }
}

/**
 * Automation rules look at the import's new trajectories in a job of their own, after the import has committed. The
 * import itself is done by then: a queue that cannot take the job is said in the report, not turned into a failure.
 */
async function queueRules(ctx: AppContext, job: JobRow, report: ImportReport): Promise<void> {
  const payload = job.payload as ImportJobPayload;
  try {
    await enqueueRulesApply(ctx.db, {
      trigger: payload.via === "push" ? "push" : "import",
      arrival: `import job ${job.id} (${sourceLabel(payload.source, ctx.config.importRoot)})`,
      key: `import:${job.id}`,
      trajectoryIds: report.trajectories.filter((t) => t.status === "created").map((t) => t.id),
    });
  } catch (e) {
    report.warnings.push({ path: sourceLabel(payload.source, ctx.config.importRoot), message: `automation rules were not run on this import: ${String(e)}` });
  }
}

/**
 * How an unpacked upload is read and named: nothing outside what it unpacked to is read, the folder it unpacked to
 * is the zip (a run folder at the zip's top level is named by the zip), and paths are shown inside the zip.
 */
export function uploadWhere(unpacked: string, zipName: string): Pick<ImportRequest, "renamed" | "boundary" | "shownAs"> {
  return {
    renamed: { dir: unpacked, name: path.basename(zipName).replace(/\.zip$/i, "") },
    boundary: unpacked,
    shownAs: { dir: unpacked, label: zipName, archive: true },
  };
}

/** What a refused import (nothing importable) keeps on its failed job: every file it skipped, and why. */
interface RefusedImport {
  skipped: { path: string; reason: string }[];
}

function isSkippedList(v: unknown): v is RefusedImport["skipped"] {
  return (
    Array.isArray(v) &&
    v.every(
      (x) =>
        typeof x === "object" && x !== null && typeof (x as { path?: unknown }).path === "string" && typeof (x as { reason?: unknown }).reason === "string",
    )
  );
}

/** A job result that lists skipped files: a refused import's, or (before refusals were failed jobs) a succeeded job's `{ failure, skipped }`. */
function refusalOf(result: unknown): { failure?: string; skipped: RefusedImport["skipped"] } | null {
  if (typeof result !== "object" || result === null || !("skipped" in result) || !isSkippedList(result.skipped)) return null;
  const failure = "failure" in result && typeof result.failure === "string" ? result.failure : undefined;
  return { failure, skipped: result.skipped };
}

/** The text of an import that failed because its worker stopped (the lease ran out: see reclaimExpiredLeases). */
const LOST_WORKER = /^lease of worker .* expired at attempt \d+$/;

/** Rewrites server paths of an upload (the zip, its extracted folder) to the uploaded file's name. */
function uploadNames(source: ImportSource, file: string): (text: string) => string {
  if (source.kind !== "upload") return (t) => t;
  return (t) => t.split(`${file}.d${path.sep}`).join(`${source.name}: `).split(file).join(source.name);
}

function view(job: JobRow, importRoot: string | undefined): ImportJobView {
  const payload = job.payload as ImportJobPayload;
  const refusal = job.status === "failed" || job.status === "succeeded" ? refusalOf(job.result) : null;
  // Refusals recorded before they were failed jobs are succeeded jobs whose result names the failure.
  const legacyRefusal = job.status === "succeeded" && refusal?.failure !== undefined;
  const report = job.status === "succeeded" && !legacyRefusal ? (job.result as ImportReport | null) : null;
  let error: string | null = null;
  if (legacyRefusal) error = refusal!.failure!;
  else if (job.status === "failed") {
    error =
      job.error && LOST_WORKER.test(job.error)
        ? "The worker running this import stopped before it finished (it may have run out of memory; its log says why). Trajectories it had committed stay; import the file again to finish (what is already here is skipped)."
        : (job.error ?? "The import failed");
  } else if (job.status === "cancelled") error = job.error ?? "The import was cancelled";
  return {
    id: job.id,
    status: legacyRefusal ? "failed" : job.status,
    source: sourceLabel(payload.source, importRoot),
    format: report?.format ?? payload.format,
    progress: (job.progress as ImportJobProgress | null) ?? null,
    report,
    error,
    skipped: refusal?.skipped ?? [],
    createdAt: job.createdAt,
    finishedAt: job.finishedAt,
  };
}

/** An import's state, as the Import page polls it. Reading never starts work: the workers run queued imports. */
export async function importJobStatus(ctx: AppContext, id: number): Promise<ImportJobView> {
  const job = await getJob(ctx.db, id);
  if (!job || job.type !== IMPORT_JOB_TYPE) throw new NotFoundError("import", id);
  return view(job, ctx.config.importRoot);
}

export async function recentImports(ctx: AppContext, limit = 10): Promise<ImportJobView[]> {
  return (await listRecentJobsOfType(ctx.db, IMPORT_JOB_TYPE, limit)).map((job) => view(job, ctx.config.importRoot));
}
