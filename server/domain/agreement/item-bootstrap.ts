/**
 * Percentile bootstrap intervals of Fleiss' κ and Krippendorff's α (nominal), resampling the rated items.
 *
 * Each resample draws as many items as were rated, with replacement, and recomputes the coefficient from the drawn
 * items' category counts. Items with the same counts (n_i1, …, n_ik) are interchangeable in a resample, so items are
 * kept as *patterns* with a multiplicity, and a resample is one multinomial draw over the pattern multiplicities: a
 * binary study with three raters per item has four patterns whatever its size. Patterns are drawn in a canonical
 * order (categories by name, then patterns by their counts), so the same ratings give the same interval however
 * they were read: the Human agreement page and `agreement csv` on the campaign's export agree to the last digit.
 *
 * From a resample's pattern multiplicities w_p (pattern p with counts n_pc, m_p = Σ_c n_pc ratings):
 *   Fleiss (every m_p = m):  N = Σ w_p,  S = Σ_p w_p Σ_c n_pc² − N m,  T = Σ_c (Σ_p w_p n_pc)²,
 *                            κ = (S N m − T (m − 1)) / ((m − 1)(N² m² − T))            (fleiss.ts)
 *   α (pairable items only): n = Σ w_p m_p,  D = Σ_p w_p (m_p² − Σ_c n_pc²) / (m_p − 1),  n_c = Σ_p w_p n_pc,
 *                            α = 1 − (n − 1) D / (n² − Σ_c n_c²)                         (krippendorff.ts)
 * A resample where the coefficient is 0/0 (every drawn rating in one category) is left out and counted.
 *
 * No interval (null bounds, `note` says why) below MIN_ITEMS_FOR_INTERVAL items, when the coefficient is undefined,
 * and when every resample gives the same value (the labels agree perfectly on every item: no resample can differ).
 */
import { bootstrapCoefficient, noInterval, MIN_ITEMS_FOR_INTERVAL, tooFewItems, type CoefficientInterval, type IntervalOptions } from "./interval";
import { multinomialDraw, type Rng } from "./random";

/** Rated items grouped by their category counts. */
export class ItemPatterns {
  private readonly index = new Map<number | string, number>();
  /** Per pattern, its k category counts (row-major). */
  private readonly counts: number[] = [];
  private readonly multiplicity: number[] = [];
  private items = 0;

  /** `categories` names the k categories (in code order): they fix the order resamples are drawn in. */
  constructor(
    readonly k: number,
    private readonly categories?: readonly string[],
  ) {}

  /**
   * One item's category counts (length ≥ k; entries past k ignored), or `weight` items with the same counts.
   * Items with no rating are not added. Returns the pattern's index (see `patternCounts`), or −1 for no rating.
   */
  add(itemCounts: ArrayLike<number>, weight = 1): number {
    let m = 0;
    // The pattern's key: its counts as digits of a number while they fit (up to 8 categories of fewer than 64
    // ratings each, exact below 2^53), else as text; one item after another is added this way, so no text is built
    // per item in the usual case.
    let numeric = this.k <= 8;
    let code = 0;
    for (let c = 0; c < this.k; c++) {
      const v = itemCounts[c]!;
      m += v;
      if (!(v >= 0 && v < 64 && Number.isInteger(v))) numeric = false;
      else code = code * 64 + v;
    }
    if (m === 0) return -1;
    let key: number | string = code;
    if (!numeric) {
      key = "";
      for (let c = 0; c < this.k; c++) key += `${itemCounts[c]},`;
    }
    let p = this.index.get(key);
    if (p !== undefined) this.multiplicity[p]! += weight;
    else {
      p = this.multiplicity.length;
      this.index.set(key, p);
      this.multiplicity.push(weight);
      for (let c = 0; c < this.k; c++) this.counts.push(itemCounts[c]!);
    }
    this.items += weight;
    return p;
  }

  /** Distinct patterns added so far. */
  get size(): number {
    return this.multiplicity.length;
  }

  /** The number of items with pattern `p`. */
  multiplicityOf(p: number): number {
    return this.multiplicity[p]!;
  }

