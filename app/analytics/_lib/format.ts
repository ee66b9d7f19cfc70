/**
 * How the analytics pages write numbers: rates as percentages, κ and α with three decimals, undefined values as
 * a dash (never 0; where a reason is known the page shows it beside or in the cell's tooltip), intervals in
 * brackets. Pure, shared by tables, charts and CSV.
 */

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

/**
 * A κ or α interval. The normal approximation can reach past the coefficient's range at small n; the displayed
 * interval is clipped to [−1, 1], where the coefficient lives (CSV exports keep the computed bounds).
 */
export function fmtCoefInterval(low: number | null | undefined, high: number | null | undefined): string {
  if (low === null || low === undefined || high === null || high === undefined) return "";
  const clip = (v: number) => Math.max(-1, Math.min(1, v));
  return `[${clip(low).toFixed(3)}, ${clip(high).toFixed(3)}]`;
}

export function fmtP(p: number | null | undefined): string {
  if (p === null || p === undefined) return "–";
  return p < 0.001 ? "< 0.001" : p.toFixed(3);
}

/** Full-precision number for CSV (empty for null). */
export function csvNumber(v: number | null | undefined): string {
  return v === null || v === undefined || Number.isNaN(v) ? "" : String(v);
}
