/**
 * How the analytics pages write numbers: rates as percentages, κ and α with three decimals, undefined values as
 * a dash (never 0; where a reason is known the page shows it beside or in the cell's tooltip), intervals in
 * brackets. Pure, shared by tables, charts and CSV.
 */
import { describeInterval, type CoefficientInterval } from "@/server/domain/agreement/interval";

/** A statistic that is not defined (no labels yet, every label the same…). A table full of the word "undefined" read like a program error. */
export const UNDEFINED_TEXT = "–";

export function fmtCount(n: number): string {
  return n.toLocaleString("en-US");
}

/** 0.4 → "40.0%"; null → "–". */
export function fmtPercent(v: number | null | undefined, digits = 1): string {
  return v === null || v === undefined || Number.isNaN(v) ? "–" : `${(v * 100).toFixed(digits)}%`;
}

/** κ, α, PABAK …: three decimals; null → "–". */
export function fmtCoef(v: number | null | undefined, digits = 3): string {
  return v === null || v === undefined || Number.isNaN(v) ? UNDEFINED_TEXT : v.toFixed(digits);
}

/** [low, high] as percentages; "" when either is missing. */
export function fmtPercentInterval(low: number | null | undefined, high: number | null | undefined): string {
  if (low === null || low === undefined || high === null || high === undefined) return "";
  return `[${(low * 100).toFixed(1)}, ${(high * 100).toFixed(1)}]`;
}

/** Bounds of a κ or α interval: "[0.412, 0.873]"; "" when either is missing. */
export function fmtCoefInterval(low: number | null | undefined, high: number | null | undefined): string {
  if (low === null || low === undefined || high === null || high === undefined) return "";
  return `[${low.toFixed(3)}, ${high.toFixed(3)}]`;
}

/**
 * A coefficient's 95% interval as the views show it: its bounds, or why it has none ("no interval (n = 3)").
 * "" when the coefficient itself is undefined (its reason is shown instead).
 */
export function fmtInterval(interval: CoefficientInterval | null | undefined): string {
  if (!interval) return "";
  if (interval.method !== null) return fmtCoefInterval(interval.low, interval.high);
  return interval.note && !interval.note.startsWith("no interval: ") ? interval.note : interval.note ? "no interval" : "";
}

/** What the views say under figures with intervals (each interval's tooltip names its own method). */
export const INTERVAL_FOOTNOTE =
  "95% intervals. Cohen κ: large-sample (κ ± 1.96 SE) from 30 items when it stays inside [−1, 1], else a percentile bootstrap over the items (2,000 resamples, seed 1), " +
  "else (perfect agreement, a constant rater) bounds from the Wilson interval of the observed agreement. Fleiss κ and Krippendorff α: percentile bootstrap over the items. " +
  "Rates: Wilson. Under 10 items: no interval. Hover an interval for the method it used; docs/statistics.md explains each.";

/** How an interval was found (method, items, resamples), for the cell's tooltip. */
export function intervalTitle(interval: CoefficientInterval | null | undefined): string {
  return interval ? describeInterval(interval) : "";
}

export function fmtP(p: number | null | undefined): string {
  if (p === null || p === undefined) return "–";
  return p < 0.001 ? "< 0.001" : p.toFixed(3);
}

/** Full-precision number for CSV (empty for null). */
export function csvNumber(v: number | null | undefined): string {
  return v === null || v === undefined || Number.isNaN(v) ? "" : String(v);
}
