/**
 * Writing native trajectory bundles: `BundleWriter` (used by the demo recorder and the live runner) and
 * `exportBundle` (trajectories from the database to a folder or a .zip).
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import yazl from "yazl";
import type { Db } from "../../db/database";
import { listVerdicts } from "../../db/repositories/evaluation/verdicts";
import { instanceId } from "../../db/repositories/instance";
import { getScreenshotsByHash, getTrajectoryDetail } from "../../db/repositories/trajectories";
import {
  BUNDLE_FORMAT,
  BUNDLE_VERSION,
  MANIFEST_NAME,
  bundleManifestSchema,
  describeZodIssues,
  type BundleImage,
  type BundleManifest,
  type BundleTrajectory,
} from "../domain/imports/bundle";
import { extensionForMime, readImageInfo } from "../domain/image-info";
import type { Outcome } from "../domain/types";
import { sha256, type ScreenshotStore } from "../storage/screenshot-store";
import { stepContent } from "../domain/types";

/** A screenshot's file inside an export (a bundle, ATIF files): `images/<hash>.<ext>`. */
export function imageFileName(hash: string, mime: string): string {
  return `images/${hash}.${extensionForMime(mime)}`;
}

/** An export's screenshots (hash → type) must all be in the store: refused, naming the first missing, before anything is written. */
export async function assertImagesStored(store: ScreenshotStore, images: Map<string, string>): Promise<void> {
  for (const hash of images.keys()) {
    if (!(await store.has(hash))) throw new Error(`Screenshot ${hash} is missing from the screenshot store (${store.originals.location})`);
  }
}

/** Adds an export's screenshots to its zip, stored rather than deflated again (they are compressed already). */
export async function addImagesToZip(zip: yazl.ZipFile, store: ScreenshotStore, images: Map<string, string>): Promise<void> {
  for (const [hash, mime] of images) {
    const file = store.localPath(hash);
    if (file) zip.addFile(file, imageFileName(hash, mime), { compress: false });
    else zip.addBuffer(await store.read(hash), imageFileName(hash, mime), { compress: false });
  }
}

/** Copies an export's screenshots into the folder `out` (its images/ made here), a progress tick each. */
export async function copyImagesTo(
  store: ScreenshotStore,
  images: Map<string, string>,
  out: string,
  onProgress?: (done: number, total: number) => void,
): Promise<void> {
  await fsp.mkdir(path.join(out, "images"), { recursive: true });
  let done = 0;
  for (const [hash, mime] of images) {
    const target = path.join(out, imageFileName(hash, mime));
    const file = store.localPath(hash);
    if (file) await fsp.copyFile(file, target);
    else await fsp.writeFile(target, await store.read(hash));
    onProgress?.(++done, images.size);
  }
}

function manifestOf(trajectories: BundleTrajectory[], generator: string, sourceInstance?: string): BundleManifest {
  const manifest: BundleManifest = {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    createdAt: new Date().toISOString(),
    generator,
    ...(sourceInstance ? { sourceInstance } : {}),
    trajectories,
  };
  const check = bundleManifestSchema.safeParse(manifest);
  if (!check.success) throw new Error(`Refusing to write an invalid bundle: ${describeZodIssues(check.error)}`);
  return manifest;
}

/** Writes a bundle folder incrementally: images as they are captured, the manifest at the end. */
export class BundleWriter {
  private readonly written = new Set<string>();
  constructor(readonly dir: string) {}

  async addImage(bytes: Uint8Array): Promise<BundleImage> {
    const info = readImageInfo(bytes);
    if (!info) throw new Error("BundleWriter.addImage: not a PNG, JPEG, WebP or GIF image");
    const hash = sha256(bytes);
    const file = imageFileName(hash, info.mime);
    if (!this.written.has(file)) {
      await fsp.mkdir(path.join(this.dir, "images"), { recursive: true });
      await fsp.writeFile(path.join(this.dir, file), bytes);
      this.written.add(file);
    }
    return { file, sha256: hash, width: info.width, height: info.height };
  }

  async finish(trajectories: BundleTrajectory[], generator = "verdict"): Promise<string> {
    await fsp.mkdir(this.dir, { recursive: true });
    const target = path.join(this.dir, MANIFEST_NAME);
    await fsp.writeFile(target, JSON.stringify(manifestOf(trajectories, generator), null, 1));
    return target;
  }
}

