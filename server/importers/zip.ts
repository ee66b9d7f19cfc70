/**
 * Read-only access to a .zip through yauzl: entry names are checked before anything is read, so a name that
 * would escape the bundle (`../x`, `/etc/x`, `C:\x`) rejects the whole archive.
 */
import yauzl from "yauzl";
import { ImportError } from "./types";

export interface ZipReader {
  names(): string[];
  has(name: string): boolean;
  read(name: string): Promise<Buffer>;
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

export async function openZipReader(file: string): Promise<ZipReader> {
  const zip = await openZip(file);
  const entries = new Map<string, yauzl.Entry>();
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
      if (!name.endsWith("/")) entries.set(name, entry);
      zip.readEntry();
    });
    zip.on("end", () => resolve());
    zip.on("error", (e: Error) => reject(new ImportError(file, `is not a readable zip archive (${e.message})`)));
    zip.readEntry();
  });
  return {
    names: () => [...entries.keys()],
    has: (name) => entries.has(name),
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
          stream.on("data", (c: Buffer) => chunks.push(c));
          stream.on("end", () => resolve(Buffer.concat(chunks)));
          stream.on("error", (e) => reject(new ImportError(`${file}:${name}`, `cannot be read (${e.message})`)));
        });
      }),
    close: () => zip.close(),
  };
}