  /** The k category counts of pattern `p` (an index `add` returned). */
  patternCounts(p: number): number[] {
    return this.counts.slice(p * this.k, (p + 1) * this.k);
  }

  /** Patterns (and their items) with at least `minRatings` ratings. */
  select(minRatings: number): { counts: Float64Array; ratings: Float64Array; squares: Float64Array; weights: Float64Array; items: number } {
    const keep: number[] = [];
    const P = this.multiplicity.length;
    for (let p = 0; p < P; p++) {
      let m = 0;
      for (let c = 0; c < this.k; c++) m += this.counts[p * this.k + c]!;
      if (m >= minRatings) keep.push(p);
    }
    // Canonical order: categories by name (code-unit order), patterns by their counts in that category order.
    const names = this.categories;
    const order = Array.from({ length: this.k }, (_, c) => c);
    if (names) order.sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : a - b));
    const at = (p: number, i: number) => this.counts[p * this.k + order[i]!]!;
    keep.sort((p, q) => {
      for (let i = 0; i < this.k; i++) if (at(p, i) !== at(q, i)) return at(q, i) - at(p, i);
      return 0;
    });
    const counts = new Float64Array(keep.length * this.k);
    const ratings = new Float64Array(keep.length);
    const squares = new Float64Array(keep.length);
    const weights = new Float64Array(keep.length);
    let items = 0;
    keep.forEach((p, i) => {
      for (let c = 0; c < this.k; c++) {
        const v = this.counts[p * this.k + c]!;
        counts[i * this.k + c] = v;
        ratings[i]! += v;
        squares[i]! += v * v;
      }
      weights[i] = this.multiplicity[p]!;
      items += this.multiplicity[p]!;
    });
    return { counts, ratings, squares, weights, items };
  }
}

function sameValueNote(what: string, items: number, value: number): string {
  return value === 1
    ? `no interval: the labels agree on every one of the ${items} items, so every resample gives ${what} = 1`
    : `no interval: every resample gives ${what} = ${value.toFixed(3)}`;
}

/**
 * Intervals already drawn, by everything a draw depends on (the coefficient, the selected patterns in canonical
 * order with their multiplicities, whether the estimate is defined, the bootstrap settings). A view drawing an
 * interval for every group of a split draws again after a label only for the groups whose counts changed, and
 * gets back exactly what a fresh draw would give.
 */
export interface IntervalMemo {
  get(key: string): CoefficientInterval | undefined;
  set(key: string, value: CoefficientInterval): void;
}

type Selected = ReturnType<ItemPatterns["select"]>;

function remembered(
  memo: IntervalMemo | undefined,
  what: string,
  selected: Selected,
  undefinedReason: string | null,
  options: IntervalOptions,
  draw: () => CoefficientInterval,
): CoefficientInterval {
  if (!memo) return draw();
  const key = `${what}|${options.replicates ?? ""}|${options.seed ?? ""}|${undefinedReason ?? ""}|${selected.weights.length}|${selected.counts.join(",")}|${selected.weights.join(",")}`;
  const known = memo.get(key);
  if (known) return { ...known };
  const value = draw();
  memo.set(key, value);
  return { ...value };
}

/**
 * Bootstrap interval of Fleiss' κ over the items in `patterns` (every item must have the same number of ratings,
 * as Fleiss' κ itself requires). `kappa` is the point estimate, `reason` why it is undefined.
 */
export const fleissKappaInterval = coefficientInterval<{ kappa: number | null; reason: string | null }>(
  "fleiss",
  1,
  (e) => (e.kappa === null ? (e.reason ?? "Fleiss' κ is undefined") : null),
  drawFleiss,
);

/**
 * An interval function for one coefficient: it selects the items with at least `minRatings` ratings, answers from
 * the memo when the same question was asked, says why there is no interval (undefined estimate, too few items), and
 * else draws. `undefinedNote` says why the point estimate is undefined, or null when it is defined.
 */
