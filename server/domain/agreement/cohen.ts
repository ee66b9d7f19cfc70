/**
 * Cohen's κ for two raters — unweighted and linear/quadratic weighted — with its large-sample inference.
 *
 * Notation: a k×k contingency table N (rows = rater a, columns = rater b), n = Σ N_ij, row sums R_i, column sums
 * C_j, p_ij = N_ij/n, p_i. = R_i/n, p_.j = C_j/n.
 *
 * Agreement weights. Unweighted κ uses w_ij = [i = j]. Weighted κ uses the disagreement distance d_ij = |i − j|
 * (linear, Cicchetti–Allison) or (i − j)² (quadratic, Fleiss–Cohen) between the positions of the categories in the
 * given ordered list (unused categories keep their place), and w_ij = 1 − d_ij / d_max. Then
 *   P_o = Σ w_ij p_ij,  P_e = Σ w_ij p_i. p_.j,  κ = (P_o − P_e) / (1 − P_e),
 * which for the weighted case equals 1 − Σ d_ij p_ij / Σ d_ij p_i. p_.j (the form scikit-learn uses).
 * κ is undefined (null) when 1 − P_e = 0: there are no pairs, or both raters used one and the same category for
 * everything. κ = 0 is a defined value (e.g. one rater constant, or each rater constant on a different category).
 *
 * Large-sample variances (Fleiss, Cohen & Everitt 1969; SAS PROC FREQ "ASE"; statsmodels `cohens_kappa`), with
 * w̄_i. = Σ_j w_ij p_.j and w̄_.j = Σ_i w_ij p_i.:
 *   Var(κ)  = [Σ p_ij (w_ij − (w̄_i. + w̄_.j)(1 − κ))² − (κ − P_e(1 − κ))²] / (n (1 − P_e)²)
 *   Var₀(κ) = [Σ p_i. p_.j (w_ij − (w̄_i. + w̄_.j))² − P_e²] / (n (1 − P_e)²)          (under H₀: κ = 0)
 * The subtracted square is in each case the square of the mean of the summed quantity, so both brackets are
 * variances of a discrete distribution. They are evaluated here in exact integer (BigInt) arithmetic on the counts
 * and rounded once at the end: a variance that is exactly 0 (perfect agreement, complete disagreement, a constant
 * rater) comes out as exactly 0 instead of ±1e-17, whose square root would be a spurious 3e-9.
 * Then SE = √Var, the Wald bounds κ ± z₀.₉₇₅·SE (as statsmodels reports them, not clipped), SE₀ = √Var₀,
 * z = κ / SE₀ and p = 2·P(Z > |z|). z and p are null when SE₀ = 0 (then κ is identically 0 and z = 0/0).
 *
 * The interval shown to people is `interval` (interval.ts): the Wald bounds only where they are trustworthy (enough
 * items, SE > 0, inside [−1, 1]), else a percentile bootstrap over the label pairs, else, when every resample gives
 * the same κ, bounds from the Wilson interval of the observed agreement; or none, with the reason.
 *
 * Missing labels: an item where either rater's label is null is dropped before anything is counted (listwise
 * deletion of incomplete pairs, as R's irr/psych do via na.omit); the number dropped is reported.
 */
import { AgreementInputError, LabelCodec, MISSING, encodeLabels, type Label } from "./labels";
import {
  bootstrapCoefficient,
  INTERVAL_LEVEL,
  LARGE_SAMPLE_MIN_ITEMS,
  MIN_ITEMS_FOR_INTERVAL,
  noInterval,
  quantileSorted,
  tooFewItems,
  type CoefficientInterval,
  type IntervalOptions,
} from "./interval";
import { twoSidedP, Z_95 } from "./normal";
import { wilsonInterval } from "./proportion";
import { createRng, multinomialSample } from "./random";

export type KappaWeighting = "none" | "linear" | "quadratic";

