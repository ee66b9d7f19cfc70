/**
 * Structural similarity (SSIM, Wang et al. 2004) between two greyscale images of the same size, as VisualWebArena's
 * fuzzy image match uses it: 7×7 uniform windows, K1 = 0.01, K2 = 0.03, dynamic range 255, sample (N−1)
 * covariance, and the mean SSIM over every window lying fully inside the image. Window sums come from summed-area
 * tables, so the cost is linear in the pixel count.
 *
 * Also the RGB→greyscale conversion VWA's images go through (ITU-R 601 luma, rounded to 8 bits), so that the
 * service only has to decode and resize.
 */

export interface GreyImage {
  width: number;
  height: number;
  /** Row-major luminance 0..255, length width × height. */
  data: Uint8Array | Uint8ClampedArray | Float64Array;
}

export const SSIM_WINDOW = 7;

/** 8-bit luma from interleaved pixels with 1–4 channels (alpha, if any, is ignored; 2 channels = grey + alpha). */
export function toGreyscale(pixels: Uint8Array, width: number, height: number, channels: number): GreyImage {
  if (pixels.length !== width * height * channels) {
    throw new Error(`toGreyscale: ${pixels.length} bytes for ${width}×${height}×${channels}`);
  }
  const out = new Uint8Array(width * height);
  if (channels <= 2) {
    for (let i = 0; i < out.length; i++) out[i] = pixels[i * channels]!;
  } else {
    for (let i = 0, p = 0; i < out.length; i++, p += channels) {
      // 0.299 R + 0.587 G + 0.114 B in 16-bit fixed point, rounded.
      out[i] = (pixels[p]! * 19595 + pixels[p + 1]! * 38470 + pixels[p + 2]! * 7471 + 0x8000) >>> 16;
    }
  }
  return { width, height, data: out };
}

function summedArea(w: number, h: number, value: (i: number) => number): Float64Array {
  const W = w + 1;
  const table = new Float64Array(W * (h + 1));
  for (let y = 0; y < h; y++) {
    let row = 0;
    for (let x = 0; x < w; x++) {
      row += value(y * w + x);
      table[(y + 1) * W + x + 1] = table[y * W + x + 1]! + row;
    }
  }
  return table;
}

/** Mean SSIM of two same-sized greyscale images; 1 means identical. Throws if sizes differ or are under 7 px. */
export function ssim(a: GreyImage, b: GreyImage): number {
  if (a.width !== b.width || a.height !== b.height) {
    throw new Error(`ssim: image sizes differ (${a.width}×${a.height} vs ${b.width}×${b.height})`);
  }
  const { width: w, height: h } = a;
  if (w < SSIM_WINDOW || h < SSIM_WINDOW) throw new Error(`ssim: images must be at least ${SSIM_WINDOW}×${SSIM_WINDOW} px`);
  const x = a.data;
  const y = b.data;
  const sx = summedArea(w, h, (i) => x[i]!);
  const sy = summedArea(w, h, (i) => y[i]!);
  const sxx = summedArea(w, h, (i) => x[i]! * x[i]!);
  const syy = summedArea(w, h, (i) => y[i]! * y[i]!);
  const sxy = summedArea(w, h, (i) => x[i]! * y[i]!);
  const n = SSIM_WINDOW * SSIM_WINDOW;
  const covNorm = n / (n - 1);
  const range = 255;
  const c1 = (0.01 * range) ** 2;
  const c2 = (0.03 * range) ** 2;
  const W = w + 1;
  const box = (t: Float64Array, x0: number, y0: number) =>
    t[(y0 + SSIM_WINDOW) * W + x0 + SSIM_WINDOW]! - t[y0 * W + x0 + SSIM_WINDOW]! - t[(y0 + SSIM_WINDOW) * W + x0]! + t[y0 * W + x0]!;
  let total = 0;
  let count = 0;
  for (let y0 = 0; y0 + SSIM_WINDOW <= h; y0++) {
    for (let x0 = 0; x0 + SSIM_WINDOW <= w; x0++) {
      const ux = box(sx, x0, y0) / n;
      const uy = box(sy, x0, y0) / n;
      const vx = covNorm * (box(sxx, x0, y0) / n - ux * ux);
      const vy = covNorm * (box(syy, x0, y0) / n - uy * uy);
      const vxy = covNorm * (box(sxy, x0, y0) / n - ux * uy);
      total += ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux * ux + uy * uy + c1) * (vx + vy + c2));
      count++;
    }
  }
  return total / count;
}

/** The common size both images are resized to before comparing: the larger width and the larger height. */
export function comparisonSize(a: { width: number; height: number }, b: { width: number; height: number }) {
  return { width: Math.max(a.width, b.width), height: Math.max(a.height, b.height) };
}
