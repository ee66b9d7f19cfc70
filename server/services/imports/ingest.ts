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
 * Idempotency: each trajectory's content hash covers its steps and image hashes; an unchanged trajectory is
 * reported as unchanged and not rewritten.
 */
import crypto from "node:crypto";
import { dialectOf, withTransaction, type Db } from "../../../db/database";
import { ensureTaskCreated, ensureTaskSet, upsertRun, upsertTask, type TaskValues } from "../../../db/repositories/catalog";
import { insertMissingScreenshots } from "../../../db/repositories/screenshots";
import { replaceImportedVerdicts } from "../../../db/repositories/evaluation/verdicts";
import { instanceId } from "../../../db/repositories/instance";
import { saveTrajectory, type StepValues } from "../../../db/repositories/trajectories";
import { readImageInfo } from "../../domain/image-info";
import { detectImporter, getImporter } from "../../importers/registry";
import { ImportError, type ImageRef, type Importer, type ImportTask, type ImportTrajectory, type ImportVerdict } from "../../importers/types";
import { sha256, type ScreenshotBatch, type ScreenshotStore } from "../../storage/screenshot-store";

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
  contentHash: string;
  steps: StepValues[];
  screenshots: number;
  rawScreenshots: number;
}

/** JSON with object keys sorted and undefined dropped, so equal content hashes equally whatever the key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) {
        const x = (v as Record<string, unknown>)[k];
        if (x !== undefined) sorted[k] = x;
      }
      return sorted;
    }
    return v;
  });
}

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

function compareVerdictIdentity(a: { evaluatorKey: string; k: string; promptVersion: string }, b: typeof a): number {
  // Code-unit order, not locale order: the hash must not depend on the machine's locale.
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return cmp(a.evaluatorKey, b.evaluatorKey) || cmp(a.k, b.k) || cmp(a.promptVersion, b.promptVersion);
}

function canonicalHash(value: unknown): string {
  return crypto.createHash("sha256").update(canonicalJson(value)).digest("hex");
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

export async function runImport(deps: IngestDeps, req: ImportRequest): Promise<ImportReport> {
  const importer = req.importer ?? (req.format && req.format !== "auto" ? getImporter(req.format) : await detectImporter(req.path));
  await deps.store.sweepStaleStaging().catch(() => []);
  const strict = req.strict === true;
  const batch = deps.store.beginBatch();
  const images = new Map<string, StagedImage>();
  const report = emptyReport(importer.format, req.path);
  const committer = new Committer(deps.db, importer.format, report, images, batch);
  // Strict imports keep everything until the end and commit it in one transaction.
  const held: PendingTrajectory[] = [];
  const taskDefs: ImportTask[] = [];
  let total: number | null = null;
  let done = 0;

  /** Reads one image and checks that it is an image; nothing is hashed or written yet. */
  async function load(ref: ImageRef | null): Promise<LoadedImage | null> {
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

  async function stage(image: LoadedImage | null): Promise<string | null> {
    if (!image) return null;
    const again = image.bytes ? null : await load(image.ref);
    const bytes = image.bytes ?? again!.bytes!;
    const info = again?.info ?? image.info;
    const hash = sha256(bytes);
    if (!images.has(hash)) images.set(hash, { hash, mime: info.mime, width: info.width, height: info.height, bytes: bytes.byteLength, origin: image.origin });
    // Every trajectory waits for its own images to be staged, also one that another trajectory prepared at the same
    // time is still writing: committed first, it would otherwise publish a file not written yet.
    await batch.put(hash, bytes);
    return hash;
  }

  function skip(path: string, reason: string) {
    if (strict) throw new ImportError(path, reason);
    report.skipped.push({ path, reason });
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
        instanceId: thisInstance,
        onTotal: (n) => {
          total = n;
        },
      })) {
        req.signal?.throwIfAborted();
        if (item.kind === "skipped") {
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
          const prepared = prepareTrajectory(item.trajectory, { load, stage, keptImageBytes: req.keptImageBytes ?? DEFAULT_KEPT_IMAGE_BYTES });
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
      report.skipped.push({ path: e.file, reason: e.problem });
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
  };
}

