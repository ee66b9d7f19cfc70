/**
 * Copies the objects of one store into another and checks that they all arrived: how an installation moving to a team
 * deployment carries its screenshots (and the HARs and input images kept beside them) from the data folder into the
 * bucket. Content-addressed objects are checked against their name as they are read, so a file damaged on disk is
 * named rather than copied; objects the target holds already are left as they are, so an interrupted copy can simply
 * be run again.
 */
import { isScreenshotHash, sha256 } from "../domain/content-hash";
import { readImageInfo } from "../domain/image-info";
import type { ObjectStore } from "./object-store";

export interface ObjectCopyReport {
  /** Objects in the source. */
  objects: number;
  /** Objects written to the target by this copy. */
  copied: number;
  /** Objects the target held already (an earlier, interrupted copy). */
  alreadyThere: number;
  /** Bytes written by this copy. */
  bytes: number;
}

export class ObjectCopyError extends Error {}

/** The type a bucket should serve an object with: images by their header, anything else as bytes (HARs are JSON). */
function contentTypeOf(bytes: Buffer): string {
  const image = readImageInfo(bytes);
  if (image) return image.mime;
  return bytes.subarray(0, 1).toString() === "{" ? "application/json" : "application/octet-stream";
}

export async function copyObjects(
  from: ObjectStore,
  to: ObjectStore,
  options: { concurrency?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<ObjectCopyReport> {
  const names: string[] = [];
  for await (const o of from.list()) names.push(o.name);
  names.sort();
  const report: ObjectCopyReport = { objects: names.length, copied: 0, alreadyThere: 0, bytes: 0 };
  let next = 0;
  let done = 0;
  const copyOne = async (name: string) => {
    if (await to.has(name)) {
      report.alreadyThere++;
      return;
    }
    const bytes = await from.read(name);
    if (bytes === null) throw new ObjectCopyError(`${from.location}: ${name} disappeared during the copy (is something still running on this data folder?)`);
    if (isScreenshotHash(name) && sha256(bytes) !== name) {
      throw new ObjectCopyError(
        `${from.localPath(name) ?? `${from.location}/${name}`}: its contents do not match its name (the file is damaged); nothing after it was checked`,
      );
    }
    await to.put(name, bytes, contentTypeOf(bytes));
    report.copied++;
    report.bytes += bytes.byteLength;
  };
  const lane = async () => {
    while (next < names.length) {
      const name = names[next++]!;
      await copyOne(name);
      options.onProgress?.(++done, names.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 8) }, lane));

  // Counted again on the target side, by name: every source object must be there now.
  const inTarget = new Set<string>();
  for await (const o of to.list()) inTarget.add(o.name);
  const missing = names.filter((n) => !inTarget.has(n));
  if (missing.length) {
    throw new ObjectCopyError(
      `${missing.length} of ${names.length} object(s) are not in ${to.location} after the copy, e.g. ${missing.slice(0, 3).join(", ")}`,
    );
  }
  return report;
}
