/**
 * Ingest: runs an importer over a source and commits everything it yields in one transaction.
 *
 * Phase 1 (async, streaming): every item is checked, every image is read, verified to be an image, hashed and
 * staged. Nothing is visible yet. Phase 2: staged images move into the store, then one synchronous SQLite
 * transaction writes tasks, runs, trajectories, steps and screenshot rows. Any error before or during phase 2
 * removes what phase 1 staged, so a rejected source leaves no row and no file.
 *
 * Idempotency: each trajectory's content hash covers its steps and image hashes; an unchanged trajectory is
 * reported as unchanged and not rewritten.
 */
import crypto from "node:crypto";
import type { Db } from "../../db/client";
import { ensureTask, ensureTaskSet, upsertRun, upsertTask, type TaskValues } from "../../db/repositories/catalog";
import { insertScreenshotIfMissing } from "../../db/repositories/screenshots";
import { replaceImportedVerdicts } from "../../db/repositories/evaluation";
import { instanceId } from "../../db/repositories/instance";
import { saveTrajectory, type StepValues } from "../../db/repositories/trajectories";
import { readImageInfo } from "../domain/image-info";
import { detectImporter, getImporter } from "../importers/registry";
import { ImportError, type ImageRef, type ImportTask, type ImportTrajectory, type ImportVerdict } from "../importers/types";
import { sha256, type ScreenshotStore } from "./screenshot-store";

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
  /** Evaluator logs to read beside the source (see ImportOptions.evalLogs). */
  evalLogs?: string[];
  onProgress?: (p: ImportProgress) => void;
}

export type ItemStatus = "created" | "updated" | "unchanged";

export interface ImportedTrajectorySummary {
  id: number;
  externalTaskId: string;
  steps: number;
  screenshots: number;
  rawScreenshots: number;
  finalAnswer: string | null;
  status: ItemStatus;
}

export interface ImportReport {
  format: string;
  source: string;
  created: number;
  updated: number;
  unchanged: number;
  trajectories: ImportedTrajectorySummary[];
  /** Evaluator verdicts the source carried (benchmark checks, other systems' judges), stored for created/updated trajectories. */
  verdicts: number;
  tasks: { created: number; updated: number; unchanged: number };
  screenshotsAdded: number;
}

const PREPARE_WINDOW = 4;

interface StagedImage {
  hash: string;
  mime: string;
  width: number;
  height: number;
  bytes: number;
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
  };
  return { ...body, contentHash: canonicalHash(body) };
}

function checkTask(t: ImportTask, origin: string): void {
  if (!t.externalId) throw new ImportError(origin, "task has no id");
  if (!t.intent || !t.intent.trim()) throw new ImportError(origin, `task ${t.externalId} has no intent text`);
  if (!t.taskSet.name) throw new ImportError(origin, `task ${t.externalId} has no task set`);
}

export async function runImport(deps: IngestDeps, req: ImportRequest): Promise<ImportReport> {
  const importer = req.format && req.format !== "auto" ? getImporter(req.format) : await detectImporter(req.path);
  const batch = deps.store.beginBatch();
  const images = new Map<string, StagedImage>();
  const pending: PendingTrajectory[] = [];
  const taskDefs: ImportTask[] = [];
  let total: number | null = null;
  let done = 0;

  async function stage(ref: ImageRef | null): Promise<string | null> {
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
    const hash = sha256(bytes);
    if (!images.has(hash)) {
      images.set(hash, { hash, mime: info.mime, width: info.width, height: info.height, bytes: bytes.byteLength });
      await batch.put(hash, bytes);
    }
    return hash;
  }

  // A few trajectories are prepared at once so reading, hashing and writing overlap; results keep source order.
  const inflight: Promise<PendingTrajectory>[] = [];
  try {
    // Phase 1: read, check and stage everything.
    for await (const item of importer.read(req.path, {
      tasksFile: req.tasksFile,
      evalLogs: req.evalLogs,
      instanceId: instanceId(deps.db),
      onTotal: (n) => {
        total = n;
      },
    })) {
      if (item.kind === "skipped") {
        // Until the per-trajectory report exists, an unreadable trajectory fails the import as before.
        throw new ImportError(item.path, item.reason);
      } else if (item.kind === "task") {
        checkTask(item.task, req.path);
        taskDefs.push(item.task);
      } else {
        const prepared = prepareTrajectory(item.trajectory, stage);
        prepared.catch(() => {}); // handled when awaited below; avoids an unhandled rejection meanwhile
        inflight.push(prepared);
        if (inflight.length >= PREPARE_WINDOW) pending.push(await inflight.shift()!);
      }
      done++;
      req.onProgress?.({ done, total, label: item.kind === "task" ? item.task.externalId : item.trajectory.task.externalId });
    }

    while (inflight.length) pending.push(await inflight.shift()!);

    // Phase 2: publish images, then commit rows in one transaction.
    await batch.publish();
    const report = deps.db.$client.transaction(() => commit(deps.db, importer.format, req.path, taskDefs, pending, images))();
    return report;
  } catch (e) {
    await Promise.allSettled(inflight);
    await batch.rollback();
    throw e;
  }
}

