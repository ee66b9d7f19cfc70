/**
 * Objects as files under `<root>/<first two hex>/<name>`: the layout Verdict has always used for
 * `<dataDir>/screenshots` and `<dataDir>/variants`, so existing installations keep working unchanged.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { checkObjectName, isObjectName, shardedPath, type ObjectStore, type StoredObjectInfo } from "./object-store";

function missing(e: unknown): boolean {
  return (e as NodeJS.ErrnoException).code === "ENOENT";
}

export class FolderObjectStore implements ObjectStore {
  constructor(readonly root: string) {}

  get location(): string {
    return this.root;
  }

  pathFor(name: string): string {
    return path.join(this.root, shardedPath(name));
  }

  localPath(name: string): string {
    return this.pathFor(name);
  }

  async presignedUrl(): Promise<null> {
    return null;
  }

  async put(name: string, bytes: Uint8Array): Promise<boolean> {
    const file = this.pathFor(name);
    if (fs.existsSync(file)) return false;
    await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    // A temporary name renamed into place: a concurrent reader never sees half a file, and a failed write
    // (disk full) leaves nothing behind.
    const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
    try {
      await fsp.writeFile(tmp, bytes);
      await fsp.rename(tmp, file);
    } catch (e) {
      await fsp.rm(tmp, { force: true }).catch(() => {});
      throw e;
    }
    return true;
  }

  async read(name: string): Promise<Buffer | null> {
    try {
      return await fsp.readFile(this.pathFor(name));
    } catch (e) {
      if (missing(e)) return null;
      throw e;
    }
  }

  async get(name: string): Promise<Readable | null> {
    const file = this.pathFor(name);
    try {
      const handle = await fsp.open(file, "r");
      return handle.createReadStream();
    } catch (e) {
      if (missing(e)) return null;
      throw e;
    }
  }

  async has(name: string): Promise<boolean> {
    return fs.existsSync(this.pathFor(name));
  }

  async delete(name: string): Promise<void> {
    await fsp.rm(this.pathFor(checkObjectName(name)), { force: true });
  }

  async *list(): AsyncIterable<StoredObjectInfo> {
    let shards: string[];
    try {
      shards = await fsp.readdir(this.root);
    } catch (e) {
      if (missing(e)) return;
      throw e;
    }
    for (const shard of shards.sort()) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue; // .staging and anything else that is not a shard
      let names: string[];
      try {
        names = await fsp.readdir(path.join(this.root, shard));
      } catch (e) {
        if (missing(e)) continue;
        throw e;
      }
      for (const name of names) {
        if (!isObjectName(name) || !name.startsWith(shard)) continue;
        const st = await fsp.stat(path.join(this.root, shard, name)).catch(() => null);
        if (st?.isFile()) yield { name, size: st.size, modified: st.mtime };
      }
    }
  }
}
