/**
 * A small seeded pseudo-random generator, so that bootstrap intervals are reproducible run to run.
 *
 * Mulberry32 (Tommy Ettinger's 32-bit generator): one 32-bit state word advanced by a Weyl increment and mixed
 * by two multiply-xorshift rounds. Period 2^32, good enough statistical quality for resampling, and identical
 * output on every JavaScript engine because it only uses Math.imul and 32-bit integer operations.
 */
export type Rng = () => number;

/** Returns a generator of uniform floats in [0, 1) for an integer seed (taken modulo 2^32). */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** ln(n!) for integers n ≥ 0: a table below 256, Stirling's series above (absolute error < 1e-13 there). */
const LOG_FACTORIAL_TABLE = (() => {
  const t = new Float64Array(256);
  for (let i = 2; i < 256; i++) t[i] = t[i - 1]! + Math.log(i);
  return t;
})();

export function logFactorial(n: number): number {
  if (n < 256) return LOG_FACTORIAL_TABLE[n]!;
  const inv = 1 / n;
  const inv2 = inv * inv;
  return n * Math.log(n) - n + 0.5 * Math.log(2 * Math.PI * n) + inv * (1 / 12 - inv2 * (1 / 360 - inv2 / 1260));
}

/**
 * One draw from Binomial(n, p) by inversion: the outcomes are visited from the mode outwards (mode, mode − 1,
 * mode + 1, …), each probability got from its neighbour's by the pmf ratio, and a uniform draw picks the outcome
 * where it is used up. Any fixed visiting order makes inversion exact; starting at the mode makes the expected
 * number of steps O(√(n p (1 − p))) instead of O(n p), which is what lets a bootstrap resample 100,000 pairs as a
 * few binomials.
 */
export function binomialSample(n: number, p: number, rng: Rng): number {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  const q = 1 - p;
  const mode = Math.min(n, Math.floor((n + 1) * p));
  const pMode = Math.exp(logFactorial(n) - logFactorial(mode) - logFactorial(n - mode) + mode * Math.log(p) + (n - mode) * Math.log(q));
  let u = rng() - pMode;
  if (u < 0) return mode;
  const down = q / p;
  const up = p / q;
  let lo = mode;
  let pLo = pMode;
  let hi = mode;
  let pHi = pMode;
  while (lo > 0 || hi < n) {
    if (lo > 0) {
      pLo *= (lo / (n - lo + 1)) * down;
      lo--;
      u -= pLo;
      if (u < 0) return lo;
    }
    if (hi < n) {
      pHi *= ((n - hi) / (hi + 1)) * up;
      hi++;
      u -= pHi;
      if (u < 0) return hi;
    }
  }
  // Only reachable through rounding (the probabilities summed to a hair under 1): the most likely outcome.
  return mode;
}

/**
 * A multinomial draw as a chain of binomials, each on what is left: `binomial(n, p)` draws one (exactly or not, as the
 * caller chose). A handful of calls whatever n is.
 */
function multinomialChain(n: number, weights: ArrayLike<number>, out: Float64Array, binomial: (n: number, p: number) => number): Float64Array {
  let left = n;
  let weightLeft = 0;
  for (let c = 0; c < weights.length; c++) weightLeft += weights[c]!;
  for (let c = 0; c < weights.length; c++) {
    const w = weights[c]!;
    if (left === 0 || w === 0) out[c] = 0;
    else if (w >= weightLeft) out[c] = left;
    else out[c] = binomial(left, w / weightLeft);
    left -= out[c]!;
    weightLeft -= w;
  }
  return out;
}

/**
 * Counts of a multinomial draw of `n` items over categories with the given (non-negative integer) weights, the
 * same distribution as drawing n items with replacement from a population with those category counts.
 */
export function multinomialSample(n: number, weights: ArrayLike<number>, rng: Rng, out: Float64Array): Float64Array {
  return multinomialChain(n, weights, out, (left, p) => binomialSample(left, p, rng));
}

/** Above this variance a binomial draw in multinomialDraw uses its normal approximation (error far below a bootstrap's own noise). */
const NORMAL_FROM_VARIANCE = 40;

/**
 * multinomialSample for bootstraps over many items: small binomials of the chain are drawn exactly (binomialSample),
 * large ones (n·p·(1 − p) > 40, tens of thousands of items) from the rounded normal approximation, which keeps every
 * resample O(groups) where the exact draw would cost O(√n) per group — what lets a page show bootstrap intervals for
 * every evaluator, site, run and campaign within a request.
 */
export function multinomialDraw(n: number, weights: ArrayLike<number>, rng: Rng, out: Float64Array): Float64Array {
  return multinomialChain(n, weights, out, (left, p) => {
    const variance = left * p * (1 - p);
    if (variance < NORMAL_FROM_VARIANCE) return binomialSample(left, p, rng);
    // Box–Muller from two uniforms of the seeded generator.
    const z = Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
    return Math.min(left, Math.max(0, Math.round(left * p + z * Math.sqrt(variance))));
  });
}
