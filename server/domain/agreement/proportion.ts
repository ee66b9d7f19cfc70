/**
 * Confidence intervals for a proportion (success rates per site, agent, evaluator).
 *
 * Wilson score interval (Wilson 1927): with p̂ = x/n and critical value z,
 *   centre    = (p̂ + z²/(2n)) / (1 + z²/n)
 *   halfWidth = z / (1 + z²/n) · √(p̂(1 − p̂)/n + z²/(4n²))
 * It stays inside [0, 1] and behaves at p̂ = 0 or 1, where the Wald interval collapses to a point.
 * n = 0 gives null bounds.
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
  if (!Number.isInteger(successes) || successes < 0 || successes > n) throw new AgreementInputError(`successes must be an integer from 0 to n = ${n}, got ${successes}`);
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
