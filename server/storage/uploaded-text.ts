/**
 * Text files people upload for a job (the CSV of an agreement analysis or a label import) on their way from the web
 * server that received them to the worker that reads them: written to the uploads folder of the receiving server's
 * data folder, or, with a bucket configured, kept in the bucket (./upload-staging.ts) so that a worker on another
 * machine can read it. The job removes it once done.
 */
import crypto from "node:crypto";
import fsp from "node:fs/promises";
import path from "node:path";
import type { VerdictConfig } from "../config";
import { checkUploadKey, uploadsFolder, uploadStagingFor } from "./upload-staging";

export interface StagedText {
  /** Server-chosen name (upload-<time>-<random>.csv). */
  key: string;
  /** Its size in bytes (UTF-8), for quotas and messages. */
  bytes: number;
  /** Kept in the bucket rather than in the receiving server's data folder. */
  inBucket: boolean;
}

export async function stageUploadedText(config: Pick<VerdictConfig, "dataDir" | "objectStorage">, text: string): Promise<StagedText> {
  const key = `upload-${Date.now()}-${crypto.randomBytes(6).toString("hex")}.csv`;
  const file = path.join(uploadsFolder(config.dataDir), key);
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const body = Buffer.from(text, "utf8");
  await fsp.writeFile(file, body, { flag: "wx", mode: 0o600 });
  const staging = uploadStagingFor(config.objectStorage);
  if (!staging) return { key, bytes: body.length, inBucket: false };
  try {
    await staging.stage(file, key);
  } finally {
    await fsp.rm(file, { force: true });
  }
  return { key, bytes: body.length, inBucket: true };
}

/** The staged text, or null when it is gone (removed, or never reached this worker's data folder or the bucket). */
export async function readUploadedText(config: Pick<VerdictConfig, "dataDir" | "objectStorage">, staged: StagedText): Promise<string | null> {
  const file = path.join(uploadsFolder(config.dataDir), checkUploadKey(staged.key));
  if (staged.inBucket) {
    const staging = uploadStagingFor(config.objectStorage);
    if (!staging) throw new Error("the file waits in object storage, which this worker is not configured for (VERDICT_S3_BUCKET)");
    const copy = `${file}.${crypto.randomBytes(4).toString("hex")}`;
    await fsp.mkdir(path.dirname(copy), { recursive: true });
    try {
      if (!(await staging.fetch(staged.key, copy))) return null;
      return await fsp.readFile(copy, "utf8");
    } finally {
      await fsp.rm(copy, { force: true });
    }
  }
  try {
    return await fsp.readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

export async function removeUploadedText(config: Pick<VerdictConfig, "dataDir" | "objectStorage">, staged: StagedText): Promise<void> {
  if (staged.inBucket) await uploadStagingFor(config.objectStorage)?.remove(staged.key);
  else await fsp.rm(path.join(uploadsFolder(config.dataDir), checkUploadKey(staged.key)), { force: true });
}