export interface KappaEstimate {
  /** κ, or null when it is undefined (see `reason`). */
  kappa: number | null;
  /** Why κ is undefined; null when it is defined. */
  reason: string | null;
  /** Number of label pairs counted. */
  n: number;
  /** P_o: observed (weighted) agreement. */
  observedAgreement: number | null;
  /** P_e: (weighted) agreement expected by chance from the two raters' own marginals. */
  expectedAgreement: number | null;
  /** Large-sample standard error of κ (Fleiss–Cohen–Everitt). */
  stdKappa: number | null;
  /** κ ± z·SE, not clipped (statsmodels' interval, for the reference vectors): shown only through `interval`. */
  waldLow: number | null;
  waldHigh: number | null;
  /** The 95% interval to show: within [−1, 1], never a single point, or none with the reason (interval.ts). */
  interval: CoefficientInterval;
  /** Standard error of κ under H₀: κ = 0. */
  stdKappa0: number | null;
  /** κ / SE₀; null when SE₀ = 0. */
  z: number | null;
  /** Two-sided p-value of z. */
  pTwoSided: number | null;
}

export interface BootstrapOptions {
  /** Number of resamples (default 2000). */
  replicates?: number;
  /** PRNG seed (default 1): the same seed and data give the same interval. */
  seed?: number;
  /** Confidence level (default 0.95). */
  level?: number;
}

/** Percentile bootstrap interval: items (label pairs) resampled with replacement, κ recomputed per resample. */
export interface BootstrapInterval {
  method: "percentile";
  replicates: number;
  seed: number;
  level: number;
  low: number | null;
  high: number | null;
  /** Resamples in which κ was undefined (left out of the percentiles). */
  undefinedReplicates: number;
  reason: string | null;
}

export interface CohenKappaResult extends KappaEstimate {
  weighting: KappaWeighting;
  /** Category order of `table` (the given categories, else labels in order of first appearance in a, then b). */
  categories: string[];
  /** Counts, rows = rater a, columns = rater b. */
  table: number[][];
  /** Items dropped because a or b had no label. */
  missingPairs: number;
  /** Share of counted pairs with identical labels (unweighted, whatever the weighting). */
  percentAgreement: number | null;
  bootstrap?: BootstrapInterval;
}

export interface CohenOptions {
  weighting?: KappaWeighting;
  /** Ordered category list. Required for weighted κ (positions define distances); optional otherwise. */
  categories?: readonly string[];
  /** Add a percentile bootstrap interval. */
  bootstrap?: BootstrapOptions | boolean;
}

/** Largest number of distinct labels accepted for a dense k×k table. */
export const MAX_CATEGORIES = 2000;

const WEIGHTINGS: readonly KappaWeighting[] = ["none", "linear", "quadratic"];

function undefinedEstimate(n: number, reason: string): KappaEstimate {
  return {
    kappa: null,
    reason,
    n,
    observedAgreement: null,
    expectedAgreement: null,
    stdKappa: null,
    waldLow: null,
    waldHigh: null,
    interval: noInterval(n, n === 0 ? "no interval: no label pairs" : `no interval: ${reason}`),
    stdKappa0: null,
    z: null,
    pTwoSided: null,
  };
}

/** num/den for BigInts of any size, rounded to a double (both are shifted alike when beyond double range). */
function bigRatio(num: bigint, den: bigint): number {
  const limit = 1n << 1000n;
  const absNum = num < 0n ? -num : num;
  if (absNum > limit || den > limit) return bigRatio(num >> 64n, den >> 64n);
  return Number(num) / Number(den);
}

/** Integer disagreement distance and its maximum for a weighting over k ordered categories. */
function distanceFn(weighting: KappaWeighting, k: number): { dist: (i: number, j: number) => number; dMax: number } {
  if (weighting === "linear") return { dist: (i, j) => Math.abs(i - j), dMax: k - 1 };
  if (weighting === "quadratic") return { dist: (i, j) => (i - j) * (i - j), dMax: (k - 1) * (k - 1) };
  return { dist: (i, j) => (i === j ? 0 : 1), dMax: 1 };
}

function validateTable(counts: ArrayLike<number>, k: number): void {
  if (!Number.isInteger(k) || k < 0) throw new AgreementInputError(`table size must be a non-negative integer, got ${k}`);
  if (counts.length !== k * k) throw new AgreementInputError(`a ${k}×${k} table needs ${k * k} counts, got ${counts.length}`);
  for (let i = 0; i < counts.length; i++) {
    const v = counts[i]!;
    if (!Number.isInteger(v) || v < 0)
      throw new AgreementInputError(`table counts must be non-negative integers, got ${v} at row ${Math.floor(i / k)}, column ${i % k}`);
  }
}

/**
 * κ and its inference from a k×k table of counts given row-major (rows = rater a). For weighted κ the rows and
 * columns must be in category order. `intervalOptions` sets the bootstrap (resamples, seed) where one is needed;
 * `false` leaves the interval out (for callers that compute κ inside a resampling loop of their own).
 */
