/**
 * Labels as the consensus models (Dawid–Skene, MACE) see them: one entry per label given, as three parallel integer
 * arrays (item, annotator, class), so that an annotator may skip items or label an item more than once (the
 * Dawid–Skene paper's first observer examined every patient three times).
 *
 * Both models only ever look at an item through the multiset of (annotator, class) labels it received. Items with
 * the same multiset — with three annotators and a handful of classes there are at most a few hundred distinct ones
 * among 100,000 trajectories — share one posterior, so the EM loops run over these *patterns*, each weighted by how
 * many items show it. That is what keeps a refit after every label write in the tens of milliseconds.
 */
import { AgreementInputError, LabelCodec, MISSING } from "./labels";
import type { RatingRecord } from "./ratings";

export interface ConsensusLabels {
  items: number;
  annotators: number;
  classes: number;
  /** Per label given: the item (0 … items − 1). */
  item: Int32Array;
  /** Per label given: the annotator (0 … annotators − 1). */
  annotator: Int32Array;
  /** Per label given: the class (0 … classes − 1). */
  label: Int32Array;
}

/** The items grouped by identical label multisets. */
export interface LabelPatterns {
  /** Number of distinct patterns. */
  count: number;
  /** Items showing each pattern. */
  weight: Float64Array;
  /** Pattern g's labels are codes[start[g] … start[g + 1]), each annotator · classes + class. */
  start: Int32Array;
  codes: Int32Array;
  /** Per item, its pattern, or MISSING for an item nobody labelled. */
  itemPattern: Int32Array;
  /** Items with at least one label. */
  labelledItems: number;
}

function checkCodes(values: Int32Array, limit: number, field: string): void {
  for (let t = 0; t < values.length; t++) {
    const v = values[t]!;
    if (v < 0 || v >= limit) throw new AgreementInputError(`${field}[${t}] is ${v}, outside 0 … ${limit - 1}`);
  }
}

/** Checks sizes and ranges, naming the field and entry at fault. */
export function validateConsensusLabels(data: ConsensusLabels): void {
  for (const key of ["items", "annotators", "classes"] as const) {
    const v = data[key];
    if (!Number.isInteger(v) || v < 0) throw new AgreementInputError(`${key} must be a non-negative integer, got ${JSON.stringify(v)}`);
  }
  if (data.classes < 1) throw new AgreementInputError("classes must be at least 1");
  for (const key of ["item", "annotator", "label"] as const) {
    if (!(data[key] instanceof Int32Array)) throw new AgreementInputError(`${key} must be an Int32Array`);
  }
  const n = data.item.length;
  if (data.annotator.length !== n || data.label.length !== n) {
    throw new AgreementInputError(`item, annotator and label must have the same length, got ${n}, ${data.annotator.length} and ${data.label.length}`);
  }
  checkCodes(data.item, data.items, "item");
  checkCodes(data.annotator, data.annotators, "annotator");
  checkCodes(data.label, data.classes, "label");
}

/** Groups items by their multiset of (annotator, class) labels. */
export function labelPatterns(data: ConsensusLabels): LabelPatterns {
  const { items, classes } = data;
  const n = data.item.length;
  // Counting sort of the labels by item.
  const itemStart = new Int32Array(items + 1);
  for (let t = 0; t < n; t++) itemStart[data.item[t]! + 1]!++;
  for (let i = 0; i < items; i++) itemStart[i + 1]! += itemStart[i]!;
  const fill = itemStart.slice(0, items);
  const sortedCodes = new Int32Array(n);
  for (let t = 0; t < n; t++) sortedCodes[fill[data.item[t]!]!++] = data.annotator[t]! * classes + data.label[t]!;

  const itemPattern = new Int32Array(items).fill(MISSING);
  // Patterns found so far, looked up by a 32-bit hash of the sorted codes and confirmed code by code (no string
  // keys: building 100,000 of them cost more than the fits). Chains of same-hash patterns through `nextSameHash`.
  const byHash = new Map<number, number>();
  const nextSameHash: number[] = [];
  const weights: number[] = [];
  const starts: number[] = [0];
  const codes: number[] = [];
  let labelledItems = 0;
  for (let i = 0; i < items; i++) {
    const from = itemStart[i]!;
    const to = itemStart[i + 1]!;
    if (to === from) continue;
    labelledItems++;
    // Insertion sort: an item has a handful of labels.
    for (let x = from + 1; x < to; x++) {
      const v = sortedCodes[x]!;
      let y = x - 1;
      while (y >= from && sortedCodes[y]! > v) {
        sortedCodes[y + 1] = sortedCodes[y]!;
        y--;
      }
      sortedCodes[y + 1] = v;
    }
    let hash = to - from;
    for (let x = from; x < to; x++) hash = Math.imul(hash ^ sortedCodes[x]!, 0x9e3779b1) ^ (hash >>> 15);
    let g = byHash.get(hash);
    while (g !== undefined) {
      const gFrom = starts[g]!;
      let same = starts[g + 1]! - gFrom === to - from;
      for (let x = 0; same && x < to - from; x++) same = codes[gFrom + x] === sortedCodes[from + x];
      if (same) break;
      g = nextSameHash[g];
    }
    if (g === undefined) {
      g = weights.length;
      nextSameHash.push(byHash.get(hash) as number);
      byHash.set(hash, g);
      weights.push(0);
      for (let x = from; x < to; x++) codes.push(sortedCodes[x]!);
      starts.push(codes.length);
    }
    weights[g]!++;
    itemPattern[i] = g;
  }
  return {
    count: weights.length,
    weight: Float64Array.from(weights),
    start: Int32Array.from(starts),
    codes: Int32Array.from(codes),
    itemPattern,
    labelledItems,
  };
}

