/**
 * What a browser may declare when it uploads a folder (the Import page's folder drop and folder picker): each file's
 * path inside the folder, its size and the SHA-256 of its content. The paths come from the sender and are hostile
 * until checked: a file is taken only at a plain relative path (no "..", no absolute or drive path, no backslash or
 * control character), and the folder as a whole is known by its content alone, so renaming the folder or its files
 * does not make it new.
 */
import crypto from "node:crypto";

export interface DeclaredFile {
  path: string;
  size: number;
  sha256: string;
}

export interface RefusedFile {
  path: string;
  reason: string;
}

const SHA256_RE = /^[0-9a-f]{64}$/;
const MAX_PATH_CHARS = 1000;

/** Why the relative path a browser gave cannot be written below the upload's folder, or null when it can. */
export function folderPathProblem(p: string): string | null {
  if (!p) return "has no path";
  if (p.length > MAX_PATH_CHARS) return `has a path longer than ${MAX_PATH_CHARS} characters`;
  if (/[\u0000-\u001f\u007f]/.test(p)) return "has a control character in its path";
  if (p.includes("\\")) return "has a backslash in its path (folder paths use /)";
  if (p.startsWith("/") || /^[A-Za-z]:/.test(p)) return "has an absolute path";
  const parts = p.split("/");
  if (parts.some((s) => s === "..")) return 'has ".." in its path, which would lead out of the folder';
  if (parts.some((s) => s === "" || s === ".")) return "has an empty or '.' part in its path";
  return null;
}

/** Why a declared file cannot be taken, apart from its path: its size and hash as the sender stated them. */
export function declaredFileProblem(f: DeclaredFile, maxFileBytes: number): string | null {
  const pathProblem = folderPathProblem(f.path);
  if (pathProblem) return pathProblem;
  if (!Number.isSafeInteger(f.size) || f.size < 0) return "has no valid size";
  if (f.size > maxFileBytes) return `is ${f.size} bytes, more than the ${maxFileBytes} one file may have (VERDICT_ZIP_MAX_ENTRY_MB)`;
  if (!SHA256_RE.test(f.sha256)) return "has no valid SHA-256 of its content";
  return null;
}

/** The folder's identity: the hashes of its files' contents, whatever they are called and however they are ordered. */
export function folderContentKey(files: readonly DeclaredFile[]): string {
  const hashes = files.map((f) => f.sha256).sort();
  return crypto.createHash("sha256").update(hashes.join("\n")).digest("hex");
}

/**
 * One upload's key: who sends it and what it holds (paths and contents), so the same folder chosen again after a
 * reload or a lost connection finds the files already received, and a changed folder starts afresh.
 */
export function folderSessionKey(userId: string, format: string, files: readonly DeclaredFile[]): string {
  const lines = files.map((f) => `${f.path}\u0000${f.sha256}`).sort();
  return crypto
    .createHash("sha256")
    .update(`${userId}\n${format}\n${lines.join("\n")}`)
    .digest("hex")
    .slice(0, 32);
}