export function kappaFromCounts(
  counts: ArrayLike<number>,
  k: number,
  weighting: KappaWeighting = "none",
  intervalOptions: IntervalOptions | false = {},
): KappaEstimate {
  if (!WEIGHTINGS.includes(weighting)) throw new AgreementInputError(`weighting must be one of ${WEIGHTINGS.join(", ")}, got ${JSON.stringify(weighting)}`);
  validateTable(counts, k);
  const rows = new Array<number>(k).fill(0);
  const cols = new Array<number>(k).fill(0);
  let total = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const v = counts[i * k + j]!;
      rows[i]! += v;
      cols[j]! += v;
      total += v;
    }
  }
  if (total === 0) return undefinedEstimate(0, "no label pairs: κ is 0/0");

  const n = BigInt(total);
  const R = rows.map(BigInt);
  const C = cols.map(BigInt);
  const unweighted = weighting === "none";
  const { dist, dMax } = distanceFn(weighting, k);
  const D = BigInt(dMax);
  const W = (i: number, j: number): bigint => BigInt(dMax - dist(i, j));

  // U_i = Σ_j W_ij C_j and V_j = Σ_i R_i W_ij (= D n w̄_i. and D n w̄_.j); O = Σ W N; E = Σ W R C.
  let U: bigint[];
  let V: bigint[];
  let O = 0n;
  if (unweighted) {
    U = C;
    V = R;
    for (let i = 0; i < k; i++) O += BigInt(counts[i * k + i]!);
  } else {
    U = new Array<bigint>(k).fill(0n);
    V = new Array<bigint>(k).fill(0n);
    for (let i = 0; i < k; i++) {
      for (let j = 0; j < k; j++) {
        const w = W(i, j);
        if (w === 0n) continue;
        U[i]! += w * C[j]!;
        V[j]! += R[i]! * w;
        const c = counts[i * k + j]!;
        if (c !== 0) O += w * BigInt(c);
      }
    }
  }
  let E = 0n;
  for (let i = 0; i < k; i++) E += R[i]! * U[i]!;

  const den = D * n * n - E; // D n² (1 − P_e)
  if (den === 0n) {
    return undefinedEstimate(
      total,
      unweighted
        ? "both raters gave every item the same single category (P_e = 1): κ is 0/0"
        : "expected weighted disagreement is 0 (both raters used one and the same category): κ is 0/0",
    );
  }
  const kappa = bigRatio(n * O - E, den);
  const observedAgreement = bigRatio(O, D * n);
  const expectedAgreement = bigRatio(E, D * n * n);

  // Var(κ) = [n Σ N X² − (Σ N X)²] / (n b⁴), X_ij = W_ij n b − (U_i + V_j) a, a = n (D n − O), b = den.
  const a = n * (D * n - O);
  let S1 = 0n;
  let S2 = 0n;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const c = counts[i * k + j]!;
      if (c === 0) continue;
      const N = BigInt(c);
      const X = W(i, j) * n * den - (U[i]! + V[j]!) * a;
      S1 += N * X;
      S2 += N * X * X;
    }
  }
  const den2 = den * den;
  const variance = bigRatio(n * S2 - S1 * S1, n * den2 * den2);

  // Var₀(κ) = [n² Σ R_i C_j Y² − (Σ R_i C_j Y)²] / (n³ b²), Y_ij = n W_ij − U_i − V_j.
  // Unweighted, this reduces to [E n² + E² − n Σ R_i C_i (R_i + C_i)] / (n b²), which needs only O(k) terms.
  let variance0: number;
  if (unweighted) {
    let T = 0n;
    for (let i = 0; i < k; i++) T += R[i]! * C[i]! * (R[i]! + C[i]!);
    variance0 = bigRatio(E * n * n + E * E - n * T, n * den2);
  } else {
    let T1 = 0n;
    let T2 = 0n;
    for (let i = 0; i < k; i++) {
      if (R[i] === 0n) continue;
      for (let j = 0; j < k; j++) {
        if (C[j] === 0n) continue;
        const RC = R[i]! * C[j]!;
        const Y = n * W(i, j) - U[i]! - V[j]!;
        T1 += RC * Y;
        T2 += RC * Y * Y;
      }
    }
    variance0 = bigRatio(n * n * T2 - T1 * T1, n * n * n * den2);
  }

  const stdKappa = Math.sqrt(variance);
  const stdKappa0 = Math.sqrt(variance0);
  const z = stdKappa0 > 0 ? kappa / stdKappa0 : null;
  const waldLow = kappa - Z_95 * stdKappa;
  const waldHigh = kappa + Z_95 * stdKappa;
  return {
    kappa,
    reason: null,
    n: total,
    observedAgreement,
    expectedAgreement,
    stdKappa,
    waldLow,
    waldHigh,
    interval:
      intervalOptions === false
        ? noInterval(total, "interval not computed")
        : kappaInterval(counts, k, weighting, { kappa, n: total, stdKappa, waldLow, waldHigh, expectedAgreement }, intervalOptions),
    stdKappa0,
    z,
    pTwoSided: z === null ? null : twoSidedP(z),
  };
}

