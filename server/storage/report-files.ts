/**
 * Built report zips kept for download: in the data folder (`<dataDir>/reports/<key>`) on one machine, or in the
 * bucket (`<prefix>reports/<key>`) when one is configured, so the web server that serves the download need not be
 * the worker that built the report.
 *
 * A zip is written from a stream and never held whole in memory: the folder writes it to a temporary file renamed
 * into place once complete; the bucket receives it as a multipart upload in parts of PART_BYTES, aborted when the
 * stream fails, so a failed build leaves no object behind in either.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { S3Config } from "../config";
import { nameCheck } from "./object-store";
import { S3Folder } from "./s3-object-store";

/** Keys are chosen by the server (report-<time>-<random>.zip): nothing a client sends becomes part of one. */
const REPORT_KEY_RE = /^report-[0-9]+-[0-9a-f]{12}\.zip$/;

/** The size of one part of a multipart upload (S3's least is 5 MiB for every part but the last). */
export const PART_BYTES = 8 * 1024 * 1024;

export function newReportKey(now = Date.now()): string {
  return `report-${now}-${crypto.randomBytes(6).toString("hex")}.zip`;
}

export const checkReportKey = nameCheck(REPORT_KEY_RE, "a report key");

export interface ReportFileStore {
  /** Where reports are kept, for messages. */
  readonly location: string;
  /** Writes the stream under `key`; resolves to the bytes written. Nothing is left under `key` when it fails. */
  write(key: string, body: Readable): Promise<number>;
  /** The report's bytes as a stream with their length, or null when there is no such report. */
  open(key: string): Promise<{ body: Readable; size: number } | null>;
  /** Removes the report; a missing one is not an error. */
  remove(key: string): Promise<void>;
}

class FolderReportFiles implements ReportFileStore {
  constructor(readonly root: string) {}

  get location(): string {
    return this.root;
  }

  private fileOf(key: string): string {
    return path.join(this.root, checkReportKey(key));
  }

  async write(key: string, body: Readable): Promise<number> {
    const file = this.fileOf(key);
    await fsp.mkdir(this.root, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
    try {
      await pipeline(body, fs.createWriteStream(tmp, { mode: 0o600 }));
      await fsp.rename(tmp, file);
    } catch (e) {
      await fsp.rm(tmp, { force: true }).catch(() => {});
      throw e;
    }
    return (await fsp.stat(file)).size;
  }

  async open(key: string): Promise<{ body: Readable; size: number } | null> {
    try {
      const handle = await fsp.open(this.fileOf(key), "r");
      const { size } = await handle.stat();
      return { body: handle.createReadStream(), size };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw e;
    }
  }

  async remove(key: string): Promise<void> {
    await fsp.rm(this.fileOf(key), { force: true });
  }
}

/** Cuts a stream into buffers of `size` bytes (the last one shorter), holding at most one part at a time. */
async function* partsOf(body: Readable, size: number): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  for await (const chunk of body) {
    let rest = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    while (heldBytes + rest.length >= size) {
      const take = size - heldBytes;
      held.push(rest.subarray(0, take));
      yield Buffer.concat(held);
      rest = rest.subarray(take);
      held = [];
      heldBytes = 0;
    }
    if (rest.length) {
      held.push(rest);
      heldBytes += rest.length;
    }
  }
  if (heldBytes || !held.length) yield Buffer.concat(held);
}

class S3ReportFiles extends S3Folder implements ReportFileStore {
  constructor(
    config: S3Config,
    private readonly partBytes: number,
  ) {
    super(config, "reports");
  }

  async write(key: string, body: Readable): Promise<number> {
    const { sdk, client } = await this.sdk();
    const target = { Bucket: this.config.bucket, Key: this.prefix + checkReportKey(key) };
    const created = await client.send(new sdk.CreateMultipartUploadCommand({ ...target, ContentType: "application/zip" }));
    const UploadId = created.UploadId!;
    const parts: { ETag: string; PartNumber: number }[] = [];
    let size = 0;
    try {
      for await (const part of partsOf(body, this.partBytes)) {
        const PartNumber = parts.length + 1;
        const res = await client.send(new sdk.UploadPartCommand({ ...target, UploadId, PartNumber, Body: part, ContentLength: part.length }));
        parts.push({ ETag: res.ETag!, PartNumber });
        size += part.length;
      }
      await client.send(new sdk.CompleteMultipartUploadCommand({ ...target, UploadId, MultipartUpload: { Parts: parts } }));
    } catch (e) {
      await client.send(new sdk.AbortMultipartUploadCommand({ ...target, UploadId })).catch(() => {});
      throw e;
    }
    return size;
  }

  async open(key: string): Promise<{ body: Readable; size: number } | null> {
    return await this.openObject(checkReportKey(key));
  }

  async remove(key: string): Promise<void> {
    await this.deleteObject(checkReportKey(key));
  }
}

/** The installation's report files: the bucket when one is configured, else `<dataDir>/reports`. */
export function reportFilesFor(config: { dataDir: string; objectStorage?: S3Config }, options: { partBytes?: number } = {}): ReportFileStore {
  return config.objectStorage
    ? new S3ReportFiles(config.objectStorage, options.partBytes ?? PART_BYTES)
    : new FolderReportFiles(path.join(config.dataDir, "reports"));
}
