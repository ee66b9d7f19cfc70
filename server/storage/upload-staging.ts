/**
 * Uploaded import zips on their way from the web server that received them to the process that runs the import.
 *
 * With one machine (the quick start) the zip stays in the data folder, where the same server's import job reads it.
 * With a bucket configured (a team deployment, several web servers behind a load balancer) every web server runs
 * the queued imports of the shared database, and the server that takes a job (or takes it over after the first one
 * was restarted) may not be the one that received the zip: the zip is therefore kept in the bucket, under
 * `<prefix>uploads/<key>`, until its import has finished, and each attempt copies it to its own disk first.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type { S3Config } from "../config";
import { nameCheck } from "./object-store";
import { S3Folder } from "./s3-object-store";

/**
 * Keys are chosen by the server (upload-<time>-<random>.zip for import zips, .csv for the CSV files of agreement
 * analyses and label imports): nothing a client sends becomes part of one.
 */
const UPLOAD_KEY_RE = /^upload-[0-9]+-[0-9a-f]{12}\.(zip|csv)$/;

/** The folder of a data folder where uploads wait on the machine that received them (and where jobs copy them). */
export function uploadsFolder(dataDir: string): string {
  return path.join(dataDir, "imports");
}

export const checkUploadKey = nameCheck(UPLOAD_KEY_RE, "an upload key");

export interface UploadStaging {
  /** Where staged uploads wait, for messages: s3://bucket/prefix/uploads/. */
  readonly location: string;
  /** Moves the received file into the staging area under `key`; the local file is removed once it is there. */
  stage(localFile: string, key: string): Promise<void>;
  /** Copies the staged upload to `localFile` for the import to read; false when it is no longer staged. */
  fetch(key: string, localFile: string): Promise<boolean>;
  /** Forgets the staged upload (its import finished); a missing one is not an error. */
  remove(key: string): Promise<void>;
}

class S3UploadStaging extends S3Folder implements UploadStaging {
  constructor(config: S3Config) {
    super(config, "uploads");
  }

  async stage(localFile: string, key: string): Promise<void> {
    const { sdk, client } = await this.sdk();
    const size = (await fsp.stat(localFile)).size;
    await client.send(
      new sdk.PutObjectCommand({
        Bucket: this.config.bucket,
        Key: this.prefix + checkUploadKey(key),
        Body: fs.createReadStream(localFile),
        ContentLength: size,
        ContentType: key.endsWith(".csv") ? "text/csv" : "application/zip",
      }),
    );
    await fsp.rm(localFile, { force: true });
  }

  async fetch(key: string, localFile: string): Promise<boolean> {
    const found = await this.openObject(checkUploadKey(key));
    if (!found) return false;
    await pipeline(found.body, fs.createWriteStream(localFile));
    return true;
  }

  async remove(key: string): Promise<void> {
    await this.deleteObject(checkUploadKey(key));
  }
}

/** The installation's staging area for uploads: the bucket when one is configured, else none (the data folder). */
export function uploadStagingFor(objectStorage: S3Config | undefined): UploadStaging | null {
  return objectStorage ? new S3UploadStaging(objectStorage) : null;
}
