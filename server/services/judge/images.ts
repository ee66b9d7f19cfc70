/**
 * Image handling for evaluators (sharp lives here, not in the pure domain):
 * - screenshots read from the store and turned into data URLs for the judge, shrunk when a size cap is set;
 * - SSIM between two encoded images the way VisualWebArena compares them (both resized with a Lanczos kernel to
 *   the larger width and height, converted to 8-bit luma, then the pure SSIM of ../../domain/evaluators/vwa/ssim);
 * - loading eval_fuzzy_image_match references from a local folder.
 */
import fsp from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { comparisonSize, ssim, toGreyscale, type GreyImage } from "../../domain/evaluators/vwa/ssim";
import { scaledSize } from "../../domain/evaluators/judge-protocol";
import type { ScreenshotStore } from "../screenshot-store";

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
  const original = await store.read(shot.hash);
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

async function lumaAt(bytes: Uint8Array, width: number, height: number): Promise<GreyImage> {
  const { data, info } = await sharp(bytes)
    .resize({ width, height, fit: "fill", kernel: "lanczos3" })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return toGreyscale(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), info.width, info.height, info.channels);
}

/** SSIM of two encoded images after bringing both to the larger width and height. */
export async function imageSsim(a: Uint8Array, b: Uint8Array): Promise<number> {
  const [ma, mb] = await Promise.all([sharp(a).metadata(), sharp(b).metadata()]);
  if (!ma.width || !ma.height || !mb.width || !mb.height) throw new Error("imageSsim: cannot read image size");
  const size = comparisonSize({ width: ma.width, height: ma.height }, { width: mb.width, height: mb.height });
  const [ga, gb] = await Promise.all([lumaAt(a, size.width, size.height), lumaAt(b, size.width, size.height)]);
  return ssim(ga, gb);
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