async function prepareTrajectory(
  traj: ImportTrajectory,
  images: { load: (ref: ImageRef | null) => Promise<LoadedImage | null>; stage: (image: LoadedImage | null) => Promise<string | null>; keptImageBytes: number },
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
      url: s.url,
      thought: s.thought,
      actionRaw: s.actionRaw,
      action: s.action,
      elements: s.elements,
      error: s.error,
      durationMs: s.durationMs ?? null,
    });
  }
  const tv = taskValues(traj.task);
  const contentHash = canonicalHash({
    task: [traj.task.taskSet.name, traj.task.externalId],
    run: traj.run.runKey,
    attempt: traj.attempt,
    finalAnswer: traj.finalAnswer,
    outcome: traj.outcome,
    outcomeDetail: traj.outcomeDetail,
    steps,
    // As they will be stored and in key order, so that the same verdicts read back from a bundle hash alike.
    verdicts: (traj.verdicts ?? []).map(storedVerdict).sort(compareVerdictIdentity),
  });
  return { traj, taskValues: tv, contentHash, steps, screenshots, rawScreenshots };
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
  /** Task sets and runs this transaction looked up or created, by name and run key. */
  setIds: Map<string, number>;
  runIds: Map<string, number>;
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
    runIds: new Map(),
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
  private readonly runIds = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly format: string,
    private readonly report: ImportReport,
    private readonly images: Map<string, StagedImage>,
    private readonly batch: ScreenshotBatch,
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
    r.trajectories.push(...written.trajectories);
    r.warnings.push(...written.warnings);
    for (const [k, v] of written.setIds) this.setIds.set(k, v);
    for (const [k, v] of written.runIds) this.runIds.set(k, v);
  }

  private async setId(t: ImportTask, w: Written): Promise<number> {
    let id = this.setIds.get(t.taskSet.name) ?? w.setIds.get(t.taskSet.name);
    if (id === undefined) {
      id = await ensureTaskSet(this.db, t.taskSet);
      w.setIds.set(t.taskSet.name, id);
    }
    return id;
  }

  private async runId(run: ImportTrajectory["run"], w: Written): Promise<number> {
    let id = this.runIds.get(run.runKey) ?? w.runIds.get(run.runKey);
    if (id === undefined) {
      id = await upsertRun(this.db, run);
      w.runIds.set(run.runKey, id);
    }
    return id;
  }

  private async writeTask(t: ImportTask, w: Written): Promise<void> {
    const { result } = await upsertTask(this.db, await this.setId(t, w), taskValues(t));
    w.tasks[result]++;
  }

  private async writeTrajectory(p: PendingTrajectory, w: Written, published: (() => void)[]): Promise<void> {
    const { db } = this;
    const { traj } = p;
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
    const runId = await this.runId(traj.run, w);
    const { id, status } = await saveTrajectory(db, {
      runId,
      taskId,
      attempt: traj.attempt,
      finalAnswer: traj.finalAnswer,
      outcome: traj.outcome,
      outcomeDetail: traj.outcomeDetail,
      stepCount: p.steps.length,
      sourceFormat: this.format,
      sourcePath: traj.sourcePath,
      contentHash: p.contentHash,
      steps: p.steps,
    });
    w[status]++;
    if (status !== "unchanged") {
      w.verdicts += traj.verdicts?.length ?? 0;
      await replaceImportedVerdicts(
        db,
        id,
        (traj.verdicts ?? []).map((v) => ({ ...storedVerdict(v), trajectoryId: id, origin: "import" as const })),
      );
    }
    const warnings = traj.warnings ?? [];
    for (const message of warnings) w.warnings.push({ path: traj.sourcePath, message });
    w.trajectories.push({
      id,
      runId,
      sourcePath: traj.sourcePath,
      externalTaskId: traj.task.externalId,
      steps: p.steps.length,
      screenshots: p.screenshots,
      rawScreenshots: p.rawScreenshots,
      finalAnswer: traj.finalAnswer,
      status,
      warnings,
    });
  }
}