/** Rebuilds the bundle form of a stored trajectory; `images` collects hash → mime for the files to copy. */
export async function trajectoryToBundle(db: Db, id: number, images: Map<string, string>): Promise<BundleTrajectory> {
  const d = await getTrajectoryDetail(db, id);
  if (!d) throw new Error(`No trajectory with id ${id}`);
  const hashes = d.steps.flatMap((s) => [s.screenshotHash, s.rawScreenshotHash]).filter((h): h is string => !!h);
  const rows = await getScreenshotsByHash(db, hashes);
  const image = (hash: string | null): BundleImage | null => {
    if (!hash) return null;
    const row = rows.get(hash);
    if (!row) throw new Error(`Trajectory ${id} references screenshot ${hash}, which is not in the database`);
    images.set(hash, row.mime);
    return { file: imageFileName(hash, row.mime), sha256: hash, width: row.width, height: row.height };
  };
  const verdicts = await listVerdicts(db, { trajectoryId: id });
  return {
    task: {
      taskSet: { name: d.taskSet.name, benchmark: d.taskSet.benchmark, description: d.taskSet.description },
      externalId: d.task.externalId,
      site: d.task.site,
      intent: d.task.intent,
      startUrl: d.task.startUrl,
      inputImages: d.task.inputImages,
      referenceAnswers: d.task.referenceAnswers,
      evaluatorConfig: d.task.evaluatorConfig ?? null,
      difficulty: d.task.difficulty ?? null,
      tags: d.task.tags,
      extra: d.task.extra ?? null,
      ...(d.task.attributes && Object.keys(d.task.attributes).length ? { attributes: d.task.attributes } : {}),
    },
    run: {
      runKey: d.run.runKey,
      name: d.run.name,
      agentName: d.run.agentName,
      model: d.run.model,
      sourceSystem: d.run.sourceSystem,
      config: d.run.config ?? null,
    },
    attempt: d.trajectory.attempt,
    finalAnswer: d.trajectory.finalAnswer,
    outcome: d.trajectory.outcome as Outcome,
    outcomeDetail: d.trajectory.outcomeDetail,
    steps: d.steps.map((s) => ({
      index: s.index,
      screenshot: image(s.screenshotHash),
      rawScreenshot: image(s.rawScreenshotHash),
      marksBurnedIn: s.marksBurnedIn,
      ...stepContent(s),
      durationMs: s.durationMs,
    })),
    verdicts: verdicts.map((v) => ({
      evaluatorKey: v.evaluatorKey,
      evaluator: v.evaluatorName,
      kind: v.kind,
      k: v.k,
      promptVersion: v.promptVersion,
      verdict: v.verdict,
      score: v.score,
      rationale: v.rationale,
      raw: v.rawReply,
      model: v.model,
      ...(v.origin === "import" && v.stepIndices ? { stepIndices: v.stepIndices } : {}),
      ...(v.origin === "import" && v.details ? { details: v.details } : {}),
    })),
  };
}

/** What an export wrote: where, how many trajectories, how many screenshots (a bundle's, ATIF files'). */
export interface ExportResult {
  out: string;
  trajectories: number;
  images: number;
}

/** Exports trajectories as one bundle: a folder, or a .zip when `out` ends in .zip. */
export async function exportBundle(
  deps: { db: Db; store: ScreenshotStore },
  ids: number[],
  out: string,
  onProgress?: (done: number, total: number) => void,
): Promise<ExportResult> {
  if (!ids.length) throw new Error("Nothing to export: no trajectories selected");
  const images = new Map<string, string>();
  const trajectories: BundleTrajectory[] = [];
  for (const id of ids) trajectories.push(await trajectoryToBundle(deps.db, id, images));
  const manifest = JSON.stringify(manifestOf(trajectories, "verdict export", await instanceId(deps.db)), null, 1);
  await assertImagesStored(deps.store, images);
  const total = images.size;
  if (out.toLowerCase().endsWith(".zip")) {
    await fsp.mkdir(path.dirname(path.resolve(out)), { recursive: true });
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from(manifest), MANIFEST_NAME);
    await addImagesToZip(zip, deps.store, images);
    zip.end();
    await new Promise<void>((resolve, reject) => {
      const ws = fs.createWriteStream(out);
      zip.outputStream.pipe(ws).on("close", resolve).on("error", reject);
      zip.outputStream.on("error", reject);
    });
    onProgress?.(total, total);
  } else {
    if (fs.existsSync(path.join(out, MANIFEST_NAME))) throw new Error(`${out} already holds a bundle; choose an empty folder`);
    await copyImagesTo(deps.store, images, out, onProgress);
    await fsp.writeFile(path.join(out, MANIFEST_NAME), manifest);
  }
  return { out, trajectories: trajectories.length, images: total };
}
