/**
 * Links to a trajectory at a step (and a region of its screenshot) that survive re-imports:
 * `/t/<key>?id=<row id>&step=N[&region=x,y,w,h]`. The key is the trajectory's content hash
 * (server/domain/imports/identity.ts), which an import of the same run finds again whatever row it lands in; the row
 * id beside it covers the other case, a re-import that changed the trajectory's content in place (same row, new
 * hash). Which of the two wins is explicit (`pickLinkTarget`). Pure.
 */

/** The link key of a stored content hash: its hex digest, without the version prefix ("v2:"). */
export function linkKeyOf(contentHash: string): string {
  return contentHash.replace(/^[a-z0-9]+:/i, "");
}

/** The content hashes a link key may stand for (today's "v2:" form and a bare digest stored by live runs). */
export function contentHashesFor(key: string): string[] | null {
  if (!/^[0-9a-f]{16,128}$/i.test(key)) return null;
  const k = key.toLowerCase();
  return [`v2:${k}`, k];
}

/** A region of a screenshot, in the screenshot's own pixels. */
export interface StepRegion {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** "x,y,w,h" with whole, non-negative numbers and a positive size; anything else is no region. */
export function parseRegion(text: string | null | undefined): StepRegion | null {
  const m = /^(\d{1,6}),(\d{1,6}),(\d{1,6}),(\d{1,6})$/.exec(text?.trim() ?? "");
  if (!m) return null;
  const [x, y, width, height] = m.slice(1).map(Number) as [number, number, number, number];
  return width > 0 && height > 0 ? { x, y, width, height } : null;
}

export function formatRegion(r: StepRegion): string {
  return [r.x, r.y, r.width, r.height].map((n) => Math.round(n)).join(",");
}

/**
 * The player draws regions by their corners (`?region=x1,y1,x2,y2`, as judges' citations give them): a link's
 * region as those corners, and back.
 */
export function regionCorners(r: StepRegion): [number, number, number, number] {
  return [r.x, r.y, r.x + r.width, r.y + r.height];
}

export function regionOfCorners([x1, y1, x2, y2]: readonly [number, number, number, number]): StepRegion {
  return { x: x1, y: y1, width: x2 - x1, height: y2 - y1 };
}

/**
 * Where a link leads: the row it was made on while that row still holds the linked content; otherwise the row that
 * holds the content now (the trajectory was deleted and imported again, or merged into its duplicate); otherwise the
 * row it was made on, changed in place by a later import; otherwise nowhere.
 */
export function pickLinkTarget(linkedRow: { id: number; contentHash: string } | null, rowWithContent: { id: number } | null, key: string): number | null {
  if (linkedRow && linkKeyOf(linkedRow.contentHash).toLowerCase() === key.toLowerCase()) return linkedRow.id;
  return rowWithContent?.id ?? linkedRow?.id ?? null;
}

/** The path of a stable link to step `step` (1-based) of a trajectory, with a region when given. */
export function stepLinkPath(target: { key: string; id: number }, step: number, region?: StepRegion | null): string {
  const q = new URLSearchParams({ id: String(target.id), step: String(Math.max(1, Math.floor(step))) });
  if (region) q.set("region", formatRegion(region));
  return `/t/${target.key}?${q.toString()}`;
}
