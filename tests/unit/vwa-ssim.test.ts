/**
 * SSIM and Lanczos resampling against reference values computed with scikit-image 0.19.3
 * (`skimage.metrics.structural_similarity` with defaults) and Pillow 9.4 (`Image.resize(size, Image.LANCZOS)`)
 * on the same pixel arrays, generated here deterministically.
 */
import { describe, expect, it } from "vitest";
import { premultiply, resizeLanczos, resizeNearest, unpremultiply } from "../../server/domain/evaluation/vwa/resample";
import { comparisonSize, ssim, toGreyscale, type GreyImage } from "../../server/domain/evaluation/vwa/ssim";

/** The C library's classic LCG, byte = bits 16..23, so Python can produce the same arrays. */
function lcg(n: number, seed: number): number[] {
  const out: number[] = [];
  let x = BigInt(seed);
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245n + 12345n) % 2147483648n;
    out.push(Number((x >> 16n) % 256n));
  }
  return out;
}

const W = 23;
const H = 17;
const grey = (values: number[]): GreyImage => ({ width: W, height: H, data: Uint8Array.from(values) });
const a = lcg(W * H, 1);
const noise = lcg(W * H, 7).map((v) => (v % 41) - 20);
const b = a.map((v, i) => Math.min(255, Math.max(0, v + noise[i]!)));
const c = lcg(W * H, 99);
const gradient = Array.from({ length: W * H }, (_, i) => ((i % W) * 9 + Math.floor(i / W) * 5) % 256);
const shifted = gradient.map((_, i) => {
  const x = i % W;
  const y = Math.floor(i / W);
  return gradient[y * W + ((x - 1 + W) % W)]!;
});

describe("ssim", () => {
  it.each([
    ["identical", a, a, 1.0],
    ["mild noise", a, b, 0.9853177238457672],
    ["unrelated", a, c, 0.06825604984020973],
    ["gradient shifted by one pixel", gradient, shifted, 0.8971108851901377],
  ])("%s matches scikit-image", (_name, x, y, want) => {
    expect(ssim(grey(x), grey(y))).toBeCloseTo(want, 10);
  });

  it("is symmetric, 1 for flat identical images, and refuses mismatched or tiny images", () => {
    expect(ssim(grey(a), grey(c))).toBeCloseTo(ssim(grey(c), grey(a)), 12);
    const flat = grey(new Array(W * H).fill(77));
    expect(ssim(flat, flat)).toBe(1);
    expect(() => ssim(grey(a), { width: W - 1, height: H, data: new Uint8Array((W - 1) * H) })).toThrow(/sizes differ/);
    expect(() => ssim({ width: 6, height: 6, data: new Uint8Array(36) }, { width: 6, height: 6, data: new Uint8Array(36) })).toThrow(/at least 7×7/);
  });

  it("converts colour to luma like Pillow's convert('L')", () => {
    const rgb = Uint8Array.from([255, 0, 0, 0, 255, 0, 0, 0, 255, 200, 100, 50]);
    expect([...toGreyscale(rgb, 4, 1, 3).data]).toEqual([76, 150, 29, 124]);
    const rgba = Uint8Array.from([255, 0, 0, 0, 10, 20, 30, 255]);
    expect([...toGreyscale(rgba, 2, 1, 4).data]).toEqual([76, 18]);
    expect(comparisonSize({ width: 10, height: 40 }, { width: 30, height: 20 })).toEqual({ width: 30, height: 40 });
  });
});

describe("resizeLanczos (reference outputs from Pillow)", () => {
  const src = Uint8Array.from([
    0, 37, 74, 111, 148, 185, 222, 53, 110, 167, 224, 25, 82, 139, 106, 183, 4, 81, 18, 95, 172, 159, 0, 97, 54, 151, 108, 205, 212, 73, 50, 167, 144, 5, 238,
  ]);
  it.each([
    [
      11,
      8,
      [
        0, 9, 35, 55, 68, 95, 138, 171, 193, 219, 234, 16, 25, 61, 107, 153, 167, 124, 102, 138, 176, 191, 52, 78, 125, 145, 205, 224, 86, 2, 65, 122, 140, 77,
        148, 188, 71, 68, 136, 44, 0, 64, 134, 157, 115, 138, 127, 37, 7, 44, 53, 65, 104, 161, 191, 173, 87, 5, 70, 84, 48, 114, 144, 110, 161, 213, 214, 125,
        20, 51, 101, 124, 169, 122, 42, 143, 243, 227, 171, 72, 26, 89, 179, 190, 79, 0, 129, 255,
      ],
    ],
    [3, 2, [80, 108, 132, 108, 79, 131]],
    [
      7,
      9,
      [
        0, 31, 57, 93, 162, 198, 233, 11, 49, 112, 152, 117, 156, 198, 45, 95, 168, 220, 40, 92, 146, 80, 174, 97, 182, 0, 69, 139, 106, 183, 4, 81, 18, 95,
        172, 132, 77, 43, 32, 95, 121, 191, 167, 0, 100, 67, 158, 98, 210, 201, 39, 71, 136, 156, 34, 231, 216, 88, 41, 181, 138, 0, 241,
      ],
    ],
  ])("7×5 → %i×%i", (w, h, want) => {
    expect([...resizeLanczos(src, 7, 5, 1, w, h)]).toEqual(want);
  });

  it("keeps the size as a copy and resamples every channel alike", () => {
    const same = resizeLanczos(src, 7, 5, 1, 7, 5);
    expect([...same]).toEqual([...src]);
    expect(same).not.toBe(src);
    const rgb = new Uint8Array(src.length * 3);
    src.forEach((v, i) => rgb.set([v, v, v], i * 3));
    const out = resizeLanczos(rgb, 7, 5, 3, 3, 2);
    expect([...out].filter((_, i) => i % 3 === 0)).toEqual([80, 108, 132, 108, 79, 131]);
    expect(() => resizeLanczos(src, 7, 4, 1, 3, 2)).toThrow(/35 bytes for 7×4×1/);
  });

  it("nearest neighbour and alpha premultiplication agree with Pillow", () => {
    // Pillow NEAREST samples at the pixel centre: a 2×2 → 4×1 shrink reads row 1.
    expect([...resizeNearest(Uint8Array.from([1, 2, 3, 4]), 2, 2, 1, 4, 1)]).toEqual([3, 3, 4, 4]);
    const px = Uint8Array.from([200, 100, 50, 128, 9, 9, 9, 0]);
    const pre = premultiply(px, 4);
    expect([...pre]).toEqual([100, 50, 25, 128, 0, 0, 0, 0]);
    expect([...unpremultiply(pre, 4)]).toEqual([199, 99, 49, 128, 0, 0, 0, 0]);
  });
});
