/**
 * Read-only access to a .zip through yauzl: entry names are checked before anything is read, so a name that
 * would escape the bundle (`../x`, `/etc/x`, `C:\x`) rejects the whole archive. So do the import limits
 * (server/config.ts, the same for the CLI and the Import page): too many entries, too much uncompressed data,
 * one entry too large, one entry or the whole archive compressed suspiciously well (a zip bomb) — all read from the
 * archive's directory before anything is expanded; an entry that expands beyond the size it declared is stopped there.
 */
import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";
import { importLimitsFromEnv, type ImportLimits } from "../config";
import { ImportError } from "./types";

/** Entries smaller than this are not held to the ratio limit (tiny files compress well and are harmless). */
const RATIO_MIN_BYTES = 1024 * 1024;

const mb = (n: number) => `${Math.round(n / (1024 * 1024))} MB`;

/** Why an entry breaks the limits, or null. `totalSoFar` includes this entry. */
function limitProblem(entry: yauzl.Entry, name: string, totalSoFar: number, count: number, limits: ImportLimits): string | null {
  if (count > limits.zipMaxEntries) return `has more than ${limits.zipMaxEntries} entries (limit VERDICT_ZIP_MAX_ENTRIES)`;
  const size = entry.uncompressedSize;
  if (size > limits.zipMaxEntryBytes) {
    return `entry "${name}" expands to ${mb(size)}, more than the ${mb(limits.zipMaxEntryBytes)} allowed for one entry (VERDICT_ZIP_MAX_ENTRY_MB)`;
  }
  if (size > RATIO_MIN_BYTES && size / Math.max(1, entry.compressedSize) > limits.zipMaxRatio) {
    return `entry "${name}" expands ${Math.round(size / Math.max(1, entry.compressedSize))} times (${mb(size)} from ${Math.ceil(entry.compressedSize / 1024)} KB), more than the ${limits.zipMaxRatio}× allowed (VERDICT_ZIP_MAX_RATIO): refused as a possible zip bomb`;
  }
  if (totalSoFar > limits.zipMaxTotalBytes) {
    return `expands to more than ${mb(limits.zipMaxTotalBytes)} in total (VERDICT_ZIP_MAX_TOTAL_MB)`;
  }
  return null;
}

/** Why the archive as a whole expands too well, or null: the ratio limit applied to the sum of its entries. */
function archiveRatioProblem(total: number, compressed: number, limits: ImportLimits): string | null {
  const ratio = total / Math.max(1, compressed);
  if (total <= RATIO_MIN_BYTES || ratio <= limits.zipMaxRatio) return null;
  return `expands ${Math.round(ratio)} times in total (${mb(total)} from ${Math.ceil(compressed / 1024)} KB of compressed entries), more than the ${limits.zipMaxRatio}× allowed (VERDICT_ZIP_MAX_RATIO): refused as a possible zip bomb`;
}

export interface ZipReader {
  names(): string[];
  has(name: string): boolean;
  /** The entry's uncompressed size as its directory record declares it (reading stops there). */
  size(name: string): number | undefined;
  read(name: string): Promise<Buffer>;
  /** The entry's bytes as a stream, for entries too large to hold whole (a bundle's manifest). */
  stream(name: string): Promise<NodeJS.ReadableStream>;
  /** Writes every entry under `dir` (streamed; names were checked when the archive was opened). */
  extractTo(dir: string): Promise<void>;
  close(): void;
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: false, decodeStrings: false }, (err, zip) => {
      if (err || !zip) reject(new ImportError(file, `is not a readable zip archive (${err?.message ?? "unknown error"})`));
      else resolve(zip);
    });
  });
}

export function unsafeEntryReason(name: string): string | null {
  if (name.includes("\\")) return "contains a backslash";
  if (name.startsWith("/") || /^[a-zA-Z]:/.test(name)) return "is an absolute path";
  if (name.split("/").includes("..")) return "climbs out of the bundle with '..'";
  return null;
}

