/**
 * Ingest: runs an importer over a source and commits each trajectory it yields on its own.
 *
 * Per trajectory: its images are read, verified to be images, hashed and staged (async, a few trajectories at
 * once); then one short transaction moves its staged images into the store and writes its task, run, trajectory,
 * steps and screenshot rows (several rows per statement). A trajectory is atomic (all its rows and files or
 * nothing), and the web server is never locked out for the length of a whole import.
 *
 * What cannot be read is skipped with a reason naming the file and the problem, and the import goes on; what
 * the importer repaired is imported with its warnings. `strict` restores all-or-nothing: any skip or warning
 * fails the import with nothing written. An import that could import nothing fails with the first reason.
 *
 * Identity by content (server/domain/imports/identity.ts): a trajectory is the same trajectory when its format, its
 * run folder's own name, task, attempt and content are, wherever the files sat: the same zip uploaded twice, a copy
 * of a results folder imported from elsewhere, or a folder imported through its parent is reported unchanged. Which
 * stored run an imported run is follows from its trajectories: the first one already stored names the run; new
 * trajectories of that run join it, and a run nothing of which is stored yet is a new run (with " #2" when a run of
 * the same name exists). A trajectory's stored source is named as the person knows it: from the imported folder
 * down, or inside the uploaded zip; a web import's report and errors name files that way too, the command line's
 * keep the paths of the person's own machine.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { dialectOf, withTransaction, type Db } from "../../../db/database";
import {
  createRunWithFreeKey,
  deleteRunIfEmpty,
  ensureTaskCreated,
  ensureTaskSet,
  findRunByKey,
  refreshRunDetails,
  upsertTask,
  type TaskValues,
} from "../../../db/repositories/catalog";
import { insertMissingScreenshots } from "../../../db/repositories/screenshots";
import { importedVerdictsOf, replaceImportedVerdicts, upsertVerdict } from "../../../db/repositories/evaluation/verdicts";
import { instanceId } from "../../../db/repositories/instance";
import {
  adoptTrajectoryContent,
  deleteTrajectory,
  findLegacyTrajectoryFrom,
  findTrajectoryAt,
  findTrajectoryByContent,
  findTrajectoriesByIdentity,
  getStepScreenshotHashes,
  insertTrajectory,
  moveTrajectoryToRun,
  replaceTrajectoryContent,
  setTrajectoryHashes,
  type StepValues,
  type StoredTrajectoryRef,
  type TrajectoryValues,
} from "../../../db/repositories/trajectories";
import { readImageInfo } from "../../domain/image-info";
import {
  canonicalHash,
  identityStep,
  isDistinctive,
  sameVerdict,
  trajectoryContentHash,
  trajectorySourceIdentity,
  type IdentityVerdict,
} from "../../domain/imports/identity";
import { detectImporter, getImporter } from "../../importers/registry";
import {
  ImportError,
  type EvaluatorLogReport,
  type ImageRef,
  type Importer,
  type ImportTask,
  type ImportTrajectory,
  type ImportVerdict,
  type RenamedFolder,
} from "../../importers/types";
import { ensureTrajectoryIdentities } from "./identity-backfill";
import { sha256, type ScreenshotBatch, type ScreenshotStore } from "../../storage/screenshot-store";
import { stepContent } from "../../domain/types";

export { canonicalJson } from "../../domain/imports/identity";

export interface IngestDeps {
  db: Db;
  store: ScreenshotStore;
}

export interface ImportProgress {
  done: number;
  total: number | null;
  label: string;
}

export interface ImportRequest {
  path: string;
  format?: string;
  tasksFile?: string;
  /** Screenshots folder for sources that name images by another machine's paths (see ImportOptions.screenshotsDir). */
  screenshotsDir?: string;
  /** Evaluator logs to read beside the source (see ImportOptions.evalLogs). */
  evalLogs?: string[];
  /** All or nothing: any skipped trajectory or repair warning fails the import with nothing written. */
  strict?: boolean;
  /** A folder the person knows by another name: an upload's unpacked folder is the zip (ImportOptions.renamed). */
  renamed?: RenamedFolder;
  /** No file above this folder is read (ImportOptions.boundary): an upload's unpacked folder, the import root. */
  boundary?: string;
  /**
   * How paths under the input are shown: relative to `dir` after `label` ("results/20250414/taskA"), or after
   * "<label>: " for an archive ("study.zip: results/20250414/taskA"). Given (web imports), the report and errors
   * name files this way too; left out (the command line), only stored sources do, from the input folder's own name.
   */
  shownAs?: { dir: string; label: string; archive?: boolean };
  /** Use this importer instead of `format` or sniffing. */
  importer?: Importer;
  /** Stops the import between trajectories (what was committed stays). */
  signal?: AbortSignal;
  onProgress?: (p: ImportProgress) => void;
  /** Image bytes of one trajectory held between checking and staging (default 64 MB); beyond it they are read twice. */
  keptImageBytes?: number;
}

export type ItemStatus = "created" | "updated" | "unchanged";

