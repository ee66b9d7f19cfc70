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
import { PairTables } from "./pair-tables";
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

/**
 * Ratings already numbered, one entry per rating in the typed arrays: its item (0…itemNames.length−1), rater
 * (0…raterNames.length−1) and label (0…labels.length−1). The form labels are kept in once encoded (labels.ts), so the
 * statistics count integers; `analyzeRatings` numbers string records into it.
 */
export interface CodedRatings {
  item: Int32Array;
  rater: Int32Array;
  label: Int32Array;
  itemNames: readonly string[];
  raterNames: readonly string[];
  labels: readonly string[];
  /** Where each rating came from (e.g. "line 7"), for error messages. */
  sources?: readonly (string | undefined)[];
}

/** The ratings numbered: items and raters in order of first appearance, labels through one codec. */
function indexRatings(records: Iterable<RatingRecord>): CodedRatings {
  const itemIndex = new Map<string, number>();
  const itemNames: string[] = [];
  const raterIndex = new Map<string, number>();
  const raterNames: string[] = [];
  const codec = new LabelCodec();
  // One entry per rating, in input order, in typed arrays grown by doubling.
  let capacity = 1024;
  let item = new Int32Array(capacity);
  let rater = new Int32Array(capacity);
  let label = new Int32Array(capacity);
  const sources: (string | undefined)[] = [];
  let anySource = false;
  let n = 0;
  // Long-form files list an item's ratings together: the previous record's item is looked up without the map.
  let prevItem: string | undefined;
  let prevItemCode = -1;

  for (const r of records) {
    if (n === capacity) {
      capacity *= 2;
      const grow = (a: Int32Array) => {
        const b = new Int32Array(capacity);
        b.set(a);
        return b;
      };
      item = grow(item);
      rater = grow(rater);
      label = grow(label);
    }
    let i: number | undefined = r.item === prevItem ? prevItemCode : itemIndex.get(r.item);
    if (i === undefined) {
      i = itemNames.length;
      itemIndex.set(r.item, i);
      itemNames.push(r.item);
    }
    prevItem = r.item;
    prevItemCode = i;
    let rr = raterIndex.get(r.rater);
    if (rr === undefined) {
      rr = raterNames.length;
      raterIndex.set(r.rater, rr);
      raterNames.push(r.rater);
    }
    item[n] = i;
    rater[n] = rr;
    label[n] = codec.code(r.label);
    sources.push(r.source);
    if (r.source !== undefined) anySource = true;
    n++;
  }

  return {
    item: item.subarray(0, n),
    rater: rater.subarray(0, n),
    label: label.subarray(0, n),
    itemNames,
    raterNames,
    labels: codec.labels,
    sources: anySource ? sources : undefined,
  };
}

/** Cohen's κ of every rater pair that shared at least minSharedItems items, from their label-pair tables. */
function pairwiseKappas(tables: PairTables, o: { raterNames: readonly string[]; minSharedItems: number; interval?: IntervalOptions }): RaterPairKappa[] {
  const { k } = tables;
  const pairwise: RaterPairKappa[] = [];
  for (const { a: raterA, b: raterB, cells, counts: cellCounts } of tables.pairs()) {
    let n = 0;
    for (const v of cellCounts) n += v;
    if (n < o.minSharedItems) continue;
    // Compact table over the labels this pair used, in order of first appearance (unweighted κ does not depend on
    // unused categories).
    const local = new Map<number, number>();
    for (const cell of cells) {
      const a = Math.floor(cell / k);
      const b = cell % k;
      if (!local.has(a)) local.set(a, local.size);
      if (!local.has(b)) local.set(b, local.size);
    }
    const kl = local.size;
    const counts = new Float64Array(kl * kl);
    let agree = 0;
    cells.forEach((cell, t) => {
      const a = Math.floor(cell / k);
      const b = cell % k;
      const v = cellCounts[t]!;
      counts[local.get(a)! * kl + local.get(b)!]! += v;
      if (a === b) agree += v;
    });
    pairwise.push({
      raterA: o.raterNames[raterA]!,
      raterB: o.raterNames[raterB]!,
      sharedItems: n,
      percentAgreement: agree / n,
      ...kappaFromCounts(counts, kl, "none", o.interval),
    });
  }
  return pairwise;
}

export function analyzeRatings(records: Iterable<RatingRecord>, options: { minSharedItems?: number; interval?: IntervalOptions } = {}): RatingsAgreementReport {
  return analyzeCodedRatings(indexRatings(records), options);
}

