/**
 * Imports started from the dashboard's Import page: each is one job of the installation's queue, never work inside a
 * web request. The web server runs its import jobs itself in the background (as it does judge batches): the
 * `npm run worker` process started by scripts/start.sh only runs live-run tasks. Leases let a restarted server take
 * over an import its previous process left behind: looking at an import's status resumes it when it is queued.
 *
 * Sources: a .zip uploaded to `<dataDir>/imports/` (researchers), or a path on the server under
 * VERDICT_IMPORT_ROOT (admins). With a bucket configured the uploaded zip waits in the bucket instead
 * (storage/upload-staging.ts), since the web server that runs the job need not be the one that received it. A zip
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
import { enqueueJobs, jobsOfGroup } from "../jobs/queue";
import { runWorker } from "../jobs/worker";
import { ImportRefusedError, runImport, type ImportReport, type ImportRequest } from "./ingest";
import { uploadStagingFor } from "../../storage/upload-staging";
import { openZipSource } from "./zip-source";
import { warmFirstViews } from "../trajectory-views";

export const IMPORT_JOB_TYPE = "import.source";

/**
 * An upload is `file` on the server that received it, or, when `staged` is set, the object of that key in the
 * installation's upload staging area (each run copies it to its own imports folder).
 */
export type ImportSource = { kind: "upload"; file: string; name: string; staged?: string } | { kind: "path"; path: string };

export interface ImportJobPayload {
  source: ImportSource;
  format: string;
  /** Who started it (user id), for the list of recent imports. */
  requestedBy: string | null;
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
  return path.join(ctx.config.dataDir, "imports");
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

/** Queues an import and starts it in this process. Returns the job id. */
export async function startImport(ctx: AppContext, source: ImportSource, opts: { format?: string; requestedBy: string | null }): Promise<number> {
  const groupKey = `import:${crypto.randomUUID()}`;
  const format = checkFormat(opts.format);
  const staging = source.kind === "upload" && !source.staged ? uploadStagingFor(ctx.config.objectStorage) : null;
  if (staging && source.kind === "upload") {
    const key = path.basename(source.file);
    await staging.stage(source.file, key);
    source = { ...source, staged: key };
  }
  const payload: ImportJobPayload = { source, format, requestedBy: opts.requestedBy };
  try {
    // One attempt: a failed import is reported, not retried (what it committed stays; re-importing is idempotent).
    await enqueueJobs(ctx.db, [{ type: IMPORT_JOB_TYPE, payload, groupKey, maxAttempts: 1 }]);
  } catch (e) {
    if (staging && source.kind === "upload") await staging.remove(source.staged!).catch(() => undefined);
    throw e;
  }
  const job = (await jobsOfGroup(ctx.db, groupKey))[0]!;
  // Runs on after the request has answered; its failures are logged (see runImportsInBackground).
  void runImportsInBackground(ctx);
  return job.id;
}

let background: Promise<unknown> | null = null;

/** Runs queued import jobs in this process until none is left; a second call while it runs does nothing. */
export async function runImportsInBackground(ctx: AppContext, log: (msg: string) => void = console.error): Promise<unknown> {
  background ??= runWorker({
    db: ctx.db,
    handlers: { [IMPORT_JOB_TYPE]: (job) => runImportJob(ctx, job.job, job.signal, job.reportProgress) },
    concurrency: 1,
    untilIdle: true,
    leaseMs: 30_000,
    onJobEnd: (job, outcome, error) => {
      if (outcome !== "succeeded") log(`import job ${job.id} ${outcome}${error ? `: ${error}` : ""}`);
    },
  })
    .catch((e: unknown) => log(`import worker stopped: ${(e as Error).message}`))
    .finally(() => {
      background = null;
    });
  return background;
}

/** The job's work: extract when needed, import, clean up the upload. */
export async function runImportJob(
  ctx: AppContext,
  job: JobRow,
  signal: AbortSignal,
  reportProgress: (p: ImportJobProgress) => void,
): Promise<ImportReport> {
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
      if (!staging) throw new Error(`${source.name}: the upload waits in object storage, which this server is not configured for (VERDICT_S3_BUCKET)`);
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
    await warmFirstViews(ctx, report.trajectories.filter((t) => t.status !== "unchanged").map((t) => t.id));
    // Paths in the report are already as the person knows them (inside their zip, or below the import root).
    return report;
  } catch (e) {
    const named = uploadNames(source, zipFile);
    if (e instanceof ImportRefusedError) {
      // Nothing importable: kept as the job's result so the page can list every skipped file and its reason.
      finished = true;
      const skipped = e.skipped.map((x) => ({ path: named(x.path), reason: x.reason }));
      return { failure: named(e.message), skipped } satisfies RefusedImport as unknown as ImportReport;
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

/** The result of an import that could import nothing (a succeeded job, shown as failed). */
interface RefusedImport {
  failure: string;
  skipped: { path: string; reason: string }[];
}

/** Rewrites server paths of an upload (the zip, its extracted folder) to the uploaded file's name. */
function uploadNames(source: ImportSource, file: string): (text: string) => string {
  if (source.kind !== "upload") return (t) => t;
  return (t) => t.split(`${file}.d${path.sep}`).join(`${source.name}: `).split(file).join(source.name);
}

function view(job: JobRow, importRoot: string | undefined): ImportJobView {
  const payload = job.payload as ImportJobPayload;
  const raw = job.status === "succeeded" ? (job.result as ImportReport | RefusedImport) : null;
  const refused = raw && "failure" in raw ? raw : null;
  const result = raw && !("failure" in raw) ? raw : null;
  const error = refused ? refused.failure : job.status === "failed" || job.status === "cancelled" ? (job.error ?? "The import was cancelled") : null;
  return {
    id: job.id,
    status: refused ? "failed" : job.status,
    source: sourceLabel(payload.source, importRoot),
    format: result?.format ?? payload.format,
    progress: (job.progress as ImportJobProgress | null) ?? null,
    report: result,
    error,
    skipped: refused?.skipped ?? [],
    createdAt: job.createdAt,
    finishedAt: job.finishedAt,
  };
}

export async function importJobStatus(ctx: AppContext, id: number): Promise<ImportJobView> {
  const job = await getJob(ctx.db, id);
  if (!job || job.type !== IMPORT_JOB_TYPE) throw new NotFoundError("import", id);
  // A server restarted mid-import: pick the queued job up again here.
  if (job.status === "queued") void runImportsInBackground(ctx);
  return view(job, ctx.config.importRoot);
}

export async function recentImports(ctx: AppContext, limit = 10): Promise<ImportJobView[]> {
  return (await listRecentJobsOfType(ctx.db, IMPORT_JOB_TYPE, limit)).map((job) => view(job, ctx.config.importRoot));
}

