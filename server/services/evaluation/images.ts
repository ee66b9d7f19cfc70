/**
 * Image handling for evaluators (sharp lives here, not in the pure domain):
 * - screenshots read from the store and turned into data URLs for the judge, shrunk when a size cap is set;
 * - SSIM between two encoded images the way VisualWebArena compares them: sharp only decodes; resizing to the
 *   larger width and height (Pillow-style Lanczos), luma and SSIM are the pure code in ../../domain/evaluation/vwa;
 * - loading eval_fuzzy_image_match references from a local folder.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { loadSharp } from "../images";
import { premultiply, resizeLanczos, resizeNearest, unpremultiply } from "../../domain/evaluation/vwa/resample";
import { comparisonSize, ssim, toGreyscale, type GreyImage } from "../../domain/evaluation/vwa/ssim";
import { scaledSize } from "../../domain/evaluation/judge-protocol";
import type { ScreenshotStore } from "../../storage/screenshot-store";

export interface PreparedImage {
  dataUrl: string;
  mime: string;
  width: number;
  height: number;
  bytes: number;
  resized: boolean;
}

/** A stored screenshot as a data URL; re-encoded in its own format (GIF as PNG) when it must shrink to maxSide. */
export async function prepareScreenshot(
  store: ScreenshotStore,
  shot: { hash: string; mime: string; width: number; height: number },
  maxSide: number | null,
): Promise<PreparedImage> {
  // From a folder store, synchronous on purpose: screenshots are small files, and at batch concurrency the async path's several
  // thread-pool round trips per file delayed requests by tens of milliseconds each.
  const file = store.localPath(shot.hash);
  const original = file ? fs.readFileSync(file) : await store.read(shot.hash);
  const target = scaledSize(shot.width, shot.height, maxSide);
  if (target.width === shot.width && target.height === shot.height) {
    return {
      dataUrl: `data:${shot.mime};base64,${original.toString("base64")}`,
      mime: shot.mime,
      width: shot.width,
      height: shot.height,
      bytes: original.byteLength,
      resized: false,
    };
  }
  const sharp = await loadSharp();
  let pipeline = sharp(original).resize({ width: target.width, height: target.height, fit: "fill", kernel: "lanczos3" });
  let mime = shot.mime;
  if (mime === "image/jpeg") pipeline = pipeline.jpeg({ quality: 90 });
  else if (mime === "image/webp") pipeline = pipeline.webp({ quality: 90 });
  else {
    pipeline = pipeline.png();
    mime = "image/png";
  }
  const out = await pipeline.toBuffer();
  return {
    dataUrl: `data:${mime};base64,${out.toString("base64")}`,
    mime,
    width: target.width,
    height: target.height,
    bytes: out.byteLength,
    resized: true,
  };
}

interface Decoded {
  data: Uint8Array;
  width: number;
  height: number;
  channels: number;
  isPalette: boolean;
}

async function decode(bytes: Uint8Array): Promise<Decoded> {
  const sharp = await loadSharp();
  const img = sharp(bytes);
  const meta = await img.metadata();
  const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
  return {
    data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    width: info.width,
    height: info.height,
    channels: info.channels,
    isPalette: !!meta.isPalette,
  };
}

/**
 * Brings a decoded image to width × height as Pillow would before VWA's SSIM: Lanczos-3 (nearest neighbour for
 * palette images, which Pillow never filters), with colour premultiplied by alpha while resampling, then 8-bit luma.
 */
function lumaAt(img: Decoded, width: number, height: number): GreyImage {
  const { channels: ch } = img;
  if (img.width === width && img.height === height) return toGreyscale(img.data, width, height, ch);
  if (img.isPalette) return toGreyscale(resizeNearest(img.data, img.width, img.height, ch, width, height), width, height, ch);
  const hasAlpha = ch === 2 || ch === 4;
  if (!hasAlpha) return toGreyscale(resizeLanczos(img.data, img.width, img.height, ch, width, height), width, height, ch);
  const pre = premultiply(img.data, ch);
  const resized = resizeLanczos(pre, img.width, img.height, ch, width, height);
  return toGreyscale(unpremultiply(resized, ch), width, height, ch);
}

/** SSIM of two encoded images after bringing both to the larger width and height. */
export async function imageSsim(a: Uint8Array, b: Uint8Array): Promise<number> {
  const [da, db] = await Promise.all([decode(a), decode(b)]);
  const size = comparisonSize(da, db);
  return ssim(lumaAt(da, size.width, size.height), lumaAt(db, size.width, size.height));
}

/**
 * A reference-image loader for eval_fuzzy_image_match that reads paths relative to `rootDir` (e.g. a
 * VisualWebArena checkout). URLs and paths outside the root give null: they are unavailable here.
 */
export function localReferenceImages(rootDir: string): (spec: string) => Promise<Uint8Array | null> {
  const root = path.resolve(rootDir);
  return async (spec) => {
    if (!spec || /^[a-z][a-z0-9+.-]*:/i.test(spec)) return null;
    const full = path.resolve(root, spec);
    if (full !== root && !full.startsWith(root + path.sep)) return null;
    try {
      return await fsp.readFile(full);
    } catch {
      return null;
    }
  };
}