export interface ImportedTrajectorySummary {
  id: number;
  runId: number;
  sourcePath: string;
  externalTaskId: string;
  steps: number;
  screenshots: number;
  rawScreenshots: number;
  finalAnswer: string | null;
  status: ItemStatus;
  /** Repairs the importer made (also listed in the report's `warnings`). */
  warnings: string[];
}

export interface ImportReport {
  format: string;
  source: string;
  created: number;
  updated: number;
  unchanged: number;
  trajectories: ImportedTrajectorySummary[];
  /** What could not be read: the file and the problem. */
  skipped: SkippedItem[];
  /** What was imported with a repair: the trajectory's source and what was repaired. */
  warnings: ImportWarning[];
  /** Evaluator verdicts the source carried (benchmark checks, other systems' judges), stored for created/updated trajectories. */
  verdicts: number;
  /** Tasks from task files and tasks first seen through a trajectory. */
  tasks: { created: number; updated: number; unchanged: number };
  screenshotsAdded: number;
  /** Each file of verdicts the import read (auto-evaluation logs…): its blocks, how many matched, why others did not. */
  evaluatorLogs: EvaluatorLogReport[];
  /** Files read besides the trajectories' own (task files, reference answers), and what for. */
  sources: { path: string; role: string }[];
}

const PREPARE_WINDOW = 4;
/** Images of one trajectory read (or hashed and staged) at once. */
const IMAGE_READ_WINDOW = 32;
/** Image bytes of one trajectory held between checking and staging; beyond it they are read a second time. */
const DEFAULT_KEPT_IMAGE_BYTES = 64 * 1024 * 1024;

interface StagedImage {
  hash: string;
  mime: string;
  width: number;
  height: number;
  bytes: number;
  /** Where it was first read, for error messages. */
  origin: string;
}

/** An image read and recognised, not yet hashed or staged. */
interface LoadedImage {
  ref: ImageRef;
  /** Null when the trajectory's images outgrew what is kept between checking and staging: read again. */
  bytes: Uint8Array | null;
  info: NonNullable<ReturnType<typeof readImageInfo>>;
  origin: string;
}

interface PendingTrajectory {
  traj: ImportTrajectory;
  taskValues: TaskValues;
  /** Format, run folder name, task, attempt and the bytes of its files; null when the importer names no files. */
  identity: string | null;
  /** Format, run folder name, task, attempt and the trajectory as stored: the same wherever the files sat. */
  contentHash: string;
  /** Whether this trajectory may tell which stored run its run is (see isDistinctive). */
  distinctive: boolean;
  verdicts: StoredVerdict[];
  steps: StepValues[];
  screenshots: number;
  rawScreenshots: number;
}

type StoredVerdict = ReturnType<typeof storedVerdict>;

/** A source's verdict as its evaluator_verdicts row holds it (without trajectory and origin). */
function storedVerdict(v: ImportVerdict) {
  const evaluatorKey = v.key ?? `import:${v.evaluator}`;
  if (!evaluatorKey.startsWith("import:")) throw new Error(`imported verdict key must start with "import:", got ${JSON.stringify(evaluatorKey)}`);
  return {
    kind: v.evaluatorKind,
    evaluatorKey,
    evaluatorName: v.evaluator,
    k: v.k ?? "",
    promptVersion: v.promptVersion ?? "",
    verdict: v.verdict,
    score: v.score,
    rationale: v.rationale,
    // A verdict that kept nothing raw stays null (a native bundle round trip must not turn it into "null").
    rawReply: v.raw === null ? null : typeof v.raw === "string" ? v.raw : JSON.stringify(v.raw ?? null),
    model: v.model ?? null,
    // Only sources that record them set these; left out (not null) otherwise, so the content hash of every other
    // source's trajectories stays what it was and their re-imports stay unchanged.
    ...(v.stepIndices ? { stepIndices: v.stepIndices } : {}),
    ...(v.details ? { details: v.details } : {}),
  };
}

export function taskValues(t: ImportTask): TaskValues {
  const body = {
    externalId: t.externalId,
    site: t.site,
    intent: t.intent,
    startUrl: t.startUrl,
    inputImages: t.inputImages,
    referenceAnswers: t.referenceAnswers,
    evaluatorConfig: t.evaluatorConfig ?? null,
    difficulty: t.difficulty,
    tags: t.tags,
    extra: t.extra,
    // Only a task with attributes hashes them, so the tasks stored before attributes existed keep their hash.
    ...(t.attributes && Object.keys(t.attributes).length ? { attributes: t.attributes } : {}),
  };
  return { attributes: null, ...body, contentHash: canonicalHash(body) };
}

function checkTask(t: ImportTask, origin: string): void {
  if (!t.externalId) throw new ImportError(origin, "task has no id");
  if (!t.intent || !t.intent.trim()) throw new ImportError(origin, `task ${t.externalId} has no intent text`);
  if (!t.taskSet.name) throw new ImportError(origin, `task ${t.externalId} has no task set`);
}

/** Why a trajectory (or other unit of the source) was not imported, as the report lists it. */
export interface SkippedItem {
  path: string;
  reason: string;
}

/** A repair the importer made to a trajectory that was imported anyway. */
export interface ImportWarning {
  path: string;
  message: string;
}

