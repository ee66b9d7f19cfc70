/**
 * Finding trajectory folders at any depth. People keep results as they like (`results/<run>/<timestamp>/task…`,
 * `retrieval/<method>/<model>/…`), so importers look for their unit folders anywhere under the input rather than
 * one or two levels down. A matched folder is not searched further.
 */
import fsp from "node:fs/promises";
import path from "node:path";
import { ImportError, type ImportItem, type RenamedFolder } from "./types";

/** Folders that never hold results and can be large (dependencies, caches, version control). */
const SKIPPED = new Set(["node_modules", "__pycache__", "site-packages", "venv"]);

export interface FindFoldersOptions {
  /** Levels below the input to look at (the input itself is level 0). */
  maxDepth?: number;
  /** Stop after this many matches (sniffing needs one). */
  limit?: number;
  /** Stop after looking at this many folders, so a sniff of a huge tree stays cheap. */
  maxFolders?: number;
}

/** Sub-folder names of `dir` in natural order ("run2" before "run10"), hidden and skipped ones left out. */
export async function subfolders(dir: string): Promise<string[]> {
  const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith(".") && !SKIPPED.has(e.name))
    .map((e) => e.name)
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
}

/** Folders under `root` (root included) for which `matches` is true, in natural depth-first order. */
export async function findFolders(root: string, matches: (dir: string) => boolean | Promise<boolean>, options: FindFoldersOptions = {}): Promise<string[]> {
  const maxDepth = options.maxDepth ?? 8;
  const limit = options.limit ?? Infinity;
  const maxFolders = options.maxFolders ?? 100_000;
  const found: string[] = [];
  let looked = 0;
  async function visit(dir: string, depth: number): Promise<void> {
    if (found.length >= limit || looked >= maxFolders) return;
    looked++;
    if (await matches(dir)) {
      found.push(dir);
      return;
    }
    if (depth >= maxDepth) return;
    for (const name of await subfolders(dir)) {
      await visit(path.join(dir, name), depth + 1);
      if (found.length >= limit || looked >= maxFolders) return;
    }
  }
  const stat = await fsp.stat(root).catch(() => null);
  if (stat?.isDirectory()) await visit(root, 0);
  return found;
}

/** Groups folders by their parent, keeping first-seen order: the parent is the run a task folder belongs to. */
export function groupByParent(dirs: string[]): { parent: string; dirs: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const d of dirs) {
    const parent = path.dirname(d);
    const list = groups.get(parent) ?? [];
    list.push(d);
    groups.set(parent, list);
  }
  return [...groups].map(([parent, list]) => ({ parent, dirs: list }));
}

/**
 * A run's display name when nothing in the files names it: its folder path from the imported folder's own name
 * down ("results/20250414_14_44_45", "retrieval/bm25/gpt-4o"), or the folder's name when it is the input or above it.
 */
export function runNameFromPath(input: string, runDir: string, renamed?: RenamedFolder): string {
  const root = path.resolve(input);
  const dir = path.resolve(runDir);
  const own = folderName(root, renamed);
  if (dir === root) return own;
  const rel = path.relative(root, dir);
  if (!rel || rel.startsWith("..") || path.isAbsolute(rel)) return folderName(dir, renamed);
  return [own, ...rel.split(path.sep)].join("/");
}

/** A folder's name as the person knows it: its own, or the name it stands for (an upload's unpacked folder). */
export function folderName(dir: string, renamed?: RenamedFolder): string {
  return renamed && path.resolve(renamed.dir) === path.resolve(dir) ? renamed.name : path.basename(path.resolve(dir));
}

/**
 * A run's key: its format and its name as the source names it (runNameFromPath), never the absolute folder, so
 * the same run imported from another place, or unpacked from the same zip again, has the same key.
 */
export function runKeyFromPath(format: string, input: string, runDir: string, renamed?: RenamedFolder): string {
  return `${format}:${runNameFromPath(input, runDir, renamed)}`;
}

/**
 * What to yield for a trajectory folder that was found but cannot be read: the import goes on with the rest. The
 * path is the file at fault inside the folder, so "path: reason" reads as one precise message.
 */
export function unreadableTrajectory(dir: string, e: unknown): ImportItem {
  if (e instanceof ImportError) return { kind: "skipped", path: e.file, reason: e.problem };
  return { kind: "skipped", path: dir, reason: `cannot be read (${(e as Error).message})` };
}
