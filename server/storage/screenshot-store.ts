/**
 * Screenshot bytes, content-addressed by SHA-256, in the installation's object store: the data folder
 * (`<dataDir>/screenshots/<first two hex>/<sha256>`, the default) or an S3-compatible bucket
 * (`<prefix>sha256/<first two hex>/<sha256>`, when VERDICT_S3_BUCKET is set; see storage/).
 *
 * Imports write through a batch, so that a screenshot row is never committed before its bytes are stored:
 * - Folder: files land in a staging folder first and move into the store inside the transaction that adds their
 *   rows (publishSync), so a crash can leave an unused file but never a row pointing at a missing one. On SQLite,
 *   which holds the write lock meanwhile, a failed transaction moves its files back without touching files that
 *   other committed trajectories use; on PostgreSQL they stay, unused, for `collectUnreferencedObjects` (see the
 *   ingest's Committer). Staging folders of killed imports are swept when the next import starts.
 * - S3: objects are uploaded when staged, before the transaction that adds their rows; a failed transaction leaves
 *   unused objects, which are harmless (content-addressed) and removed by `collectUnreferencedObjects`. Nothing
 *   ever deletes an object an import has uploaded, so a committed row always finds its object.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import type { S3Config } from "../config";
import { readImageInfo } from "../domain/image-info";
import { ImportError } from "../importers/types";
import { FolderObjectStore } from "./folder-object-store";
import type { ObjectStore } from "./object-store";
import { S3ObjectStore } from "./s3-object-store";

import { isScreenshotHash } from "../domain/content-hash";

export { isScreenshotHash, sha256 } from "../domain/content-hash";

function missingScreenshot(hash: string, where: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`Screenshot ${hash} is missing from ${where}`), { code: "ENOENT" });
}

export class ScreenshotStore {
  /** The data folder's screenshot folder: the store itself when no bucket is configured; staging either way. */
  readonly root: string;
  /** Original screenshots, named by hash. */
  readonly originals: ObjectStore;
  /** Resized variants (derived, may be deleted at any time), named `<hash>-w<width>.<format>`. */
  readonly variants: ObjectStore;

  constructor(dataDir: string, objectStorage?: S3Config) {
    this.root = path.join(dataDir, "screenshots");
    this.originals = objectStorage ? new S3ObjectStore(objectStorage, "sha256") : new FolderObjectStore(this.root);
    this.variants = objectStorage ? new S3ObjectStore(objectStorage, "variants") : new FolderObjectStore(path.join(dataDir, "variants"));
  }

  /** True when the screenshots are in a bucket rather than in the data folder. */
  get remote(): boolean {
    return !(this.originals instanceof FolderObjectStore);
  }

  /**
   * Path of a stored file in the data folder; only ever built from a validated hash, never from user text.
   * Only for a folder store: code that must work with a bucket uses read() or localPath().
   */
  pathFor(hash: string): string {
    if (!isScreenshotHash(hash)) throw new Error(`Not a screenshot hash: ${JSON.stringify(hash)}`);
    const file = this.originals.localPath(hash);
    if (file === null) throw new Error(`Screenshots are stored in ${this.originals.location}, not in a folder of this machine`);
    return file;
  }

  /** The file of a screenshot when the store is a folder of this machine (fast paths); null with a bucket. */
  localPath(hash: string): string | null {
    return this.originals.localPath(hash);
  }

  async has(hash: string): Promise<boolean> {
    return isScreenshotHash(hash) && (await this.originals.has(hash));
  }

  /** The screenshot's bytes; a missing one throws an error with code ENOENT, as a missing file does. */
  async read(hash: string): Promise<Buffer> {
    const bytes = await this.originals.read(hash);
    if (bytes === null) throw missingScreenshot(hash, this.originals.location);
    return bytes;
  }

  /** The screenshot's bytes as a stream; a missing one throws an error with code ENOENT. */
  async stream(hash: string): Promise<Readable> {
    const body = await this.originals.get(hash);
    if (body === null) throw missingScreenshot(hash, this.originals.location);
    return body;
  }

  /** Where import batches stage files before they are published (one folder per batch). */
  get stagingRoot(): string {
    return path.join(this.root, ".staging");
  }

  beginBatch(): ScreenshotBatch {
    return this.remote ? new UploadingBatch(this.originals) : new StagedFolderBatch(this);
  }

  /**
   * Removes staging folders that imports killed half-way left behind (`kill -9`, power loss): a folder whose
   * process is gone, or older than `maxAgeMs` whatever its process. Called when an import or a worker starts.
   * Returns the folders removed.
   */
  async sweepStaleStaging(maxAgeMs = 24 * 3600_000, now = Date.now()): Promise<string[]> {
    let names: string[];
    try {
      names = await fsp.readdir(this.stagingRoot);
    } catch {
      return [];
    }
    const removed: string[] = [];
    for (const name of names) {
      const m = /^(\d+)-(\d+)-[0-9a-f]+$/.exec(name);
      if (!m) continue;
      const pid = Number(m[1]);
      const started = Number(m[2]);
      const abandoned = now - started > maxAgeMs || (pid !== process.pid && !processAlive(pid));
      if (!abandoned) continue;
      await fsp.rm(path.join(this.stagingRoot, name), { recursive: true, force: true });
      removed.push(name);
    }
    return removed;
  }
}

