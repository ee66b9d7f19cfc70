/**
 * Honest intervals (server/domain/agreement/interval.ts, item-bootstrap.ts, proportion.ts): κ intervals stay inside
 * [−1, 1] and are never a single point; too few items say "no interval (n = …)"; proportions use Wilson at n = 1
 * too; Fleiss' κ and α get seeded item bootstraps.
 *
 * Expected values are worked by hand (the Wilson formula, the κ formula) or come from an exact bootstrap
 * distribution enumerated here over every possible resample (a different computation from the implementation's
 * Monte Carlo draw, which must land between that distribution's 1.5% and 3.5% points for the lower bound and its
 * 96.5% and 98.5% points for the upper one).
 */
import { describe, expect, it } from "vitest";
import {
  analyzeRatings,
  cohenKappa,
  fleissKappa,
  fleissKappaInterval,
  ItemPatterns,
  krippendorffAlphaInterval,
  krippendorffAlphaNominalUnits,
  kappaFromTable,
  wilsonInterval,
  type RatingRecord,
} from "../../server/domain/agreement";

const Z2 = 3.841458820694124; // 1.9599639845400545²

/** Every outcome of drawing n items with replacement from groups of the given sizes, with its probability. */
function multinomialOutcomes(n: number, sizes: number[]): { counts: number[]; p: number }[] {
  const total = sizes.reduce((a, b) => a + b, 0);
  const shares = sizes.map((s) => s / total);
  const out: { counts: number[]; p: number }[] = [];
  const logFact = (k: number) => {
    let s = 0;
    for (let i = 2; i <= k; i++) s += Math.log(i);
    return s;
  };
  const walk = (i: number, left: number, counts: number[]) => {
    if (i === sizes.length - 1) {
      const all = [...counts, left];
      let logP = logFact(n);
      all.forEach((c, j) => (logP += c === 0 ? 0 : c * Math.log(shares[j]!) - logFact(c)));
      if (all.every((c, j) => c === 0 || shares[j]! > 0)) out.push({ counts: all, p: Math.exp(logP) });
      return;
    }
    for (let c = 0; c <= left; c++) walk(i + 1, left - c, [...counts, c]);
  };
  walk(0, n, []);
  return out;
}

/** The q-quantile (smallest value with cumulative share ≥ q) of a discrete distribution, undefined values left out. */
function exactQuantiles(values: { v: number | null; p: number }[], qs: number[]): number[] {
  const defined = values.filter((x): x is { v: number; p: number } => x.v !== null).sort((a, b) => a.v - b.v);
  const mass = defined.reduce((s, x) => s + x.p, 0);
  return qs.map((q) => {
    let acc = 0;
    for (const x of defined) {
      acc += x.p / mass;
      if (acc >= q - 1e-12) return x.v;
    }
    return defined[defined.length - 1]!.v;
  });
}

/** Cohen's κ of a 2×2 table from its definition. */
function kappa2(a: number, b: number, c: number, d: number): number | null {
  const n = a + b + c + d;
  const po = (a + d) / n;
  const pe = ((a + b) / n) * ((a + c) / n) + ((c + d) / n) * ((b + d) / n);
  return pe === 1 ? null : (po - pe) / (1 - pe);
}

function expectWithin(value: number | null, bounds: [number, number]): void {
  expect(value).not.toBeNull();
  expect(value!).toBeGreaterThanOrEqual(bounds[0] - 1e-12);
  expect(value!).toBeLessThanOrEqual(bounds[1] + 1e-12);
}

describe("Wilson intervals for proportions", () => {
  it("is never a single point, also at n = 1", () => {
    // x = n: [n/(n + z²), 1]; x = 0: [0, z²/(n + z²)].
    const one = wilsonInterval(1, 1);
    expect(one.low).toBeCloseTo(1 / (1 + Z2), 14);
    expect(one.low).toBeCloseTo(0.20654931437723745, 14);
    expect(one.high).toBe(1);
    const none = wilsonInterval(0, 1);
    expect(none.low).toBe(0);
    expect(none.high).toBeCloseTo(0.7934506856227626, 14);
  });
});