/** κ from a table given as rows (rows = rater a). */
export function kappaFromTable(
  table: readonly (readonly number[])[],
  weighting: KappaWeighting = "none",
  intervalOptions: IntervalOptions | false = {},
): KappaEstimate {
  const k = table.length;
  const flat = new Float64Array(k * k);
  table.forEach((row, i) => {
    if (!Array.isArray(row) || row.length !== k)
      throw new AgreementInputError(`table must be square: row ${i} has ${Array.isArray(row) ? row.length : "no"} cells, expected ${k}`);
    row.forEach((v, j) => (flat[i * k + j] = v));
  });
  return kappaFromCounts(flat, k, weighting, intervalOptions);
}

/** Point estimate only, in floating point (bootstrap inner loop). Null when undefined. */
function kappaPoint(counts: Float64Array, k: number, weights: Float64Array, dMax: number, rows: Float64Array, cols: Float64Array): number | null {
  rows.fill(0);
  cols.fill(0);
  let n = 0;
  let O = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const v = counts[i * k + j]!;
      if (v === 0) continue;
      rows[i]! += v;
      cols[j]! += v;
      n += v;
      O += weights[i * k + j]! * v;
    }
  }
  let E = 0;
  for (let i = 0; i < k; i++) {
    if (rows[i] === 0) continue;
    for (let j = 0; j < k; j++) E += weights[i * k + j]! * rows[i]! * cols[j]!;
  }
  const den = dMax * n * n - E;
  return den === 0 ? null : (n * O - E) / den;
}

/** Agreement weights (dMax − distance) of a weighting, row-major k×k. */
function weightTable(weighting: KappaWeighting, k: number): { weights: Float64Array; dMax: number } {
  const { dist, dMax } = distanceFn(weighting, k);
  const weights = new Float64Array(k * k);
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) weights[i * k + j] = dMax - dist(i, j);
  return { weights, dMax };
}

/**
 * The interval to show for a defined κ (interval.ts explains the methods): the large-sample one where it holds,
 * else a percentile bootstrap over the n label pairs, else (every resample the same κ, unweighted) bounds from the
 * Wilson interval of the observed agreement with P_e held; never a single point.
 */
function kappaInterval(
  counts: ArrayLike<number>,
  k: number,
  weighting: KappaWeighting,
  e: { kappa: number; n: number; stdKappa: number; waldLow: number; waldHigh: number; expectedAgreement: number },
  options: IntervalOptions,
): CoefficientInterval {
  const { n } = e;
  if (n < MIN_ITEMS_FOR_INTERVAL) return tooFewItems(n);
  if (n >= LARGE_SAMPLE_MIN_ITEMS && e.stdKappa > 0 && e.waldLow >= -1 && e.waldHigh <= 1) {
    return {
      method: "large-sample",
      low: e.waldLow,
      high: e.waldHigh,
      level: INTERVAL_LEVEL,
      n,
      replicates: null,
      seed: null,
      undefinedReplicates: null,
      note: null,
    };
  }
  const why =
    n < LARGE_SAMPLE_MIN_ITEMS
      ? `with ${n} items (under ${LARGE_SAMPLE_MIN_ITEMS}) the large-sample interval is not reliable`
      : e.stdKappa === 0
        ? "the large-sample standard error is 0"
        : "the large-sample interval reaches past [−1, 1]";
  const { weights, dMax } = weightTable(weighting, k);
  const observed = Float64Array.from(counts);
  const drawn = new Float64Array(k * k);
  const rows = new Float64Array(k);
  const cols = new Float64Array(k);
  const boot = bootstrapCoefficient(
    n,
    (rng) => kappaPoint(multinomialSample(n, observed, rng, drawn), k, weights, dMax, rows, cols),
    options,
    (v) => `every resample gives κ = ${v.toFixed(3)}`,
  );
  if (boot.method === "bootstrap") return { ...boot, note: why };
  if (weighting !== "none") return { ...boot, note: `no interval: ${boot.note}` };
  let agreeing = 0;
  for (let i = 0; i < k; i++) agreeing += counts[i * k + i]!;
  const w = wilsonInterval(agreeing, n);
  const pe = e.expectedAgreement;
  return {
    ...boot,
    method: "agreement-wilson",
    low: Math.max(-1, (w.low! - pe) / (1 - pe)),
    high: Math.min(1, (w.high! - pe) / (1 - pe)),
    note: `${boot.note ?? "the bootstrap cannot vary"}, so the bootstrap shows no spread`,
  };
}

