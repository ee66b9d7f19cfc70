/**
 * Folder uploads from the Import page (a folder dropped or picked in the browser): the browser declares every file
 * (path, size, SHA-256), sends the files the server does not hold yet one request each, then asks for the import.
 * The files wait under `<dataDir>/folder-uploads/`, per sender and by content hash, so a reload or a dropped
 * connection resumes where it stopped: declaring the same folder again lists only the files still missing. The
 * received folder is packed into a zip (stored, not compressed) and imported by the same job as an uploaded zip,
 * with the same report. A folder whose content (its files' hashes, not their names) was imported before is refused
 * unless the sender confirms, so the same results are not uploaded twice by accident.
 *
 * Finishing is claimed with a file created exclusively, so two finish requests of one upload (a double click, a
 * retried request) start one import and both answer with its job. Uploads left unfinished are removed with their
 * files once untouched for VERDICT_FOLDER_UPLOAD_EXPIRE_HOURS, swept whenever someone declares a folder.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import yazl from "yazl";
import { DEFAULT_MAX_BODY_BYTES, importLimitsFromEnv, type ImportLimits } from "../../config";
import type { AppContext } from "../../context";
import { declaredFileProblem, folderContentKey, folderSessionKey, type DeclaredFile, type RefusedFile } from "../../domain/imports/folder-upload";
import { AppError, ConflictError, NotFoundError, ValidationError } from "../../errors";
import { checkUploadRoom } from "../jobs";
import { newUploadPath, startImport } from "./jobs";

export interface FolderUploadRequest {
  /** The folder's name as the person knows it (the dropped or picked folder). */
  name: string;
  files: DeclaredFile[];
  format?: string;
}

/**
 * The import of a folder with the same content, as the person asking may see it: their own import by its name and
 * job; someone else's only as the fact and its date (the name and job are theirs).
 */
export type EarlierFolderImport = { byYou: true; jobId: number; name: string; at: string } | { byYou: false; at: string };

/** What is kept of a folder's import, for the duplicate guard. */
interface ImportedRecord {
  jobId: number;
  name: string;
  at: string;
  by: string;
}

export interface FinishedFolderUpload {
  jobId: number;
  refused: RefusedFile[];
}

export interface FolderUploadPlan {
  sessionId: string;
  /** The files that will be imported, and the hashes among them the server still needs (each sent once). */
  accepted: number;
  missing: string[];
  /** Files that will not be sent or imported, each with its reason. */
  refused: RefusedFile[];
  totalBytes: number;
  /** The import of a folder with the same content, if there was one: finishing then needs `again`. */
  earlier: EarlierFolderImport | null;
}

interface SessionRecord {
  userId: string;
  name: string;
  format: string;
  files: DeclaredFile[];
  refused: RefusedFile[];
}

const SESSION_ID_RE = /^[0-9a-f]{32}$/;
/** What one declared file may take in the declaration's JSON: a path of 150 characters or so, its size and hash. */
const DECLARED_FILE_BYTES = 256;
const SHA256_RE = /^[0-9a-f]{64}$/;

function limitsOf(ctx: AppContext): ImportLimits {
  return ctx.config.importLimits ?? importLimitsFromEnv({});
}

/**
 * The largest declaration the web server reads: room for as many files as one import may hold
 * (VERDICT_ZIP_MAX_ENTRIES), and never less than any request may send (VERDICT_MAX_BODY_BYTES).
 */
export function folderDeclarationLimit(ctx: AppContext): { maxBytes: number; maxFiles: number } {
  const maxFiles = limitsOf(ctx).zipMaxEntries;
  return { maxBytes: Math.max(ctx.config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, maxFiles * DECLARED_FILE_BYTES), maxFiles };
}

function root(ctx: AppContext): string {
  return path.join(ctx.config.dataDir, "folder-uploads");
}

/** Each sender's files apart: nobody learns from a resume which contents someone else has sent. */
function senderDir(ctx: AppContext, userId: string): string {
  return path.join(root(ctx), crypto.createHash("sha256").update(userId).digest("hex").slice(0, 24));
}

const sessionFile = (ctx: AppContext, userId: string, id: string) => path.join(senderDir(ctx, userId), "sessions", `${id}.json`);
/** Held while one request packs and starts the upload's import; the result then waits beside it for a second request. */
const claimFile = (ctx: AppContext, userId: string, id: string) => path.join(senderDir(ctx, userId), "sessions", `${id}.finishing`);
const finishedFile = (ctx: AppContext, userId: string, id: string) => path.join(senderDir(ctx, userId), "sessions", `${id}.finished`);
const blobFile = (ctx: AppContext, userId: string, sha: string) => path.join(senderDir(ctx, userId), "files", sha);
const earlierFile = (ctx: AppContext, contentKey: string) => path.join(root(ctx), "imported", `${contentKey}.json`);

