/**
 * Finished live-run bundles in the installation's bucket.
 *
 * A runner worker writes each live trajectory's native bundle (manifest.json, images/, downloads/, sometimes
 * network.har) into its own data folder while it records. In a team deployment the workers run on several hosts, so
 * a bundle left there could only be found on whichever host ran the task. With a bucket configured the worker
 * therefore copies the finished folder to `<prefix>live-runs/run-<runId>/trajectory-<trajectoryId>/<relative path>`
 * (the folder's own layout, so a copy of the prefix is an importable bundle again) and then drops its local copy.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type { S3Config } from "../config";
import { s3ClientFor, s3Sdk } from "./s3-object-store";

/** Files uploaded at once: a bundle has two screenshots per step, and one at a time is slow on a remote bucket. */
const PARALLEL_UPLOADS = 4;

/**
 * Files up to this size are sent from memory, which the SDK can send again when a request fails part-way; larger
 * ones (a big download the agent made) are streamed from disk.
 */
const IN_MEMORY_BYTES = 16 * 1024 * 1024;

/** Content types by file extension, so the bucket's console and a browser following a link show files properly. */
const CONTENT_TYPES: Record<string, string> = {
  ".json": "application/json",
  ".har": "application/json",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".gif": "image/gif",
};

export interface UploadedBundle {
  /** Where the bundle now is: s3://bucket/<prefix>live-runs/run-<runId>/trajectory-<trajectoryId>/. */
  location: string;
  /** Relative paths of the uploaded files, with "/" separators. */
  files: string[];
  /** Objects of an earlier attempt at the same trajectory that the new bundle no longer has, now removed. */
  removedStale: number;
}

/** The bundle's files as paths relative to `dir`; anything but files and folders is refused, not silently left out. */
async function filesOf(dir: string, relative = ""): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fsp.readdir(path.join(dir, relative), { withFileTypes: true })) {
    const rel = relative ? `${relative}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await filesOf(dir, rel)));
    else if (entry.isFile()) out.push(rel);
    else throw new Error(`${path.join(dir, rel)} is neither a file nor a folder`);
  }
  return out;
}

export class LiveBundleBucket {
  constructor(private readonly config: S3Config) {}

  /** The key prefix of one trajectory's bundle; it ends in "/", so trajectory-1/ never covers trajectory-12/. */
  keyPrefix(runId: number, trajectoryId: number): string {
    return `${this.config.keyPrefix}live-runs/run-${runId}/trajectory-${trajectoryId}/`;
  }

  /** Where a trajectory's bundle is kept, for the trajectory's source and for messages. */
  location(runId: number, trajectoryId: number): string {
    return `s3://${this.config.bucket}/${this.keyPrefix(runId, trajectoryId)}`;
  }

  /**
   * Copies every file of the bundle folder `dir` into the bucket, then removes objects an earlier attempt at the same
   * trajectory left under its prefix (a task that started over keeps its trajectory id), so the prefix holds exactly
   * this bundle. Throws on the first failure; the folder itself is never touched here.
   */
  async upload(dir: string, runId: number, trajectoryId: number): Promise<UploadedBundle> {
    const [sdk, client] = await Promise.all([s3Sdk(), s3ClientFor(this.config)]);
    const prefix = this.keyPrefix(runId, trajectoryId);
    const files = await filesOf(dir);
    const queue = [...files];
    const uploadNext = async (): Promise<void> => {
      for (let rel = queue.shift(); rel !== undefined; rel = queue.shift()) {
        const file = path.join(dir, ...rel.split("/"));
        try {
          const size = (await fsp.stat(file)).size;
          await client.send(
            new sdk.PutObjectCommand({
              Bucket: this.config.bucket,
              Key: prefix + rel,
              Body: size <= IN_MEMORY_BYTES ? await fsp.readFile(file) : fs.createReadStream(file),
              ContentLength: size,
              ContentType: CONTENT_TYPES[path.extname(rel).toLowerCase()] ?? "application/octet-stream",
            }),
          );
        } catch (e) {
          // The bundle stays in the folder anyway: the other uploads need not go on.
          queue.length = 0;
          throw e;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_UPLOADS, files.length) }, uploadNext));

    const keep = new Set(files.map((rel) => prefix + rel));
    const stale: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new sdk.ListObjectsV2Command({ Bucket: this.config.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const o of page.Contents ?? []) if (o.Key && !keep.has(o.Key)) stale.push(o.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    for (const key of stale) await client.send(new sdk.DeleteObjectCommand({ Bucket: this.config.bucket, Key: key }));
    return { location: this.location(runId, trajectoryId), files, removedStale: stale.length };
  }
}

/** Where finished live-run bundles go: the bucket when one is configured, else nowhere (they stay in the data folder). */
export function liveBundleBucketFor(objectStorage: S3Config | undefined): LiveBundleBucket | null {
  return objectStorage ? new LiveBundleBucket(objectStorage) : null;
}
