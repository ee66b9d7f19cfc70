/**
 * Confidence intervals of agreement coefficients (Cohen's κ, Fleiss' κ, Krippendorff's α), chosen so that an
 * interval never claims more certainty than the data give: it stays inside [−1, 1], it is never a single point, and
 * where no interval can be honest it says so ("no interval (n = 3)") instead of showing one.
 *
 * Methods (docs/statistics.md explains each with its reasons):
 * - "large-sample": κ ± z·SE with the Fleiss–Cohen–Everitt standard error. Used for Cohen's κ only when it is
 *   trustworthy: at least LARGE_SAMPLE_MIN_ITEMS items, SE > 0, and both bounds inside [−1, 1].
 * - "bootstrap": percentile bootstrap over items (each resample draws the items, i.e. label pairs or units, with
 *   replacement and recomputes the coefficient), seeded, so the same data give the same interval. Cohen's κ
 *   falls back to it where the large-sample interval fails; Fleiss' κ and α always use it.
 * - "agreement-wilson": when every resample gives the same κ (perfect agreement, a rater who always says the same
 *   thing) the bootstrap cannot show any spread. Unweighted κ is then bounded through the Wilson interval of the
 *   observed agreement P_o, with the chance agreement P_e held at its observed value:
 *   κ bounds = (P_o bound − P_e) / (1 − P_e), clipped to [−1, 1].
 * - none: fewer than MIN_ITEMS_FOR_INTERVAL items, an undefined coefficient, or a bootstrap that cannot vary
 *   (Fleiss' κ and α): bounds are null and `note` says why.
 */
import { createRng, type Rng } from "./random";

export const INTERVAL_LEVEL = 0.95;
/** Below this many items no interval is shown: a handful of items says little about what agreement would be. */
export const MIN_ITEMS_FOR_INTERVAL = 10;
/** From this many items on, Cohen's κ may use its large-sample interval (when its other conditions hold). */
export const LARGE_SAMPLE_MIN_ITEMS = 30;
export const DEFAULT_BOOTSTRAP_REPLICATES = 2000;
export const DEFAULT_BOOTSTRAP_SEED = 1;

export type CoefficientIntervalMethod = "large-sample" | "bootstrap" | "agreement-wilson";

export interface CoefficientInterval {
  /** How the bounds were found; null when there is no interval. */
  method: CoefficientIntervalMethod | null;
  low: number | null;
  high: number | null;
  level: number;
  /** Items (label pairs, rated items, pairable units) the interval rests on. */
  n: number;
  /** Bootstrap settings, when a bootstrap was drawn (also when it then could not give an interval). */
  replicates: number | null;
  seed: number | null;
  /** Resamples in which the coefficient was undefined (left out of the percentiles). */
  undefinedReplicates: number | null;
  /** Why there is no interval, or why this method was used instead of the usual one; null when nothing to add. */
  note: string | null;
}

export interface IntervalOptions {
  replicates?: number;
  seed?: number;
}

export function noInterval(n: number, note: string): CoefficientInterval {
  return { method: null, low: null, high: null, level: INTERVAL_LEVEL, n, replicates: null, seed: null, undefinedReplicates: null, note };
}

/** The usual "no interval (n = 3)" for too few items. */
export function tooFewItems(n: number): CoefficientInterval {
  return noInterval(n, `no interval (n = ${n})`);
}

/** Type-7 (linear interpolation) quantile of sorted values, numpy's default. */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (pos - lo) * (sorted[hi]! - sorted[lo]!);
}

/** Percentile bounds of the first `count` values (sorted in place). */
export function percentileBounds(values: Float64Array, count: number, level = INTERVAL_LEVEL): [number, number] {
  const sorted = values.subarray(0, count).sort();
  const tail = (1 - level) / 2;
  return [quantileSorted(sorted, tail), quantileSorted(sorted, 1 - tail)];
}

/**
 * A percentile bootstrap of a coefficient: `draw` makes one resample and returns the coefficient (null when it is
 * undefined there). An interval whose bounds coincide is no interval: `degenerate` names why in words.
 */
export function bootstrapCoefficient(
  n: number,
  draw: (rng: Rng) => number | null,
  options: IntervalOptions,
  degenerate: (value: number) => string,
): CoefficientInterval {
  const replicates = options.replicates ?? DEFAULT_BOOTSTRAP_REPLICATES;
  const seed = options.seed ?? DEFAULT_BOOTSTRAP_SEED;
  if (!Number.isInteger(replicates) || replicates < 1) throw new RangeError(`bootstrap replicates must be a positive integer, got ${replicates}`);
  const rng = createRng(seed);
  const values = new Float64Array(replicates);
  let defined = 0;
  for (let r = 0; r < replicates; r++) {
    const v = draw(rng);
    if (v !== null) values[defined++] = v;
  }
  const base = { level: INTERVAL_LEVEL, n, replicates, seed, undefinedReplicates: replicates - defined };
  if (defined === 0) return { ...base, method: null, low: null, high: null, note: "no interval: the coefficient is undefined in every resample" };
  const [low, high] = percentileBounds(values, defined);
  if (!(high > low)) return { ...base, method: null, low: null, high: null, note: degenerate(low) };
  // Rounding in the coefficient's arithmetic must not put a bound a hair outside its range.
  return { ...base, method: "bootstrap", low: Math.max(-1, low), high: Math.min(1, high), note: null };
}

/** One line on how an interval was found, for tooltips, footnotes and the CLI. */
export function describeInterval(interval: CoefficientInterval): string {
  const pct = `${Math.round(interval.level * 100)}%`;
  switch (interval.method) {
    case "large-sample":
      return `${pct} interval: large-sample (κ ± 1.96 SE, Fleiss–Cohen–Everitt) on ${interval.n} items`;
    case "bootstrap": {
      const left = interval.undefinedReplicates ? `; ${interval.undefinedReplicates} resamples with an undefined value left out` : "";
      return `${pct} interval: percentile bootstrap over ${interval.n} items (${interval.replicates} resamples, seed ${interval.seed}${left})${interval.note ? `; ${interval.note}` : ""}`;
    }
    case "agreement-wilson":
      return `${pct} interval: from the Wilson interval of the observed agreement on ${interval.n} items, chance agreement held at its observed value${interval.note ? `; ${interval.note}` : ""}`;
    default:
      return interval.note ?? "no interval";
  }
}
