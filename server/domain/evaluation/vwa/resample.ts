/**
 * Lanczos-3 resampling of 8-bit images, the way Pillow's `Image.resize(size, LANCZOS)` does it, which is what
 * VisualWebArena's fuzzy image match runs before SSIM. Matching its arithmetic matters: libvips (sharp) enlarges
 * with a different interpolator, and on small web images that moves SSIM by several hundredths, across the 0.8
 * threshold for some images.
 *
 * The algorithm (separable convolution):
 * - output pixel i samples the input around centre (i + 0.5) · scale, scale = in / out;
 * - when shrinking, the kernel is stretched by the scale (support 3 · scale), which anti-aliases;
 * - weights are normalised to sum 1, then held as fixed-point integers with 22 fractional bits;
 * - the horizontal pass runs first into an 8-bit intermediate (rounded and clamped), then the vertical pass;
 *   a dimension whose size does not change is not resampled.
 */

const SUPPORT = 3;
const PRECISION_BITS = 22;
const ONE = 1 << PRECISION_BITS;

function sinc(x: number): number {
  if (x === 0) return 1;
  const px = Math.PI * x;
  return Math.sin(px) / px;
}

function lanczos(x: number): number {
  return x > -SUPPORT && x < SUPPORT ? sinc(x) * sinc(x / SUPPORT) : 0;
}

interface Coefficients {
  /** First input index each output pixel reads. */
  start: Int32Array;
  /** Number of input pixels each output pixel reads. */
  count: Int32Array;
  /** Fixed-point weights, `maxCount` per output pixel. */
  weights: Int32Array;
  maxCount: number;
}

function coefficients(inSize: number, outSize: number): Coefficients {
  const scale = inSize / outSize;
  const filterScale = Math.max(scale, 1);
  const support = SUPPORT * filterScale;
  const maxCount = Math.ceil(support) * 2 + 1;
  const start = new Int32Array(outSize);
  const count = new Int32Array(outSize);
  const weights = new Int32Array(outSize * maxCount);
  const tmp = new Float64Array(maxCount);
  for (let i = 0; i < outSize; i++) {
    const centre = (i + 0.5) * scale;
    const lo = Math.max(Math.trunc(centre - support + 0.5), 0);
    const hi = Math.min(Math.trunc(centre + support + 0.5), inSize);
    const n = hi - lo;
    let sum = 0;
    for (let j = 0; j < n; j++) {
      const w = lanczos((j + lo - centre + 0.5) / filterScale);
      tmp[j] = w;
      sum += w;
    }
    for (let j = 0; j < n; j++) {
      const w = sum !== 0 ? tmp[j]! / sum : 0;
      // Round half away from zero into fixed point.
      weights[i * maxCount + j] = w < 0 ? Math.trunc(-0.5 + w * ONE) : Math.trunc(0.5 + w * ONE);
    }
    start[i] = lo;
    count[i] = n;
  }
  return { start, count, weights, maxCount };
}

function clamp8(acc: number): number {
  // Arithmetic shift floors, like C's >> on the signed accumulator.
  const v = Math.floor(acc / ONE);
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

function resampleHorizontal(src: Uint8Array, w: number, h: number, ch: number, outW: number): Uint8Array {
  const c = coefficients(w, outW);
  const out = new Uint8Array(outW * h * ch);
  for (let y = 0; y < h; y++) {
    const row = y * w * ch;
    for (let x = 0; x < outW; x++) {
      const s = c.start[x]!;
      const n = c.count[x]!;
      const k = x * c.maxCount;
      for (let b = 0; b < ch; b++) {
        let acc = ONE / 2;
        for (let j = 0; j < n; j++) acc += src[row + (s + j) * ch + b]! * c.weights[k + j]!;
        out[(y * outW + x) * ch + b] = clamp8(acc);
      }
    }
  }
  return out;
}

function resampleVertical(src: Uint8Array, w: number, h: number, ch: number, outH: number): Uint8Array {
  const c = coefficients(h, outH);
  const out = new Uint8Array(w * outH * ch);
  const stride = w * ch;
  for (let y = 0; y < outH; y++) {
    const s = c.start[y]!;
    const n = c.count[y]!;
    const k = y * c.maxCount;
    for (let i = 0; i < stride; i++) {
      let acc = ONE / 2;
      for (let j = 0; j < n; j++) acc += src[(s + j) * stride + i]! * c.weights[k + j]!;
      out[y * stride + i] = clamp8(acc);
    }
  }
  return out;
}

/** Resizes interleaved 8-bit pixels (any channel count) to outW × outH. */
export function resizeLanczos(pixels: Uint8Array, w: number, h: number, channels: number, outW: number, outH: number): Uint8Array {
  if (pixels.length !== w * h * channels) throw new Error(`resizeLanczos: ${pixels.length} bytes for ${w}×${h}×${channels}`);
  if (outW < 1 || outH < 1) throw new Error(`resizeLanczos: bad target size ${outW}×${outH}`);
  let data = pixels;
  let width = w;
  if (outW !== w) {
    data = resampleHorizontal(data, w, h, channels, outW);
    width = outW;
  }
  if (outH !== h) data = resampleVertical(data, width, h, channels, outH);
  return data === pixels ? pixels.slice() : data;
}

/** Nearest-neighbour resize (Pillow's choice for palette images): output i takes input ⌊(i + 0.5) · scale⌋. */
export function resizeNearest(pixels: Uint8Array, w: number, h: number, channels: number, outW: number, outH: number): Uint8Array {
  const out = new Uint8Array(outW * outH * channels);
  const sx = w / outW;
  const sy = h / outH;
  for (let y = 0; y < outH; y++) {
    const iy = Math.min(h - 1, Math.floor((y + 0.5) * sy));
    for (let x = 0; x < outW; x++) {
      const ix = Math.min(w - 1, Math.floor((x + 0.5) * sx));
      for (let b = 0; b < channels; b++) out[(y * outW + x) * channels + b] = pixels[(iy * w + ix) * channels + b]!;
    }
  }
  return out;
}

/** Colour × alpha / 255 (rounded), alpha last; for 2- or 4-channel pixels. */
export function premultiply(pixels: Uint8Array, channels: number): Uint8Array {
  const out = pixels.slice();
  for (let p = 0; p < out.length; p += channels) {
    const a = out[p + channels - 1]!;
    for (let b = 0; b < channels - 1; b++) {
      const t = out[p + b]! * a + 128;
      out[p + b] = (t + (t >> 8)) >> 8;
    }
  }
  return out;
}

/** Inverse of premultiply: colour × 255 / alpha, clamped; fully transparent pixels become 0. */
export function unpremultiply(pixels: Uint8Array, channels: number): Uint8Array {
  const out = pixels.slice();
  for (let p = 0; p < out.length; p += channels) {
    const a = out[p + channels - 1]!;
    for (let b = 0; b < channels - 1; b++) {
      out[p + b] = a === 0 ? 0 : Math.min(255, Math.floor((out[p + b]! * 255) / a));
    }
  }
  return out;
}
