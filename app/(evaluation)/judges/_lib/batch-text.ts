/**
 * Pure text helpers of the judge batch pages: reading the k values and numbers a researcher types, and saying how
 * long a batch has left.
 */

export type KValue = number | "full";

/** The k values WebVoyager's paper compares, offered by the judge forms; others can be typed in. */
export const K_CHOICES = ["1", "2", "3", "full"] as const;

/** The whole number a field holds when it lies in [min, max], else null. */
export function wholeIn(text: string, min: number, max: number): number | null {
  return /^\d+$/.test(text) && Number(text) >= min && Number(text) <= max ? Number(text) : null;
}

/** "1, 3 full" → the k values (deduplicated, in order), or the first entry that is not one. */
export function parseKText(text: string): { ks: KValue[] } | { bad: string } {
  const ks: KValue[] = [];
  for (const part of text.split(/[\s,]+/).filter(Boolean)) {
    const p = part.toLowerCase();
    if (p === "full") ks.push("full");
    else if (/^\d+$/.test(p) && Number(p) >= 1 && Number(p) <= 1000) ks.push(Number(p));
    else return { bad: part };
  }
  return { ks: [...new Set(ks)] };
}

/** "about 2 min 5 s left", or why no time can be given yet. */
export function etaText(etaSeconds: number | null, remaining: number): string {
  if (remaining === 0) return "nothing left to do";
  if (etaSeconds === null) return "time left: known once the first calls finish";
  if (etaSeconds < 60) return `about ${etaSeconds} s left`;
  const h = Math.floor(etaSeconds / 3600);
  const m = Math.floor((etaSeconds % 3600) / 60);
  const s = etaSeconds % 60;
  return h > 0 ? `about ${h} h ${m} min left` : `about ${m} min ${s} s left`;
}

/**
 * A judge list's refetch interval: every 3 s while one of its rows (`statusOf`) is pending or running, so batches
 * started elsewhere (the CLI) show up and move without a reload; none once all are done.
 */
export function refetchWhileGoing<T>(statusOf: (row: T) => string | null) {
  return (query: { state: { data?: T[] } }): number | false =>
    query.state.data?.some((row) => statusOf(row) === "running" || statusOf(row) === "pending") ? 3_000 : false;
}