/** Labels with their patterns, so that several models fitted to the same labels group them once. */
export interface GroupedConsensusLabels {
  data: ConsensusLabels;
  patterns: LabelPatterns;
}

export function groupConsensusLabels(data: ConsensusLabels): GroupedConsensusLabels {
  validateConsensusLabels(data);
  return { data, patterns: labelPatterns(data) };
}

/** Validates and groups plain labels; passes grouped ones through. */
export function grouped(input: ConsensusLabels | GroupedConsensusLabels): GroupedConsensusLabels {
  return "patterns" in input ? input : groupConsensusLabels(input);
}

/** Per item, the class with the highest posterior (lowest class on ties), MISSING for unlabelled items. */
export function mostLikelyClasses(posterior: Float64Array, patterns: LabelPatterns, classes: number): Int32Array {
  const out = new Int32Array(patterns.itemPattern.length);
  for (let i = 0; i < out.length; i++) {
    if (patterns.itemPattern[i] === MISSING) {
      out[i] = MISSING;
      continue;
    }
    let best = 0;
    for (let k = 1; k < classes; k++) if (posterior[i * classes + k]! > posterior[i * classes + best]!) best = k;
    out[i] = best;
  }
  return out;
}

/** Spreads pattern posteriors to items; unlabelled items get `fallback` (the class prior). */
export function itemPosteriors(patternPosterior: Float64Array, patterns: LabelPatterns, classes: number, fallback: Float64Array): Float64Array {
  const items = patterns.itemPattern.length;
  const out = new Float64Array(items * classes);
  for (let i = 0; i < items; i++) {
    const g = patterns.itemPattern[i]!;
    const from = g === MISSING ? 0 : g * classes;
    const source = g === MISSING ? fallback : patternPosterior;
    for (let k = 0; k < classes; k++) out[i * classes + k] = source[from + k]!;
  }
  return out;
}

/**
 * Plain majority vote per item, for comparison with the models: the most frequent class, MISSING when nobody
 * labelled the item or the top classes tie (no majority to compare against). Decided once per label pattern.
 */
export function majorityClasses(labels: ConsensusLabels | GroupedConsensusLabels): Int32Array {
  const { data, patterns } = grouped(labels);
  const K = data.classes;
  const { start, codes } = patterns;
  const counts = new Int32Array(K);
  const winner = new Int32Array(patterns.count);
  for (let g = 0; g < patterns.count; g++) {
    counts.fill(0);
    for (let x = start[g]!; x < start[g + 1]!; x++) counts[codes[x]! % K]!++;
    let best = MISSING;
    let bestCount = 0;
    let tied = false;
    for (let k = 0; k < K; k++) {
      const c = counts[k]!;
      if (c > bestCount) {
        best = k;
        bestCount = c;
        tied = false;
      } else if (c === bestCount && c > 0) {
        tied = true;
      }
    }
    winner[g] = tied ? MISSING : best;
  }
  const out = new Int32Array(data.items);
  for (let i = 0; i < data.items; i++) {
    const g = patterns.itemPattern[i]!;
    out[i] = g === MISSING ? MISSING : winner[g]!;
  }
  return out;
}

