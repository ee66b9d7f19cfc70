/**
 * Agreement of a pile of ratings in long form: one record per (item, rater, label), as researchers keep them in
 * CSV files or as annotation campaigns store them. Raters need not label every item.
 *
 * Reported: the number of items and raters; pairable items (≥ 2 ratings); Krippendorff's α (nominal) over all
 * items; mean pairwise percent agreement (Fleiss' P̄) over the pairable items; Fleiss' κ when every item has the
 * same number of ratings (otherwise null with the reason); and Cohen's κ for every pair of raters who share at least
 * `minSharedItems` items, computed on the items both labelled.
 *
 * A rater labelling the same item twice is an input error (which label would count?), reported with both records.
 *
 * Intervals: each pairwise κ carries its own (cohen.ts); α and Fleiss' κ get percentile bootstrap intervals over the
 * items (item-bootstrap.ts), seeded so the same file gives the same interval.
 */
import { kappaFromCounts, type KappaEstimate } from "./cohen";
import { fleissKappaFromSummaries, type FleissKappaResult } from "./fleiss";
import type { CoefficientInterval, IntervalOptions } from "./interval";
import { fleissKappaInterval, ItemPatterns, krippendorffAlphaInterval } from "./item-bootstrap";
import { KrippendorffAccumulator, type KrippendorffResult } from "./krippendorff";
import { AgreementInputError, LabelCodec } from "./labels";
import type { PercentAgreementResult } from "./percent";

export interface RatingRecord {
  item: string;
  rater: string;
  label: string;
  /** Where the record came from (e.g. "line 7"), for error messages. */
  source?: string;
}

export interface RaterPairKappa extends KappaEstimate {
  raterA: string;
  raterB: string;
  /** Items both raters labelled (= n). */
  sharedItems: number;
  percentAgreement: number;
}

export interface RatingsAgreementReport {
  items: number;
  raters: number;
  ratings: number;
  pairableItems: number;
  /** Rater names in order of first appearance. */
  raterNames: string[];
  /** Distinct labels in order of first appearance. */
  labels: string[];
  krippendorff: KrippendorffResult & { interval: CoefficientInterval };
  /** Mean pairwise percent agreement over pairable items. */
  percentAgreement: PercentAgreementResult;
  fleiss: FleissKappaResult & { interval: CoefficientInterval };
  minSharedItems: number;
  /** Rater pairs (in rater order) with at least minSharedItems shared items. */
  pairwise: RaterPairKappa[];
}

export const DEFAULT_MIN_SHARED_ITEMS = 10;

/** The ratings numbered: items and raters in order of first appearance, labels through one codec. */
function indexRatings(records: Iterable<RatingRecord>) {
  const itemIndex = new Map<string, number>();
  const itemNames: string[] = [];
  const raterIndex = new Map<string, number>();
  const raterNames: string[] = [];
  const codec = new LabelCodec();
  // One entry per rating, in input order.
  const itemOf: number[] = [];
  const raterOf: number[] = [];
  const labelOf: number[] = [];
  const sourceOf: (string | undefined)[] = [];

  for (const r of records) {
    let item = itemIndex.get(r.item);
    if (item === undefined) {
      item = itemNames.length;
      itemIndex.set(r.item, item);
      itemNames.push(r.item);
    }
    let rater = raterIndex.get(r.rater);
    if (rater === undefined) {
      rater = raterNames.length;
      raterIndex.set(r.rater, rater);
      raterNames.push(r.rater);
    }
    itemOf.push(item);
    raterOf.push(rater);
    labelOf.push(codec.code(r.label));
    sourceOf.push(r.source);
  }

  return { itemNames, raterNames, codec, itemOf, raterOf, labelOf, sourceOf };
}

/**
 * Cohen's κ of every rater pair that shared at least minSharedItems items, from the sparse label-pair counts keyed
 * (a·R + b)·k² + (label_a·k + label_b), a < b.
 */
function pairwiseKappas(
  pairCells: Map<number, number>,
  o: { R: number; k: number; raterNames: string[]; minSharedItems: number; interval?: IntervalOptions },
): RaterPairKappa[] {
  const { R, k, raterNames, minSharedItems } = o;
  const kk = k * k;
  const byPair = new Map<number, [number, number][]>();
  for (const [key, count] of pairCells) {
    const pair = Math.floor(key / kk);
    let cells = byPair.get(pair);
    if (!cells) byPair.set(pair, (cells = []));
    cells.push([key - pair * kk, count]);
  }

  const pairwise: RaterPairKappa[] = [];
  for (const key of [...byPair.keys()].sort((p, q) => p - q)) {
    const cells = byPair.get(key)!;
    let n = 0;
    for (const [, v] of cells) n += v;
    if (n < minSharedItems) continue;
    // Compact table over the labels this pair used (unweighted κ does not depend on unused categories).
    const local = new Map<number, number>();
    for (const [cell] of cells) {
      const a = Math.floor(cell / k);
      const b = cell % k;
      if (!local.has(a)) local.set(a, local.size);
      if (!local.has(b)) local.set(b, local.size);
    }
    const kl = local.size;
    const counts = new Float64Array(kl * kl);
    let agree = 0;
    for (const [cell, v] of cells) {
      const a = Math.floor(cell / k);
      const b = cell % k;
      counts[local.get(a)! * kl + local.get(b)!]! += v;
      if (a === b) agree += v;
    }
    pairwise.push({
      raterA: raterNames[Math.floor(key / R)]!,
      raterB: raterNames[key % R]!,
      sharedItems: n,
      percentAgreement: agree / n,
      ...kappaFromCounts(counts, kl, "none", o.interval),
    });
  }

  return pairwise;
}

