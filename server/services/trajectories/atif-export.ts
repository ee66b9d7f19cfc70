/**
 * Trajectories as ATIF (server/domain/imports/atif.ts), for other harnesses and viewers: one
 * `trajectory-<id>.atif.json` per trajectory with its screenshots under `images/` beside it, written to a folder or a
 * .zip (the command line), or one trajectory's zip for a download from the player.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { Writable } from "node:stream";
import yazl from "yazl";
import type { Db } from "../../../db/database";
import { instanceId } from "../../../db/repositories/instance";
import { getTrajectoryHead } from "../../../db/repositories/trajectories";
import { NotFoundError } from "../../errors";
import { toAtif } from "../../domain/imports/atif";
import { addImagesToZip, assertImagesStored, copyImagesTo, trajectoryToBundle, type ExportResult } from "../bundle-io";
import type { ScreenshotStore } from "../../storage/screenshot-store";

const GENERATOR = "Verdict";

export function atifFileName(id: number): string {
  return `trajectory-${id}.atif.json`;
}

/** One trajectory as an ATIF document; `images` collects hash → mime of the screenshots it references. */
export async function trajectoryToAtif(db: Db, id: number, images: Map<string, string>, opts: { withVerdicts: boolean }): Promise<Record<string, unknown>> {
  const t = await trajectoryToBundle(db, id, images);
  if (!opts.withVerdicts) t.verdicts = [];
  const identity = [t.run.runKey, t.task.taskSet.name, t.task.externalId, t.attempt].join("\u0000");
  const sessionId = `verdict-${crypto.createHash("sha256").update(identity).digest("hex").slice(0, 16)}`;
  return toAtif(t, (img) => img.file, { sessionId, generator: GENERATOR, sourceInstance: await instanceId(db) });
}

/**
 * Writes trajectories as ATIF files with their screenshots: into a folder (which must not hold an export yet), or
 * a .zip when `out` ends in .zip.
 */
export async function exportAtif(
  deps: { db: Db; store: ScreenshotStore },
  ids: number[],
  out: string,
  onProgress?: (done: number, total: number) => void,
): Promise<ExportResult> {
  if (!ids.length) throw new Error("Nothing to export: no trajectories selected");
  const images = new Map<string, string>();
  const docs: { name: string; body: string }[] = [];
  for (const id of ids) {
    const doc = await trajectoryToAtif(deps.db, id, images, { withVerdicts: true });
    docs.push({ name: atifFileName(id), body: `${JSON.stringify(doc, null, 1)}\n` });
  }
  await assertImagesStored(deps.store, images);
  const total = images.size;
  if (out.toLowerCase().endsWith(".zip")) {
    await fsp.mkdir(path.dirname(path.resolve(out)), { recursive: true });
    await writeZip(deps.store, docs, images, fs.createWriteStream(out));
    onProgress?.(total, total);
  } else {
    for (const d of docs) {
      if (fs.existsSync(path.join(out, d.name))) throw new Error(`${path.join(out, d.name)} already exists; choose an empty folder`);
    }
    await copyImagesTo(deps.store, images, out, onProgress);
    for (const d of docs) await fsp.writeFile(path.join(out, d.name), d.body);
  }
  return { out, trajectories: docs.length, images: total };
}

/** Writes the ATIF files and their screenshots as a zip to `stream`. */
export async function writeZip(
  store: ScreenshotStore,
  docs: { name: string; body: string }[],
  images: Map<string, string>,
  stream: NodeJS.WritableStream,
): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const d of docs) zip.addBuffer(Buffer.from(d.body), d.name);
  await addImagesToZip(zip, store, images);
  zip.end();
  await new Promise<void>((resolve, reject) => {
    zip.outputStream.pipe(stream).on("close", resolve).on("finish", resolve).on("error", reject);
    zip.outputStream.on("error", reject);
  });
}

/** One trajectory's ATIF export as zip bytes, for a download. */
export async function atifDownload(
  deps: { db: Db; store: ScreenshotStore },
  id: number,
  opts: { withVerdicts: boolean },
): Promise<{ fileName: string; body: Buffer }> {
  if (!(await getTrajectoryHead(deps.db, id))) throw new NotFoundError("trajectory", id);
  const images = new Map<string, string>();
  const doc = await trajectoryToAtif(deps.db, id, images, opts);
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk);
      done();
    },
  });
  await writeZip(deps.store, [{ name: atifFileName(id), body: `${JSON.stringify(doc, null, 1)}\n` }], images, sink);
  return { fileName: `trajectory-${id}.atif.zip`, body: Buffer.concat(chunks) };
}
