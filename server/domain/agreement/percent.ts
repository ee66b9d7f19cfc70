/**
 * Percent agreement, as a proportion in [0, 1], in the three senses the agreement views use.
 *
 * - two raters: share of items with identical labels, after dropping items where either label is missing;
 * - mean pairwise (Fleiss' P̄): over items with at least two labels (missing ones skipped), the mean of
 *     P_i = Σ_c n_ic (n_ic − 1) / (m_i (m_i − 1)),
 *   i.e. the share of agreeing ordered rater pairs within the item, averaged over items;
 * - all agree: share of complete items (no missing label) on which every rater gave the same label
 *   (listwise deletion, as R irr::agree).
 * Each is null (with a reason) when no item qualifies.
 */
import { AgreementInputError, type Label } from "./labels";

export interface PercentAgreementResult {
  value: number | null;
  reason: string | null;
  /** Items that entered the proportion. */
  items: number;
  /** Items left out (a missing label, or too few labels). */
  excluded: number;
}

function proportion(hits: number, items: number, excluded: number, emptyReason: string): PercentAgreementResult {
  return items === 0 ? { value: null, reason: emptyReason, items, excluded } : { value: hits / items, reason: null, items, excluded };
}

function checkItems(ratings: readonly (readonly Label[])[]): void {
  if (!Array.isArray(ratings)) throw new AgreementInputError("ratings must be an array with one array of labels per item");
  ratings.forEach((item, i) => {
    if (!Array.isArray(item)) throw new AgreementInputError(`ratings[${i}] must be an array of labels`);
    item.forEach((v, r) => {
      if (v !== null && typeof v !== "string") throw new AgreementInputError(`ratings[${i}][${r}] must be a string or null, got ${JSON.stringify(v)}`);
    });
  });
}

export function percentAgreementTwoRaters(a: readonly Label[], b: readonly Label[]): PercentAgreementResult {
  if (!Array.isArray(a) || !Array.isArray(b)) throw new AgreementInputError("both raters' labels must be arrays");
  if (a.length !== b.length) throw new AgreementInputError(`the two raters' label vectors differ in length (${a.length} vs ${b.length})`);
  let items = 0;
  let hits = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === null || y === null || x === undefined || y === undefined) continue;
    items++;
    if (x === y) hits++;
  }
  return proportion(hits, items, a.length - items, "no item has labels from both raters");
}

export function meanPairwiseAgreement(ratings: readonly (readonly Label[])[]): PercentAgreementResult {
  checkItems(ratings);
  let items = 0;
  let sum = 0;
  const counts = new Map<string, number>();
  for (const item of ratings) {
    counts.clear();
    let m = 0;
    for (const v of item) {
      if (v === null) continue;
      counts.set(v, (counts.get(v) ?? 0) + 1);
      m++;
    }
    if (m < 2) continue;
    let pairs = 0;
    for (const c of counts.values()) pairs += c * (c - 1);
    sum += pairs / (m * (m - 1));
    items++;
  }
  return proportion(sum, items, ratings.length - items, "no item has two or more labels");
}

export function allAgreeShare(ratings: readonly (readonly Label[])[]): PercentAgreementResult {
  checkItems(ratings);
  let items = 0;
  let hits = 0;
  for (const item of ratings) {
    if (item.length === 0 || item.includes(null)) continue;
    items++;
    if (item.every((v) => v === item[0])) hits++;
  }
  return proportion(hits, items, ratings.length - items, "no complete item (every item has a missing label or none at all)");
}
