/**
 * Objects in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, …) under content-addressed keys:
 * `<prefix><namespace>/<first two hex>/<name>`, e.g. `verdict/sha256/ab/ab12…` for an original screenshot and
 * `verdict/variants/ab/ab12…-w320.webp` for a resized variant.
 */
import type { Readable } from "node:stream";
import type { S3Client, S3ServiceException } from "@aws-sdk/client-s3";
import type { S3Config } from "../config";
import { isObjectName, shardedPath, type ObjectStore, type StoredObjectInfo } from "./object-store";

/** Objects never change for a key: caches (and a browser following a presigned URL) may keep them forever. */
const IMMUTABLE = "private, max-age=31536000, immutable";

/** The bucket has no object under the key asked for. */
export function notFound(e: unknown): boolean {
  const err = e as S3ServiceException;
  return err?.$metadata?.httpStatusCode === 404 || err?.name === "NoSuchKey" || err?.name === "NotFound";
}

type S3Sdk = typeof import("@aws-sdk/client-s3");
let sdkLoading: Promise<S3Sdk> | null = null;

/**
 * The AWS SDK, loaded on first use: it is large, and installations without a bucket (and every CLI command and
 * worker process that never touches one) should not pay for loading it.
 */
export function s3Sdk(): Promise<S3Sdk> {
  sdkLoading ??= import("@aws-sdk/client-s3");
  return sdkLoading;
}

/** One client per bucket configuration and process: it keeps the connections to the store open. */
const clients = new Map<string, S3Client>();

export async function s3ClientFor(config: S3Config): Promise<S3Client> {
  const key = JSON.stringify([config.endpoint, config.region, config.accessKeyId, config.forcePathStyle]);
  let client = clients.get(key);
  if (!client) {
    const { S3Client } = await s3Sdk();
    client = new S3Client({
      endpoint: config.endpoint,
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      credentials: config.accessKeyId && config.secretAccessKey ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } : undefined,
      // Checksums only where S3 requires them: several S3-compatible servers refuse the SDK's default
      // aws-chunked trailers, and every object's name is already the SHA-256 of its bytes.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
    clients.set(key, client);
  }
  return client;
}

/**
 * One folder of the bucket, `<key prefix><folder>/`: where its objects are, the SDK to reach them, and reading or
 * deleting one of them by its name in the folder.
 */
export abstract class S3Folder {
  protected readonly prefix: string;

  constructor(
    protected readonly config: S3Config,
    folder: string,
  ) {
    this.prefix = `${config.keyPrefix}${folder}/`;
  }

  get location(): string {
    return `s3://${this.config.bucket}/${this.prefix}`;
  }

  /** The client and the SDK's commands, loaded on first use. */
  protected async sdk(): Promise<{ client: S3Client; sdk: S3Sdk }> {
    const [client, sdk] = await Promise.all([s3ClientFor(this.config), s3Sdk()]);
    return { client, sdk };
  }

  /** The object `name` of this folder, or null when the bucket has none. */
  protected async openObject(name: string): Promise<{ body: Readable; size: number } | null> {
    const { sdk, client } = await this.sdk();
    try {
      const res = await client.send(new sdk.GetObjectCommand({ Bucket: this.config.bucket, Key: this.prefix + name }));
      if (!res.Body) return null;
      return { body: res.Body as Readable, size: res.ContentLength ?? 0 };
    } catch (e) {
      if (notFound(e)) return null;
      throw e;
    }
  }

  /** Deletes the object `name` of this folder; a missing one is not an error (S3 answers a delete either way). */
  protected async deleteObject(name: string): Promise<void> {
    const { sdk, client } = await this.sdk();
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.prefix + name }));
  }
}

export class S3ObjectStore extends S3Folder implements ObjectStore {
  /** `namespace` separates originals ("sha256") from variants ("variants") in the bucket. */
  constructor(config: S3Config, namespace: "sha256" | "variants") {
    super(config, namespace);
  }

  private client(): Promise<S3Client> {
    return s3ClientFor(this.config);
  }

  keyFor(name: string): string {
    return `${this.prefix}${shardedPath(name)}`;
  }

  localPath(): null {
    return null;
  }

  async has(name: string): Promise<boolean> {
    const { client, sdk } = await this.sdk();
    try {
      await client.send(new sdk.HeadObjectCommand({ Bucket: this.config.bucket, Key: this.keyFor(name) }));
      return true;
    } catch (e) {
      if (notFound(e)) return false;
      throw e;
    }
  }

  async put(name: string, bytes: Uint8Array, contentType: string): Promise<boolean> {
    // Content-addressed: an existing object already holds these bytes; skip the upload.
    if (await this.has(name)) return false;
    const { client, sdk } = await this.sdk();
    await client.send(
      new sdk.PutObjectCommand({
        Bucket: this.config.bucket,
        Key: this.keyFor(name),
        Body: bytes,
        ContentType: contentType,
        ContentLength: bytes.byteLength,
        CacheControl: IMMUTABLE,
      }),
    );
    return true;
  }

  async get(name: string): Promise<Readable | null> {
    const { client, sdk } = await this.sdk();
    try {
      const res = await client.send(new sdk.GetObjectCommand({ Bucket: this.config.bucket, Key: this.keyFor(name) }));
      return (res.Body as Readable | undefined) ?? null;
    } catch (e) {
      if (notFound(e)) return null;
      throw e;
    }
  }

  async read(name: string): Promise<Buffer | null> {
    const { client, sdk } = await this.sdk();
    try {
      const res = await client.send(new sdk.GetObjectCommand({ Bucket: this.config.bucket, Key: this.keyFor(name) }));
      if (!res.Body) return null;
      return Buffer.from(await res.Body.transformToByteArray());
    } catch (e) {
      if (notFound(e)) return null;
      throw e;
    }
  }

  async delete(name: string): Promise<void> {
    const { client, sdk } = await this.sdk();
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.keyFor(name) }));
  }

  async *list(): AsyncIterable<StoredObjectInfo> {
    const { client, sdk } = await this.sdk();
    let token: string | undefined;
    do {
      const page = await client.send(new sdk.ListObjectsV2Command({ Bucket: this.config.bucket, Prefix: this.prefix, ContinuationToken: token }));
      for (const o of page.Contents ?? []) {
        const name = o.Key?.slice(this.prefix.length).split("/")[1];
        if (name && isObjectName(name) && o.Key === this.keyFor(name)) yield { name, size: o.Size ?? 0, modified: o.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async presignedUrl(name: string, seconds: number): Promise<string | null> {
    const [{ GetObjectCommand }, { getSignedUrl }] = await Promise.all([s3Sdk(), import("@aws-sdk/s3-request-presigner")]);
    return getSignedUrl(await this.client(), new GetObjectCommand({ Bucket: this.config.bucket, Key: this.keyFor(name) }), { expiresIn: seconds });
  }
}
