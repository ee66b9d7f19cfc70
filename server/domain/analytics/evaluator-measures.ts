/**
 * An automatic evaluator read as a measuring instrument against the consolidated human label:
 *
 * - error rates: false-positive rate (evaluator success where humans say failure, over human failures) and
 *   false-negative rate (evaluator failure where humans say success, over human successes), and the success-rate
 *   gap (evaluator's success rate minus the humans' on the same trajectories, a paired difference);
 * - intervals that respect the clustering by task: trajectories of one task share its difficulty and its page, so
 *   they are not independent. The error rates are proportions and get Wilson intervals with the effective sample
 *   size of their task clustering (clusteredWilsonInterval: never a single point, also at 0% or 1 of 1); the gap
 *   gets a bootstrap that resamples whole tasks (all their trajectories kept together), where a per-trajectory
 *   bootstrap would be too narrow. Input is per-task aggregates grouped into count patterns, so the cost is
 *   replicates × patterns whatever the number of trajectories;
 * - Kendall's τ-b between two rankings of agent runs (ties handled), and competition ranks;
 * - calibration of a confidence (the share of k samples that said success) against the human label: reliability
 *   bins and the expected calibration error.
 *
 * Undefined values are null with a reason, never 0.
 */
import { clusteredWilsonInterval } from "../agreement/proportion";
import { createRng, multinomialDraw } from "../agreement/random";

/** Per task: [human success & evaluator success, human success & evaluator failure, human failure & evaluator success, human failure & evaluator failure]. */
export const TASK_SLOTS = 4;
export const T_SS = 0;
export const T_SF = 1;
export const T_FS = 2;
export const T_FF = 3;

export interface IntervalEstimate {
  estimate: number | null;
  low: number | null;
  high: number | null;
}

export interface ErrorRate extends IntervalEstimate {
  /** Errors counted (numerator). */
  errors: number;
  /** Denominator: human failures for the false-positive rate, human successes for the false-negative rate. */
  of: number;
}

export interface SuccessGap extends IntervalEstimate {
  /** Evaluator success rate and human success rate on the same compared trajectories. */
  evaluatorRate: number | null;
  humanRate: number | null;
}

export interface InstrumentErrors {
  /** Trajectories compared and tasks they belong to. */
  n: number;
  tasks: number;
  falsePositive: ErrorRate;
  falseNegative: ErrorRate;
  gap: SuccessGap;
  /** The gap's interval; the error rates use Wilson intervals with the tasks' design effect. */
  bootstrap: { replicates: number; seed: number; level: number; method: "percentile, resampling tasks" };
  /** Set when the gap has no interval (e.g. a single task: resampling tasks cannot show its variability). */
  reason: string | null;
}

export interface BootstrapSettings {
  replicates?: number;
  seed?: number;
  level?: number;
}

function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 1) return sorted[0]!;
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

function percentile(values: Float64Array, count: number, level: number): [number | null, number | null] {
  if (count === 0) return [null, null];
  const sorted = values.subarray(0, count).sort();
  const tail = (1 - level) / 2;
  return [quantile(sorted, tail), quantile(sorted, 1 - tail)];
}

/**
 * Error rates and the success-rate gap of an evaluator from per-task counts (`tasks` × TASK_SLOTS, see T_*), with
 * percentile intervals from a bootstrap that draws tasks with replacement. Tasks with no compared trajectory are
 * ignored. Seeded: the same input and seed give the same intervals.
 */
/**
 * Earlier results by their input: a result depends only on the task patterns, their multiplicities (in order) and the
 * settings, so a caller recomputing after a small change (one verdict moves one site's and one run's counts) gets the
 * untouched splits back without drawing their replicates again, and exactly the numbers a fresh bootstrap gives.
 */
export interface BootstrapMemo {
  get(key: string): InstrumentErrors | undefined;
  set(key: string, value: InstrumentErrors): void;
}

