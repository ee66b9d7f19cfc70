/**
 * Screenshot-level checks a scanner can make from pixels alone: a blank page (an empty white tab, a page that
 * failed to render, a black frame) looks the same whatever the site, so it is told from how uniform the image is,
 * not from any text. The service (server/services/evaluation/scanners.ts) decodes each screenshot once into a small
 * greyscale thumbnail (BLANK_THUMBNAIL_SIDE × BLANK_THUMBNAIL_SIDE); this module only measures it.
 */

/** Side of the greyscale thumbnail the check reads: small enough to decode fast, large enough to see a line of text. */
export const BLANK_THUMBNAIL_SIDE = 48;
/** Grey levels either side of the commonest one still counted as "the same colour" (JPEG noise, anti-aliasing). */
export const GREY_TOLERANCE = 6;
/** Share of pixels within the tolerance of the commonest grey from which a screenshot counts as blank. */
export const DEFAULT_BLANK_SHARE = 0.985;

export interface Uniformity {
  /** The commonest grey level (0 black … 255 white). */
  dominantGrey: number;
  /** Share of pixels within GREY_TOLERANCE of it, 0–1. */
  share: number;
}

/** How much of a greyscale image is one colour. An empty image is not uniform (share 0). */
export function uniformity(grey: ArrayLike<number>): Uniformity {
  const histogram = new Array<number>(256).fill(0);
  for (let i = 0; i < grey.length; i++) histogram[grey[i]! & 255]!++;
  let dominantGrey = 0;
  for (let g = 1; g < 256; g++) if (histogram[g]! > histogram[dominantGrey]!) dominantGrey = g;
  let near = 0;
  for (let g = Math.max(0, dominantGrey - GREY_TOLERANCE); g <= Math.min(255, dominantGrey + GREY_TOLERANCE); g++) near += histogram[g]!;
  return { dominantGrey, share: grey.length ? near / grey.length : 0 };
}

/** The evidence a blank-page match shows: "99% of the screenshot is one colour (white)". */
export function describeUniformity(u: Uniformity): string {
  const colour = u.dominantGrey >= 230 ? "white" : u.dominantGrey <= 25 ? "black" : `grey ${u.dominantGrey}`;
  return `${Math.floor(u.share * 1000) / 10}% of the screenshot is one colour (${colour})`;
}