async function prepareTrajectory(
  traj: ImportTrajectory,
  stage: (ref: ImageRef | null) => Promise<string | null>,
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
  // Images of one trajectory are read, hashed and staged concurrently: the file system overlaps the work.
  // allSettled, not all: every write has finished before an error triggers the rollback.
  const settled = await Promise.allSettled(traj.steps.flatMap((s) => [stage(s.screenshot), stage(s.rawScreenshot)]));
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

function commit(
  db: Db,
  format: string,
  source: string,
  taskDefs: ImportTask[],
  pending: PendingTrajectory[],
  images: Map<string, StagedImage>,
): ImportReport {
  const report: ImportReport = {
    format,
    source,
    created: 0,
    updated: 0,
    unchanged: 0,
    trajectories: [],
    verdicts: 0,
    tasks: { created: 0, updated: 0, unchanged: 0 },
    screenshotsAdded: 0,
  };
  const setIds = new Map<string, number>();
  const setId = (t: ImportTask) => {
    let id = setIds.get(t.taskSet.name);
    if (id === undefined) {
      id = ensureTaskSet(db, t.taskSet);
      setIds.set(t.taskSet.name, id);
    }
    return id;
  };

  for (const t of taskDefs) {
    const { result } = upsertTask(db, setId(t), taskValues(t));
    report.tasks[result]++;
  }
  for (const img of images.values()) {
    const before = db.$client.prepare("select 1 from screenshots where hash = ?").get(img.hash);
    if (!before) report.screenshotsAdded++;
    insertScreenshotIfMissing(db, img);
  }
  const runIds = new Map<string, number>();
  for (const p of pending) {
    const { traj } = p;
    let taskId: number;
    if (traj.task.fromTaskFile) {
      const r = upsertTask(db, setId(traj.task), p.taskValues);
      taskId = r.id;
      if (r.result !== "unchanged") report.tasks[r.result]++;
    } else {
      taskId = ensureTask(db, setId(traj.task), p.taskValues);
    }
    let runId = runIds.get(traj.run.runKey);
    if (runId === undefined) {
      runId = upsertRun(db, traj.run);
      runIds.set(traj.run.runKey, runId);
    }
    const { id, status } = saveTrajectory(db, {
      runId,
      taskId,
      attempt: traj.attempt,
      finalAnswer: traj.finalAnswer,
      outcome: traj.outcome,
      outcomeDetail: traj.outcomeDetail,
      stepCount: p.steps.length,
      sourceFormat: format,
      sourcePath: traj.sourcePath,
      contentHash: p.contentHash,
      steps: p.steps,
    });
    report[status]++;
    if (status !== "unchanged") {
      report.verdicts += traj.verdicts?.length ?? 0;
      replaceImportedVerdicts(
        db,
        id,
        (traj.verdicts ?? []).map((v) => ({ ...storedVerdict(v), trajectoryId: id, origin: "import" as const })),
      );
    }
    report.trajectories.push({
      id,
      externalTaskId: traj.task.externalId,
      steps: p.steps.length,
      screenshots: p.screenshots,
      rawScreenshots: p.rawScreenshots,
      finalAnswer: traj.finalAnswer,
      status,
    });
  }
  return report;
}