export function clusteredErrorRates(taskCounts: Float64Array, settings: BootstrapSettings = {}, memo?: BootstrapMemo): InstrumentErrors {
  const replicates = settings.replicates ?? 1000;
  const seed = settings.seed ?? 1;
  const level = settings.level ?? 0.95;
  if (taskCounts.length % TASK_SLOTS !== 0) throw new RangeError(`task counts must come in groups of ${TASK_SLOTS}, got ${taskCounts.length} numbers`);
  if (!Number.isInteger(replicates) || replicates < 1) throw new RangeError(`bootstrap replicates must be a positive integer, got ${replicates}`);
  if (!(level > 0 && level < 1)) throw new RangeError(`bootstrap level must be between 0 and 1, got ${level}`);

  // Tasks with nothing compared take no part. Tasks with the same four counts are interchangeable in a resample,
  // so they are grouped into patterns with a multiplicity: drawing `tasks` tasks with replacement is then one
  // multinomial draw over the patterns, and a replicate costs a few binomials per pattern instead of one draw per
  // task (a run of 25,000 single-trajectory tasks has at most four patterns).
  const all = taskCounts.length / TASK_SLOTS;
  const patternIndex = new Map<string, number>();
  const patterns: number[] = [];
  const multiplicity: number[] = [];
  const total = new Float64Array(TASK_SLOTS);
  let tasks = 0;
  for (let t = 0; t < all; t++) {
    const o = t * TASK_SLOTS;
    const a = taskCounts[o]!;
    const b = taskCounts[o + 1]!;
    const c = taskCounts[o + 2]!;
    const d = taskCounts[o + 3]!;
    if (a + b + c + d <= 0) continue;
    tasks++;
    total[T_SS]! += a;
    total[T_SF]! += b;
    total[T_FS]! += c;
    total[T_FF]! += d;
    const key = `${a},${b},${c},${d}`;
    const p = patternIndex.get(key);
    if (p === undefined) {
      patternIndex.set(key, multiplicity.length);
      multiplicity.push(1);
      patterns.push(a, b, c, d);
    } else multiplicity[p]!++;
  }

  const point = rates(total);
  const n = total[T_SS]! + total[T_SF]! + total[T_FS]! + total[T_FF]!;
  // Error rates per pattern: false positives of the human failures, false negatives of the human successes.
  const P = multiplicity.length;
  const fpErrors = new Float64Array(P);
  const fpOf = new Float64Array(P);
  const fnErrors = new Float64Array(P);
  const fnOf = new Float64Array(P);
  for (let p = 0; p < P; p++) {
    const o = p * TASK_SLOTS;
    fpErrors[p] = patterns[o + T_FS]!;
    fpOf[p] = patterns[o + T_FS]! + patterns[o + T_FF]!;
    fnErrors[p] = patterns[o + T_SF]!;
    fnOf[p] = patterns[o + T_SS]! + patterns[o + T_SF]!;
  }
  const fp = clusteredWilsonInterval(fpErrors, fpOf, multiplicity);
  const fn = clusteredWilsonInterval(fnErrors, fnOf, multiplicity);
  const base: InstrumentErrors = {
    n,
    tasks,
    falsePositive: { estimate: point.fpr, low: fp.low, high: fp.high, errors: total[T_FS]!, of: total[T_FS]! + total[T_FF]! },
    falseNegative: { estimate: point.fnr, low: fn.low, high: fn.high, errors: total[T_SF]!, of: total[T_SS]! + total[T_SF]! },
    gap: { estimate: point.gap, low: null, high: null, evaluatorRate: point.evaluatorRate, humanRate: point.humanRate },
    bootstrap: { replicates, seed, level, method: "percentile, resampling tasks" },
    reason: null,
  };
  if (tasks === 0) return { ...base, reason: "no trajectory has both a human label and a counted verdict" };
  if (tasks === 1) return { ...base, reason: "all compared trajectories belong to one task: resampling tasks cannot give the gap an interval" };

  const memoKey = memo ? `${replicates}|${seed}|${level}|${patterns.join(",")}|${multiplicity.join(",")}` : "";
  const known = memo?.get(memoKey);
  if (known) return known;

  const rng = createRng(seed);
  const weights = Float64Array.from(multiplicity);
  const drawn = new Float64Array(weights.length);
  const gap = new Float64Array(replicates);
  let nGap = 0;
  const sums = new Float64Array(TASK_SLOTS);
  // Few tasks with many patterns (one site's tasks): drawing the tasks one by one is cheaper than a binomial per
  // pattern. Both draw from the same distribution.
  const direct = tasks <= weights.length * 12;
  const patternOf = direct ? Int32Array.from(multiplicity.flatMap((m, p) => Array<number>(m).fill(p))) : null;
  for (let r = 0; r < replicates; r++) {
    if (patternOf) {
      drawn.fill(0);
      for (let d = 0; d < tasks; d++) drawn[patternOf[Math.floor(rng() * tasks)]!]!++;
    } else multinomialDraw(tasks, weights, rng, drawn);
    sums.fill(0);
    for (let p = 0; p < drawn.length; p++) {
      const m = drawn[p]!;
      if (m === 0) continue;
      const o = p * TASK_SLOTS;
      sums[0]! += m * patterns[o]!;
      sums[1]! += m * patterns[o + 1]!;
      sums[2]! += m * patterns[o + 2]!;
      sums[3]! += m * patterns[o + 3]!;
    }
    const x = rates(sums);
    if (x.gap !== null) gap[nGap++] = x.gap;
  }
  const [gLow, gHigh] = point.gap === null ? [null, null] : percentile(gap, nGap, level);
  // Every resample gave the same gap (no task where evaluator and humans differ): a single point is no interval.
  const degenerate = gLow !== null && gLow === gHigh;
  const result: InstrumentErrors = {
    ...base,
    gap: { ...base.gap, low: degenerate ? null : gLow, high: degenerate ? null : gHigh },
    reason: degenerate ? `every resample of the tasks gives the same gap (${((gLow ?? 0) * 100).toFixed(1)} points): no interval` : null,
  };
  memo?.set(memoKey, result);
  return result;
}

