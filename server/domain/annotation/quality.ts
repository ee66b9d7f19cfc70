/**
 * Small figures of the annotator quality view, pure: quantiles of time per item, a time histogram, the rolling
 * agreement with consensus that shows drift, and one annotator's category use against the pooled use of everyone.
 */

/** Quantile q (0–1) of ascending values by linear interpolation between closest ranks (R type 7); null if empty. */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (!sorted.length) return null;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** Upper edges (seconds) of the time-per-item histogram's bins; the last bin is open-ended. */
export const TIME_BINS_S = [10, 30, 60, 120, 300, 600] as const;

export function timeHistogram(ms: readonly number[]): { label: string; count: number }[] {
  const counts = new Array<number>(TIME_BINS_S.length + 1).fill(0);
  for (const m of ms) {
    const s = m / 1000;
    let b = TIME_BINS_S.findIndex((edge) => s < edge);
    if (b < 0) b = TIME_BINS_S.length;
    counts[b]!++;
  }
  const fmt = (s: number) => (s < 60 ? `${s} s` : `${s / 60} min`);
  return counts.map((count, b) => ({
    label:
      b === 0 ? `< ${fmt(TIME_BINS_S[0])}` : b === TIME_BINS_S.length ? `≥ ${fmt(TIME_BINS_S[b - 1]!)}` : `${fmt(TIME_BINS_S[b - 1]!)}–${fmt(TIME_BINS_S[b]!)}`,
    count,
  }));
}

/**
 * Rolling agreement over a window of the last `window` outcomes (1 = agreed with consensus, 0 = not), one point
 * per outcome from the window-th on (before that, over all outcomes so far), so a late slip shows as a fall.
 */
export function rollingAgreement(outcomes: readonly (0 | 1)[], window: number): { n: number; rate: number }[] {
  const out: { n: number; rate: number }[] = [];
  let sum = 0;
  for (let i = 0; i < outcomes.length; i++) {
    sum += outcomes[i]!;
    if (i >= window) sum -= outcomes[i - window]!;
    out.push({ n: i + 1, rate: sum / Math.min(i + 1, window) });
  }
  return out;
}

/**
 * Shares of each category among an annotator's failure labels next to the pooled shares of all annotators, and the
 * total variation distance between the two (half the sum of absolute differences: 0 = same use, 1 = disjoint).
 */
export function categoryUse(
  own: ReadonlyMap<string, number>,
  pooled: ReadonlyMap<string, number>,
): { rows: { category: string; own: number; pooled: number }[]; distance: number | null } {
  const ownTotal = [...own.values()].reduce((a, b) => a + b, 0);
  const pooledTotal = [...pooled.values()].reduce((a, b) => a + b, 0);
  const categories = [...new Set([...pooled.keys(), ...own.keys()])].sort();
  const rows = categories.map((category) => ({
    category,
    own: ownTotal ? (own.get(category) ?? 0) / ownTotal : 0,
    pooled: pooledTotal ? (pooled.get(category) ?? 0) / pooledTotal : 0,
  }));
  const distance = ownTotal && pooledTotal ? rows.reduce((s, r) => s + Math.abs(r.own - r.pooled), 0) / 2 : null;
  return { rows, distance };
}
