/**
 * Short labels for run names shown side by side. Imported runs are often named by their results path, and the runs
 * of one fork share a long prefix ("webvoyager-gndd1221/results/20250513_0…"): cutting such names at the end hides
 * the one part that tells them apart. Here the path segments every name shares are left out ("…/20250513_041207"),
 * so what differs comes first. A name alone, or names sharing no whole segment, stay as they are. Pure.
 */

const SEPARATOR = /[/\\]/;

/** The leading path segments all names share (whole segments only, never the last segment of a name). */
function sharedSegments(names: readonly string[]): number {
  const split = names.map((n) => n.split(SEPARATOR));
  const shortest = Math.min(...split.map((s) => s.length));
  let shared = 0;
  // At least one segment of every name stays.
  while (shared < shortest - 1 && split.every((s) => s[shared] === split[0]![shared])) shared++;
  return shared;
}

/**
 * The label each distinct name gets among `names`: with the shared leading segments replaced by "…/". Names without
 * a separator, or fewer than two distinct names, keep their full text.
 */
export function runLabels(names: readonly string[]): Map<string, string> {
  const distinct = [...new Set(names)];
  const out = new Map(distinct.map((n) => [n, n]));
  const pathLike = distinct.filter((n) => SEPARATOR.test(n));
  if (pathLike.length < 2) return out;
  const shared = sharedSegments(pathLike);
  if (shared === 0) return out;
  for (const n of pathLike) out.set(n, `…/${n.split(SEPARATOR).slice(shared).join("/")}`);
  return out;
}