async function readJson<T>(file: string): Promise<T | null> {
  try {
    return JSON.parse(await fsp.readFile(file, "utf8")) as T;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

async function writeJson(file: string, value: unknown): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${crypto.randomBytes(4).toString("hex")}.tmp`;
  await fsp.writeFile(tmp, JSON.stringify(value));
  await fsp.rename(tmp, file);
}

/** Splits the declared files into those taken and those refused (with why), within the folder limits. */
function sortDeclared(req: FolderUploadRequest, limits: ImportLimits): { files: DeclaredFile[]; refused: RefusedFile[] } {
  if (req.files.length > limits.zipMaxEntries) {
    throw new ValidationError(
      `${req.name}: ${req.files.length} files declared, more than the ${limits.zipMaxEntries} one import may hold (VERDICT_ZIP_MAX_ENTRIES)`,
    );
  }
  const files: DeclaredFile[] = [];
  const refused: RefusedFile[] = [];
  const seen = new Set<string>();
  for (const f of req.files) {
    const p = typeof f?.path === "string" ? f.path : "";
    const checked = { path: p, size: Number(f?.size), sha256: String(f?.sha256 ?? "") };
    const problem = declaredFileProblem(checked, limits.zipMaxEntryBytes);
    if (problem) refused.push({ path: p || "(no path)", reason: problem });
    else if (seen.has(p)) refused.push({ path: p, reason: "is declared twice" });
    else {
      seen.add(p);
      files.push(checked);
    }
  }
  if (files.length > limits.zipMaxEntries) {
    throw new ValidationError(`${req.name}: ${files.length} files, more than the ${limits.zipMaxEntries} one import may hold (VERDICT_ZIP_MAX_ENTRIES)`);
  }
  const total = files.reduce((s, f) => s + f.size, 0);
  if (total > limits.zipMaxTotalBytes) {
    throw new ValidationError(`${req.name}: ${total} bytes in all, more than the ${limits.zipMaxTotalBytes} one import may hold (VERDICT_ZIP_MAX_TOTAL_MB)`);
  }
  return { files, refused };
}

function folderName(name: unknown): string {
  const base = path.basename(String(name ?? "").trim()).slice(0, 200);
  return base && base !== "." && base !== ".." ? base : "folder";
}

/** Declares a folder to upload: answers what to send (nothing the server holds already) and what is refused. */
export async function beginFolderUpload(ctx: AppContext, userId: string, req: FolderUploadRequest): Promise<FolderUploadPlan> {
  if (!Array.isArray(req.files) || req.files.length === 0) throw new ValidationError("The folder has no files");
  const name = folderName(req.name);
  const format = typeof req.format === "string" && req.format.trim() ? req.format.trim() : "auto";
  await sweepNowAndThen(ctx);
  const { files, refused } = sortDeclared({ ...req, name }, limitsOf(ctx));
  if (files.length === 0)
    throw new ValidationError(`${name}: none of its ${req.files.length} files can be uploaded (${refused[0]!.path} ${refused[0]!.reason})`);
  const totalBytes = files.reduce((s, f) => s + f.size, 0);
  await checkUploadRoom(ctx, userId, totalBytes);
  const sessionId = folderSessionKey(userId, format, files);
  const record: SessionRecord = { userId, name, format, files, refused };
  await writeJson(sessionFile(ctx, userId, sessionId), record);
  // Declaring again is a new attempt: a finished import of the same session is not handed back to it.
  await fsp.rm(finishedFile(ctx, userId, sessionId), { force: true });
  const missing = [...new Set(files.map((f) => f.sha256))].filter((sha) => !fs.existsSync(blobFile(ctx, userId, sha)));
  const earlier = asSeenBy(await readJson<ImportedRecord>(earlierFile(ctx, folderContentKey(files))), userId);
  return { sessionId, accepted: files.length, missing, refused, totalBytes, earlier };
}

function asSeenBy(record: ImportedRecord | null, userId: string): EarlierFolderImport | null {
  if (!record) return null;
  return record.by === userId ? { byYou: true, jobId: record.jobId, name: record.name, at: record.at } : { byYou: false, at: record.at };
}

async function sessionOf(ctx: AppContext, userId: string, sessionId: string): Promise<SessionRecord> {
  if (!SESSION_ID_RE.test(sessionId)) throw new NotFoundError("folder upload", sessionId);
  const record = await readJson<SessionRecord>(sessionFile(ctx, userId, sessionId));
  if (!record || record.userId !== userId) throw new NotFoundError("folder upload", sessionId);
  return record;
}

/**
 * Receives one file of a declared folder, known by its SHA-256: the content is hashed as it arrives and kept only
 * when it is what was declared. A file the server holds already is not read again (`stored: false`).
 */
export async function receiveFolderFile(ctx: AppContext, userId: string, sessionId: string, sha256: string, body: Readable): Promise<{ stored: boolean }> {
  const record = await sessionOf(ctx, userId, sessionId);
  const declared = SHA256_RE.test(sha256) ? record.files.find((f) => f.sha256 === sha256) : undefined;
  if (!declared) throw new ValidationError(`${record.name}: no file with the SHA-256 ${sha256.slice(0, 64)} was declared in this upload`);
  const target = blobFile(ctx, userId, sha256);
  if (fs.existsSync(target)) return { stored: false };
  await fsp.mkdir(path.dirname(target), { recursive: true });
  const tmp = `${target}.${crypto.randomBytes(6).toString("hex")}.part`;
  const hash = crypto.createHash("sha256");
  let received = 0;
  const check = new Transform({
    transform(chunk: Buffer, _enc, done) {
      received += chunk.length;
      if (received > declared.size) return done(new ValidationError(`${record.name}/${declared.path}: more bytes arrived than the ${declared.size} declared`));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(body, check, fs.createWriteStream(tmp, { flags: "wx" }));
    const got = hash.digest("hex");
    if (got !== sha256)
      throw new ValidationError(
        `${record.name}/${declared.path}: the content received does not have the declared SHA-256 (the file changed or the transfer was cut)`,
      );
    await fsp.rename(tmp, target);
    // A file received keeps its upload alive (the expiry counts from the last one).
    const now = new Date();
    await fsp.utimes(sessionFile(ctx, userId, sessionId), now, now).catch(() => undefined);
    return { stored: true };
  } finally {
    await fsp.rm(tmp, { force: true });
  }
}

/** Packs the received folder into a zip below `<name>/`, as if the person had zipped the folder themselves. */
async function packFolder(ctx: AppContext, record: SessionRecord, file: string): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const f of record.files) zip.addFile(blobFile(ctx, record.userId, f.sha256), `${record.name}/${f.path}`, { compress: false });
  zip.end();
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await pipeline(zip.outputStream, fs.createWriteStream(file, { flags: "wx" }));
}

/** How long a claim may be held before it counts as left by a request that died (packing takes seconds, not this). */
const STALE_CLAIM_MS = 10 * 60_000;
const CLAIM_POLL_MS = 50;

/** Claims the finishing of an upload; false when another request holds the claim (and it is not stale). */
async function claimFinish(file: string): Promise<boolean> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  try {
    await fsp.writeFile(file, String(process.pid), { flag: "wx" });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    const held = await fsp.stat(file).catch(() => null);
    if (held && Date.now() - held.mtimeMs > STALE_CLAIM_MS) await fsp.rm(file, { force: true });
    return false;
  }
}

/**
 * Starts the import of a fully received folder, with the same job and report as an uploaded zip. Refused with a
 * conflict when a folder of the same content was imported before, unless `again` is set. Two requests finishing
 * the same upload at once start one import: the second waits for the first and answers with its job.
 */
export async function finishFolderUpload(ctx: AppContext, userId: string, sessionId: string, opts: { again?: boolean } = {}): Promise<FinishedFolderUpload> {
  if (!SESSION_ID_RE.test(sessionId)) throw new NotFoundError("folder upload", sessionId);
  const claim = claimFile(ctx, userId, sessionId);
  const finished = finishedFile(ctx, userId, sessionId);
  for (;;) {
    const done = await readJson<FinishedFolderUpload>(finished);
    if (done) return done;
    if (await claimFinish(claim)) {
      try {
        // The request that held the claim before may have finished between the look above and the claim.
        const justDone = await readJson<FinishedFolderUpload>(finished);
        if (justDone) return justDone;
        const result = await startFolderImport(ctx, userId, sessionId, opts);
        await writeJson(finished, result);
        return result;
      } finally {
        await fsp.rm(claim, { force: true });
      }
    }
    // Another request is starting this upload's import: its answer is this one's too.
    await new Promise((resolve) => setTimeout(resolve, CLAIM_POLL_MS));
  }
}

async function startFolderImport(ctx: AppContext, userId: string, sessionId: string, opts: { again?: boolean }): Promise<FinishedFolderUpload> {
  const record = await sessionOf(ctx, userId, sessionId);
  const absent = record.files.filter((f) => !fs.existsSync(blobFile(ctx, userId, f.sha256)));
  if (absent.length > 0) {
    throw new ConflictError(
      `${record.name}: ${absent.length} of its files have not arrived yet (${absent[0]!.path}${absent.length > 1 ? ", …" : ""}); send them, then import`,
    );
  }
  const contentKey = folderContentKey(record.files);
  const earlier = asSeenBy(await readJson<ImportedRecord>(earlierFile(ctx, contentKey)), userId);
  if (earlier && !opts.again) {
    const what = earlier.byYou ? `as "${earlier.name}" (import #${earlier.jobId}, ${earlier.at})` : `by someone else (${earlier.at})`;
    throw new ConflictError(`${record.name}: a folder with the same files was imported ${what}; import it again only if that is what you mean`);
  }
  await checkUploadRoom(
    ctx,
    userId,
    record.files.reduce((s, f) => s + f.size, 0),
  );
  const file = await newUploadPath(ctx);
  let jobId: number;
  try {
    await packFolder(ctx, record, file);
    jobId = await startImport(ctx, { kind: "upload", file, name: `${record.name} (folder)` }, { format: record.format, requestedBy: userId });
  } catch (e) {
    await fsp.rm(file, { force: true });
    if (e instanceof AppError) throw e;
    throw new Error(`${record.name}: the received folder could not be packed for import (${(e as Error).message})`);
  }
  await writeJson(earlierFile(ctx, contentKey), { jobId, name: record.name, at: new Date().toISOString(), by: userId } satisfies ImportedRecord);
  await removeSession(ctx, record, sessionId);
  return { jobId, refused: record.refused };
}

/** Drops a finished session and the files no other open session of the sender still needs. */
async function removeSession(ctx: AppContext, record: SessionRecord, sessionId: string): Promise<void> {
  await fsp.rm(sessionFile(ctx, record.userId, sessionId), { force: true });
  const stillNeeded = await filesStillNeeded(path.dirname(sessionFile(ctx, record.userId, sessionId)));
  for (const f of record.files) if (!stillNeeded.has(f.sha256)) await fsp.rm(blobFile(ctx, record.userId, f.sha256), { force: true });
}

/** The hashes a sender's open uploads still need. */
async function filesStillNeeded(sessionsDir: string): Promise<Set<string>> {
  const needed = new Set<string>();
  for (const name of await fsp.readdir(sessionsDir).catch(() => [] as string[])) {
    if (!name.endsWith(".json")) continue;
    const r = await readJson<SessionRecord>(path.join(sessionsDir, name)).catch(() => null);
    for (const f of r?.files ?? []) needed.add(f.sha256);
  }
  return needed;
}

async function removeOlderThan(dir: string, cutoffMs: number, keep: (name: string) => boolean): Promise<number> {
  let removed = 0;
  for (const name of await fsp.readdir(dir).catch(() => [] as string[])) {
    if (keep(name)) continue;
    const stat = await fsp.stat(path.join(dir, name)).catch(() => null);
    if (stat && stat.mtimeMs < cutoffMs) {
      await fsp.rm(path.join(dir, name), { force: true });
      removed++;
    }
  }
  return removed;
}

/**
 * Removes the folder uploads nobody touched for VERDICT_FOLDER_UPLOAD_EXPIRE_HOURS (no file received since, never
 * imported) and the files only they needed; a finished upload's answer goes after the same time. Answers how many
 * uploads went. The duplicate guard's records of imported folders stay.
 */
export async function expireFolderUploads(ctx: AppContext, now = Date.now()): Promise<{ sessions: number; files: number }> {
  const cutoff = now - limitsOf(ctx).folderUploadExpiryMs;
  let sessions = 0;
  let files = 0;
  for (const sender of await fsp.readdir(root(ctx)).catch(() => [] as string[])) {
    if (sender === "imported") continue;
    const sessionsDir = path.join(root(ctx), sender, "sessions");
    sessions += await removeOlderThan(sessionsDir, cutoff, (name) => !name.endsWith(".json"));
    // Finished uploads' answers and claims left by requests that died.
    await removeOlderThan(sessionsDir, cutoff, (name) => name.endsWith(".json"));
    const needed = await filesStillNeeded(sessionsDir);
    // Every file of an expired upload arrived before its last touch; a newer file belongs to an upload under way.
    // Transfers cut off midway leave their partial files (`.part`).
    files += await removeOlderThan(path.join(root(ctx), sender, "files"), cutoff, (name) => needed.has(name));
  }
  return { sessions, files };
}

const SWEEP_EVERY_MS = 10 * 60_000;
const lastSweep = new Map<string, number>();

/** Expires abandoned uploads at most every ten minutes per data folder, as folders are declared. */
async function sweepNowAndThen(ctx: AppContext): Promise<void> {
  const at = lastSweep.get(ctx.config.dataDir) ?? 0;
  if (Date.now() - at < SWEEP_EVERY_MS) return;
  lastSweep.set(ctx.config.dataDir, Date.now());
  await expireFolderUploads(ctx);
}