export interface EncodedConsensusLabels {
  data: ConsensusLabels;
  itemNames: string[];
  annotatorNames: string[];
  /** Class names in code order. */
  classNames: string[];
}

/**
 * Long-form rating records (item, rater, label) to the models' integer form. With `categories` the class list is
 * fixed (so a class nobody used still gets a row in every confusion matrix) and an unknown label is an error naming
 * the record; without, classes are numbered in order of first appearance.
 */
export function encodeConsensusRecords(records: Iterable<RatingRecord>, categories?: readonly string[]): EncodedConsensusLabels {
  const codec = new LabelCodec(categories, { frozen: categories !== undefined, what: "categories" });
  const itemIndex = new Map<string, number>();
  const annotatorIndex = new Map<string, number>();
  const itemNames: string[] = [];
  const annotatorNames: string[] = [];
  const item: number[] = [];
  const annotator: number[] = [];
  const label: number[] = [];
  let n = 0;
  for (const r of records) {
    let i = itemIndex.get(r.item);
    if (i === undefined) {
      i = itemNames.length;
      itemIndex.set(r.item, i);
      itemNames.push(r.item);
    }
    let a = annotatorIndex.get(r.rater);
    if (a === undefined) {
      a = annotatorNames.length;
      annotatorIndex.set(r.rater, a);
      annotatorNames.push(r.rater);
    }
    try {
      label.push(codec.code(r.label));
    } catch (e) {
      if (e instanceof AgreementInputError) throw new AgreementInputError(`record ${r.source ?? n + 1} (item ${JSON.stringify(r.item)}): ${e.message}`);
      throw e;
    }
    item.push(i);
    annotator.push(a);
    n++;
  }
  return {
    data: {
      items: itemNames.length,
      annotators: annotatorNames.length,
      classes: Math.max(1, codec.size),
      item: Int32Array.from(item),
      annotator: Int32Array.from(annotator),
      label: Int32Array.from(label),
    },
    itemNames,
    annotatorNames,
    classNames: codec.labels.slice(),
  };
}

/** Options shared by the EM fits. */
export interface EmOptions {
  /** Stop when the log-likelihood gains less than this (relative to its size, floor 1) between iterations. */
  tolerance?: number;
  maxIterations?: number;
  /**
   * Pseudo-count added to every estimated count (class prior, confusion cells, competence, spamming) so that a
   * campaign with a few dozen labels does not get probabilities of exactly 0 or 1. 0 gives the plain maximum
   * likelihood estimate, as in the original papers.
   */
  smoothing?: number;
}

export const DEFAULT_TOLERANCE = 1e-7;
export const DEFAULT_MAX_ITERATIONS = 200;
export const DEFAULT_SMOOTHING = 0.01;

export function resolveEmOptions(options: EmOptions): Required<EmOptions> {
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE;
  const maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  const smoothing = options.smoothing ?? DEFAULT_SMOOTHING;
  if (!(tolerance >= 0)) throw new AgreementInputError(`tolerance must be ≥ 0, got ${tolerance}`);
  if (!Number.isInteger(maxIterations) || maxIterations < 1) throw new AgreementInputError(`maxIterations must be a positive integer, got ${maxIterations}`);
  if (!(smoothing >= 0) || !Number.isFinite(smoothing)) throw new AgreementInputError(`smoothing must be a finite number ≥ 0, got ${smoothing}`);
  return { tolerance, maxIterations, smoothing };
}

export function hasConverged(previous: number, current: number, tolerance: number): boolean {
  return Math.abs(current - previous) <= tolerance * Math.max(1, Math.abs(current));
}

/**
 * The E-step of an EM fit over the distinct label patterns: for each pattern, `prior` fills the log class
 * probabilities, `addCode` adds what each of its labels says about each class, and the result is normalised into
 * `posterior` (row g). Returns the patterns' weighted log-likelihood, or -Infinity when some pattern has every class
 * impossible (that pattern's previous posterior stands).
 */
export function patternsEStep(
  patterns: Pick<LabelPatterns, "count" | "weight" | "start" | "codes">,
  classes: number,
  posterior: Float64Array,
  prior: (logp: Float64Array) => void,
  addCode: (logp: Float64Array, code: number) => void,
): number {
  const { count, weight, start, codes } = patterns;
  const logp = new Float64Array(classes);
  let ll = 0;
  for (let g = 0; g < count; g++) {
    prior(logp);
    for (let x = start[g]!; x < start[g + 1]!; x++) addCode(logp, codes[x]!);
    const patternLl = normaliseLogPosterior(logp, posterior, g * classes, classes);
    if (patternLl === -Infinity) {
      ll = -Infinity;
      continue;
    }
    ll += weight[g]! * patternLl;
  }
  return ll;
}

