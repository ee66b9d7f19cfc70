/**
 * File-system helpers shared by importers. Every failure becomes an ImportError that names the file.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { ImportError, type ImageRef } from "./types";

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
