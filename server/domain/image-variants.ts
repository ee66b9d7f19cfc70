/**
 * Which resized screenshot variants exist, and how a request asks for one.
 *
 * Widths are snapped to a short list so that every client asking for "about 700 px" shares one cached file
 * (and one browser cache entry) instead of producing a variant per window size.
 */
export const VARIANT_WIDTHS = [120, 160, 320, 640, 720, 800, 960, 1280, 1920] as const;
export const VARIANT_FORMATS = ["webp", "avif"] as const;
export type VariantFormat = (typeof VARIANT_FORMATS)[number];

export const VARIANT_MIME: Record<VariantFormat, string> = { webp: "image/webp", avif: "image/avif" };

/** The smallest allowed width at least `wanted` (the largest when none is), so images are never shown blurred. */
export function snapVariantWidth(wanted: number): number {
  if (!Number.isFinite(wanted) || wanted <= 0) return VARIANT_WIDTHS[0];
  for (const w of VARIANT_WIDTHS) if (w >= wanted) return w;
  return VARIANT_WIDTHS[VARIANT_WIDTHS.length - 1]!;
}

/**
 * The stage widths the player asks for on desktop windows (1280 to 1920 px wide, device pixel ratio 1 and 2 for
 * the smaller ones; a 1280×800 window draws the stage about 674 px wide, hence 720): the first screenshot of a newly imported trajectory is encoded at each ahead of its first
 * view. A width at or beyond an image's own is its original width, so small screenshots need fewer files.
 */
export const FIRST_VIEW_WIDTHS = [720, 800, 960, 1280] as const;
/**
 * The filmstrip's thumbnail width (its cells draw them 112 px wide; a 120 px WebP is about half the bytes of the
 * 160 px one it used to fetch, and looks the same there), and how many thumbnails a desktop window shows at first.
 */
export const THUMBNAIL_WIDTH = 120;
export const FIRST_VIEW_THUMBNAILS = 12;

export type VariantRequest = { kind: "original" } | { kind: "variant"; width: number | null; format: VariantFormat };

/**
 * Reads `?w=` and `?f=` from a screenshot URL. No parameters → the original bytes. A width without a format
 * means WebP (every browser we target decodes it, and it encodes an order of magnitude faster than AVIF).
 */
export function parseVariantRequest(params: URLSearchParams): { ok: true; value: VariantRequest } | { ok: false; error: string } {
  const w = params.get("w");
  const f = params.get("f");
  if (w === null && f === null) return { ok: true, value: { kind: "original" } };
  let width: number | null = null;
  if (w !== null) {
    if (!/^\d{1,5}$/.test(w) || Number(w) === 0) return { ok: false, error: `w must be a positive integer width in pixels, got ${JSON.stringify(w)}` };
    width = snapVariantWidth(Number(w));
  }
  let format: VariantFormat = "webp";
  if (f !== null) {
    if (!(VARIANT_FORMATS as readonly string[]).includes(f)) {
      return { ok: false, error: `f must be one of ${VARIANT_FORMATS.join(", ")}, got ${JSON.stringify(f)}` };
    }
    format = f as VariantFormat;
  }
  return { ok: true, value: { kind: "variant", width, format } };
}

/** URL of a stored screenshot; `width` is snapped here too, so callers can pass a measured size directly. */
export function screenshotUrl(hash: string, opts: { width?: number; format?: VariantFormat } = {}): string {
  const q = new URLSearchParams();
  if (opts.width !== undefined) q.set("w", String(snapVariantWidth(opts.width)));
  if (opts.format) q.set("f", opts.format);
  const s = q.toString();
  return `/api/screenshots/${hash}${s ? `?${s}` : ""}`;
}