/** Appends an iteration's log-likelihood to the trace; true when it moved no more than the tolerance since the last. */
export function traceConverged(trace: number[], ll: number, tolerance: number): boolean {
  const previous = trace.length ? trace[trace.length - 1]! : undefined;
  trace.push(ll);
  return previous !== undefined && hasConverged(previous, ll, tolerance);
}

/** How an EM loop went: the log-likelihood after each E-step, the iterations run, and whether it settled. */
export interface EmRun {
  trace: number[];
  iterations: number;
  converged: boolean;
}

/**
 * The EM loop both models run: `iterate` does one iteration (the model's M- and E-steps, in its order; it is told
 * which, from 1) and returns the log-likelihood of its E-step; the loop stops when that stops moving (`tolerance`) or
 * after `maxIterations`.
 */
export function runEm(em: Pick<Required<EmOptions>, "tolerance" | "maxIterations">, iterate: (iteration: number) => number): EmRun {
  const trace: number[] = [];
  let iterations = 0;
  while (iterations < em.maxIterations) {
    iterations++;
    if (traceConverged(trace, iterate(iterations), em.tolerance)) return { trace, iterations, converged: true };
  }
  return { trace, iterations, converged: false };
}

/** An EM fit's starting class indicators: each pattern's share of its labels in each class (a soft majority vote). */
export function voteShares(patterns: LabelPatterns, classes: number): Float64Array {
  const { count, start, codes } = patterns;
  const T = new Float64Array(count * classes);
  for (let g = 0; g < count; g++) {
    const n = start[g + 1]! - start[g]!;
    for (let x = start[g]!; x < start[g + 1]!; x++) T[g * classes + (codes[x]! % classes)]! += 1 / n;
  }
  return T;
}

/** What every consensus model's fit says, whatever its annotator parameters. */
export interface ConsensusFit {
  items: number;
  annotators: number;
  classes: number;
  /** items × classes, row-major: the probability of each true class given all labels. */
  posterior: Float64Array;
  /** Per item, the most probable class (lowest on ties); MISSING (−1) for items nobody labelled. */
  label: Int32Array;
  /** Labels each annotator gave. */
  labelsPerAnnotator: Int32Array;
  /** Log-likelihood after each E-step (of the kept run, for a model fitted more than once). */
  logLikelihood: number[];
  iterations: number;
  converged: boolean;
  /** Distinct label patterns the fit ran over (how much work it really was). */
  patterns: number;
}

/**
 * A finished fit's common part: the pattern posteriors `T` spread to the items (an unlabelled item gets `prior`),
 * each item's most likely class, the labels per annotator, and the EM run.
 */
export function consensusFit({ data, patterns }: GroupedConsensusLabels, T: Float64Array, prior: Float64Array, run: EmRun): ConsensusFit {
  const { items, annotators, classes } = data;
  const labelsPerAnnotator = new Int32Array(annotators);
  for (let t = 0; t < data.annotator.length; t++) labelsPerAnnotator[data.annotator[t]!]!++;
  const posterior = itemPosteriors(T, patterns, classes, prior);
  return {
    items,
    annotators,
    classes,
    posterior,
    label: mostLikelyClasses(posterior, patterns, classes),
    labelsPerAnnotator,
    logLikelihood: run.trace,
    iterations: run.iterations,
    converged: run.converged,
    patterns: patterns.count,
  };
}

/**
 * One E-step row of an EM fit: turns an item pattern's unnormalised log class probabilities into posteriors (written
 * to `posterior` at `offset`) without overflow. Returns the pattern's log-likelihood, or -Infinity when every class is
 * impossible (then `posterior` is left as it was, so the previous estimate stands).
 */
export function normaliseLogPosterior(logp: Float64Array, posterior: Float64Array, offset: number, classes: number): number {
  let max = -Infinity;
  for (let k = 0; k < classes; k++) if (logp[k]! > max) max = logp[k]!;
  if (max === -Infinity) return -Infinity;
  let sum = 0;
  for (let k = 0; k < classes; k++) sum += Math.exp(logp[k]! - max);
  for (let k = 0; k < classes; k++) posterior[offset + k] = Math.exp(logp[k]! - max) / sum;
  return max + Math.log(sum);
}
