/**
 * Difference hash (dHash) of a screenshot: a fingerprint that stays the same when a page barely changes (a caret
 * blinks, a field gets a few characters) and changes when the page does. The loop heuristic compares consecutive
 * screenshots with it, so an agent whose actions leave the screen as it was is caught even when the bytes differ.
 *
 * Pure: the caller shrinks the image to (DHASH_SIZE + 1) × DHASH_SIZE grey pixels (sharp in the service); this
 * module turns those pixels into bits and compares bit strings.
 */

/** Gradient cells per row and rows: 16 × 16 = 256 bits, written as 64 hex digits. */
export const DHASH_SIZE = 16;
export const DHASH_WIDTH = DHASH_SIZE + 1;
export const DHASH_HEIGHT = DHASH_SIZE;
export const DHASH_HEX_LENGTH = (DHASH_SIZE * DHASH_SIZE) / 4;

/**
 * Two screenshots whose hashes differ in at most this many of the 256 bits show the same screen. Chosen so that
 * typing into a field or a hover highlight stays "same screen" while a scroll or a new page does not.
 */
export const NEAR_IDENTICAL_MAX_BITS = 8;

/**
 * The hash of a grey image of DHASH_WIDTH × DHASH_HEIGHT pixels, row by row (one byte per pixel): one bit per pair
 * of horizontal neighbours, set when the left pixel is brighter than the right one.
 */
export function dHashFromGrey(pixels: ArrayLike<number>): string {
  if (pixels.length !== DHASH_WIDTH * DHASH_HEIGHT) {
    throw new Error(`dHash needs ${DHASH_WIDTH}×${DHASH_HEIGHT} = ${DHASH_WIDTH * DHASH_HEIGHT} grey pixels, got ${pixels.length}`);
  }
  let hex = "";
  let nibble = 0;
  let bits = 0;
  for (let y = 0; y < DHASH_HEIGHT; y++) {
    const row = y * DHASH_WIDTH;
    for (let x = 0; x < DHASH_SIZE; x++) {
      nibble = (nibble << 1) | (pixels[row + x]! > pixels[row + x + 1]! ? 1 : 0);
      if (++bits === 4) {
        hex += nibble.toString(16);
        nibble = 0;
        bits = 0;
      }
    }
  }
  return hex;
}

const NIBBLE_BITS = [0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4];

/** Hex digit values by character code; -1 for anything else. */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let c = 0; c < 16; c++) {
  HEX_VALUE["0123456789abcdef".charCodeAt(c)] = c;
  HEX_VALUE["0123456789ABCDEF".charCodeAt(c)] = c;
}

/** Differing bits, counting stops once above `limit`; -1 when the hashes are not comparable (other length, not hex). */
function boundedDistance(a: string, b: string, limit: number): number {
  if (a.length !== b.length) return -1;
  let d = 0;
  for (let i = 0; i < a.length; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    const x = ca < 128 ? HEX_VALUE[ca]! : -1;
    const y = cb < 128 ? HEX_VALUE[cb]! : -1;
    if (x < 0 || y < 0) return -1;
    d += NIBBLE_BITS[x ^ y]!;
    if (d > limit) return d;
  }
  return d;
}

/** Number of differing bits between two hashes; null when they are not comparable (other length, not hex). */
export function hammingDistance(a: string, b: string): number | null {
  const d = boundedDistance(a, b, Infinity);
  return d < 0 ? null : d;
}

/** True when both hashes are known and differ in at most NEAR_IDENTICAL_MAX_BITS bits. */
export function nearIdenticalScreens(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  const d = boundedDistance(a, b, NEAR_IDENTICAL_MAX_BITS);
  return d >= 0 && d <= NEAR_IDENTICAL_MAX_BITS;
}
