/**
 * File-system helpers shared by importers. Every failure becomes an ImportError that names the file.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { ImportError, type ImageRef } from "./types";

/** The first `bytes` of a file, or null when it cannot be opened: what detectors look at before reading a whole file. */
export async function readHead(file: string, bytes: number): Promise<Buffer | null> {
  const fh = await fsp.open(file, "r").catch(() => null);
  if (!fh) return null;
  try {
    const { bytesRead, buffer } = await fh.read(Buffer.alloc(bytes), 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** The first `bytes` of a file as UTF-8 text, "" when it cannot be opened. */
export async function headText(file: string, bytes: number): Promise<string> {
  return (await readHead(file, bytes))?.toString("utf8") ?? "";
}

export async function isDir(p: string): Promise<boolean> {
  return (await fsp.stat(p).catch(() => null))?.isDirectory() ?? false;
}

/** Sub-folders of `dir`, sorted by name with numbers in natural order. */
export async function listDirs(dir: string): Promise<string[]> {
  const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith("."))
    .map((e) => e.name)
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
    .map((name) => path.join(dir, name));
}

export function fileImage(file: string): ImageRef {
  return {
    origin: file,
    read: async () => {
      try {
        return await fsp.readFile(file);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        throw new ImportError(file, code === "ENOENT" ? "file is missing" : `cannot be read (${(e as Error).message})`);
      }
    },
  };
}

export async function readTextFile(file: string): Promise<string> {
  try {
    return await fsp.readFile(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ImportError(file, code === "ENOENT" ? "file is missing" : `cannot be read (${(e as Error).message})`);
  }
}

export async function readJsonFile(file: string): Promise<unknown> {
  const text = await readTextFile(file);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ImportError(file, `is not valid JSON (${(e as Error).message})`);
  }
}

export function exists(p: string): boolean {
  return fs.existsSync(p);
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * Whether `p` lies in `boundary` (or is it), symbolic links resolved. True when there is no boundary: an import from
 * the command line may read task files and logs beside the folder it was given.
 */
export function withinBoundary(p: string, boundary: string | undefined): boolean {
  if (!boundary) return true;
  const root = realOr(boundary);
  const real = realOr(p);
  return real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/**
 * `start` and the folders above it, nearest first, at most `levels` of them, and none above `boundary`: an upload's
 * importer looks for task files and logs in its own unpacked folder, never in the server's folders around it.
 */
export function foldersUpFrom(start: string, levels: number, boundary?: string): string[] {
  const out: string[] = [];
  let dir = path.resolve(start);
  for (let i = 0; i < levels; i++) {
    if (!withinBoundary(dir, boundary)) break;
    out.push(dir);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return out;
}
