/**
 * The label-pair counts of every pair of raters (a < b) over label codes 0…k−1, as the pairwise κ of a whole study
 * needs them: one k×k table per rater pair, filled while the items are read once. Dense typed counts while
 * raters² × k² is small (the usual study: a few raters, a few labels), else a sparse map keyed the same way, so
 * memory grows with the combinations present rather than with R²·k².
 *
 * The cells are also remembered in the order they were first counted: tables built from it (`cellsOf`) list their
 * labels in order of first appearance, which fixes the order a bootstrap draws in, whichever storage was used.
 */
import { AgreementInputError } from "./labels";

const DENSE_LIMIT = 1 << 20;

export class PairTables {
  private readonly dense: Float64Array | null;
  private readonly sparse = new Map<number, number>();
  /** Keys (pair·k² + cell) in the order they were first counted. */
  private readonly firstSeen: number[] = [];
  private readonly kk: number;

  constructor(
    readonly raters: number,
    readonly k: number,
  ) {
    this.kk = k * k;
    const size = raters * raters * this.kk;
    if (size > Number.MAX_SAFE_INTEGER) throw new AgreementInputError(`${raters} raters × ${k} labels is too many for the pairwise tables`);
    this.dense = size <= DENSE_LIMIT ? new Float64Array(size) : null;
  }

  /** One item rated la by rater a and lb by rater b (a < b). */
  add(a: number, b: number, la: number, lb: number): void {
    const key = (a * this.raters + b) * this.kk + la * this.k + lb;
    if (this.dense) {
      if (this.dense[key]!++ === 0) this.firstSeen.push(key);
      return;
    }
    const v = this.sparse.get(key);
    if (v === undefined) {
      this.sparse.set(key, 1);
      this.firstSeen.push(key);
    } else this.sparse.set(key, v + 1);
  }

  private count(key: number): number {
    return this.dense ? this.dense[key]! : (this.sparse.get(key) ?? 0);
  }

  /** The k×k table of raters a < b (rows = a's label), row-major. */
  table(a: number, b: number): Float64Array {
    const base = (a * this.raters + b) * this.kk;
    if (this.dense) return this.dense.slice(base, base + this.kk);
    const out = new Float64Array(this.kk);
    for (let c = 0; c < this.kk; c++) out[c] = this.sparse.get(base + c) ?? 0;
    return out;
  }

  /**
   * Every rater pair that shares an item, in pair order (a, then b), with its non-empty cells (la·k + lb) and
   * counts in the order they were first counted.
   */
  pairs(): { a: number; b: number; cells: number[]; counts: number[] }[] {
    const byPair = new Map<number, { cells: number[]; counts: number[] }>();
    for (const key of this.firstSeen) {
      const pair = Math.floor(key / this.kk);
      let entry = byPair.get(pair);
      if (!entry) byPair.set(pair, (entry = { cells: [], counts: [] }));
      entry.cells.push(key - pair * this.kk);
      entry.counts.push(this.count(key));
    }
    return [...byPair.keys()].sort((p, q) => p - q).map((pair) => ({ a: Math.floor(pair / this.raters), b: pair % this.raters, ...byPair.get(pair)! }));
  }
}