export async function openZipReader(file: string, limits: ImportLimits = importLimitsFromEnv()): Promise<ZipReader> {
  const zip = await openZip(file);
  if (zip.entryCount > limits.zipMaxEntries) {
    zip.close();
    throw new ImportError(file, `has ${zip.entryCount} entries, more than the ${limits.zipMaxEntries} allowed (VERDICT_ZIP_MAX_ENTRIES)`);
  }
  const entries = new Map<string, yauzl.Entry>();
  let total = 0;
  let compressed = 0;
  let count = 0;
  await new Promise<void>((resolve, reject) => {
    zip.on("entry", (entry: yauzl.Entry) => {
      const raw = entry.fileName as unknown as Buffer | string;
      const name = typeof raw === "string" ? raw : raw.toString("utf8");
      const why = unsafeEntryReason(name);
      if (why) {
        zip.close();
        reject(new ImportError(file, `unsafe entry name "${name}": it ${why}`));
        return;
      }
      total += entry.uncompressedSize;
      compressed += entry.compressedSize;
      const tooBig = limitProblem(entry, name, total, ++count, limits);
      if (tooBig) {
        zip.close();
        reject(new ImportError(file, tooBig));
        return;
      }
      if (!name.endsWith("/")) entries.set(name, entry);
      zip.readEntry();
    });
    zip.on("end", () => {
      // Entries under 1 MB escape the per-entry ratio; a thousand of them, each 1 MB of zeros, are still a bomb.
      const why = archiveRatioProblem(total, compressed, limits);
      if (why) {
        zip.close();
        reject(new ImportError(file, why));
        return;
      }
      resolve();
    });
    zip.on("error", (e: Error) => reject(new ImportError(file, `is not a readable zip archive (${e.message})`)));
    zip.readEntry();
  });
  const stream = (name: string) =>
    new Promise<NodeJS.ReadableStream>((resolve, reject) => {
      const entry = entries.get(name);
      if (!entry) {
        reject(new ImportError(`${file}:${name}`, "file is missing from the archive"));
        return;
      }
      zip.openReadStream(entry, (err, s) => (err || !s ? reject(new ImportError(`${file}:${name}`, `cannot be read (${err?.message})`)) : resolve(s)));
    });
  return {
    names: () => [...entries.keys()],
    has: (name) => entries.has(name),
    size: (name) => entries.get(name)?.uncompressedSize,
    stream,
    read: (name) =>
      new Promise<Buffer>((resolve, reject) => {
        const entry = entries.get(name);
        if (!entry) {
          reject(new ImportError(`${file}:${name}`, "file is missing from the archive"));
          return;
        }
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) {
            reject(new ImportError(`${file}:${name}`, `cannot be read (${err?.message})`));
            return;
          }
          const chunks: Buffer[] = [];
          let got = 0;
          stream.on("data", (c: Buffer) => {
            got += c.length;
            // yauzl checks sizes too; this keeps memory bounded even if that check were off.
            if (got > entry.uncompressedSize) {
              stream.destroy(new Error(`expands beyond the ${entry.uncompressedSize} bytes it declares`));
              return;
            }
            chunks.push(c);
          });
          stream.on("end", () => resolve(Buffer.concat(chunks)));
          stream.on("error", (e) => reject(new ImportError(`${file}:${name}`, `cannot be read (${e.message})`)));
        });
      }),
    extractTo: async (dir) => {
      for (const name of entries.keys()) {
        const dest = path.join(dir, ...name.split("/"));
        await fs.promises.mkdir(path.dirname(dest), { recursive: true });
        const input = await stream(name);
        try {
          await pipeline(input, fs.createWriteStream(dest, { flags: "wx" }));
        } catch (e) {
          throw e instanceof ImportError ? e : new ImportError(`${file}:${name}`, `cannot be extracted (${(e as Error).message})`);
        }
      }
    },
    close: () => zip.close(),
  };
}
