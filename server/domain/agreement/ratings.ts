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
 */
import { kappaFromCounts, type KappaEstimate } from "./cohen";
import { fleissKappaFromSummaries, type FleissKappaResult } from "./fleiss";
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
  krippendorff: KrippendorffResult;
  /** Mean pairwise percent agreement over pairable items. */
  percentAgreement: PercentAgreementResult;
  fleiss: FleissKappaResult;
  minSharedItems: number;
  /** Rater pairs (in rater order) with at least minSharedItems shared items. */
  pairwise: RaterPairKappa[];
}

export const DEFAULT_MIN_SHARED_ITEMS = 10;

export function analyzeRatings(records: Iterable<RatingRecord>, options: { minSharedItems?: number } = {}): RatingsAgreementReport {
  const minSharedItems = options.minSharedItems ?? DEFAULT_MIN_SHARED_ITEMS;
  const itemIndex = new Map<string, number>();
  const raterIndex = new Map<string, number>();
  const raterNames: string[] = [];
  const codec = new LabelCodec();
  const itemRaters: number[][] = [];
  const itemLabels: number[][] = [];
  const firstSource = new Map<string, string | undefined>();
  let ratings = 0;

  for (const r of records) {
    let item = itemIndex.get(r.item);
    if (item === undefined) {
      item = itemRaters.length;
      itemIndex.set(r.item, item);
      itemRaters.push([]);
      itemLabels.push([]);
    }
    let rater = raterIndex.get(r.rater);
    if (rater === undefined) {
      rater = raterNames.length;
      raterIndex.set(r.rater, rater);
      raterNames.push(r.rater);
    }
    const key = `${item}:${rater}`;
    if (firstSource.has(key)) {
      const where = [firstSource.get(key), r.source].filter(Boolean).join(" and ");
      throw new AgreementInputError(`rater ${JSON.stringify(r.rater)} labelled item ${JSON.stringify(r.item)} more than once${where ? ` (${where})` : ""}`);
    }
    firstSource.set(key, r.source);
    itemRaters[item]!.push(rater);
    itemLabels[item]!.push(codec.code(r.label));
    ratings++;
  }

  const R = raterNames.length;
  const krippendorff = new KrippendorffAccumulator();
  const perItemM: number[] = [];
  const categoryTotals: number[] = [];
  let sumSquares = 0;
  let pairable = 0;
  let pairwiseSum = 0;
  const unitCounts = new Map<number, number>();
  // Shared-item label pairs per rater pair (a < b in rater order), keyed a·R + b.
  const pairCodes = new Map<number, { a: number[]; b: number[] }>();

  for (let i = 0; i < itemRaters.length; i++) {
    const raters = itemRaters[i]!;
    const labels = itemLabels[i]!;
    const m = labels.length;
    unitCounts.clear();
    for (const c of labels) {
      krippendorff.add(c);
      unitCounts.set(c, (unitCounts.get(c) ?? 0) + 1);
    }
    krippendorff.endUnit();
    let agreeingPairs = 0;
    for (const [c, v] of unitCounts) {
      categoryTotals[c] = (categoryTotals[c] ?? 0) + v;
      sumSquares += v * v;
      agreeingPairs += v * (v - 1);
    }
    perItemM.push(m);
    if (m >= 2) {
      pairable++;
      pairwiseSum += agreeingPairs / (m * (m - 1));
    }
    for (let x = 0; x < m; x++) {
      for (let y = 0; y < m; y++) {
        const ra = raters[x]!;
        const rb = raters[y]!;
        if (ra >= rb) continue;
        const key = ra * R + rb;
        let bucket = pairCodes.get(key);
        if (!bucket) pairCodes.set(key, (bucket = { a: [], b: [] }));
        bucket.a.push(labels[x]!);
        bucket.b.push(labels[y]!);
      }
    }
  }

  const k = codec.size;
  for (let c = 0; c < k; c++) categoryTotals[c] ??= 0;

  const pairwise: RaterPairKappa[] = [];
  const keys = [...pairCodes.keys()].sort((p, q) => p - q);
  for (const key of keys) {
    const { a, b } = pairCodes.get(key)!;
    if (a.length < minSharedItems) continue;
    // Compact table over the labels this pair used (unweighted κ does not depend on unused categories).
    const local = new Map<number, number>();
    for (const c of a) if (!local.has(c)) local.set(c, local.size);
    for (const c of b) if (!local.has(c)) local.set(c, local.size);
    const kl = local.size;
    const counts = new Float64Array(kl * kl);
    let agree = 0;
    for (let t = 0; t < a.length; t++) {
      counts[local.get(a[t]!)! * kl + local.get(b[t]!)!]!++;
      if (a[t] === b[t]) agree++;
    }
    pairwise.push({
      raterA: raterNames[Math.floor(key / R)]!,
      raterB: raterNames[key % R]!,
      sharedItems: a.length,
      percentAgreement: agree / a.length,
      ...kappaFromCounts(counts, kl, "none"),
    });
  }

  const items = itemRaters.length;
  return {
    items,
    raters: R,
    ratings,
    pairableItems: pairable,
    raterNames,
    labels: codec.labels.slice(),
    krippendorff: krippendorff.result(codec.labels.slice()),
    percentAgreement:
      pairable === 0
        ? { value: null, reason: "no item has two or more ratings", items: 0, excluded: items }
        : { value: pairwiseSum / pairable, reason: null, items: pairable, excluded: items - pairable },
    fleiss: fleissKappaFromSummaries(perItemM, sumSquares, categoryTotals, codec.labels),
    minSharedItems,
    pairwise,
  };
}