/** How an import (or a live run) gets screenshots into the store around the transactions that add their rows. */
export interface ScreenshotBatch {
  /**
   * Stages bytes whose hash is already known; a screenshot already in the store is not written again. Resolves once
   * the screenshot is staged, also when it repeats a put still under way (an import prepares several trajectories
   * at once, and the same screenshot often appears in more than one).
   */
  put(hash: string, bytes: Uint8Array, contentType?: string): Promise<void>;
  /** Screenshots staged and not yet published. */
  readonly size: number;
  /**
   * Makes the given staged screenshots part of the store, synchronously so that it can run inside the
   * transaction that adds their rows (running it again finds them in place). Returns an undo for a transaction
   * that then fails, for callers that hold a write lock (SQLite). A hash that is
   * neither staged here nor in the store is refused (ImportError), so a committed row never points at nothing.
   */
  publishSync(hashes: Iterable<string>, origin?: (hash: string) => string): () => void;
  /** Publishes everything staged (outside a transaction: live runs write their step afterwards). */
  publish(): Promise<void>;
  /** Undoes publish() where no row refers to a screenshot, and drops anything still staged. */
  rollback(isReferenced?: (hash: string) => boolean): Promise<void>;
  /** Drops whatever is still staged. */
  discardStaging(): Promise<void>;
}

function contentTypeOf(bytes: Uint8Array): string {
  return readImageInfo(bytes)?.mime ?? "application/octet-stream";
}

/**
 * A batch for a bucket: put() uploads at once (skipping objects the bucket has), so every object exists before
 * any transaction can commit a row naming it. Nothing is ever deleted here: an upload whose trajectory then fails
 * is an unused object for garbage collection, never a hole under another import's committed row.
 */
class UploadingBatch implements ScreenshotBatch {
  private readonly stored = new Set<string>();
  private readonly uploading = new Map<string, Promise<void>>();

  constructor(private readonly objects: ObjectStore) {}

  async put(hash: string, bytes: Uint8Array, contentType?: string): Promise<void> {
    if (this.stored.has(hash)) return;
    if (!isScreenshotHash(hash)) throw new Error(`Not a screenshot hash: ${JSON.stringify(hash)}`);
    let upload = this.uploading.get(hash);
    if (!upload) {
      upload = this.objects.put(hash, bytes, contentType ?? contentTypeOf(bytes)).then(() => void this.stored.add(hash));
      this.uploading.set(hash, upload);
      void upload.finally(() => this.uploading.delete(hash)).catch(() => undefined);
    }
    await upload;
  }

  get size(): number {
    return 0;
  }

  publishSync(hashes: Iterable<string>, origin: (hash: string) => string = (h) => h): () => void {
    for (const hash of hashes) {
      if (!this.stored.has(hash))
        throw new ImportError(origin(hash), `image ${hash.slice(0, 12)}… was not uploaded to ${this.objects.location} before its rows were written`);
    }
    return () => {};
  }

  async publish(): Promise<void> {}

  async rollback(): Promise<void> {}

  async discardStaging(): Promise<void> {
    this.stored.clear();
  }
}