function coefficientInterval<E extends { reason: string | null }>(
  what: string,
  minRatings: number,
  undefinedNote: (estimate: E) => string | null,
  draw: (selected: Selected, k: number, options: IntervalOptions) => CoefficientInterval,
) {
  return (patterns: ItemPatterns, estimate: E, options: IntervalOptions = {}, memo?: IntervalMemo): CoefficientInterval => {
    const selected = patterns.select(minRatings);
    const note = undefinedNote(estimate);
    const undefinedReason = note === null ? null : `undefined:${estimate.reason ?? ""}`;
    return remembered(memo, `${what}:${patterns.k}`, selected, undefinedReason, options, () => {
      if (note !== null) return noInterval(selected.items, `no interval: ${note}`);
      if (selected.items < MIN_ITEMS_FOR_INTERVAL) return tooFewItems(selected.items);
      return draw(selected, patterns.k, options);
    });
  };
}

/**
 * A resample's draw: `drawn` gets the multiplicity of each pattern (one multinomial draw of the items), `totals` the
 * drawn ratings per category, Σ_p w_p n_pc; returns Σ_c totals_c², which both coefficients need.
 */
function drawCategoryTotals(selected: Selected, k: number, rng: Rng, drawn: Float64Array, totals: Float64Array): number {
  const { counts, weights, items } = selected;
  multinomialDraw(items, weights, rng, drawn);
  totals.fill(0);
  for (let p = 0; p < drawn.length; p++) {
    const w = drawn[p]!;
    if (w === 0) continue;
    for (let c = 0; c < k; c++) totals[c]! += w * counts[p * k + c]!;
  }
  let sumSquares = 0;
  for (let c = 0; c < k; c++) sumSquares += totals[c]! * totals[c]!;
  return sumSquares;
}

/** Σ_p drawn_p · perPattern_p: a per-pattern figure summed over a resample. */
function drawnSum(drawn: Float64Array, perPattern: Float64Array): number {
  let sum = 0;
  for (let p = 0; p < drawn.length; p++) if (drawn[p] !== 0) sum += drawn[p]! * perPattern[p]!;
  return sum;
}

/**
 * A bootstrap of a coefficient worked out from each resample's category totals: `coefficient` gets Σ_c totals_c² and
 * the resample's pattern multiplicities (`drawn`), and returns the coefficient, or null where it is 0/0.
 */
function bootstrapFromTotals(
  selected: Selected,
  k: number,
  options: IntervalOptions,
  symbol: string,
  coefficient: (sumSquares: number, drawn: Float64Array) => number | null,
): CoefficientInterval {
  const drawn = new Float64Array(selected.weights.length);
  const totals = new Float64Array(k);
  return bootstrapCoefficient(
    selected.items,
    (rng) => coefficient(drawCategoryTotals(selected, k, rng, drawn, totals), drawn),
    options,
    (v) => sameValueNote(symbol, selected.items, v),
  );
}

function drawFleiss(selected: Selected, k: number, options: IntervalOptions): CoefficientInterval {
  const { ratings, squares, items } = selected;
  const m = ratings[0]!;
  const Nm = items * m;
  return bootstrapFromTotals(selected, k, options, "κ", (T, drawn) => {
    const den = (m - 1) * (Nm * Nm - T);
    if (den === 0) return null;
    return ((drawnSum(drawn, squares) - Nm) * Nm - T * (m - 1)) / den;
  });
}

/** Bootstrap interval of Krippendorff's α (nominal) over the pairable items (two or more ratings) in `patterns`. */
export const krippendorffAlphaInterval = coefficientInterval<{ alpha: number | null; reason: string | null }>(
  "alpha",
  2,
  (e) => (e.alpha === null ? (e.reason ?? "α is undefined") : null),
  drawAlpha,
);

function drawAlpha(selected: Selected, k: number, options: IntervalOptions): CoefficientInterval {
  const { ratings, squares, weights } = selected;
  // Per pattern, its disagreeing mass (m² − Σ n_c²) / (m − 1).
  const disagreement = new Float64Array(weights.length);
  for (let p = 0; p < weights.length; p++) disagreement[p] = (ratings[p]! * ratings[p]! - squares[p]!) / (ratings[p]! - 1);
  return bootstrapFromTotals(selected, k, options, "α", (sumNc2, drawn) => {
    const n = drawnSum(drawn, ratings);
    const expected = n * n - sumNc2;
    if (expected === 0) return null;
    return 1 - ((n - 1) * drawnSum(drawn, disagreement)) / expected;
  });
}
