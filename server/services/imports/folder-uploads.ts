/**
 * Folder uploads from the Import page (a folder dropped or picked in the browser): the browser declares every file
 * (path, size, SHA-256), sends the files the server does not hold yet one request each, then asks for the import.
 * The files wait under `<dataDir>/folder-uploads/`, per sender and by content hash, so a reload or a dropped
 * connection resumes where it stopped: declaring the same folder again lists only the files still missing. The
 * received folder is packed into a zip (stored, not compressed) and imported by the same job as an uploaded zip,
 * with the same report. A folder whose content (its files' hashes, not their names) was imported before is refused
 * unless the sender confirms, so the same results are not uploaded twice by accident.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import yazl from "yazl";
import { importLimitsFromEnv, type ImportLimits } from "../../config";
import type { AppContext } from "../../context";
import { declaredFileProblem, folderContentKey, folderSessionKey, type DeclaredFile, type RefusedFile } from "../../domain/imports/folder-upload";
import { AppError, ConflictError, NotFoundError, ValidationError } from "../../errors";
import { checkUploadRoom } from "../jobs/upload-quota";
import { newUploadPath, startImport } from "./jobs";

export interface FolderUploadRequest {
  /** The folder's name as the person knows it (the dropped or picked folder). */
  name: string;
  files: DeclaredFile[];
  format?: string;
}

export interface EarlierFolderImport {
  jobId: number;
  name: string;
  at: string;
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
const SHA256_RE = /^[0-9a-f]{64}$/;

function limitsOf(ctx: AppContext): ImportLimits {
  return ctx.config.importLimits ?? importLimitsFromEnv({});
}

function root(ctx: AppContext): string {
  return path.join(ctx.config.dataDir, "folder-uploads");
}

/** Each sender's files apart: nobody learns from a resume which contents someone else has sent. */
function senderDir(ctx: AppContext, userId: string): string {
  return path.join(root(ctx), crypto.createHash("sha256").update(userId).digest("hex").slice(0, 24));
}

const sessionFile = (ctx: AppContext, userId: string, id: string) => path.join(senderDir(ctx, userId), "sessions", `${id}.json`);
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
  const format = req.format?.trim() || "auto";
  const { files, refused } = sortDeclared({ ...req, name }, limitsOf(ctx));
  if (files.length === 0)
    throw new ValidationError(`${name}: none of its ${req.files.length} files can be uploaded (${refused[0]!.path} ${refused[0]!.reason})`);
  const totalBytes = files.reduce((s, f) => s + f.size, 0);
  await checkUploadRoom(ctx, userId, totalBytes);
  const sessionId = folderSessionKey(userId, format, files);
  const record: SessionRecord = { userId, name, format, files, refused };
  await writeJson(sessionFile(ctx, userId, sessionId), record);
  const missing = [...new Set(files.map((f) => f.sha256))].filter((sha) => !fs.existsSync(blobFile(ctx, userId, sha)));
  const earlier = await readJson<EarlierFolderImport>(earlierFile(ctx, folderContentKey(files)));
  return { sessionId, accepted: files.length, missing, refused, totalBytes, earlier };
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

/**
 * Starts the import of a fully received folder, with the same job and report as an uploaded zip. Refused with a
 * conflict when a folder of the same content was imported before, unless `again` is set.
 */
export async function finishFolderUpload(
  ctx: AppContext,
  userId: string,
  sessionId: string,
  opts: { again?: boolean } = {},
): Promise<{ jobId: number; refused: RefusedFile[] }> {
  const record = await sessionOf(ctx, userId, sessionId);
  const absent = record.files.filter((f) => !fs.existsSync(blobFile(ctx, userId, f.sha256)));
  if (absent.length > 0) {
    throw new ConflictError(
      `${record.name}: ${absent.length} of its files have not arrived yet (${absent[0]!.path}${absent.length > 1 ? ", …" : ""}); send them, then import`,
    );
  }
  const contentKey = folderContentKey(record.files);
  const earlier = await readJson<EarlierFolderImport>(earlierFile(ctx, contentKey));
  if (earlier && !opts.again) {
    throw new ConflictError(
      `${record.name}: a folder with the same files was imported as "${earlier.name}" (import #${earlier.jobId}, ${earlier.at}); import it again only if that is what you mean`,
    );
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
  await writeJson(earlierFile(ctx, contentKey), { jobId, name: record.name, at: new Date().toISOString() } satisfies EarlierFolderImport);
  await removeSession(ctx, record, sessionId);
  return { jobId, refused: record.refused };
}

/** Drops a finished session and the files no other open session of the sender still needs. */
async function removeSession(ctx: AppContext, record: SessionRecord, sessionId: string): Promise<void> {
  await fsp.rm(sessionFile(ctx, record.userId, sessionId), { force: true });
  const sessionsDir = path.dirname(sessionFile(ctx, record.userId, sessionId));
  const stillNeeded = new Set<string>();
  for (const other of await fsp.readdir(sessionsDir).catch(() => [] as string[])) {
    if (!other.endsWith(".json")) continue;
    const r = await readJson<SessionRecord>(path.join(sessionsDir, other)).catch(() => null);
    for (const f of r?.files ?? []) stillNeeded.add(f.sha256);
  }
  for (const f of record.files) if (!stillNeeded.has(f.sha256)) await fsp.rm(blobFile(ctx, record.userId, f.sha256), { force: true });
}
