/**
 * Screenshots as the browser gets them: the original bytes (for zoom) or a resized WebP/AVIF variant made
 * with sharp on first request and cached under `<dataDir>/variants/<first two hex>/<hash>-w<width>.<format>`.
 *
 * Variants are derived data: deleting the folder is always safe. They are written to a temporary name and
 * renamed into place, so a concurrent reader never sees half a file, and concurrent requests for the same
 * variant share one encode.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import type { Db } from "../../db/client";
import { getScreenshot } from "../../db/repositories/screenshots";
import { VARIANT_MIME, type VariantRequest } from "../domain/image-variants";
import { NotFoundError } from "../errors";
import { isScreenshotHash, type ScreenshotStore } from "./screenshot-store";

export interface ImageDeps {
  db: Db;
  store: ScreenshotStore;
  config: { dataDir: string };
}

export interface ServedImage {
  body: Buffer;
  mime: string;
  /** Strong validator: the content is fully determined by hash + variant. */
  etag: string;
}

const inFlight = new Map<string, Promise<Buffer>>();

export function variantPath(dataDir: string, hash: string, width: number, format: string): string {
  if (!isScreenshotHash(hash)) throw new Error(`Not a screenshot hash: ${JSON.stringify(hash)}`);
  return path.join(dataDir, "variants", hash.slice(0, 2), `${hash}-w${width}.${format}`);
}

async function encodeVariant(source: Buffer, width: number, resize: boolean, format: "webp" | "avif"): Promise<Buffer> {
  let img = sharp(source, { failOn: "none" });
  if (resize) img = img.resize({ width, withoutEnlargement: true });
  // Screenshots are mostly text and flat colour: these settings keep small text legible at a fraction of the
  // PNG's size. Thumbnails tolerate more loss.
  // Effort 2 encodes about twice as fast as the default 4 for a few percent more bytes: variants are made on
  // first view, so encode time is latency.
  if (format === "avif") return img.avif({ quality: width <= 320 ? 45 : 55, effort: 2 }).toBuffer();
  return img.webp({ quality: width <= 320 ? 70 : 80, effort: 2 }).toBuffer();
}

/**
 * The bytes to serve for `hash` as `req` asks. Unknown, malformed or missing hashes are a NotFoundError
 * (the route answers 404): nothing here ever turns request text into a filesystem path.
 */
export async function getScreenshotImage(deps: ImageDeps, hash: string, req: VariantRequest): Promise<ServedImage> {
  if (!isScreenshotHash(hash)) throw new NotFoundError("screenshot", hash);
  const row = getScreenshot(deps.db, hash);
  if (!row) throw new NotFoundError("screenshot", hash);

  const readOriginal = async () => {
    try {
      return await deps.store.read(hash);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") throw new NotFoundError("screenshot file", hash);
      throw e;
    }
  };

  if (req.kind === "original") {
    return { body: await readOriginal(), mime: row.mime, etag: `"${hash}"` };
  }

  // A width at or beyond the original's is the original's width: one file for all of them.
  const width = req.width === null ? row.width : Math.min(req.width, row.width);
  const file = variantPath(deps.config.dataDir, hash, width, req.format);
  const etag = `"${hash}-w${width}.${req.format}"`;
  const mime = VARIANT_MIME[req.format];

  const cached = await fsp.readFile(file).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return null;
    throw e;
  });
  if (cached) return { body: cached, mime, etag };

  let pending = inFlight.get(file);
  if (!pending) {
    pending = (async () => {
      const source = await readOriginal();
      const body = await encodeVariant(source, width, width < row.width, req.format);
      await fsp.mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
      await fsp.writeFile(tmp, body);
      await fsp.rename(tmp, file);
      return body;
    })().finally(() => inFlight.delete(file));
    inFlight.set(file, pending);
  }
  return { body: await pending, mime, etag };
}

/**
 * Makes the variants a viewer is about to ask for, in order, a few at a time, in the background. The player
 * calls this once it knows its display width, so stepping finds each next image already encoded.
 * Returns at once; failures are logged, never thrown (a missing file is a 404 when actually requested).
 */
export function warmVariants(deps: ImageDeps, hashes: string[], req: Extract<VariantRequest, { kind: "variant" }>, concurrency = 2): number {
  const queue = [...new Set(hashes)].filter((h) => isScreenshotHash(h));
  const work = async () => {
    for (let h = queue.shift(); h !== undefined; h = queue.shift()) {
      await getScreenshotImage(deps, h, req).catch((e: unknown) => {
        if (!(e instanceof NotFoundError)) console.error(`warming variant of ${h} failed:`, e);
      });
    }
  };
  const n = queue.length;
  for (let i = 0; i < Math.min(concurrency, n); i++) void work();
  return n;
}

/** Removes every cached variant (they are rebuilt on demand). */
export async function clearVariants(dataDir: string): Promise<void> {
  await fsp.rm(path.join(dataDir, "variants"), { recursive: true, force: true });
}

/** True when a variant is already on disk (used by tests and warm-up). */
export function hasVariant(dataDir: string, hash: string, width: number, format: string): boolean {
  return fs.existsSync(variantPath(dataDir, hash, width, format));
}