describe("Cohen's κ interval", () => {
  it("uses the large-sample interval where it holds (n ≥ 30, SE > 0, inside [−1, 1])", () => {
    // Cohen's example [[20, 5], [10, 15]]: κ = 0.4, Var = 0.016128 (Fleiss–Cohen–Everitt, worked in agreement.test.ts).
    const k = kappaFromTable([
      [20, 5],
      [10, 15],
    ]);
    expect(k.interval.method).toBe("large-sample");
    expect(k.interval.low).toBeCloseTo(0.4 - 1.9599639845400545 * Math.sqrt(0.016128), 12);
    expect(k.interval.high).toBeCloseTo(0.4 + 1.9599639845400545 * Math.sqrt(0.016128), 12);
  });

  it("says 'no interval (n = 3)' below ten items", () => {
    const k = cohenKappa(["s", "f", "s"], ["s", "f", "f"]);
    expect(k.kappa).toBeCloseTo(0.4, 12); // p_o = 2/3, p_e = 2/3·1/3 + 1/3·2/3 = 4/9 → (2/3 − 4/9)/(5/9) = 2/5
    expect(k.interval).toMatchObject({ method: null, low: null, high: null, n: 3, note: "no interval (n = 3)" });
  });

  it("bootstraps the items where the large-sample interval reaches past 1, and stays inside [−1, 1]", () => {
    // [[20, 1], [0, 9]]: κ = (29/30 − 17/30) / (13/30) = 12/13; the Wald upper bound passes 1.
    const table = [20, 1, 0, 9];
    const k = kappaFromTable([
      [20, 1],
      [0, 9],
    ]);
    expect(k.kappa).toBeCloseTo(12 / 13, 12);
    expect(k.waldHigh!).toBeGreaterThan(1);
    expect(k.interval.method).toBe("bootstrap");
    expect(k.interval.note).toBe("the large-sample interval reaches past [−1, 1]");
    expect(k.interval.replicates).toBe(2000);
    // The exact bootstrap distribution over every resample of the 30 pairs.
    const dist = multinomialOutcomes(30, table).map(({ counts: [a, b, c, d], p }) => ({ v: kappa2(a!, b!, c!, d!), p }));
    const [q015, q035, q965, q985] = exactQuantiles(dist, [0.015, 0.035, 0.965, 0.985]);
    expectWithin(k.interval.low, [q015!, q035!]);
    expectWithin(k.interval.high, [q965!, q985!]);
    expect(k.interval.high).toBe(1); // no disagreement drawn at all has probability (29/30)^30 ≈ 0.36
  });

  it("bootstraps small samples, deterministically for a seed", () => {
    // 12 pairs: 5 S·S, 1 S·F, 2 F·S, 4 F·F.
    const a = [..."SSSSSS", ..."FFFFFF"];
    const b = [..."SSSSSF", ..."SSFFFF"];
    const k = cohenKappa(a, b);
    expect(k.kappa).toBeCloseTo(kappa2(5, 1, 2, 4)!, 12);
    expect(k.interval.method).toBe("bootstrap");
    expect(k.interval.note).toBe("with 12 items (under 30) the large-sample interval is not reliable");
    const dist = multinomialOutcomes(12, [5, 1, 2, 4]).map(({ counts: [w, x, y, z], p }) => ({ v: kappa2(w!, x!, y!, z!), p }));
    const [q015, q035, q965, q985] = exactQuantiles(dist, [0.015, 0.035, 0.965, 0.985]);
    expectWithin(k.interval.low, [q015!, q035!]);
    expectWithin(k.interval.high, [q965!, q985!]);
    expect(cohenKappa(a, b).interval).toEqual(k.interval);
  });

  it("at perfect agreement, bounds κ through the Wilson interval of the observed agreement", () => {
    // 20 items, 10 S and 10 F on both sides: κ = 1, SE = 0, every resample κ = 1. Wilson(20 of 20) = [20/(20 + z²), 1];
    // with P_e = 1/2: κ low = (20/(20 + z²) − 1/2) / (1/2).
    const labels = [...Array(10).fill("S"), ...Array(10).fill("F")];
    const k = cohenKappa(labels, labels);
    expect(k.kappa).toBe(1);
    expect(k.interval.method).toBe("agreement-wilson");
    expect(k.interval.low).toBeCloseTo((20 / (20 + Z2) - 0.5) / 0.5, 12);
    expect(k.interval.low).toBeCloseTo(0.6777496838943609, 12);
    expect(k.interval.high).toBe(1);
  });

  it("with a constant rater (κ = 0, SE = 0), gives a real interval around 0 instead of [0, 0]", () => {
    // a always S; b S on 8 of 12: P_o = P_e = 8/12, κ = 0. Bounds: (Wilson(8 of 12) − 2/3) / (1/3).
    const k = cohenKappa(Array(12).fill("S"), [...Array(8).fill("S"), ...Array(4).fill("F")]);
    expect(k.kappa).toBe(0);
    expect(k.stdKappa).toBe(0);
    expect(k.interval.method).toBe("agreement-wilson");
    expect(k.interval.low).toBeCloseTo(-0.8281337333816013, 12);
    expect(k.interval.high).toBeCloseTo(0.5856397267263606, 12);
  });

  it("gives no interval for an undefined κ, with the reason", () => {
    const k = cohenKappa(Array(12).fill("S"), Array(12).fill("S"));
    expect(k.kappa).toBeNull();
    expect(k.interval.method).toBeNull();
    expect(k.interval.note).toMatch(/^no interval: both raters gave every item the same single category/);
  });
});

