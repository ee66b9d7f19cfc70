/**
 * Where screenshot bytes live: a content-addressed object store. Two kinds exist, chosen by configuration: a
 * folder on this machine (the quick start; also what every existing installation has) and an S3-compatible bucket
 * (AWS S3, MinIO, R2) for a team deployment with several web servers and runner workers.
 *
 * An object's name starts with the SHA-256 of the original screenshot: the original itself (`<hash>`) or one of
 * its resized variants (`<hash>-w320.webp`). Content never changes for a name, so `put` of an existing name does
 * nothing, objects may be cached forever, and an object written by an import whose database transaction then
 * failed is merely unused (see `unreferencedObjects` in ../screenshot-store.ts for collecting those).
 */
import type { Readable } from "node:stream";

/** `<sha256>` or `<sha256>-w<width>.<webp|avif>`: never anything from request text that is not validated. */
const OBJECT_NAME_RE = /^[0-9a-f]{64}(-w[1-9][0-9]{0,5}\.(webp|avif))?$/;

export function isObjectName(name: string): boolean {
  return OBJECT_NAME_RE.test(name);
}

/** A check of names (keys) the server makes, matching `re`: any other is refused as "Not <what>: <name>" (`what` with its article). */
export function nameCheck(re: RegExp, what: string): (name: string) => string {
  return (name) => {
    if (!re.test(name)) throw new Error(`Not ${what}: ${JSON.stringify(name)}`);
    return name;
  };
}

export const checkObjectName = nameCheck(OBJECT_NAME_RE, "a screenshot object name");

/** Objects are spread over 256 folders (or key prefixes) by the first two hex digits of their hash. */
export function shardedPath(name: string): string {
  return `${checkObjectName(name).slice(0, 2)}/${name}`;
}

export interface StoredObjectInfo {
  name: string;
  size: number;
  modified: Date;
}

export interface ObjectStore {
  /** Where the objects are, for messages: a folder path or s3://bucket/prefix. */
  readonly location: string;
  /** Stores bytes under `name` unless an object of that name exists; true when it wrote them. */
  put(name: string, bytes: Uint8Array, contentType: string): Promise<boolean>;
  /** The object's bytes as a stream, or null when there is no such object. */
  get(name: string): Promise<Readable | null>;
  /** The object's bytes, or null when there is no such object. */
  read(name: string): Promise<Buffer | null>;
  has(name: string): Promise<boolean>;
  /** Removes the object; removing a missing object is not an error. */
  delete(name: string): Promise<void>;
  /** Every object, in no particular order (for garbage collection and audits). */
  list(): AsyncIterable<StoredObjectInfo>;
  /** The file holding the object, for stores on this machine's disk; null elsewhere. */
  localPath(name: string): string | null;
  /**
   * A URL the browser may fetch the object from for `seconds`, without credentials; null when this store cannot
   * hand out such URLs (a folder). Callers check access first: the URL is a bearer token.
   */
  presignedUrl(name: string, seconds: number): Promise<string | null>;
}
