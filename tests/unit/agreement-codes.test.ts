/**
 * Agreement from stored labels: labels encoded once to codes (labels.ts), then counted. The coded entry points must
 * give exactly what the string ones give on the decoded labels (the analytics and the CSV tool show the same
 * figures), and reject codes that name no label with the position.
 */
import { describe, expect, it } from "vitest";
import {
  AgreementInputError,
  analyzeCodedRatings,
  analyzeRatings,
  cohenKappa,
  cohenKappaCodes,
  createRng,
  encodeLabels,
  fleissKappaFromSummaries,
  fleissKappaFromTotals,
  ItemPatterns,
  KrippendorffAccumulator,
  krippendorffAlphaInterval,
  LabelCodec,
  MISSING,
  PairTables,
  type RatingRecord,
} from "@/server/domain/agreement";

describe("Cohen's κ from codes", () => {
  it("gives κ from the counted codes: 20 + 15 agreeing of 50, marginals 25/25 and 30/20, κ = (0.7 − 0.5) / 0.5", () => {
    // Table [[20, 5], [10, 15]]: P_o = 35/50, P_e = (25·30 + 25·20)/50² = 1/2, κ = 0.4.
    const a: number[] = [];
    const b: number[] = [];
    const put = (x: number, y: number, times: number) => {
      for (let i = 0; i < times; i++) {
        a.push(x);
        b.push(y);
      }
    };
    put(0, 0, 20);
    put(0, 1, 5);
    put(1, 0, 10);
    put(1, 1, 15);
    const r = cohenKappaCodes(Int32Array.from(a), Int32Array.from(b), ["success", "failure"]);
    expect(r.table).toEqual([
      [20, 5],
      [10, 15],
    ]);
    expect(r.kappa).toBeCloseTo(0.4, 14);
    expect(r.percentAgreement).toBeCloseTo(0.7, 14);
    expect(r.categories).toEqual(["success", "failure"]);
  });

  it("equals κ on the decoded labels, missing pairs, weighting and bootstrap included", () => {
    const rng = createRng(11);
    const scale = ["1", "2", "3", "4", "5"];
    for (const n of [0, 3, 25, 400]) {
      const a: (string | null)[] = [];
      const b: (string | null)[] = [];
      for (let i = 0; i < n; i++) {
        const x = rng() < 0.1 ? null : scale[Math.floor(rng() * 5)]!;
        a.push(x);
        b.push(rng() < 0.1 ? null : rng() < 0.6 ? x : scale[Math.floor(rng() * 5)]!);
      }
      const codec = new LabelCodec(scale, { frozen: true });
      const ca = encodeLabels(a, codec, "a");
      const cb = encodeLabels(b, codec, "b");
      for (const weighting of ["none", "linear", "quadratic"] as const) {
        const bootstrap = { replicates: 200, seed: 3 };
        expect(cohenKappaCodes(ca, cb, scale, { weighting, bootstrap })).toEqual(cohenKappa(a, b, { weighting, categories: scale, bootstrap }));
      }
      // Categories in order of first appearance, as cohenKappa numbers them without a list.
      const free = new LabelCodec();
      const fa = encodeLabels(a, free, "a");
      const fb = encodeLabels(b, free, "b");
      expect(cohenKappaCodes(fa, fb, free.labels)).toEqual(cohenKappa(a, b));
    }
  });

  it("rejects a code that names no label, and vectors of different lengths, saying where", () => {
    const two = ["success", "failure"];
    expect(() => cohenKappaCodes(Int32Array.of(0, 2), Int32Array.of(0, 1), two)).toThrow(AgreementInputError);
    expect(() => cohenKappaCodes(Int32Array.of(0, 2), Int32Array.of(0, 1), two)).toThrow(/a\[1\]: code 2 is not a label: codes run from 0 to 1/);
    expect(() => cohenKappaCodes(Int32Array.of(0, MISSING, 1), Int32Array.of(0, 1, -3), two)).toThrow(/b\[2\]: code -3 is not a label/);
    expect(() => cohenKappaCodes(Int32Array.of(MISSING), Int32Array.of(5), two)).toThrow(/b\[0\]: code 5/);
    expect(() => cohenKappaCodes(Int32Array.of(0), Int32Array.of(0, 1), two)).toThrow(/differ in length \(1 vs 2\)/);
    expect(cohenKappaCodes(Int32Array.of(0, MISSING, 1), Int32Array.of(MISSING, 1, 1), two).missingPairs).toBe(2);
  });
});