/**
 * Percentile bootstrap interval for κ over the complete pairs encoded as table cells (row·k + column).
 * Each resample draws n pairs with replacement and recomputes κ. Only the resample's cell counts matter, and those
 * follow a multinomial with the observed cell shares, so they are drawn as such (multinomialSample) instead of one
 * pair at a time: the same distribution, in a few binomial draws per resample whatever n is.
 */
export function bootstrapKappaInterval(cells: Int32Array, k: number, weighting: KappaWeighting, options: BootstrapOptions = {}): BootstrapInterval {
  const replicates = options.replicates ?? 2000;
  const seed = options.seed ?? 1;
  const level = options.level ?? 0.95;
  if (!Number.isInteger(replicates) || replicates < 1) throw new AgreementInputError(`bootstrap replicates must be a positive integer, got ${replicates}`);
  if (!(level > 0 && level < 1)) throw new AgreementInputError(`bootstrap level must be between 0 and 1, got ${level}`);
  const base: BootstrapInterval = { method: "percentile", replicates, seed, level, low: null, high: null, undefinedReplicates: 0, reason: null };
  const n = cells.length;
  if (n === 0) return { ...base, undefinedReplicates: replicates, reason: "no label pairs to resample" };

  const { weights, dMax } = weightTable(weighting, k);
  const rng = createRng(seed);
  const observed = new Float64Array(k * k);
  for (let t = 0; t < n; t++) observed[cells[t]!]!++;
  const counts = new Float64Array(k * k);
  const rows = new Float64Array(k);
  const cols = new Float64Array(k);
  const values = new Float64Array(replicates);
  let defined = 0;
  for (let r = 0; r < replicates; r++) {
    multinomialSample(n, observed, rng, counts);
    const v = kappaPoint(counts, k, weights, dMax, rows, cols);
    if (v !== null) values[defined++] = v;
  }
  const undefinedReplicates = replicates - defined;
  if (defined === 0) return { ...base, undefinedReplicates, reason: "κ was undefined in every resample" };
  const sorted = values.subarray(0, defined).sort();
  const tail = (1 - level) / 2;
  return { ...base, undefinedReplicates, low: quantileSorted(sorted, tail), high: quantileSorted(sorted, 1 - tail) };
}

/**
 * Cohen's κ of two label vectors (same length, item i rated by a[i] and b[i]; null = missing).
 * Throws AgreementInputError on invalid input (length mismatch, label outside the given categories, weighted κ
 * without categories); returns κ = null with a reason when κ is undefined.
 */
export function cohenKappa(a: readonly Label[], b: readonly Label[], options: CohenOptions = {}): CohenKappaResult {
  const weighting = options.weighting ?? "none";
  if (!WEIGHTINGS.includes(weighting)) throw new AgreementInputError(`weighting must be one of ${WEIGHTINGS.join(", ")}, got ${JSON.stringify(weighting)}`);
  if (!Array.isArray(a) || !Array.isArray(b)) throw new AgreementInputError("both raters' labels must be arrays");
  if (a.length !== b.length)
    throw new AgreementInputError(`the two raters' label vectors differ in length (${a.length} vs ${b.length}): item i must be rated by a[i] and b[i]`);
  if (weighting !== "none" && !options.categories) throw new AgreementInputError(`${weighting} weighted κ needs the ordered list of categories`);

  const codec = new LabelCodec(options.categories, { frozen: options.categories !== undefined });
  const codesA = encodeLabels(a, codec, "a");
  const codesB = encodeLabels(b, codec, "b");
  return kappaOfCodes(codesA, codesB, codec.labels, weighting, options.bootstrap);
}