/** Fleiss' κ of items given as category counts, from the definition (P̄ and P̄_e). */
function fleissOf(items: number[][]): number | null {
  const m = items[0]!.reduce((a, b) => a + b, 0);
  const N = items.length;
  const pBar = items.reduce((s, it) => s + it.reduce((t, c) => t + c * (c - 1), 0) / (m * (m - 1)), 0) / N;
  const k = items[0]!.length;
  let pe = 0;
  for (let c = 0; c < k; c++) {
    const p = items.reduce((s, it) => s + it[c]!, 0) / (N * m);
    pe += p * p;
  }
  return pe === 1 ? null : (pBar - pe) / (1 - pe);
}

/** Krippendorff's α (nominal) of units given as category counts, from the coincidence matrix. */
function alphaOf(units: number[][]): number | null {
  const k = units[0]!.length;
  const o = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (const u of units) {
    const m = u.reduce((a, b) => a + b, 0);
    if (m < 2) continue;
    for (let c = 0; c < k; c++) for (let d = 0; d < k; d++) o[c]![d]! += (u[c]! * (u[d]! - (c === d ? 1 : 0))) / (m - 1);
  }
  const nc = o.map((row) => row.reduce((a, b) => a + b, 0));
  const n = nc.reduce((a, b) => a + b, 0);
  const diag = o.reduce((s, row, c) => s + row[c]!, 0);
  const de = n * n - nc.reduce((s, v) => s + v * v, 0);
  return de === 0 ? null : 1 - ((n - 1) * (n - diag)) / de;
}