/**
 * An import that wrote nothing: the source held nothing importable, or `strict` refused it. The message names the
 * first file and problem; `skipped` and `warnings` list them all.
 */
export class ImportRefusedError extends ImportError {
  constructor(
    file: string,
    problem: string,
    readonly skipped: SkippedItem[],
    readonly warnings: ImportWarning[],
  ) {
    super(file, problem);
    this.name = "ImportRefusedError";
  }
}

function refusal(first: { path: string; problem: string }, skipped: SkippedItem[], warnings: ImportWarning[], what: string): ImportRefusedError {
  const more = skipped.length + warnings.length - 1;
  return new ImportRefusedError(first.path, more > 0 ? `${first.problem} (and ${more} more ${what})` : first.problem, skipped, warnings);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Rewrites paths under the imported folder in a text as the person knows them: "results/20250414/taskA" for a folder
 * imported as "results", "study.zip: results/20250414/taskA" inside an uploaded zip. Other text is left alone.
 */
export function pathShower(input: string, shownAs?: ImportRequest["shownAs"], renamed?: RenamedFolder): (text: string) => string {
  const abs = path.resolve(input);
  let base = shownAs;
  if (!base) {
    const isDir = fs.statSync(abs, { throwIfNoEntry: false })?.isDirectory() ?? false;
    // A folder by its own name ("results/run1/taskA"); a single file by its name alone ("render_3.html").
    base = isDir
      ? { dir: abs, label: renamed && path.resolve(renamed.dir) === abs ? renamed.name : path.basename(abs) }
      : { dir: path.dirname(abs), label: "" };
  }
  const dirs = new Set([path.resolve(base.dir)]);
  try {
    dirs.add(fs.realpathSync(base.dir));
  } catch {
    // a folder that is gone has nothing to resolve
  }
  const head = !base.label ? "" : base.archive ? `${base.label}: ` : `${base.label}/`;
  const label = base.label || ".";
  // Longest first, so a folder's real path is not half-replaced by a shorter link to it.
  const ordered = [...dirs].sort((a, b) => b.length - a.length);
  const bare = ordered.map((d) => new RegExp(`${escapeRegExp(d)}(?![\\w.\\-/\\\\])`, "g"));
  return (text) => {
    let out = text;
    for (const d of ordered) out = out.split(d + path.sep).join(head);
    for (const re of bare) out = out.replace(re, label);
    return out;
  };
}

export async function runImport(deps: IngestDeps, req: ImportRequest): Promise<ImportReport> {
  const stored = pathShower(req.path, req.shownAs, req.renamed);
  const shown = req.shownAs ? stored : (text: string) => text;
  try {
    return await importShown(deps, req, shown, stored);
  } catch (e) {
    // Errors name files as the person knows them too (never the server's folders).
    if (e instanceof ImportRefusedError) {
      throw new ImportRefusedError(
        shown(e.file),
        shown(e.problem),
        e.skipped.map((x) => ({ path: shown(x.path), reason: shown(x.reason) })),
        e.warnings.map((x) => ({ path: shown(x.path), message: shown(x.message) })),
      );
    }
    if (e instanceof ImportError) throw new ImportError(shown(e.file), shown(e.problem));
    throw e;
  }
}

/** Reads one image and checks that it is an image; nothing is hashed or written yet. */
async function loadImage(ref: ImageRef | null): Promise<LoadedImage | null> {
  if (!ref) return null;
  let bytes: Uint8Array;
  try {
    bytes = await ref.read();
  } catch (e) {
    if (e instanceof ImportError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new ImportError(ref.origin, code === "ENOENT" ? "file is missing" : `cannot be read (${(e as Error).message})`);
  }
  const info = readImageInfo(bytes);
  if (!info) throw new ImportError(ref.origin, "is not a PNG, JPEG, WebP or GIF image");
  return { ref, bytes, info, origin: ref.origin };
}

/** An evaluator log goes into the report as read; one that matched none of the import's trajectories is also a warning. */
function noteEvaluatorLog(report: ImportReport, read: ImportReport["evaluatorLogs"][number], shown: (text: string) => string): void {
  const log = { ...read, file: shown(read.file), unmatched: read.unmatched.map((u) => ({ block: u.block, reason: shown(u.reason) })) };
  report.evaluatorLogs.push(log);
  if (log.blocks > 0 && log.matched === 0) {
    const first = log.unmatched[0];
    report.warnings.push({
      path: log.file,
      message: `none of its ${log.blocks} blocks matched a trajectory of this import${first ? ` (${first.block}: ${first.reason})` : ""}`,
    });
  }
}

async function importShown(deps: IngestDeps, req: ImportRequest, shown: (text: string) => string, stored: (text: string) => string): Promise<ImportReport> {
  const importer = req.importer ?? (req.format && req.format !== "auto" ? getImporter(req.format) : await detectImporter(req.path));
  await deps.store.sweepStaleStaging().catch(() => []);
  // Rows stored before identity by content get theirs, so this import recognises them.
  await ensureTrajectoryIdentities(deps.db);
  const strict = req.strict === true;
  const batch = deps.store.beginBatch();
  const images = new Map<string, StagedImage>();
  const report = emptyReport(importer.format, shown(req.shownAs ? path.resolve(req.path) : req.path));
  const committer = new Committer(deps.db, importer.format, report, images, batch, stored, shown);
  // Strict imports keep everything until the end and commit it in one transaction.
  const held: PendingTrajectory[] = [];
  const taskDefs: ImportTask[] = [];
  let total: number | null = null;
  let done = 0;

  async function stage(image: LoadedImage | null): Promise<string | null> {
    if (!image) return null;
    const again = image.bytes ? null : await loadImage(image.ref);
    const bytes = image.bytes ?? again!.bytes!;
    const info = again?.info ?? image.info;
    const hash = sha256(bytes);
    if (!images.has(hash)) images.set(hash, { hash, mime: info.mime, width: info.width, height: info.height, bytes: bytes.byteLength, origin: image.origin });
    // Every trajectory waits for its own images to be staged, also one that another trajectory prepared at the same
    // time is still writing: committed first, it would otherwise publish a file not written yet.
    await batch.put(hash, bytes);
    return hash;
  }

  function skip(file: string, reason: string) {
    if (strict) throw new ImportError(file, reason);
    report.skipped.push({ path: shown(file), reason: shown(reason) });
  }

  /** Takes a prepared trajectory (or its reading error) and commits it, or records why it was skipped. */
  async function settle(prepared: Promise<PendingTrajectory>) {
    let p: PendingTrajectory;
    try {
      p = await prepared;
    } catch (e) {
      if (!(e instanceof ImportError)) throw e;
      skip(e.file, e.problem);
      return;
    }
    const warnings = p.traj.warnings ?? [];
    if (strict) {
      if (warnings.length) throw new ImportError(p.traj.sourcePath, `${warnings[0]} (--strict refuses trajectories that needed a repair)`);
      held.push(p);
      return;
    }
    await committer.tasks(taskDefs.splice(0));
    try {
      await committer.trajectory(p);
    } catch (e) {
      if (!(e instanceof ImportError)) throw e;
      skip(e.file, e.problem);
    }
  }

  // A few trajectories are prepared at once so reading, hashing and writing overlap; commits keep source order.
  const inflight: { prepared: Promise<PendingTrajectory> }[] = [];
  const thisInstance = await instanceId(deps.db);
  try {
    try {
      for await (const item of importer.read(req.path, {
        tasksFile: req.tasksFile,
        screenshotsDir: req.screenshotsDir,
        evalLogs: req.evalLogs,
        renamed: req.renamed,
        boundary: req.boundary,
        instanceId: thisInstance,
        onTotal: (n) => {
          total = n;
        },
      })) {
        req.signal?.throwIfAborted();
        if (item.kind === "source") {
          report.sources.push({ path: shown(item.file), role: item.role });
          continue;
        } else if (item.kind === "evaluatorLog") {
          noteEvaluatorLog(report, item.log, shown);
          continue;
        } else if (item.kind === "skipped") {
          skip(item.path, item.reason);
        } else if (item.kind === "task") {
          try {
            checkTask(item.task, req.path);
            taskDefs.push(item.task);
          } catch (e) {
            if (!(e instanceof ImportError)) throw e;
            skip(e.file, e.problem);
          }
        } else {
          const prepared = prepareTrajectory(item.trajectory, {
            format: importer.format,
            load: loadImage,
            stage,
            keptImageBytes: req.keptImageBytes ?? DEFAULT_KEPT_IMAGE_BYTES,
          });
          prepared.catch(() => {}); // handled when settled below; avoids an unhandled rejection meanwhile
          inflight.push({ prepared });
          if (inflight.length >= PREPARE_WINDOW) {
            const next = inflight.shift()!;
            await settle(next.prepared);
          }
        }
        done++;
        req.onProgress?.({
          done,
          total,
          label: item.kind === "task" ? item.task.externalId : item.kind === "skipped" ? item.path : item.trajectory.task.externalId,
        });
      }
    } catch (e) {
      // The importer itself gave up part-way (an unreadable source file, not one trajectory). What it yielded
      // before is still imported; the rest is reported as skipped.
      if (strict || !(e instanceof ImportError)) throw e;
      report.skipped.push({ path: shown(e.file), reason: shown(e.problem) });
    }
    while (inflight.length) {
      const next = inflight.shift()!;
      await settle(next.prepared);
    }
    req.signal?.throwIfAborted();
    if (strict) await committer.all(taskDefs, held);
    else await committer.tasks(taskDefs);
  } catch (e) {
    await Promise.allSettled(inflight.map((i) => i.prepared));
    await batch.discardStaging();
    throw e;
  }
  await batch.discardStaging();

  const t = report.tasks;
  const anything = report.trajectories.length + t.created + t.updated + t.unchanged;
  if (anything === 0 && report.skipped.length > 0) {
    const first = report.skipped[0]!;
    throw refusal({ path: first.path, problem: first.reason }, report.skipped, report.warnings, "skipped");
  }
  return report;
}

function emptyReport(format: string, source: string): ImportReport {
  return {
    format,
    source,
    created: 0,
    updated: 0,
    unchanged: 0,
    trajectories: [],
    skipped: [],
    warnings: [],
    verdicts: 0,
    tasks: { created: 0, updated: 0, unchanged: 0 },
    screenshotsAdded: 0,
    evaluatorLogs: [],
    sources: [],
  };
}

/** sha256 of a file's bytes, read as a stream (a trajectory's JSON can be hundreds of megabytes). */
async function fileDigest(file: string): Promise<string> {
  const hash = crypto.createHash("sha256");
  try {
    for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  } catch (e) {
    throw new ImportError(file, `cannot be read (${(e as Error).message})`);
  }
  return hash.digest("hex");
}

async function prepareTrajectory(
  traj: ImportTrajectory,
  images: {
    format: string;
    load: (ref: ImageRef | null) => Promise<LoadedImage | null>;
    stage: (image: LoadedImage | null) => Promise<string | null>;
    keptImageBytes: number;
  },
): Promise<PendingTrajectory> {
  checkTask(traj.task, traj.sourcePath);
  if (!traj.run.runKey) throw new ImportError(traj.sourcePath, "trajectory has no run");
  const seen = new Set<number>();
  const steps: StepValues[] = [];
  let screenshots = 0;
  let rawScreenshots = 0;
  for (const s of traj.steps) {
    if (!Number.isInteger(s.index) || s.index < 0) throw new ImportError(traj.sourcePath, `step index ${s.index} is not a non-negative integer`);
    if (seen.has(s.index)) throw new ImportError(traj.sourcePath, `step ${s.index} appears twice`);
    seen.add(s.index);
  }
  // Every image of a trajectory is read and checked before any is hashed or staged, so a trajectory that will be
  // skipped (a truncated download, a missing file) costs its reads and nothing more. Bytes are kept for staging up
  // to a budget; a very long trajectory's later images are read again rather than held. Reads run a window at a
  // time, and allSettled (not all) lets every read or write finish before an error triggers the rollback.
  const refs = traj.steps.flatMap((s) => [s.screenshot, s.rawScreenshot]);
  const loaded: (LoadedImage | null)[] = [];
  let kept = 0;
  for (let i = 0; i < refs.length; i += IMAGE_READ_WINDOW) {
    const window = await Promise.allSettled(refs.slice(i, i + IMAGE_READ_WINDOW).map((ref) => images.load(ref)));
    const unreadable = window.find((r) => r.status === "rejected");
    if (unreadable) throw (unreadable as PromiseRejectedResult).reason;
    for (const r of window) {
      const image = (r as PromiseFulfilledResult<LoadedImage | null>).value;
      if (image?.bytes) {
        if (kept + image.bytes.byteLength > images.keptImageBytes) image.bytes = null;
        else kept += image.bytes.byteLength;
      }
      loaded.push(image);
    }
  }
  const settled: PromiseSettledResult<string | null>[] = [];
  for (let i = 0; i < loaded.length; i += IMAGE_READ_WINDOW) {
    settled.push(...(await Promise.allSettled(loaded.slice(i, i + IMAGE_READ_WINDOW).map((image) => images.stage(image)))));
  }
  const failed = settled.find((r) => r.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
  const hashes = traj.steps.map((_, i) => [1, 2].map((k) => (settled[2 * i + k - 1] as PromiseFulfilledResult<string | null>).value));
  for (const [i, s] of traj.steps.entries()) {
    const [screenshotHash, rawScreenshotHash] = hashes[i]!;
    if (screenshotHash) screenshots++;
    if (rawScreenshotHash) rawScreenshots++;
    steps.push({
      index: s.index,
      screenshotHash,
      rawScreenshotHash,
      marksBurnedIn: s.marksBurnedIn,
      ...stepContent(s),
      durationMs: s.durationMs ?? null,
    });
  }
  const tv = taskValues(traj.task);
  const identitySteps = steps.map(identityStep);
  const head = { runKey: traj.run.runKey, taskSet: traj.task.taskSet.name, externalTaskId: traj.task.externalId, attempt: traj.attempt };
  const contentHash = trajectoryContentHash({
    ...head,
    finalAnswer: traj.finalAnswer,
    outcome: traj.outcome,
    outcomeDetail: traj.outcomeDetail,
    steps: identitySteps,
  });
  let identity: string | null = null;
  if (traj.sourceFiles?.length) {
    const fileDigests: string[] = [];
    for (const file of traj.sourceFiles) fileDigests.push(await fileDigest(file));
    identity = trajectorySourceIdentity({ ...head, fileDigests });
  }
  // As they will be stored, so that the same verdicts read back from a bundle hash alike.
  const verdicts = (traj.verdicts ?? []).map(storedVerdict);
  return {
    traj,
    taskValues: tv,
    identity,
    contentHash,
    distinctive: isDistinctive(identitySteps),
    verdicts,
    steps,
    screenshots,
    rawScreenshots,
  };
}

/**
 * Which stored run an imported run (the importer's run key) is, as far as this import knows. `evidence`: one of its
 * trajectories was found stored in that run, so its new trajectories belong there. Without evidence the run is one
 * this import created (`createdHere`); if evidence for another run turns up later, what was put here moves there.
 */
interface RunBinding {
  id: number;
  evidence: boolean;
  createdHere: boolean;
  /** Trajectories this import created in the run, while it has no evidence (they move with a later binding). */
  created: { id: number; taskId: number; attempt: number; contentHash: string }[];
}

/** What one transaction wrote, for the report: taken into it only once the transaction has committed. */
interface Written {
  created: number;
  updated: number;
  unchanged: number;
  verdicts: number;
  screenshotsAdded: number;
  tasks: { created: number; updated: number; unchanged: number };
  trajectories: ImportedTrajectorySummary[];
  warnings: ImportWarning[];
  /** Task sets this transaction looked up or created, by name; run bindings it made, by run key. */
  setIds: Map<string, number>;
  runs: Map<string, RunBinding>;
  /** Trajectories created earlier in this import that this transaction moved to another run or found stored already. */
  moved: { id: number; runId: number }[];
  merged: { id: number; into: StoredTrajectoryRef; status: "unchanged" | "updated" }[];
}

function nothingWritten(): Written {
  return {
    created: 0,
    updated: 0,
    unchanged: 0,
    verdicts: 0,
    screenshotsAdded: 0,
    tasks: { created: 0, updated: 0, unchanged: 0 },
    trajectories: [],
    warnings: [],
    setIds: new Map(),
    runs: new Map(),
    moved: [],
    merged: [],
  };
}

/**
 * Writes prepared trajectories: each in its own transaction (its images move into the store inside it), or all at
 * once for a strict import.
 *
 * A transaction's body keeps what it wrote in its own `Written` and the report takes it after the commit: on
 * PostgreSQL a transaction that lost a serialization race runs again, and must not count twice or leave ids of
 * rows that were rolled back in the caches.
 *
 * Files: the staged images are moved into the store inside the transaction. On SQLite it holds the database's
 * write lock, so when a later statement fails the files it moved are moved back before the rollback, and no other
 * import can have committed a row naming one of them in between. On PostgreSQL nothing stops another server from
 * doing so, so a failed trajectory's new files stay in the store unused (as with a bucket) until
 * `collectUnreferencedObjects` removes them; moving them again when the transaction is retried finds them in place.
 */
class Committer {
  private readonly setIds = new Map<string, number>();
  private readonly runs = new Map<string, RunBinding>();
  private readonly summaries = new Map<number, ImportedTrajectorySummary>();

  constructor(
    private readonly db: Db,
    private readonly format: string,
    private readonly report: ImportReport,
    private readonly images: Map<string, StagedImage>,
    private readonly batch: ScreenshotBatch,
    /** A trajectory's source as it is stored, named as the person knows it (see ImportRequest.shownAs). */
    private readonly stored: (p: string) => string,
    /** Paths in the report's texts (unchanged on the command line). */
    private readonly shown: (text: string) => string,
  ) {}

  /** Task definitions from task files, in one short transaction. */
  async tasks(defs: ImportTask[]): Promise<void> {
    if (defs.length === 0) return;
    await this.inTransaction(async (w) => {
      for (const t of defs) await this.writeTask(t, w);
    });
  }

  async trajectory(p: PendingTrajectory): Promise<void> {
    await this.inTransaction((w, published) => this.writeTrajectory(p, w, published));
  }

  async all(defs: ImportTask[], pending: PendingTrajectory[]): Promise<void> {
    await this.inTransaction(async (w, published) => {
      for (const t of defs) await this.writeTask(t, w);
      for (const p of pending) await this.writeTrajectory(p, w, published);
    });
  }

  /** Runs `body` in a transaction and takes what it wrote into the report once it has committed. */
  private async inTransaction(body: (w: Written, published: (() => void)[]) => Promise<void>): Promise<void> {
    const movesBackOnFailure = dialectOf(this.db) === "sqlite";
    const written = await withTransaction(this.db, async () => {
      const w = nothingWritten();
      const published: (() => void)[] = [];
      try {
        await body(w, published);
      } catch (e) {
        if (movesBackOnFailure) for (const undo of published.reverse()) undo();
        throw e;
      }
      return w;
    });
    const r = this.report;
    r.created += written.created;
    r.updated += written.updated;
    r.unchanged += written.unchanged;
    r.verdicts += written.verdicts;
    r.screenshotsAdded += written.screenshotsAdded;
    for (const k of ["created", "updated", "unchanged"] as const) r.tasks[k] += written.tasks[k];
    for (const t of written.trajectories) this.summaries.set(t.id, t);
    r.trajectories.push(...written.trajectories);
    r.warnings.push(...written.warnings);
    for (const [k, v] of written.setIds) this.setIds.set(k, v);
    for (const [k, v] of written.runs) this.runs.set(k, v);
    for (const m of written.moved) {
      const t = this.summaries.get(m.id);
      if (t) t.runId = m.runId;
    }
    for (const m of written.merged) {
      // Created earlier in this import, then found stored already: it is the stored one (unchanged or updated).
      const t = this.summaries.get(m.id);
      if (!t) continue;
      this.summaries.delete(m.id);
      Object.assign(t, { id: m.into.id, runId: m.into.runId, status: m.status });
      this.summaries.set(t.id, t);
      r.created--;
      r[m.status]++;
    }
  }

  private async setId(t: ImportTask, w: Written): Promise<number> {
    let id = this.setIds.get(t.taskSet.name) ?? w.setIds.get(t.taskSet.name);
    if (id === undefined) {
      id = await ensureTaskSet(this.db, t.taskSet);
      w.setIds.set(t.taskSet.name, id);
    }
    return id;
  }

  private binding(runKey: string, w: Written): RunBinding | undefined {
    return w.runs.get(runKey) ?? this.runs.get(runKey);
  }

  /**
   * Evidence that the imported run `runKey` is the stored run `runId`. What this import created for it so far moves
   * there: to a free place as it is, onto the same trajectory stored there as the duplicate it is, and onto another
   * trajectory at its place as that trajectory recorded again (the stored one takes its content, keeps its labels).
   */
  private async bindToStoredRun(runKey: string, runId: number, w: Written): Promise<void> {
    const before = this.binding(runKey, w);
    const binding: RunBinding = { id: runId, evidence: true, createdHere: false, created: [] };
    w.runs.set(runKey, binding);
    if (!before || before.id === runId || !before.createdHere) return;
    for (const c of before.created) {
      const there = await findTrajectoryAt(this.db, runId, c.taskId, c.attempt);
      if (!there) {
        await moveTrajectoryToRun(this.db, c.id, runId);
        w.moved.push({ id: c.id, runId });
      } else if (there.contentHash === c.contentHash) {
        await deleteTrajectory(this.db, c.id);
        w.merged.push({ id: c.id, into: there, status: "unchanged" });
      } else {
        await adoptTrajectoryContent(this.db, there.id, c.id);
        w.merged.push({ id: c.id, into: there, status: "updated" });
      }
    }
    await deleteRunIfEmpty(this.db, before.id);
  }

  /** A run this import creates for a run key nothing of which is stored yet. */
  private async newRun(run: ImportTrajectory["run"], w: Written): Promise<RunBinding> {
    const id = await createRunWithFreeKey(this.db, { ...run, model: run.model ?? null, config: run.config ?? null });
    const binding: RunBinding = { id, evidence: false, createdHere: true, created: [] };
    w.runs.set(run.runKey, binding);
    return binding;
  }

  private async writeTask(t: ImportTask, w: Written): Promise<void> {
    const { result } = await upsertTask(this.db, await this.setId(t, w), taskValues(t));
    w.tasks[result]++;
  }

  /**
   * The source's verdicts added to a trajectory stored already: new evaluators are added and changed verdicts
   * replaced, and verdicts of evaluators this import does not carry are kept (a copy of the folder without its log
   * takes nothing away). Says whether anything changed.
   */
  private async mergeVerdicts(p: PendingTrajectory, trajectoryId: number): Promise<boolean> {
    const existing = await importedVerdictsOf(this.db, trajectoryId);
    const id = (v: { evaluatorKey: string; k: string; promptVersion: string }) => `${v.evaluatorKey}\u0000${v.k}\u0000${v.promptVersion}`;
    const byId = new Map<string, IdentityVerdict>(existing.map((v) => [id(v), v]));
    let changed = false;
    for (const v of p.verdicts) {
      const had = byId.get(id(v));
      if (had && sameVerdict(v, had)) continue;
      await upsertVerdict(this.db, { ...v, trajectoryId, origin: "import" });
      changed = true;
    }
    return changed;
  }

  /** The trajectory stored already that this one is, if any (see the module comment), and how it was found. */
  private async findStored(
    p: PendingTrajectory,
    taskId: number,
    binding: RunBinding | undefined,
  ): Promise<{ stored: StoredTrajectoryRef; evidence: boolean } | null> {
    const { db } = this;
    const { traj } = p;
    // The same files: whatever Verdict makes of them now. (A transcript of a task that crashed at once can be the same
    // in every run of the task, so only a trajectory that says something of its own is looked up this way.)
    // Screenshots found now that were missing before keep the trajectory the same; screenshots that share nothing with
    // the stored ones make it another (two runs of one task whose files read alike).
    if (p.identity && p.distinctive) {
      const mine = new Set(p.steps.flatMap((s) => [s.screenshotHash, s.rawScreenshotHash]).filter((h): h is string => !!h));
      for (const stored of await findTrajectoriesByIdentity(db, p.identity, binding?.id)) {
        const theirs = (await getStepScreenshotHashes(db, stored.id)).flatMap((s) => [s.screenshotHash, s.rawScreenshotHash]).filter((h): h is string => !!h);
        if (!mine.size || !theirs.length || theirs.some((h) => mine.has(h))) return { stored, evidence: true };
      }
    }
    // The same content, imported from somewhere else, or before source identities existed. A trajectory that could
    // be any run's (a task that crashed at once) only counts at its own place in a run of the same name.
    if (p.distinctive) {
      const stored = await findTrajectoryByContent(db, p.contentHash, binding?.id);
      if (stored) return { stored, evidence: true };
    } else {
      const runId = binding?.id ?? (await findRunByKey(db, traj.run.runKey))?.id;
      const at = runId === undefined ? undefined : await findTrajectoryAt(db, runId, taskId, traj.attempt);
      if (at?.contentHash === p.contentHash) return { stored: at, evidence: false };
    }
    // Imported before source identities existed from these very files (the row keeps the absolute path it was read
    // from): replaced, as re-importing the same folder did then.
    const legacy = await findLegacyTrajectoryFrom(db, taskId, path.resolve(traj.sourcePath));
    if (legacy) return { stored: legacy, evidence: true };
    // In a run known to be a stored one, its place there: the trajectory there was recorded again (new files).
    if (binding?.evidence) {
      const at = await findTrajectoryAt(db, binding.id, taskId, traj.attempt);
      if (at) return { stored: at, evidence: true };
    }
    return null;
  }

  private async writeTrajectory(p: PendingTrajectory, w: Written, published: (() => void)[]): Promise<void> {
    const { db } = this;
    const { traj } = p;
    const sourcePath = this.stored(traj.sourcePath);
    const hashes = new Set<string>();
    for (const s of p.steps) {
      if (s.screenshotHash) hashes.add(s.screenshotHash);
      if (s.rawScreenshotHash) hashes.add(s.rawScreenshotHash);
    }
    // Files first, rows second, in the same transaction: a crash between them leaves an unused file, never a row
    // without its file.
    published.push(this.batch.publishSync(hashes, (h) => this.images.get(h)?.origin ?? traj.sourcePath));
    w.screenshotsAdded += await insertMissingScreenshots(
      db,
      [...hashes].map((h) => this.images.get(h)!),
    );
    let taskId: number;
    if (traj.task.fromTaskFile) {
      const r = await upsertTask(db, await this.setId(traj.task, w), p.taskValues);
      taskId = r.id;
      if (r.result !== "unchanged") w.tasks[r.result]++;
    } else {
      const r = await ensureTaskCreated(db, await this.setId(traj.task, w), p.taskValues);
      taskId = r.id;
      if (r.created) w.tasks.created++;
    }
    const runKey = traj.run.runKey;
    let binding = this.binding(runKey, w);
    const values: TrajectoryValues = {
      runId: 0,
      taskId,
      attempt: traj.attempt,
      finalAnswer: traj.finalAnswer,
      outcome: traj.outcome,
      outcomeDetail: traj.outcomeDetail,
      stepCount: p.steps.length,
      sourceFormat: this.format,
      sourcePath,
      contentHash: p.contentHash,
      identityHash: p.identity,
      steps: p.steps,
    };

    let id: number;
    let runId: number;
    let status: ItemStatus;
    const found = await this.findStored(p, taskId, binding);
    if (found) {
      const { stored } = found;
      if (found.evidence && !binding?.evidence) {
        await this.bindToStoredRun(runKey, stored.runId, w);
        if ((await findRunByKey(db, runKey))?.id === stored.runId) await refreshRunDetails(db, stored.runId, traj.run);
      }
      id = stored.id;
      runId = stored.runId;
      let changed = false;
      if (stored.contentHash !== p.contentHash) {
        // Read differently (a newer Verdict) or recorded again: the stored steps are replaced, labels stay.
        await replaceTrajectoryContent(db, id, { ...values, runId });
        changed = true;
      } else if (p.identity && stored.identityHash !== p.identity) {
        await setTrajectoryHashes(db, id, { identityHash: p.identity });
      }
      if (await this.mergeVerdicts(p, id)) changed = true;
      status = changed ? "updated" : "unchanged";
      if (changed) w.verdicts += p.verdicts.length;
    } else {
      if (!binding) binding = await this.newRun(traj.run, w);
      if (!binding.evidence && (await findTrajectoryAt(db, binding.id, taskId, traj.attempt))) {
        throw new ImportError(traj.sourcePath, `run ${traj.run.name} holds task ${traj.task.externalId} attempt ${traj.attempt} twice in this import`);
      }
      id = await insertTrajectory(db, { ...values, runId: binding.id });
      runId = binding.id;
      status = "created";
      if (!binding.evidence) {
        w.runs.set(runKey, { ...binding, created: [...binding.created, { id, taskId, attempt: traj.attempt, contentHash: p.contentHash }] });
      }
      w.verdicts += p.verdicts.length;
      await replaceImportedVerdicts(
        db,
        id,
        p.verdicts.map((v) => ({ ...v, trajectoryId: id, origin: "import" as const })),
      );
    }
    w[status]++;
    const warnings = traj.warnings ?? [];
    for (const message of warnings) w.warnings.push({ path: sourcePath, message: this.shown(message) });
    w.trajectories.push({
      id,
      runId,
      sourcePath,
      externalTaskId: traj.task.externalId,
      steps: p.steps.length,
      screenshots: p.screenshots,
      rawScreenshots: p.rawScreenshots,
      finalAnswer: traj.finalAnswer,
      status,
      warnings: warnings.map(this.shown),
    });
  }
}