function checkCodes(what: string, codes: Int32Array, size: number, names: string, ratings: number): void {
  for (let t = 0; t < ratings; t++) {
    const v = codes[t]!;
    if (v < 0 || v >= size) throw new AgreementInputError(`${what}[${t}] is ${v}, not one of the ${size} ${names} (codes 0 to ${size - 1})`);
  }
}

/** The same report as `analyzeRatings`, from ratings already numbered (see CodedRatings). */
export function analyzeCodedRatings(coded: CodedRatings, options: { minSharedItems?: number; interval?: IntervalOptions } = {}): RatingsAgreementReport {
  const minSharedItems = options.minSharedItems ?? DEFAULT_MIN_SHARED_ITEMS;
  const { item: itemOf, rater: raterOf, label: labelOf, itemNames, raterNames, sources } = coded;
  const labels = coded.labels.slice();
  const items = itemNames.length;
  const ratings = itemOf.length;
  const R = raterNames.length;
  const k = labels.length;
  for (const [what, codes] of [
    ["item", itemOf],
    ["rater", raterOf],
    ["label", labelOf],
  ] as const) {
    if (!(codes instanceof Int32Array)) throw new AgreementInputError(`${what} must be an Int32Array with one code per rating`);
  }
  if (raterOf.length !== ratings || labelOf.length !== ratings)
    throw new AgreementInputError(`item, rater and label must have one code per rating each, got ${ratings}, ${raterOf.length} and ${labelOf.length}`);
  checkCodes("item", itemOf, items, "items", ratings);
  checkCodes("rater", raterOf, R, "raters", ratings);
  checkCodes("label", labelOf, k, "labels", ratings);

  // Group ratings by item (stable counting sort, so each item's ratings stay in input order).
  const start = new Int32Array(items + 1);
  for (let t = 0; t < ratings; t++) start[itemOf[t]! + 1]!++;
  for (let i = 0; i < items; i++) start[i + 1]! += start[i]!;
  const order = new Int32Array(ratings);
  const fill = start.slice(0, items);
  for (let t = 0; t < ratings; t++) order[fill[itemOf[t]!]!++] = t;

  const krippendorff = new KrippendorffAccumulator();
  const perItemM = new Int32Array(items);
  const categoryTotals = new Array<number>(k).fill(0);
  const unitCounts = new Int32Array(k);
  const patterns = new ItemPatterns(k, labels);
  const touched = new Int32Array(k);
  let sumSquares = 0;
  let pairable = 0;
  let pairwiseSum = 0;
  const tables = new PairTables(R, k);

  for (let i = 0; i < items; i++) {
    const from = start[i]!;
    const to = start[i + 1]!;
    const m = to - from;
    let touchedCount = 0;
    for (let x = from; x < to; x++) {
      const tx = order[x]!;
      for (let y = from; y < x; y++) {
        const ty = order[y]!;
        if (raterOf[ty] === raterOf[tx]) {
          const where = [sources?.[ty], sources?.[tx]].filter(Boolean).join(" and ");
          throw new AgreementInputError(
            `rater ${JSON.stringify(raterNames[raterOf[tx]!])} labelled item ${JSON.stringify(itemNames[i])} more than once${where ? ` (${where})` : ""}`,
          );
        }
      }
      const c = labelOf[tx]!;
      krippendorff.add(c);
      if (unitCounts[c]!++ === 0) touched[touchedCount++] = c;
    }
    krippendorff.endUnit();
    patterns.add(unitCounts);
    let agreeingPairs = 0;
    for (let x = 0; x < touchedCount; x++) {
      const c = touched[x]!;
      const v = unitCounts[c]!;
      categoryTotals[c]! += v;
      sumSquares += v * v;
      agreeingPairs += v * (v - 1);
      unitCounts[c] = 0;
    }
    perItemM[i] = m;
    if (m < 2) continue;
    pairable++;
    pairwiseSum += agreeingPairs / (m * (m - 1));
    for (let x = from; x < to; x++) {
      const tx = order[x]!;
      const ra = raterOf[tx]!;
      for (let y = from; y < to; y++) {
        const ty = order[y]!;
        const rb = raterOf[ty]!;
        if (ra < rb) tables.add(ra, rb, labelOf[tx]!, labelOf[ty]!);
      }
    }
  }

  const pairwise = pairwiseKappas(tables, { raterNames, minSharedItems, interval: options.interval });

  const alpha = krippendorff.result(labels.slice());
  const fleiss = fleissKappaFromSummaries(perItemM, sumSquares, categoryTotals, labels);
  return {
    items,
    raters: R,
    ratings,
    pairableItems: pairable,
    raterNames: raterNames.slice(),
    labels: labels.slice(),
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