export interface CodedKappaOptions {
  weighting?: KappaWeighting;
  bootstrap?: BootstrapOptions | boolean;
}

/**
 * Cohen's κ of two label vectors already encoded (labels.ts): codes[i] is the position of item i's label in
 * `categories`, or MISSING. This is the form the analytics keep labels in (encoded once when they are read), so a
 * million pairs cost one pass of integer counting. For weighted κ `categories` is the ordered scale. Gives exactly
 * what `cohenKappa` gives on the decoded labels with the same category list. Throws AgreementInputError on a length
 * mismatch or a code outside the categories (naming the vector and the position).
 */
export function cohenKappaCodes(codesA: Int32Array, codesB: Int32Array, categories: readonly string[], options: CodedKappaOptions = {}): CohenKappaResult {
  const weighting = options.weighting ?? "none";
  if (!WEIGHTINGS.includes(weighting)) throw new AgreementInputError(`weighting must be one of ${WEIGHTINGS.join(", ")}, got ${JSON.stringify(weighting)}`);
  if (!(codesA instanceof Int32Array) || !(codesB instanceof Int32Array)) throw new AgreementInputError("both raters' label codes must be Int32Arrays");
  if (codesA.length !== codesB.length)
    throw new AgreementInputError(
      `the two raters' code vectors differ in length (${codesA.length} vs ${codesB.length}): item i must be rated by a[i] and b[i]`,
    );
  if (!Array.isArray(categories)) throw new AgreementInputError("categories must be an array of the labels the codes stand for");
  return kappaOfCodes(codesA, codesB, categories, weighting, options.bootstrap);
}

/** The κ result of two code vectors over `labels` (k = labels.length); codes are checked while counting. */
function kappaOfCodes(
  codesA: Int32Array,
  codesB: Int32Array,
  labels: readonly string[],
  weighting: KappaWeighting,
  bootstrap: BootstrapOptions | boolean | undefined,
): CohenKappaResult {
  const k = labels.length;
  if (k > MAX_CATEGORIES) throw new AgreementInputError(`${k} distinct labels is more than the ${MAX_CATEGORIES} a contingency table is built for`);

  const counts = new Float64Array(k * k);
  let missingPairs = 0;
  const n = codesA.length;
  for (let i = 0; i < n; i++) {
    const x = codesA[i]!;
    const y = codesB[i]!;
    // One unsigned comparison per code: a code in 0…k−1 passes, MISSING and anything else do not.
    if (x >>> 0 < k && y >>> 0 < k) counts[x * k + y]!++;
    else if (x === MISSING || y === MISSING) {
      if (x !== MISSING && x >>> 0 >= k) throw badCode("a", i, x, k);
      if (y !== MISSING && y >>> 0 >= k) throw badCode("b", i, y, k);
      missingPairs++;
    } else throw badCode(x >>> 0 >= k ? "a" : "b", i, x >>> 0 >= k ? x : y, k);
  }
  const estimate = kappaFromCounts(counts, k, weighting);
  let agreeing = 0;
  for (let i = 0; i < k; i++) agreeing += counts[i * k + i]!;
  const table: number[][] = [];
  for (let i = 0; i < k; i++) table.push(Array.from(counts.subarray(i * k, (i + 1) * k)));

  const result: CohenKappaResult = {
    ...estimate,
    weighting,
    categories: labels.slice(),
    table,
    missingPairs,
    percentAgreement: estimate.n > 0 ? agreeing / estimate.n : null,
  };
  if (bootstrap) {
    const cells = new Int32Array(estimate.n);
    let t = 0;
    for (let i = 0; i < n; i++) {
      const x = codesA[i]!;
      const y = codesB[i]!;
      if (x !== MISSING && y !== MISSING) cells[t++] = x * k + y;
    }
    result.bootstrap = bootstrapKappaInterval(cells, k, weighting, bootstrap === true ? {} : bootstrap);
  }
  return result;
}

function badCode(what: "a" | "b", i: number, code: number, k: number): AgreementInputError {
  return new AgreementInputError(`${what}[${i}]: code ${code} is not a label: codes run from 0 to ${k - 1} (${MISSING} for a missing label)`);
}
