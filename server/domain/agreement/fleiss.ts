/**
 * Fleiss' κ (Fleiss 1971) for many raters, each item rated by the same number m ≥ 2 of (possibly different) raters.
 *
 * With N items, n_ic = number of ratings of item i in category c, m = Σ_c n_ic for every i:
 *   P_i  = Σ_c n_ic (n_ic − 1) / (m (m − 1))        agreement among the ratings of item i
 *   P̄   = (1/N) Σ_i P_i
 *   p_c  = Σ_i n_ic / (N m)                          pooled category proportions
 *   P̄_e = Σ_c p_c²
 *   κ    = (P̄ − P̄_e) / (1 − P̄_e)
 * κ is computed from the integer form κ = (S·N·m − T·(m − 1)) / ((m − 1)(N²m² − T)), S = Σ_i Σ_c n_ic² − N m,
 * T = Σ_c (Σ_i n_ic)², so κ = 0 and κ = 1 come out exactly.
 *
 * Undefined (null, with the reason): no items; items with different numbers of ratings (use Krippendorff's α);
 * m < 2; every rating in one category (P̄_e = 1, 0/0). With two raters per item this is Scott's π, not Cohen's κ.
 *
 * Standard error under H₀: κ = 0 (Fleiss, Nee & Landis 1979, as in R irr::kappam.fleiss), q_c = 1 − p_c:
 *   SE₀ = √2 / (Σ p_c q_c · √(N m (m − 1))) · √((Σ p_c q_c)² − Σ p_c q_c (q_c − p_c)),
 * z = κ / SE₀. This tests κ = 0; it is not a standard error for a confidence interval.
 */
import { AgreementInputError, LabelCodec, type Label } from "./labels";
import { twoSidedP } from "./normal";

export interface FleissKappaResult {
  kappa: number | null;
  reason: string | null;
  /** Items counted. */
  items: number;
  /** Ratings per item (m), or null when items differ. */
  ratingsPerItem: number | null;
  categories: string[];
  /** P̄: mean agreement per item. */
  observedAgreement: number | null;
  /** P̄_e: chance agreement from the pooled category proportions. */
  expectedAgreement: number | null;
  /** SE under H₀: κ = 0 (Fleiss, Nee & Landis 1979). */
  se0: number | null;
  z: number | null;
  pTwoSided: number | null;
}

function undefinedResult(base: Pick<FleissKappaResult, "items" | "ratingsPerItem" | "categories">, reason: string): FleissKappaResult {
  return { ...base, kappa: null, reason, observedAgreement: null, expectedAgreement: null, se0: null, z: null, pTwoSided: null };
}

/**
 * Fleiss' κ from per-item summaries: the number of ratings m_i of each item, Σ_i Σ_c n_ic² over all items, and the
 * category totals Σ_i n_ic (in `categories` order). Lets callers with sparse data skip the dense items × k table.
 */
export function fleissKappaFromSummaries(
  ratingsPerItem: ArrayLike<number>,
  sumOfSquaredCounts: number,
  categoryTotals: readonly number[],
  categories: readonly string[],
): FleissKappaResult {
  const N = ratingsPerItem.length;
  let minM = Infinity;
  let maxM = -Infinity;
  for (let i = 0; i < N; i++) {
    const m = ratingsPerItem[i]!;
    if (m < minM) minM = m;
    if (m > maxM) maxM = m;
  }
  return fleissKappaFromTotals({ items: N, minRatings: minM, maxRatings: maxM }, sumOfSquaredCounts, categoryTotals, categories);
}

/**
 * Fleiss' κ from the number of items, the fewest and most ratings an item has, Σ_i Σ_c n_ic² and the category
 * totals: all the summaries need of the items, for callers that hold items grouped by their counts.
 */