export function analyzeRatings(records: Iterable<RatingRecord>, options: { minSharedItems?: number; interval?: IntervalOptions } = {}): RatingsAgreementReport {
  const minSharedItems = options.minSharedItems ?? DEFAULT_MIN_SHARED_ITEMS;
  const { itemNames, raterNames, codec, itemOf, raterOf, labelOf, sourceOf } = indexRatings(records);
  const items = itemNames.length;
  const ratings = itemOf.length;
  const R = raterNames.length;
  const k = codec.size;

  // Group ratings by item (stable counting sort, so each item's ratings stay in input order).
  const start = new Int32Array(items + 1);
  for (let t = 0; t < ratings; t++) start[itemOf[t]! + 1]!++;
  for (let i = 0; i < items; i++) start[i + 1]! += start[i]!;
  const order = new Int32Array(ratings);
  const fill = start.slice(0, items);
  for (let t = 0; t < ratings; t++) order[fill[itemOf[t]!]!++] = t;

  const krippendorff = new KrippendorffAccumulator();
  const perItemM = new Array<number>(items);
  const categoryTotals = new Array<number>(k).fill(0);
  const unitCounts = new Int32Array(k);
  const patterns = new ItemPatterns(k, codec.labels);
  const touched: number[] = [];
  let sumSquares = 0;
  let pairable = 0;
  let pairwiseSum = 0;
  // Label-pair counts of every rater pair in one sparse map keyed (a·R + b)·k² + (label_a·k + label_b), a < b:
  // memory grows with the distinct (pair, cell) combinations present, not with R²·k².
  const kk = k * k;
  if (R * R * kk > Number.MAX_SAFE_INTEGER) throw new AgreementInputError(`${R} raters × ${k} labels is too many for the pairwise tables`);
  const pairCells = new Map<number, number>();

  for (let i = 0; i < items; i++) {
    const from = start[i]!;
    const to = start[i + 1]!;
    const m = to - from;
    for (let x = from; x < to; x++) {
      const tx = order[x]!;
      for (let y = from; y < x; y++) {
        const ty = order[y]!;
        if (raterOf[ty] === raterOf[tx]) {
          const where = [sourceOf[ty], sourceOf[tx]].filter(Boolean).join(" and ");
          throw new AgreementInputError(
            `rater ${JSON.stringify(raterNames[raterOf[tx]!])} labelled item ${JSON.stringify(itemNames[i])} more than once${where ? ` (${where})` : ""}`,
          );
        }
      }
      const c = labelOf[tx]!;
      krippendorff.add(c);
      if (unitCounts[c]!++ === 0) touched.push(c);
    }
    krippendorff.endUnit();
    patterns.add(unitCounts);
    let agreeingPairs = 0;
    for (const c of touched) {
      const v = unitCounts[c]!;
      categoryTotals[c]! += v;
      sumSquares += v * v;
      agreeingPairs += v * (v - 1);
      unitCounts[c] = 0;
    }
    touched.length = 0;
    perItemM[i] = m;
    if (m < 2) continue;
    pairable++;
    pairwiseSum += agreeingPairs / (m * (m - 1));
    for (let x = from; x < to; x++) {
      for (let y = from; y < to; y++) {
        const tx = order[x]!;
        const ty = order[y]!;
        const ra = raterOf[tx]!;
        const rb = raterOf[ty]!;
        if (ra >= rb) continue;
        const key = (ra * R + rb) * kk + labelOf[tx]! * k + labelOf[ty]!;
        pairCells.set(key, (pairCells.get(key) ?? 0) + 1);
      }
    }
  }

  const pairwise = pairwiseKappas(pairCells, { R, k, raterNames, minSharedItems, interval: options.interval });

  const alpha = krippendorff.result(codec.labels.slice());
  const fleiss = fleissKappaFromSummaries(perItemM, sumSquares, categoryTotals, codec.labels);
  return {
    items,
    raters: R,
    ratings,
    pairableItems: pairable,
    raterNames,
    labels: codec.labels.slice(),
    krippendorff: { ...alpha, interval: krippendorffAlphaInterval(patterns, alpha, options.interval) },
    percentAgreement:
      pairable === 0
        ? { value: null, reason: "no item has two or more ratings", items: 0, excluded: items }
        : { value: pairwiseSum / pairable, reason: null, items: pairable, excluded: items - pairable },
    fleiss: { ...fleiss, interval: fleissKappaInterval(patterns, fleiss, options.interval) },
    minSharedItems,
    pairwise,
  };
}
