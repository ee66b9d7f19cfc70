/**
 * Chart view models: plain data the recharts components draw, prepared on the server. Series keys are short
 * ("s0", "s1", …) because evaluator ids contain characters recharts reads as paths; each datum carries, per series,
 * the value, its interval as distances below/above (what ErrorBar draws), n, and the link to the trajectories behind it.
 */

export const PALETTE = ["#4f46e5", "#0d9488", "#d97706", "#db2777", "#2563eb", "#65a30d", "#7c3aed", "#dc2626", "#0891b2", "#a16207", "#475569", "#be185d"];
/** The human reference is always drawn in the same dark grey. */
export const HUMAN_COLOR = "#27272a";

export interface SeriesModel {
  key: string;
  label: string;
  color: string;
}

/** One x position; for each series key k: k (value), `${k}_err` ([below, above]), `${k}_n`, `${k}_text`, `${k}_href`. */
export type Datum = Record<string, string | number | null | [number, number]>;

export interface RateChartModel {
  kind: "bars" | "lines";
  /** Label of the x axis. */
  x: string;
  series: SeriesModel[];
  data: Datum[];
  /** Values are proportions (axis 0–100%) or coefficients (κ, −1…1). */
  scale: "proportion" | "coefficient";
  /** Horizontal bars (long category names). */
  horizontal?: boolean;
}

export interface CountChartModel {
  kind: "stacked" | "bars";
  x: string;
  series: SeriesModel[];
  data: Datum[];
  horizontal?: boolean;
}

export function seriesKey(i: number): string {
  return `s${i}`;
}

/** Error-bar distances for an interval around a value; null parts become 0 (no bar). */
export function errorDistances(value: number | null, low: number | null, high: number | null): [number, number] {
  if (value === null || low === null || high === null) return [0, 0];
  return [Math.max(0, value - low), Math.max(0, high - value)];
}
