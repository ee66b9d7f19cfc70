/**
 * Confidence intervals for a proportion (success rates per site, agent, evaluator).
 *
 * Wilson score interval (Wilson 1927): with p̂ = x/n and critical value z,
 *   centre    = (p̂ + z²/(2n)) / (1 + z²/n)
 *   halfWidth = z / (1 + z²/n) · √(p̂(1 − p̂)/n + z²/(4n²))
 * It stays inside [0, 1] and behaves at p̂ = 0 or 1, where the Wald interval collapses to a point; at n = 1 it is
 * [0.207, 1] for a success, never the single point [1, 1]. n = 0 gives null bounds.
 *
 * Clustered counts (the trajectories of one task share its page and its difficulty, so they are not independent):
 * the same formula with the effective sample size n_eff = n / deff (Kish), where the design effect deff is the
 * ratio of the proportion's between-cluster variance (ratio estimator over C clusters with x_c of n_c,
 *   V_clustered = C/(C − 1) · Σ_c (x_c − p̂ n_c)² / n²)
 * to its binomial variance p̂(1 − p̂)/n. n_eff is kept between C (every cluster one observation) and n (no
 * clustering effect); with a single cluster it is 1. At p̂ = 0 or 1 both variances are 0 and n_eff = n.
 */
import { AgreementInputError } from "./labels";
import { Z_95 } from "./normal";

export interface ProportionInterval {
  successes: number;
  n: number;
  /** x/n, null when n = 0. */
  estimate: number | null;
  low: number | null;
  high: number | null;
  z: number;
}

export function wilsonInterval(successes: number, n: number, z: number = Z_95): ProportionInterval {
  if (!Number.isInteger(n) || n < 0) throw new AgreementInputError(`n must be a non-negative integer, got ${n}`);
  if (!Number.isInteger(successes) || successes < 0 || successes > n)
    throw new AgreementInputError(`successes must be an integer from 0 to n = ${n}, got ${successes}`);
  if (!(z > 0) || !Number.isFinite(z)) throw new AgreementInputError(`z must be a positive number, got ${z}`);
  if (n === 0) return { successes, n, estimate: null, low: null, high: null, z };
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // At p̂ = 0 (or 1) the bound is exactly 0 (or 1) mathematically; clamp the rounding residue.
  const low = successes === 0 ? 0 : Math.max(0, centre - half);
  const high = successes === n ? 1 : Math.min(1, centre + half);
  return { successes, n, estimate: p, low, high, z };
}

/** Wilson bounds of a share p̂ for an effective sample size n (any positive real). */
export function wilsonBounds(p: number, n: number, z: number = Z_95): { low: number; high: number } {
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: p === 0 ? 0 : Math.max(0, centre - half), high: p === 1 ? 1 : Math.min(1, centre + half) };
}

export interface ClusteredProportionInterval extends ProportionInterval {
  /** Clusters with at least one counted unit. */
  clusters: number;
  /** n / deff, between `clusters` and n. */
  effectiveN: number | null;
}

/**
 * Wilson interval of x/n where the units come in clusters: `successes[c]` of `totals[c]` in cluster c (clusters with
 * a total of 0 take no part), with each cluster of the same counts repeated `multiplicity[c]` times (default once).
 */
export function clusteredWilsonInterval(
  successes: ArrayLike<number>,
  totals: ArrayLike<number>,
  multiplicity?: ArrayLike<number>,
  z: number = Z_95,
): ClusteredProportionInterval {
  let x = 0;
  let n = 0;
  let clusters = 0;
  for (let c = 0; c < totals.length; c++) {
    if (totals[c]! <= 0) continue;
    const m = multiplicity ? multiplicity[c]! : 1;
    x += m * successes[c]!;
    n += m * totals[c]!;
    clusters += m;
  }
  if (n === 0) return { successes: x, n, estimate: null, low: null, high: null, z, clusters, effectiveN: null };
  const p = x / n;
  let effectiveN = n;
  if (clusters === 1) effectiveN = 1;
  else if (p > 0 && p < 1) {
    let squares = 0;
    for (let c = 0; c < totals.length; c++) {
      if (totals[c]! <= 0) continue;
      const d = successes[c]! - p * totals[c]!;
      squares += (multiplicity ? multiplicity[c]! : 1) * d * d;
    }
    const clustered = ((clusters / (clusters - 1)) * squares) / (n * n);
    const binomial = (p * (1 - p)) / n;
    effectiveN = Math.min(n, Math.max(clusters, n / (clustered / binomial)));
  }
  const { low, high } = wilsonBounds(p, effectiveN, z);
  return { successes: x, n, estimate: p, low, high, z, clusters, effectiveN };
}