function rates(c: ArrayLike<number>) {
  const ss = c[T_SS]!;
  const sf = c[T_SF]!;
  const fs = c[T_FS]!;
  const ff = c[T_FF]!;
  const n = ss + sf + fs + ff;
  const humanFailures = fs + ff;
  const humanSuccesses = ss + sf;
  return {
    fpr: humanFailures > 0 ? fs / humanFailures : null,
    fnr: humanSuccesses > 0 ? sf / humanSuccesses : null,
    // (ss + fs)/n − (ss + sf)/n: the pairs where both agree cancel out.
    gap: n > 0 ? (fs - sf) / n : null,
    evaluatorRate: n > 0 ? (ss + fs) / n : null,
    humanRate: n > 0 ? humanSuccesses / n : null,
  };
}

// ---------------------------------------------------------------- rankings

export interface KendallTau {
  /** τ-b; null when either ranking is constant or fewer than two items are ranked by both. */
  tau: number | null;
  /** Items ranked by both. */
  n: number;
  concordant: number;
  discordant: number;
  /** Pairs tied in x only, in y only, in both. */
  tiesX: number;
  tiesY: number;
  tiesBoth: number;
  reason: string | null;
}

/**
 * Kendall's τ-b of paired values (null = not ranked by that rater; such items are left out):
 * τ_b = (C − D) / √((n₀ − n₁)(n₀ − n₂)), n₀ = n(n − 1)/2, n₁ / n₂ the pairs tied in x / in y (a pair tied in both
 * counts in both). Equals τ-a without ties.
 */