/** Random long-form ratings with gaps and out-of-order records. */
function randomRecords(seed: number, items: number, raters: string[], labels: string[]): RatingRecord[] {
  const rng = createRng(seed);
  const records: RatingRecord[] = [];
  for (let i = 0; i < items; i++) {
    const latent = labels[Math.floor(rng() * labels.length)]!;
    for (const rater of raters) {
      if (rng() < 0.25) continue;
      records.push({ item: `t${i}`, rater, label: rng() < 0.6 ? latent : labels[Math.floor(rng() * labels.length)]! });
    }
  }
  return records.sort(() => (rng() < 0.5 ? -1 : 1));
}

/** The records numbered as the coded entry point takes them (items, raters and labels in order of first appearance). */
function encode(records: RatingRecord[]) {
  const number = (names: string[], index: Map<string, number>, name: string) => {
    if (!index.has(name)) index.set(name, names.push(name) - 1);
    return index.get(name)!;
  };
  const itemNames: string[] = [];
  const raterNames: string[] = [];
  const labels: string[] = [];
  const [items, raters, codes] = [new Map<string, number>(), new Map<string, number>(), new Map<string, number>()];
  return {
    item: Int32Array.from(records, (r) => number(itemNames, items, r.item)),
    rater: Int32Array.from(records, (r) => number(raterNames, raters, r.rater)),
    label: Int32Array.from(records, (r) => number(labels, codes, r.label)),
    itemNames,
    raterNames,
    labels,
  };
}

describe("ratings in long form from codes", () => {
  it("reports exactly what the string records give, small pairs' bootstrap intervals included", () => {
    for (const [seed, items] of [
      [1, 14],
      [2, 40],
      [3, 600],
    ] as const) {
      const records = randomRecords(seed, items, ["ann", "bob", "cy", "dee"], ["nav", "click", "answer"]);
      const fromStrings = analyzeRatings(records, { minSharedItems: 5 });
      expect(analyzeCodedRatings(encode(records), { minSharedItems: 5 })).toEqual(fromStrings);
      expect(fromStrings.pairwise.length).toBeGreaterThan(0);
    }
  });

  it("rejects codes outside their names and a rater labelling an item twice", () => {
    const coded = encode([
      { item: "t1", rater: "ann", label: "y" },
      { item: "t1", rater: "bob", label: "n" },
    ]);
    expect(() => analyzeCodedRatings({ ...coded, rater: Int32Array.of(0, 2) })).toThrow(/rater\[1\] is 2, not one of the 2 raters/);
    expect(() => analyzeCodedRatings({ ...coded, label: Int32Array.of(-1, 0) })).toThrow(/label\[0\] is -1/);
    expect(() => analyzeCodedRatings({ ...coded, item: Int32Array.of(0) })).toThrow(/item, rater and label must have one code per rating each, got 1, 2 and 2/);
    expect(() => analyzeCodedRatings({ ...coded, rater: Int32Array.of(0, 0) })).toThrow(/rater "ann" labelled item "t1" more than once$/);
  });
});

