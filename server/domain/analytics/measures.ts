/**
 * Small pure pieces the analytics views share: how an evaluator's verdict counts in a success rate or an agreement
 * table, trajectory-length buckets, first-failing-step positions, and agreement measures over per-item category
 * counts that the agreement library does not have in this form (specific agreement per category; Fleiss' P̄ from
 * counts, which equals percent.ts's meanPairwiseAgreement on the same ratings).
 */
import type { EvaluatorIdentity } from "./selection";

/** How an unparseable judge reply counts: as a failure (the judge did not confirm success) or not at all. */
export type UnparseablePolicy = "failure" | "exclude";

/**
 * The binary outcome a verdict stands for, or null when it is left out of rates and agreement:
 * not_evaluable always, unparseable unless the policy counts it as a failure, unknown words always.
 */
export function verdictOutcome(verdict: string, policy: UnparseablePolicy): "success" | "failure" | null {
  if (verdict === "success") return "success";
  if (verdict === "failure") return "failure";
  if (verdict === "unparseable" && policy === "failure") return "failure";
  return null;
}

/** Verdict values that make up the denominator of a success rate under a policy. */
export function countedVerdicts(policy: UnparseablePolicy): ("success" | "failure" | "unparseable")[] {
  return policy === "failure" ? ["success", "failure", "unparseable"] : ["success", "failure"];
}

/** Stable text id of an evaluator setting, for URLs and React keys: parts URI-encoded, joined with "|". */
export function evaluatorId(e: EvaluatorIdentity): string {
  return [e.key, e.k, e.pv].map(encodeURIComponent).join("|");
}

export function parseEvaluatorId(id: string): EvaluatorIdentity | null {
  const parts = id.split("|");
  if (parts.length !== 3) return null;
  try {
    const [key, k, pv] = parts.map(decodeURIComponent) as [string, string, string];
    return key ? { key, k, pv } : null;
  } catch {
    return null;
  }
}

/** Readable name of a setting: "GPT-4o judge · k = 3 · v2". `promptVersions` > 1 adds the prompt version. */
export function evaluatorLabel(name: string, e: EvaluatorIdentity, showPromptVersion = false): string {
  const parts = [name];
  if (e.k) parts.push(`k = ${e.k}`);
  if (showPromptVersion && e.pv) parts.push(e.pv);
  return parts.join(" · ");
}

// ---------------------------------------------------------------- trajectory length

const NICE_WIDTHS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000];

/** Bucket width for step counts up to `maxSteps` so that there are at most `maxBuckets` buckets. */
export function lengthBucketWidth(maxSteps: number, maxBuckets = 10): number {
  const need = Math.max(1, maxSteps) / maxBuckets;
  for (const w of NICE_WIDTHS) if (w >= need) return w;
  return Math.ceil(need / 1000) * 1000;
}

/** Bucket of a step count: 0 holds 0…w steps, then (i·w, (i+1)·w]. */
export function lengthBucket(steps: number, width: number): number {
  return steps <= 0 ? 0 : Math.floor((steps - 1) / width);
}

/** Step range [min, max] of bucket `i`. */
export function lengthBucketRange(i: number, width: number): { min: number; max: number } {
  return { min: i === 0 ? 0 : i * width + 1, max: (i + 1) * width };
}

export function lengthBucketLabel(i: number, width: number): string {
  const { min, max } = lengthBucketRange(i, width);
  return width === 1 && i > 0 ? `${max}` : `${min}–${max}`;
}

// ---------------------------------------------------------------- first failing step

/** Decile 1–10 of where a first failing step sits in its trajectory: ⌈10·(step + 1) / steps⌉. */
export function positionDecile(step: number, stepCount: number): number {
  const n = Math.max(stepCount, step + 1, 1);
  return Math.min(10, Math.max(1, Math.ceil((10 * (step + 1)) / n - 1e-9)));
}

export function positionDecileLabel(decile: number): string {
  return `${(decile - 1) * 10}–${decile * 10}%`;
}

// ---------------------------------------------------------------- agreement from per-item counts

export interface SpecificAgreement {
  /** Ratings in the category over items with at least two ratings. */
  ratings: number;
  /** Items (with ≥ 2 ratings) where someone gave the category. */
  items: number;
  /**
   * Specific (proportion of) agreement for the category: of all rater pairs in which one rater gave it, the share
   * in which the other gave it too, p_c = Σ_i n_ic (n_ic − 1) / Σ_i n_ic (m_i − 1) (Fleiss 1971; Uebersax 1982).
   * Null when no item with ≥ 2 ratings has the category.
   */
  value: number | null;
}

/**
 * Agreement measures fed one item at a time as category counts (`counts[c]` ratings of the item in category c),
 * so callers with millions of labels never build per-item label arrays. Items with fewer than two ratings are
 * skipped, as in Fleiss' P̄ and Krippendorff's pairable units.
 */
export class CountAgreement {
  private readonly agree: Float64Array;
  private readonly possible: Float64Array;
  private readonly ratings: Float64Array;
  private readonly items: Float64Array;
  private pairableItems = 0;
  private pairwiseSum = 0;

  constructor(readonly categories: number) {
    this.agree = new Float64Array(categories);
    this.possible = new Float64Array(categories);
    this.ratings = new Float64Array(categories);
    this.items = new Float64Array(categories);
  }

  /** Adds `weight` items whose category counts are `counts` (only the first `categories` entries are read). */
  add(counts: ArrayLike<number>, weight = 1): void {
    let m = 0;
    let pairs = 0;
    for (let c = 0; c < this.categories; c++) {
      const v = counts[c]!;
      m += v;
      pairs += v * (v - 1);
    }
    if (m < 2) return;
    this.pairableItems += weight;
    this.pairwiseSum += (weight * pairs) / (m * (m - 1));
    for (let c = 0; c < this.categories; c++) {
      const v = counts[c]!;
      if (v === 0) continue;
      this.agree[c]! += weight * v * (v - 1);
      this.possible[c]! += weight * v * (m - 1);
      this.ratings[c]! += weight * v;
      this.items[c]! += weight;
    }
  }

  /** Fleiss' P̄: the mean share of agreeing rater pairs per item, over items with ≥ 2 ratings. */
  meanPairwise(): { value: number | null; items: number } {
    return { value: this.pairableItems ? this.pairwiseSum / this.pairableItems : null, items: this.pairableItems };
  }

  specific(): SpecificAgreement[] {
    return Array.from(this.agree, (a, c) => ({ ratings: this.ratings[c]!, items: this.items[c]!, value: this.possible[c] ? a / this.possible[c]! : null }));
  }
}

/** The label an annotator gave, as one value for agreement on verdict and category together. */
export function combinedLabel(verdict: string, category: string | null): string {
  if (verdict !== "failure") return verdict;
  return category === null ? "failure (no category)" : `failure: ${category}`;
}
