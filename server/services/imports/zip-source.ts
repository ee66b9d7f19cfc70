/**
 * A .zip given to import, from the Import page or the command line: a Verdict bundle is read as the zip it is;
 * anything else is unpacked (within the zip limits of server/config.ts) and read as the folder or file it was. A
 * zip of one folder is that folder; a zip of one file (a task file, an ATIF trajectory) is that file.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type { ImportLimits } from "../../config";
import { MANIFEST_NAME } from "../../domain/imports/bundle";
import type { Importer } from "../../importers/types";
import { openZipReader } from "../../importers/zip";

export interface ZipSource {
  /** What to import: the zip itself (a bundle), or the unpacked folder or file. */
  input: string;
  /** The folder the zip was unpacked into, to remove once the import is over (null for a bundle read in place). */
  unpacked: string | null;
}

/** True for a file that starts like a zip archive, whatever its name. */
export async function isZipFile(file: string): Promise<boolean> {
  const fh = await fsp.open(file, "r").catch(() => null);
  if (!fh) return false;
  try {
    const { bytesRead, buffer } = await fh.read(Buffer.alloc(4), 0, 4, 0);
    return bytesRead === 4 && buffer.readUInt32LE(0) === 0x04034b50;
  } finally {
    await fh.close();
  }
}

/**
 * Prepares a zip for import. `dir` receives the unpacked files (emptied first); `onUnpacking` is called before the
 * unpacking starts, for progress. With `importer` set, only the native importer reads the zip in place.
 */
export async function openZipSource(
  zipFile: string,
  dir: string,
  opts: { limits: ImportLimits; importer?: Importer | null; onUnpacking?: () => void },
): Promise<ZipSource> {
  const zip = await openZipReader(zipFile, opts.limits);
  try {
    const bundle = zip.has(MANIFEST_NAME) && (!opts.importer || opts.importer.format === "native");
    if (bundle) return { input: zipFile, unpacked: null };
    opts.onUnpacking?.();
    await fsp.rm(dir, { recursive: true, force: true });
    await fsp.mkdir(dir, { recursive: true });
    await zip.extractTo(dir);
  } finally {
    zip.close();
  }
  const top = (await fsp.readdir(dir, { withFileTypes: true })).filter((e) => !e.name.startsWith(".") && e.name !== "__MACOSX");
  const only = top.length === 1 ? top[0]! : null;
  const input = only && (only.isDirectory() || only.isFile()) ? path.join(dir, only.name) : dir;
  return { input, unpacked: dir };
}

/**
 * Where the command line unpacks a zip: a folder named by the zip's content, so importing the same zip again reads
 * the same paths (runs and trajectories keep their identity) and two different zips never share one.
 */
export async function cliUnpackDir(dataDir: string, zipFile: string): Promise<string> {
  const hash = crypto.createHash("sha256");
  await new Promise<void>((resolve, reject) => {
    fs.createReadStream(zipFile)
      .on("data", (c) => hash.update(c))
      .on("end", () => resolve())
      .on("error", reject);
  });
  return path.join(dataDir, "imports", `zip-${hash.digest("hex").slice(0, 24)}`);
}

/** Rewrites paths inside an unpacked zip to "<zip name>: <path inside it>", as the person knows the files. */
export function zipPathNamer(unpacked: string, zipFile: string, zipName: string): (text: string) => string {
  return (t) => t.split(`${unpacked}${path.sep}`).join(`${zipName}: `).split(unpacked).join(zipName).split(zipFile).join(zipName);
}