describe("Fleiss' κ and Krippendorff's α intervals (bootstrap over items)", () => {
  // Ten items rated by three raters: 4 × (3 S), 3 × (2 S, 1 F), 1 × (1 S, 2 F), 2 × (3 F).
  const patterns: number[][] = [
    [3, 0],
    [2, 1],
    [1, 2],
    [0, 3],
  ];
  const multiplicity = [4, 3, 1, 2];
  const items = patterns.flatMap((p, i) => Array.from({ length: multiplicity[i]! }, () => p));
  const ratings = items.map(([s, f]) => [...Array(s!).fill("S"), ...Array(f!).fill("F")]);

  function grouped(k: number, rows: number[][]): ItemPatterns {
    const g = new ItemPatterns(k);
    for (const r of rows) g.add(r);
    return g;
  }

  it("Fleiss' κ: the item bootstrap's bounds sit at the exact bootstrap distribution's percentiles", () => {
    const point = fleissKappa(ratings);
    expect(point.kappa).toBeCloseTo(fleissOf(items)!, 12);
    const interval = fleissKappaInterval(grouped(2, items), point);
    expect(interval).toMatchObject({ method: "bootstrap", n: 10, replicates: 2000, seed: 1 });
    const dist = multinomialOutcomes(10, multiplicity).map(({ counts, p }) => ({
      v: fleissOf(patterns.flatMap((pt, i) => Array.from({ length: counts[i]! }, () => pt))),
      p,
    }));
    const [q015, q035, q965, q985] = exactQuantiles(dist, [0.015, 0.035, 0.965, 0.985]);
    expectWithin(interval.low, [q015!, q035!]);
    expectWithin(interval.high, [q965!, q985!]);
    expect(interval.low!).toBeGreaterThanOrEqual(-1);
    expect(interval.high!).toBeLessThanOrEqual(1);
    expect(fleissKappaInterval(grouped(2, items), point)).toEqual(interval);
    expect(fleissKappaInterval(grouped(2, items), point, { seed: 2 })).not.toEqual(interval);
  });

  it("α with missing ratings: the bootstrap resamples the pairable units", () => {
    // Twelve units: the ten above plus one unit with a single rating (not pairable) and one with two (S, F).
    const units = [...items, [1, 0], [1, 1]];
    const point = krippendorffAlphaNominalUnits(units.map(([s, f]) => [...Array(s!).fill("S"), ...Array(f!).fill("F")]));
    expect(point.alpha).toBeCloseTo(alphaOf(units)!, 12);
    const interval = krippendorffAlphaInterval(grouped(2, units), point);
    expect(interval).toMatchObject({ method: "bootstrap", n: 11 });
    const pairable = [...patterns, [1, 1]];
    const dist = multinomialOutcomes(11, [...multiplicity, 1]).map(({ counts, p }) => ({
      v: alphaOf(pairable.flatMap((pt, i) => Array.from({ length: counts[i]! }, () => pt))),
      p,
    }));
    const [q015, q035, q965, q985] = exactQuantiles(dist, [0.015, 0.035, 0.965, 0.985]);
    expectWithin(interval.low, [q015!, q035!]);
    expectWithin(interval.high, [q965!, q985!]);
  });

  it("says why there is no interval: few items, perfect agreement, unequal ratings per item", () => {
    const three = [
      [3, 0],
      [0, 3],
      [2, 1],
    ];
    expect(fleissKappaInterval(grouped(2, three), { kappa: fleissOf(three), reason: null })).toMatchObject({ method: null, note: "no interval (n = 3)" });
    const perfect = [...Array(6).fill([3, 0]), ...Array(6).fill([0, 3])] as number[][];
    expect(fleissKappaInterval(grouped(2, perfect), { kappa: 1, reason: null })).toMatchObject({
      method: null,
      low: null,
      high: null,
      note: "no interval: the labels agree on every one of the 12 items, so every resample gives κ = 1",
    });
    expect(
      fleissKappaInterval(
        grouped(2, [
          [2, 0],
          [1, 2],
        ]),
        { kappa: null, reason: "items have different numbers of ratings (2 to 3)" },
      ).note,
    ).toBe("no interval: items have different numbers of ratings (2 to 3)");
  });

  it("a memo of drawn intervals gives each input its own fresh draw's interval, and draws an input seen before only once", () => {
    const memo = new Map<string, ReturnType<typeof fleissKappaInterval>>();
    const store = { get: (key: string) => memo.get(key), set: (key: string, value: ReturnType<typeof fleissKappaInterval>) => void memo.set(key, value) };
    const changed = items.map((row, i) => (i === 0 ? [2, 1] : row));
    const point = fleissKappa(ratings);
    const changedPoint = { kappa: fleissOf(changed), reason: null };
    const first = fleissKappaInterval(grouped(2, items), point, {}, store);
    expect(first).toEqual(fleissKappaInterval(grouped(2, items), point));
    // One item's labels changed (a group of a split after a label): not the interval kept for the old counts.
    const after = fleissKappaInterval(grouped(2, changed), changedPoint, {}, store);
    expect(after).toEqual(fleissKappaInterval(grouped(2, changed), changedPoint));
    expect(after).not.toEqual(first);
    // Another coefficient, seed or a defined/undefined estimate over the same items is another entry.
    const alpha = krippendorffAlphaInterval(grouped(2, items), { alpha: 0.5, reason: null }, {}, store);
    expect(alpha).toEqual(krippendorffAlphaInterval(grouped(2, items), { alpha: 0.5, reason: null }));
    expect(fleissKappaInterval(grouped(2, items), point, { seed: 2 }, store)).toEqual(fleissKappaInterval(grouped(2, items), point, { seed: 2 }));
    expect(fleissKappaInterval(grouped(2, items), { kappa: null, reason: "undefined here" }, {}, store).note).toBe("no interval: undefined here");
    expect(memo.size).toBe(5);
    // The same items again, in another order: the kept interval, no new entry.
    expect(fleissKappaInterval(grouped(2, [...items].reverse()), point, {}, store)).toEqual(first);
    expect(memo.size).toBe(5);
  });

  it("a CSV of ratings reports both intervals", () => {
    const records: RatingRecord[] = ratings.flatMap((r, i) => r.map((label, j) => ({ item: `t${i}`, rater: `r${j}`, label })));
    const report = analyzeRatings(records);
    expect(report.fleiss.kappa).toBeCloseTo(fleissOf(items)!, 12);
    expect(report.fleiss.interval.method).toBe("bootstrap");
    expect(report.krippendorff.interval.method).toBe("bootstrap");
    expect(report.fleiss.interval).toEqual(fleissKappaInterval(grouped(2, items), report.fleiss));
  });
});