describe("pair tables", () => {
  it("count label pairs per rater pair and list each pair's cells in the order first counted, dense or sparse", () => {
    const adds: [number, number, number, number][] = [
      [0, 2, 1, 0],
      [0, 1, 2, 2],
      [0, 2, 0, 0],
      [0, 2, 1, 0],
      [1, 2, 0, 1],
    ];
    const small = new PairTables(3, 3); // 81 cells: dense
    const large = new PairTables(400, 3); // 1,440,000 cells: sparse
    for (const [a, b, la, lb] of adds) {
      small.add(a, b, la, lb);
      large.add(a, b, la, lb);
    }
    const expected = [
      { a: 0, b: 1, cells: [2 * 3 + 2], counts: [1] },
      { a: 0, b: 2, cells: [1 * 3 + 0, 0], counts: [2, 1] },
      { a: 1, b: 2, cells: [0 * 3 + 1], counts: [1] },
    ];
    expect(small.pairs()).toEqual(expected);
    expect(large.pairs()).toEqual(expected);
    expect(Array.from(small.table(0, 2))).toEqual([1, 0, 0, 2, 0, 0, 0, 0, 0]);
    expect(Array.from(large.table(0, 2))).toEqual([1, 0, 0, 2, 0, 0, 0, 0, 0]);
  });
});

describe("items grouped by their category counts", () => {
  // 60 items × 3 ratings over 3 categories; each group of identical rows is then added once with its multiplicity.
  const rng = createRng(5);
  const rows: number[][] = [];
  for (let i = 0; i < 60; i++) {
    const row = [0, 0, 0];
    const latent = Math.floor(rng() * 3);
    for (let r = 0; r < 3; r++) row[rng() < 0.7 ? latent : Math.floor(rng() * 3)]!++;
    rows.push(row);
  }
  const groups = new Map<string, { row: number[]; n: number }>();
  for (const row of rows) {
    const g = groups.get(row.join());
    if (g) g.n++;
    else groups.set(row.join(), { row, n: 1 });
  }

  it("give Krippendorff's α exactly as the items one by one", () => {
    const one = new KrippendorffAccumulator();
    for (const row of rows) {
      row.forEach((v, c) => {
        for (let t = 0; t < v; t++) one.add(c);
      });
      one.endUnit();
    }
    const grouped = new KrippendorffAccumulator();
    for (const { row, n } of groups.values()) grouped.addUnits(row, 3, n);
    expect(groups.size).toBeLessThan(rows.length);
    expect(grouped.result(["a", "b", "c"])).toEqual(one.result(["a", "b", "c"]));
    expect(one.result(["a", "b", "c"]).alpha).not.toBeNull();
  });

  it("give the same patterns, pattern indices and bootstrap interval with multiplicities as item by item", () => {
    const one = new ItemPatterns(3, ["a", "b", "c"]);
    const indices = rows.map((row) => one.add(row));
    expect(one.add([0, 0, 0])).toBe(-1);
    expect(one.patternCounts(indices[7]!)).toEqual(rows[7]);
    expect(one.size).toBe(groups.size);
    const grouped = new ItemPatterns(3, ["a", "b", "c"]);
    for (const { row, n } of groups.values()) grouped.add(row, n);
    const estimate = { alpha: 0.3, reason: null };
    expect(krippendorffAlphaInterval(grouped, estimate, { replicates: 300 })).toEqual(krippendorffAlphaInterval(one, estimate, { replicates: 300 }));
  });

  it("give Fleiss' κ from the totals as from the per-item summaries", () => {
    const totals = [0, 0, 0];
    let squares = 0;
    for (const row of rows) row.forEach((v, c) => ((totals[c]! += v), (squares += v * v)));
    const m = rows.map(() => 3);
    expect(fleissKappaFromTotals({ items: 60, minRatings: 3, maxRatings: 3 }, squares, totals, ["a", "b", "c"])).toEqual(
      fleissKappaFromSummaries(m, squares, totals, ["a", "b", "c"]),
    );
    expect(fleissKappaFromTotals({ items: 60, minRatings: 2, maxRatings: 3 }, squares, totals, ["a", "b", "c"]).reason).toMatch(
      /different numbers of ratings \(2 to 3\)/,
    );
    expect(fleissKappaFromTotals({ items: 0, minRatings: Infinity, maxRatings: -Infinity }, 0, [0, 0, 0], ["a", "b", "c"]).reason).toBe("no items");
  });
});
