/**
 * Content-addressed screenshot files under `<dataDir>/screenshots/<first two hex>/<sha256>`.
 *
 * Imports write through a staging batch: files land in a staging folder first, move into the store only when
 * the import is about to commit, and are removed again if the database transaction fails — so a rejected
 * import leaves no file behind.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";

const HASH_RE = /^[0-9a-f]{64}$/;

export function sha256(buf: Uint8Array): string {
  return crypto.createHash("sha256").update(buf).digest("hex");
}

export function isScreenshotHash(s: string): boolean {
  return HASH_RE.test(s);
}

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

  beginBatch(): ScreenshotBatch {
    return new ScreenshotBatch(this);
  }
}

export class ScreenshotBatch {
  private readonly staging: string;
  private readonly staged = new Set<string>();
  private readonly moved: string[] = [];
  private stagingReady: Promise<void> | null = null;

  constructor(private readonly store: ScreenshotStore) {
    this.staging = path.join(store.root, ".staging", `${process.pid}-${Date.now()}-${crypto.randomBytes(4).toString("hex")}`);
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

  /** Moves staged files into the store (rename within one filesystem). */
  async publish(): Promise<void> {
    const made = new Set<string>();
    for (const hash of this.staged) {
      const dest = this.store.pathFor(hash);
      if (fs.existsSync(dest)) continue;
      const dir = path.dirname(dest);
      if (!made.has(dir)) {
        await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
        made.add(dir);
      }
      await fsp.rename(path.join(this.staging, hash), dest);
      this.moved.push(dest);
    }
    await this.discardStaging();
  }

  /** Undoes publish() and drops anything still staged. */
  async rollback(): Promise<void> {
    for (const dest of this.moved) await fsp.rm(dest, { force: true });
    this.moved.length = 0;
    await this.discardStaging();
  }

  private async discardStaging(): Promise<void> {
    await fsp.rm(this.staging, { recursive: true, force: true });
    this.staged.clear();
    this.stagingReady = null;
  }
}