/** A batch for the data folder: staged files, moved into the store under the transaction's write lock. */
class StagedFolderBatch implements ScreenshotBatch {
  private readonly staging: string;
  private readonly staged = new Set<string>();
  private readonly moved: string[] = [];
  private readonly madeDirs = new Set<string>();
  private readonly writing = new Map<string, Promise<void>>();
  private stagingReady: Promise<void> | null = null;

  constructor(private readonly store: ScreenshotStore) {
    this.staging = path.join(store.stagingRoot, `${process.pid}-${Date.now()}-${crypto.randomBytes(4).toString("hex")}`);
  }

  async put(hash: string, bytes: Uint8Array): Promise<void> {
    const pending = this.writing.get(hash);
    if (pending) return pending;
    if (this.staged.has(hash) || fs.existsSync(this.store.pathFor(hash))) return;
    this.staged.add(hash);
    const write = (async () => {
      this.stagingReady ??= fsp.mkdir(this.staging, { recursive: true, mode: 0o700 }).then(() => undefined);
      await this.stagingReady;
      await fsp.writeFile(path.join(this.staging, hash), bytes);
    })();
    this.writing.set(hash, write);
    try {
      await write;
    } catch (e) {
      // Not staged after all: publishing it would name a file that is not there.
      this.staged.delete(hash);
      throw e;
    } finally {
      this.writing.delete(hash);
    }
  }

  get size(): number {
    return this.staged.size;
  }

  /**
   * Moves the given staged files into the store, synchronously so that it can run inside the SQLite write
   * transaction that adds their rows: with the write lock held, no other import can commit or roll back around
   * it. Returns an undo that moves them back to staging (still usable by a later trajectory of this batch).
   *
   * A hash that is neither staged here nor in the store (another import's rollback removed it after this one
   * saw it) is refused, so a committed row never points at a missing file.
   */
  publishSync(hashes: Iterable<string>, origin: (hash: string) => string = (h) => h): () => void {
    const movedNow: string[] = [];
    const undo = () => {
      for (const hash of movedNow.splice(0)) {
        fs.renameSync(this.store.pathFor(hash), path.join(this.staging, hash));
        this.staged.add(hash);
      }
    };
    try {
      for (const hash of new Set(hashes)) {
        const dest = this.store.pathFor(hash);
        if (fs.existsSync(dest)) continue;
        if (!this.staged.has(hash)) {
          throw new ImportError(
            origin(hash),
            `image ${hash.slice(0, 12)}… vanished from the screenshot store during the import (another import rolled back); import again`,
          );
        }
        const dir = path.dirname(dest);
        if (!this.madeDirs.has(dir)) {
          fs.mkdirSync(dir, { recursive: true });
          this.madeDirs.add(dir);
        }
        fs.renameSync(path.join(this.staging, hash), dest);
        this.staged.delete(hash);
        movedNow.push(hash);
      }
    } catch (e) {
      undo();
      throw e;
    }
    return undo;
  }

  /** Moves staged files into the store (rename within one filesystem). */
  async publish(): Promise<void> {
    for (const hash of this.staged) {
      const dest = this.store.pathFor(hash);
      if (fs.existsSync(dest)) continue;
      const dir = path.dirname(dest);
      if (!this.madeDirs.has(dir)) {
        await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
        this.madeDirs.add(dir);
      }
      await fsp.rename(path.join(this.staging, hash), dest);
      this.moved.push(dest);
    }
    await this.discardStaging();
  }

  /**
   * Undoes publish() and drops anything still staged. A published file is removed only when no screenshot row
   * refers to it (`isReferenced`): another import may have committed a trajectory that uses the same image.
   */
  async rollback(isReferenced: (hash: string) => boolean = () => false): Promise<void> {
    for (const dest of this.moved) {
      if (!isReferenced(path.basename(dest))) await fsp.rm(dest, { force: true });
    }
    this.moved.length = 0;
    await this.discardStaging();
  }

  /** Removes the staging folder and whatever is still in it (files never published). */
  async discardStaging(): Promise<void> {
    await fsp.rm(this.staging, { recursive: true, force: true });
    this.staged.clear();
    this.stagingReady = null;
  }
}

/** Whether a process with this id runs on this machine (EPERM: it exists but belongs to someone else). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