export function kendallTauB(x: readonly (number | null)[], y: readonly (number | null)[]): KendallTau {
  if (x.length !== y.length) throw new RangeError(`Kendall τ needs two rankings of the same items, got ${x.length} and ${y.length} values`);
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < x.length; i++) {
    if (x[i] === null || y[i] === null) continue;
    xs.push(x[i]!);
    ys.push(y[i]!);
  }
  const n = xs.length;
  let concordant = 0;
  let discordant = 0;
  let tiesX = 0;
  let tiesY = 0;
  let tiesBoth = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = Math.sign(xs[i]! - xs[j]!);
      const dy = Math.sign(ys[i]! - ys[j]!);
      if (dx === 0 && dy === 0) tiesBoth++;
      else if (dx === 0) tiesX++;
      else if (dy === 0) tiesY++;
      else if (dx === dy) concordant++;
      else discordant++;
    }
  }
  const base = { n, concordant, discordant, tiesX, tiesY, tiesBoth };
  if (n < 2) return { ...base, tau: null, reason: "fewer than two agent runs ranked by both" };
  const n0 = (n * (n - 1)) / 2;
  const denom = Math.sqrt((n0 - tiesX - tiesBoth) * (n0 - tiesY - tiesBoth));
  if (denom === 0) return { ...base, tau: null, reason: "one ranking puts every agent run level" };
  return { ...base, tau: (concordant - discordant) / denom, reason: null };
}

/** Competition ranks, highest value first ("1224"): tied values share the best rank; null stays unranked. */
export function competitionRanks(values: readonly (number | null)[]): (number | null)[] {
  return values.map((v) => {
    if (v === null) return null;
    let above = 0;
    for (const w of values) if (w !== null && w > v) above++;
    return above + 1;
  });
}

// ---------------------------------------------------------------- calibration

export interface ReliabilityBin {
  /** Confidence range [low, high) (the last bin includes 1). */
  low: number;
  high: number;
  n: number;
  /** Mean confidence of the items in the bin and the share of them humans call a success. */
  meanConfidence: number | null;
  observed: number | null;
}

export interface Calibration {
  n: number;
  bins: ReliabilityBin[];
  /** Expected calibration error: Σ_b (n_b / n)·|observed_b − meanConfidence_b|; null without items. */
  ece: number | null;
  /** Mean squared difference between confidence and the 0/1 human outcome. */
  brier: number | null;
}

/**
 * Reliability of a confidence in "success" against the human outcome, fed one item at a time. Bins are equal-width
 * over [0, 1]; a confidence of exactly 1 goes in the last bin.
 */
export class CalibrationCounter {
  private readonly count: Float64Array;
  private readonly confidence: Float64Array;
  private readonly successes: Float64Array;
  private squared = 0;
  private total = 0;

  constructor(readonly binCount = 10) {
    if (!Number.isInteger(binCount) || binCount < 1) throw new RangeError(`calibration needs a positive whole number of bins, got ${binCount}`);
    this.count = new Float64Array(binCount);
    this.confidence = new Float64Array(binCount);
    this.successes = new Float64Array(binCount);
  }

  add(confidence: number, humanSuccess: boolean): void {
    if (!(confidence >= 0 && confidence <= 1)) throw new RangeError(`a confidence must lie in [0, 1], got ${confidence}`);
    const b = Math.min(this.binCount - 1, Math.floor(confidence * this.binCount));
    this.count[b]!++;
    this.confidence[b]! += confidence;
    const y = humanSuccess ? 1 : 0;
    this.successes[b]! += y;
    this.squared += (confidence - y) ** 2;
    this.total++;
  }

  result(): Calibration {
    const bins: ReliabilityBin[] = [];
    let ece = 0;
    for (let b = 0; b < this.binCount; b++) {
      const n = this.count[b]!;
      const meanConfidence = n ? this.confidence[b]! / n : null;
      const observed = n ? this.successes[b]! / n : null;
      if (n) ece += (n / this.total) * Math.abs(observed! - meanConfidence!);
      bins.push({ low: b / this.binCount, high: (b + 1) / this.binCount, n, meanConfidence, observed });
    }
    return { n: this.total, bins, ece: this.total ? ece : null, brier: this.total ? this.squared / this.total : null };
  }
}

/** Confidence in "success" from k sampled verdicts: the share of parseable samples that said success; null when none parsed. */
export function voteShare(successes: number, failures: number): number | null {
  const n = successes + failures;
  return n > 0 ? successes / n : null;
}