export function fleissKappaFromTotals(
  shape: { items: number; minRatings: number; maxRatings: number },
  sumOfSquaredCounts: number,
  categoryTotals: readonly number[],
  categories: readonly string[],
): FleissKappaResult {
  const labels = categories.slice();
  const N = shape.items;
  if (N === 0) return undefinedResult({ items: 0, ratingsPerItem: null, categories: labels }, "no items");
  const minM = shape.minRatings;
  const maxM = shape.maxRatings;
  if (minM !== maxM) {
    return undefinedResult(
      { items: N, ratingsPerItem: null, categories: labels },
      `items have different numbers of ratings (${minM} to ${maxM}); Fleiss' κ needs the same number for every item (Krippendorff's α handles unequal numbers)`,
    );
  }
  const m = minM;
  const base = { items: N, ratingsPerItem: m, categories: labels };
  if (m < 2) return undefinedResult(base, `each item has ${m} rating${m === 1 ? "" : "s"}; Fleiss' κ needs at least 2 per item`);

  const nB = BigInt(N);
  const mB = BigInt(m);
  const S = BigInt(sumOfSquaredCounts) - nB * mB;
  let T = 0n;
  for (const t of categoryTotals) T += BigInt(t) * BigInt(t);
  const NmSquared = nB * nB * mB * mB;
  if (NmSquared === T) return undefinedResult(base, "every rating is in the same category (P̄_e = 1): κ is 0/0");
  const kappa = Number(S * nB * mB - T * (mB - 1n)) / Number((mB - 1n) * (NmSquared - T));
  const observedAgreement = Number(S) / (N * m * (m - 1));
  const expectedAgreement = Number(T) / Number(NmSquared);

  let pq = 0;
  let pqqp = 0;
  for (const t of categoryTotals) {
    const p = t / (N * m);
    const q = 1 - p;
    pq += p * q;
    pqqp += p * q * (q - p);
  }
  const inner = pq * pq - pqqp;
  const se0 = inner > 0 ? (Math.SQRT2 / (pq * Math.sqrt(N * m * (m - 1)))) * Math.sqrt(inner) : 0;
  const z = se0 > 0 ? kappa / se0 : null;
  return { ...base, kappa, reason: null, observedAgreement, expectedAgreement, se0, z, pTwoSided: z === null ? null : twoSidedP(z) };
}

/**
 * Fleiss' κ from an items × categories table of counts (columns in `categories` order when given).
 */
export function fleissKappaFromCounts(counts: readonly (readonly number[])[], categories?: readonly string[]): FleissKappaResult {
  if (!Array.isArray(counts)) throw new AgreementInputError("counts must be an array of rows (items × categories)");
  const k = categories?.length ?? counts[0]?.length ?? 0;
  const labels = categories ? categories.slice() : Array.from({ length: k }, (_, c) => String(c));
  const perItem: number[] = [];
  const totals = new Array<number>(k).fill(0);
  let sumSquares = 0;
  counts.forEach((row, i) => {
    if (!Array.isArray(row) || row.length !== k)
      throw new AgreementInputError(`counts row ${i} has ${Array.isArray(row) ? row.length : "no"} cells, expected ${k} (one per category)`);
    let m = 0;
    row.forEach((v, c) => {
      if (!Number.isInteger(v) || v < 0) throw new AgreementInputError(`counts[${i}][${c}] must be a non-negative integer, got ${JSON.stringify(v)}`);
      m += v;
      totals[c]! += v;
      sumSquares += v * v;
    });
    perItem.push(m);
  });
  return fleissKappaFromSummaries(perItem, sumSquares, totals, labels);
}

/**
 * Fleiss' κ from raw ratings: one array of labels per item (null entries are missing and skipped, so an item with
 * a null has one rating fewer). Categories are the given list (labels outside it are an error) or the labels used.
 */
export function fleissKappa(ratings: readonly (readonly Label[])[], categories?: readonly string[]): FleissKappaResult {
  if (!Array.isArray(ratings)) throw new AgreementInputError("ratings must be an array with one array of labels per item");
  const codec = new LabelCodec(categories, { frozen: categories !== undefined });
  const encoded: number[][] = ratings.map((item, i) => {
    if (!Array.isArray(item)) throw new AgreementInputError(`ratings[${i}] must be an array of labels`);
    const codes: number[] = [];
    item.forEach((label, r) => {
      if (label === null || label === undefined) return;
      if (typeof label !== "string") throw new AgreementInputError(`ratings[${i}][${r}] must be a string or null, got ${JSON.stringify(label)}`);
      try {
        codes.push(codec.code(label));
      } catch (e) {
        throw new AgreementInputError(`ratings[${i}][${r}]: ${(e as Error).message}`);
      }
    });
    return codes;
  });
  const totals = new Array<number>(codec.size).fill(0);
  const perItem: number[] = [];
  let sumSquares = 0;
  const itemCounts = new Map<number, number>();
  for (const codes of encoded) {
    itemCounts.clear();
    for (const c of codes) itemCounts.set(c, (itemCounts.get(c) ?? 0) + 1);
    for (const [c, v] of itemCounts) {
      totals[c]! += v;
      sumSquares += v * v;
    }
    perItem.push(codes.length);
  }
  return fleissKappaFromSummaries(perItem, sumSquares, totals, codec.labels);
}
