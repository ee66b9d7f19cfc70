/**
 * Content-addressed screenshot files under `<dataDir>/screenshots/<first two hex>/<sha256>`.
 *
 * Imports write through a staging batch: files land in a staging folder first and move into the store inside
 * the SQLite transaction that adds their rows (publishSync), so a crash can leave an unused file but never a row
 * pointing at a missing one, and a failed transaction moves its files back without touching files that other
 * committed trajectories use. Staging folders of killed imports are swept when the next import starts.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { ImportError } from "../importers/types";

import { isScreenshotHash } from "../domain/content-hash";

export { isScreenshotHash, sha256 } from "../domain/content-hash";

export class ScreenshotStore {
  readonly root: string;
  constructor(dataDir: string) {
    this.root = path.join(dataDir, "screenshots");
  }

  /** Path of a stored file; only ever built from a validated hash, never from user text. */
  pathFor(hash: string): string {
    if (!isScreenshotHash(hash)) throw new Error(`Not a screenshot hash: ${JSON.stringify(hash)}`);
    return path.join(this.root, hash.slice(0, 2), hash);
  }

  has(hash: string): boolean {
    return fs.existsSync(this.pathFor(hash));
  }

  async read(hash: string): Promise<Buffer> {
    return fsp.readFile(this.pathFor(hash));
  }

  /** Where import batches stage files before they are published (one folder per batch). */
  get stagingRoot(): string {
    return path.join(this.root, ".staging");
  }

  beginBatch(): ScreenshotBatch {
    return new ScreenshotBatch(this);
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

export class ScreenshotBatch {
  private readonly staging: string;
  private readonly staged = new Set<string>();
  private readonly moved: string[] = [];
  private readonly madeDirs = new Set<string>();
  private stagingReady: Promise<void> | null = null;

  constructor(private readonly store: ScreenshotStore) {
    this.staging = path.join(store.stagingRoot, `${process.pid}-${Date.now()}-${crypto.randomBytes(4).toString("hex")}`);
  }

  /** Stages bytes whose hash is already known; a file already in the store is not written again. */
  async put(hash: string, bytes: Uint8Array): Promise<void> {
    if (this.staged.has(hash) || this.store.has(hash)) return;
    this.staged.add(hash);
    this.stagingReady ??= fsp.mkdir(this.staging, { recursive: true, mode: 0o700 }).then(() => undefined);
    await this.stagingReady;
    await fsp.writeFile(path.join(this.staging, hash), bytes);
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
          throw new ImportError(origin(hash), `image ${hash.slice(0, 12)}… vanished from the screenshot store during the import (another import rolled back); import again`);
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
