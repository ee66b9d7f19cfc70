/**
 * Indices that explain a κ: how much of a low κ is due to skewed prevalence or to the raters' bias
 * (Byrt, Bishop & Carlin 1993, "Bias, prevalence and kappa").
 *
 * For a 2×2 table of a chosen positive category against everything else, rows = rater a, columns = rater b,
 *     [[A, B],      A = both positive, D = both negative,
 *      [C, D]]      B = a positive / b negative, C = a negative / b positive, n = A + B + C + D,
 *   prevalence index PI = (A − D) / n   (sign: > 0 when the positive category dominates; |PI| near 1 = skewed)
 *   bias index       BI = (B − C) / n   (≠ 0 when the raters use the positive category at different rates)
 * PABAK, the prevalence- and bias-adjusted κ, replaces P_e by the uniform 1/k:
 *   PABAK = (k·P_o − 1) / (k − 1)   (= 2 P_o − 1 for two categories; Bennett, Alpert & Goldstein's S)
 *
 * Skew warning: κ is misleading (the "kappa paradox": high agreement, low κ) when one category takes most of
 * the ratings. `skewed` is set when the most frequent category, pooled over both raters, has a share of at least
 * SKEWED_PREVALENCE_SHARE; the views then show PI, BI and PABAK next to κ.
 */
import { AgreementInputError } from "./labels";

export const SKEWED_PREVALENCE_SHARE = 0.9;

export interface PrevalenceBiasResult {
  n: number;
  /** Category the 2×2 indices are computed for; null when there is no natural choice (k > 2, none given). */
  positive: string | null;
  prevalenceIndex: number | null;
  biasIndex: number | null;
  /** PABAK with k = number of categories of the table. */
  pabak: number | null;
  /** Most frequent category over both raters' labels, and its share. */
  dominantCategory: string | null;
  dominantShare: number | null;
  skewed: boolean;
  warning: string | null;
}

/** PABAK for observed agreement P_o over k categories; null when undefined (k < 2 or P_o null). */
export function pabak(observedAgreement: number | null, k: number): number | null {
  if (observedAgreement === null || k < 2) return null;
  return (k * observedAgreement - 1) / (k - 1);
}

/**
 * Prevalence and bias indices, PABAK and the skew warning for a k×k table (rows = rater a) over `categories`.
 * `positive` defaults to the first category when k = 2; for k > 2 without it PI and BI are null.
 */
export function prevalenceBiasIndices(table: readonly (readonly number[])[], categories: readonly string[], positive?: string): PrevalenceBiasResult {
  const k = categories.length;
  if (table.length !== k || table.some((row) => row.length !== k)) throw new AgreementInputError(`table must be ${k}×${k} to match the ${k} categories`);
  let n = 0;
  let diagonal = 0;
  const pooled = new Array<number>(k).fill(0);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const v = table[i]![j]!;
      if (!Number.isInteger(v) || v < 0) throw new AgreementInputError(`table counts must be non-negative integers, got ${v} at row ${i}, column ${j}`);
      n += v;
      pooled[i]! += v;
      pooled[j]! += v;
      if (i === j) diagonal += v;
    }
  }
  let p: number | null = null;
  if (positive !== undefined) {
    p = categories.indexOf(positive);
    if (p < 0) throw new AgreementInputError(`positive category ${JSON.stringify(positive)} is not one of ${JSON.stringify(categories)}`);
  } else if (k === 2) {
    p = 0;
  }
  let prevalenceIndex: number | null = null;
  let biasIndex: number | null = null;
  if (p !== null && n > 0) {
    const A = table[p]![p]!;
    let B = 0;
    let C = 0;
    for (let j = 0; j < k; j++) if (j !== p) B += table[p]![j]!;
    for (let i = 0; i < k; i++) if (i !== p) C += table[i]![p]!;
    const D = n - A - B - C;
    prevalenceIndex = (A - D) / n;
    biasIndex = (B - C) / n;
  }
  let dominant = -1;
  for (let c = 0; c < k; c++) if (dominant < 0 || pooled[c]! > pooled[dominant]!) dominant = c;
  const dominantShare = n > 0 && dominant >= 0 ? pooled[dominant]! / (2 * n) : null;
  const skewed = dominantShare !== null && dominantShare >= SKEWED_PREVALENCE_SHARE;
  const dominantCategory = dominant >= 0 && n > 0 ? categories[dominant]! : null;
  return {
    n,
    positive: p === null ? null : categories[p]!,
    prevalenceIndex,
    biasIndex,
    pabak: pabak(n > 0 ? diagonal / n : null, k),
    dominantCategory,
    dominantShare,
    skewed,
    warning: skewed
      ? `${JSON.stringify(dominantCategory)} makes up ${(dominantShare! * 100).toFixed(1)}% of the labels: with prevalence this skewed κ is low even when agreement is high; read it with the prevalence index, bias index and PABAK`
      : null,
  };
}
