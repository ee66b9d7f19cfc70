/**
 * Agreement statistics against hand-derived and published values. Where a value is a fraction, it was derived on
 * paper (or with exact rational arithmetic from the textbook formula, independently of the implementation's
 * integer form); the derivation is in the comment next to it.
 */
import { describe, expect, it } from "vitest";
import {
  AgreementInputError,
  allAgreeShare,
  analyzeRatings,
  binaryMetrics,
  binomialSample,
  bootstrapKappaInterval,
  cohenKappa,
  confusionMatrix,
  createRng,
  erfc,
  fleissKappa,
  fleissKappaFromCounts,
  kappaFromCounts,
  kappaFromTable,
  krippendorffAlphaNominal,
  krippendorffAlphaNominalUnits,
  logFactorial,
  meanPairwiseAgreement,
  multinomialSample,
  normalSf,
  pabak,
  percentAgreementTwoRaters,
  prevalenceBiasIndices,
  twoSidedP,
  wilsonInterval,
  Z_95,
  type KappaWeighting,
} from "@/server/domain/agreement";

/** Expands a table (rows = rater a) into two label vectors over the given category names. */
function vectorsFromTable(table: number[][], names: string[]): { a: string[]; b: string[] } {
  const a: string[] = [];
  const b: string[] = [];
  table.forEach((row, i) =>
    row.forEach((count, j) => {
      for (let t = 0; t < count; t++) {
        a.push(names[i]!);
        b.push(names[j]!);
      }
    }),
  );
  return { a, b };
}

/** Relative closeness with an absolute floor, as the reference checker uses. */
function expectClose(actual: number | null, expected: number, rel = 1e-12): void {
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(Math.max(rel * Math.abs(expected), 1e-15));
}

describe("normal tail", () => {
  it("matches known quantiles and tail values", () => {
    expectClose(twoSidedP(Z_95), 0.05, 1e-14);
    expectClose(twoSidedP(2.5758293035489004), 0.01, 1e-13); // z_0.995
    expectClose(normalSf(1), 0.15865525393145707, 1e-14);
    expect(twoSidedP(0)).toBe(1);
    expectClose(erfc(-1), 2 - erfc(1), 1e-15);
  });
  it("keeps relative precision deep in the tail instead of rounding to 0", () => {
    // Mills-ratio asymptotics: Q(z) ≈ φ(z)/z · (1 − 1/z² + 3/z⁴ − 15/z⁶ + 105/z⁸) with error < 945/z¹⁰ (relative).
    for (const z of [20, 30, 37]) {
      const phi = Math.exp(-(z * z) / 2) / Math.sqrt(2 * Math.PI);
      const z2 = z * z;
      const approx = (phi / z) * (1 - 1 / z2 + 3 / z2 ** 2 - 15 / z2 ** 3 + 105 / z2 ** 4);
      expectClose(normalSf(z), approx, 1e-10);
    }
    expect(twoSidedP(250)).toBe(0);
  });
});

describe("Cohen's κ", () => {
  it("reproduces the 2×2 worked example with its large-sample inference", () => {
    // [[20,5],[10,15]], n = 50: P_o = 0.7, P_e = 0.5·0.6 + 0.5·0.4 = 0.5, κ = 0.4.
    // Var(κ): Σ_i p_ii (1 − (p_i. + p_.i)(1 − κ))² = 0.4·0.34² + 0.3·0.46² = 0.10972;
    //         (1 − κ)² Σ_{i≠j} p_ij (p_.i + p_j.)² = 0.36·(0.1·1.1² + 0.2·0.9²) = 0.10188;
    //         (κ − P_e(1 − κ))² = 0.01  →  Var = 0.2016 / (0.25·50) = 0.016128.
    // Var₀ = (P_e + P_e² − Σ p_i. p_.i (p_i. + p_.i)) / ((1 − P_e)² n) = (0.75 − 0.51) / 12.5 = 0.0192.
    const { a, b } = vectorsFromTable(
      [
        [20, 5],
        [10, 15],
      ],
      ["Yes", "No"],
    );
    const r = cohenKappa(a, b);
    expectClose(r.kappa, 0.4);
    expectClose(r.observedAgreement, 0.7);
    expectClose(r.expectedAgreement, 0.5);
    expectClose(r.percentAgreement, 0.7);
    expectClose(r.stdKappa, Math.sqrt(0.016128));
    expectClose(r.waldLow, 0.4 - Z_95 * Math.sqrt(0.016128));
    expectClose(r.waldHigh, 0.4 + Z_95 * Math.sqrt(0.016128));
    expectClose(r.stdKappa0, Math.sqrt(0.0192));
    expectClose(r.z, 0.4 / Math.sqrt(0.0192)); // = 5/√3
    expectClose(r.pTwoSided, erfc(0.4 / Math.sqrt(0.0192) / Math.SQRT2));
    expect(r.table).toEqual([
      [20, 5],
      [10, 15],
    ]);
    expect(r.categories).toEqual(["Yes", "No"]);
  });

  it("matches SAS PROC FREQ's published 3×3 example (4 decimals)", () => {
    // SAS documentation's agreement example: table [[0,4,1],[0,8,0],[0,1,5]].
    const t = [
      [0, 4, 1],
      [0, 8, 0],
      [0, 1, 5],
    ];
    const u = kappaFromTable(t);
    expectClose(u.kappa, 107 / 221, 1e-14);
    expect(u.stdKappa).toBeCloseTo(0.138, 3);
    expect(u.waldLow).toBeCloseTo(0.2137, 4);
    expect(u.waldHigh).toBeCloseTo(0.7547, 4);
    expect(u.stdKappa0).toBeCloseTo(0.1484, 4);
    expect(u.z).toBeCloseTo(3.2626, 4);
    const w = kappaFromTable(t, "linear");
    expectClose(w.kappa, 118 / 251, 1e-14);
    expect(w.stdKappa).toBeCloseTo(0.1457, 4);
    expect(w.waldLow).toBeCloseTo(0.1845, 4);
    expect(w.waldHigh).toBeCloseTo(0.7558, 4);
    expect(w.stdKappa0).toBeCloseTo(0.1426, 4);
    expect(w.z).toBeCloseTo(3.2971, 4);
  });

  it("weights by category position, including unused categories", () => {
    // Table [[3,1,0],[1,2,1],[0,1,3]], n = 12, all marginals 4. Off-diagonal mass: four cells at distance 1.
    //   unweighted: P_o = 8/12, P_e = 1/3 → κ = 1/2
    //   linear:     Σ d·N = 4, Σ d·R·C / n = 8·16/12 → κ_w = 1 − 4·12/128 = 5/8
    //   quadratic:  Σ d·N = 4, Σ d·R·C / n = 12·16/12 = 16 → κ_w = 3/4
    // Variances from the Fleiss–Cohen–Everitt formula in exact rational arithmetic:
    //   unweighted Var = 1/24, Var₀ = 1/24; linear Var = 447/16384, Var₀ = 5/96; quadratic Var = 15/1024, Var₀ = 1/12.
    const { a, b } = vectorsFromTable(
      [
        [3, 1, 0],
        [1, 2, 1],
        [0, 1, 3],
      ],
      ["1", "2", "3"],
    );
    const expected: Record<KappaWeighting, [number, number, number]> = {
      none: [1 / 2, 1 / 24, 1 / 24],
      linear: [5 / 8, 447 / 16384, 5 / 96],
      quadratic: [3 / 4, 15 / 1024, 1 / 12],
    };
    for (const [weighting, [kappa, variance, variance0]] of Object.entries(expected) as [KappaWeighting, [number, number, number]][]) {
      const r = cohenKappa(a, b, { weighting, categories: ["1", "2", "3"] });
      expectClose(r.kappa, kappa);
      expectClose(r.stdKappa, Math.sqrt(variance));
      expectClose(r.stdKappa0, Math.sqrt(variance0));
    }
    // An unused middle category doubles the distance low–high: [[2,0,2],[0,0,0],[0,0,2]] quadratic →
    // Σ d·N = 2·4 = 8 over n = 6; Σ d·R·C / n² = (4·4·4 + 4·2·2)/36 = 80/36 → κ_w = 1 − (8/6)/(80/36) = 2/5.
    const low = cohenKappa(["low", "high", "low", "high", "low", "low"], ["low", "high", "high", "high", "low", "high"], {
      weighting: "quadratic",
      categories: ["low", "mid", "high"],
    });
    expectClose(low.kappa, 0.4);
    // Unused category "3" keeps its place on the 1..4 scale: pairs (1,2),(2,2),(4,4),(1,1), n = 4, linear.
    //   scale 1,2,3,4: Σ d·N = 1; Σ d·R·C / n = (4·1 + 2·3 + 1·1 + 1·2 + 1·3 + 2·2)/4 = 5 → κ_w = 4/5
    //   levels 1,2,4:  Σ d·N = 1; Σ d·R·C / n = (4·1 + 2·2 + 1·1 + 1·1 + 1·2 + 2·1)/4 = 3.5 → κ_w = 5/7
    const a4 = ["1", "2", "4", "1"];
    const b4 = ["2", "2", "4", "1"];
    expectClose(cohenKappa(a4, b4, { weighting: "linear", categories: ["1", "2", "3", "4"] }).kappa, 4 / 5);
    expectClose(cohenKappa(a4, b4, { weighting: "linear", categories: ["1", "2", "4"] }).kappa, 5 / 7);
  });

  it("gives weighted κ over two categories the same value and standard errors as unweighted κ", () => {
    const rng = createRng(5);
    for (let trial = 0; trial < 20; trial++) {
      const counts = Array.from({ length: 4 }, () => Math.floor(rng() * 30));
      const u = kappaFromCounts(counts, 2, "none");
      for (const weighting of ["linear", "quadratic"] as const) {
        const w = kappaFromCounts(counts, 2, weighting);
        if (u.kappa === null) {
          expect(w.kappa).toBeNull();
          continue;
        }
        expectClose(w.kappa, u.kappa, 1e-13);
        expectClose(w.stdKappa, u.stdKappa!, 1e-12);
        expectClose(w.stdKappa0, u.stdKappa0!, 1e-12);
      }
    }
  });

  it("agrees with a direct floating-point evaluation of the variance formulas on random tables", () => {
    // Textbook form (statsmodels' cohens_kappa), written out independently of the implementation's integer form.
    function reference(counts: number[], k: number, weighting: KappaWeighting) {
      const n = counts.reduce((s, v) => s + v, 0);
      const p = (i: number, j: number) => counts[i * k + j]! / n;
      const pr = Array.from({ length: k }, (_, i) => Array.from({ length: k }, (_, j) => p(i, j)).reduce((s, v) => s + v, 0));
      const pc = Array.from({ length: k }, (_, j) => Array.from({ length: k }, (_, i) => p(i, j)).reduce((s, v) => s + v, 0));
      const dmax = weighting === "linear" ? k - 1 : weighting === "quadratic" ? (k - 1) ** 2 : 1;
      const w = (i: number, j: number) => (weighting === "none" ? (i === j ? 1 : 0) : 1 - (weighting === "linear" ? Math.abs(i - j) : (i - j) ** 2) / dmax);
      let po = 0;
      let pe = 0;
      for (let i = 0; i < k; i++)
        for (let j = 0; j < k; j++) {
          po += w(i, j) * p(i, j);
          pe += w(i, j) * pr[i]! * pc[j]!;
        }
      const kappa = (po - pe) / (1 - pe);
      const wr = pr.map((_, i) => pc.reduce((s, c, j) => s + w(i, j) * c, 0));
      const wc = pc.map((_, j) => pr.reduce((s, r, i) => s + w(i, j) * r, 0));
      let a = 0;
      let b = 0;
      for (let i = 0; i < k; i++)
        for (let j = 0; j < k; j++) {
          a += p(i, j) * (w(i, j) - (wr[i]! + wc[j]!) * (1 - kappa)) ** 2;
          b += pr[i]! * pc[j]! * (w(i, j) - (wr[i]! + wc[j]!)) ** 2;
        }
      const variance = (a - (kappa - pe * (1 - kappa)) ** 2) / (n * (1 - pe) ** 2);
      const variance0 = (b - pe ** 2) / (n * (1 - pe) ** 2);
      return { kappa, se: Math.sqrt(variance), se0: Math.sqrt(variance0) };
    }
    const rng = createRng(42);
    for (let trial = 0; trial < 60; trial++) {
      const k = 2 + (trial % 5);
      const counts = Array.from({ length: k * k }, (_, c) => (Math.floor(c / k) === c % k ? 5 : 0) + Math.floor(rng() * 12));
      for (const weighting of ["none", "linear", "quadratic"] as const) {
        const got = kappaFromCounts(counts, k, weighting);
        const ref = reference(counts, k, weighting);
        expectClose(got.kappa, ref.kappa, 1e-10);
        expectClose(got.stdKappa, ref.se, 1e-8);
        expectClose(got.stdKappa0, ref.se0, 1e-8);
      }
    }
  });

  it("does not depend on category order when unweighted", () => {
    const a = ["b", "a", "c", "a", "b", "c", "a", "a", "c", "b", "b", "a"];
    const b = ["b", "a", "a", "a", "c", "c", "a", "b", "c", "b", "a", "a"];
    const r1 = cohenKappa(a, b);
    const r2 = cohenKappa(a, b, { categories: ["c", "b", "a"] });
    expectClose(r2.kappa, r1.kappa!, 1e-14);
    expectClose(r2.stdKappa, r1.stdKappa!, 1e-14);
    expectClose(r2.stdKappa0, r1.stdKappa0!, 1e-14);
  });

  it("reports undefined κ as null with a reason, never as 0 or 1", () => {
    const same = cohenKappa(Array(10).fill("success"), Array(10).fill("success"));
    expect(same.kappa).toBeNull();
    expect(same.reason).toMatch(/0\/0/);
    expect([same.stdKappa, same.waldLow, same.waldHigh, same.stdKappa0, same.z, same.pTwoSided]).toEqual([null, null, null, null, null, null]);
    expect(same.percentAgreement).toBe(1);
    expect(cohenKappa(["yes"], ["yes"]).kappa).toBeNull();
    const empty = cohenKappa([], []);
    expect(empty.kappa).toBeNull();
    expect(empty.percentAgreement).toBeNull();
    expect(cohenKappa(["3", "3"], ["3", "3"], { weighting: "linear", categories: ["1", "2", "3"] }).kappa).toBeNull();
    expect(cohenKappa([null, "a"], ["a", null]).kappa).toBeNull();
  });

  it("reports κ = 0 with zero standard errors and an undefined z when a rater is constant", () => {
    // Each rater constant on a different category: P_o = P_e = 0 → κ = 0; Var = Var₀ = 0 → z = 0/0.
    const split = cohenKappa(Array(6).fill("yes"), Array(6).fill("no"));
    expect(split.kappa).toBe(0);
    expect(split.stdKappa).toBe(0);
    expect(split.stdKappa0).toBe(0);
    expect(split.waldLow).toBe(0);
    expect(split.z).toBeNull();
    expect(split.pTwoSided).toBeNull();
    // a never says "no": P_o = P_e = 5/8 → κ = 0 exactly.
    const constant = cohenKappa(Array(8).fill("yes"), ["yes", "no", "yes", "yes", "no", "yes", "yes", "no"]);
    expect(constant.kappa).toBe(0);
    expect(constant.stdKappa).toBe(0);
    expect(constant.z).toBeNull();
  });

  it("has exactly zero standard error at perfect agreement and complete disagreement", () => {
    // Identical labels over 3 unequal categories: every x_ij on the diagonal equals 1 − (p_i + p_i)·0 = 1.
    const labels = ["a", "b", "c", "a", "a", "b", "c", "c", "c"];
    const perfect = cohenKappa(labels, labels);
    expect(perfect.kappa).toBe(1);
    expect(perfect.stdKappa).toBe(0);
    expect(perfect.waldLow).toBe(1);
    expect(perfect.waldHigh).toBe(1);
    expect(perfect.stdKappa0).toBeGreaterThan(0);
    const flip = cohenKappa(["y", "n", "y", "n"], ["n", "y", "n", "y"]);
    expect(flip.kappa).toBe(-1);
    expect(flip.stdKappa).toBe(0);
  });

  it("drops incomplete pairs and counts them", () => {
    const a = ["pass", null, "fail", "pass", "pass", "fail", null, "fail", "pass", "fail"];
    const b = ["pass", "fail", "fail", null, "pass", "pass", null, "fail", "fail", "fail"];
    const r = cohenKappa(a, b);
    // Complete pairs: (p,p) (f,f) (p,p) (f,p) (f,f) (p,f) (f,f) → [[2,1],[1,3]] over (pass, fail), n = 7:
    // P_o = 5/7, P_e = (3·3 + 4·4)/49 = 25/49, κ = (35/49 − 25/49)/(24/49) = 5/12.
    expect(r.missingPairs).toBe(3);
    expect(r.n).toBe(7);
    expectClose(r.kappa, 5 / 12);
  });

  it("compares labels exactly and keeps prototype-like names apart", () => {
    const r = cohenKappa(["Yes", "yes", "yes ", "", "__proto__", "constructor"], ["Yes", "yes", "yes", "", "__proto__", "toString"]);
    expect(r.categories).toEqual(["Yes", "yes", "yes ", "", "__proto__", "constructor", "toString"]);
    expectClose(r.percentAgreement, 4 / 6);
  });

  it("rejects invalid input with specific errors", () => {
    expect(() => cohenKappa(["a", "b", "c"], ["a", "b"])).toThrow(/differ in length \(3 vs 2\)/);
    expect(() => cohenKappa(["1"], ["2"], { weighting: "linear" })).toThrow(/needs the ordered list of categories/);
    expect(() => cohenKappa(["1", "4"], ["2", "1"], { weighting: "linear", categories: ["1", "2", "3"] })).toThrow(
      /a\[1\]: label "4" is not one of the categories/,
    );
    expect(() => cohenKappa(["1"], ["1"], { categories: ["1", "1"] })).toThrow(/listed twice/);
    expect(() => kappaFromCounts([1, 2, 3], 2)).toThrow(AgreementInputError);
    expect(() => kappaFromCounts([1, -2, 3, 4], 2)).toThrow(/non-negative integers/);
  });

  it("gives a reproducible percentile bootstrap interval", () => {
    const { a, b } = vectorsFromTable(
      [
        [40, 10],
        [8, 42],
      ],
      ["s", "f"],
    );
    const r1 = cohenKappa(a, b, { bootstrap: { replicates: 500, seed: 11 } });
    const r2 = cohenKappa(a, b, { bootstrap: { replicates: 500, seed: 11 } });
    const r3 = cohenKappa(a, b, { bootstrap: { replicates: 500, seed: 12 } });
    expect(r1.bootstrap).toEqual(r2.bootstrap);
    expect(r3.bootstrap!.low).not.toBe(r1.bootstrap!.low);
    const { low, high } = r1.bootstrap!;
    expect(low!).toBeLessThan(r1.kappa!);
    expect(high!).toBeGreaterThan(r1.kappa!);
    // With n = 100 the percentile interval is close to the large-sample one.
    expect(Math.abs(low! - r1.waldLow!)).toBeLessThan(0.05);
    expect(Math.abs(high! - r1.waldHigh!)).toBeLessThan(0.05);
    // Against resampling the 100 pairs by hand (κ written out for two categories), with enough replicates that the
    // two Monte Carlo estimates of the same percentiles agree within their sampling error.
    const many = cohenKappa(a, b, { bootstrap: { replicates: 4000, seed: 11 } }).bootstrap!;
    const rng = createRng(99);
    const naive: number[] = [];
    for (let r = 0; r < 4000; r++) {
      let same = 0;
      let aS = 0;
      let bS = 0;
      for (let i = 0; i < a.length; i++) {
        const j = Math.floor(rng() * a.length);
        if (a[j] === b[j]) same++;
        if (a[j] === "s") aS++;
        if (b[j] === "s") bS++;
      }
      const n = a.length;
      const pe = (aS / n) * (bS / n) + (1 - aS / n) * (1 - bS / n);
      naive.push((same / n - pe) / (1 - pe));
    }
    naive.sort((x, y) => x - y);
    expect(Math.abs(many.low! - naive[Math.round(0.025 * 3999)]!)).toBeLessThan(0.015);
    expect(Math.abs(many.high! - naive[Math.round(0.975 * 3999)]!)).toBeLessThan(0.015);
    const degenerate = cohenKappa(["x", "x", "x"], ["x", "x", "x"], { bootstrap: { replicates: 20 } });
    expect(degenerate.bootstrap!.low).toBeNull();
    expect(degenerate.bootstrap!.undefinedReplicates).toBe(20);
  });

  it("counts a million label pairs exactly", () => {
    const rng = createRng(3);
    const cats = ["success", "failure"];
    const n = 1_000_000;
    const a = new Array<string>(n);
    const b = new Array<string>(n);
    const table = [0, 0, 0, 0];
    for (let i = 0; i < n; i++) {
      a[i] = cats[rng() < 0.6 ? 0 : 1]!;
      b[i] = rng() < 0.8 ? a[i]! : cats[rng() < 0.5 ? 0 : 1]!;
      table[cats.indexOf(a[i]!) * 2 + cats.indexOf(b[i]!)]!++;
    }
    // Speed is measured by `npm run bench -- agreement`; here the result must equal κ of the tallied table.
    const r = cohenKappa(a, b);
    expect(r.n).toBe(n);
    // The result's categories are in order of first appearance; reorder the tally to match.
    const order = r.categories.map((c) => cats.indexOf(c));
    const tallied = order.map((i) => order.map((j) => table[i * 2 + j]!));
    expect(r.table).toEqual(tallied);
    expect(r.kappa).toBeCloseTo(kappaFromCounts(tallied.flat(), 2).kappa!, 12);
  });
});

describe("sampling for the bootstrap", () => {
  it("computes ln n! exactly below the table's end and by Stirling's series above", () => {
    let sum = 0;
    for (let i = 2; i <= 100_000; i++) {
      sum += Math.log(i);
      if (i === 10 || i === 255 || i === 256 || i === 1000 || i === 100_000) expect(logFactorial(i)).toBeCloseTo(sum, 9 - Math.floor(Math.log10(i)));
    }
    expect(logFactorial(0)).toBe(0);
    expect(logFactorial(1)).toBe(0);
  });

  /** Σ (observed − expected)² / expected over outcomes with expected ≥ 5 (the rest pooled). */
  function chiSquare(observed: number[], expected: number[]): { stat: number; df: number } {
    let stat = 0;
    let df = -1;
    let poolO = 0;
    let poolE = 0;
    expected.forEach((e, x) => {
      if (e >= 5) {
        stat += (observed[x]! - e) ** 2 / e;
        df++;
      } else {
        poolO += observed[x]!;
        poolE += e;
      }
    });
    if (poolE > 0) {
      stat += (poolO - poolE) ** 2 / poolE;
      df++;
    }
    return { stat, df };
  }

  it("draws binomials with the right distribution, small and large n", () => {
    const rng = createRng(17);
    for (const [n, p] of [
      [20, 0.3],
      [12, 0.95],
      [400, 0.02],
    ] as const) {
      const draws = 40_000;
      const observed = new Array<number>(n + 1).fill(0);
      for (let i = 0; i < draws; i++) observed[binomialSample(n, p, rng)]!++;
      const expected = observed.map(
        (_, x) => draws * Math.exp(logFactorial(n) - logFactorial(x) - logFactorial(n - x) + x * Math.log(p) + (n - x) * Math.log(1 - p)),
      );
      const { stat, df } = chiSquare(observed, expected);
      // The 0.999 quantile of χ² with df degrees of freedom is below df + 4.5 √(2 df) + 10 for these df.
      expect(stat).toBeLessThan(df + 4.5 * Math.sqrt(2 * df) + 10);
    }
    // Large n: mean and variance within 5 standard errors of n p and n p q.
    const n = 100_000;
    const p = 0.37;
    const draws = 20_000;
    let s1 = 0;
    let s2 = 0;
    for (let i = 0; i < draws; i++) {
      const x = binomialSample(n, p, rng);
      s1 += x;
      s2 += x * x;
    }
    const mean = s1 / draws;
    const variance = s2 / draws - mean * mean;
    const npq = n * p * (1 - p);
    expect(Math.abs(mean - n * p)).toBeLessThan(5 * Math.sqrt(npq / draws));
    expect(Math.abs(variance / npq - 1)).toBeLessThan(5 * Math.sqrt(2 / draws));
    expect([binomialSample(0, 0.5, rng), binomialSample(9, 0, rng), binomialSample(9, 1, rng)]).toEqual([0, 0, 9]);
  });

  it("draws multinomials that add up to n with the weights' shares", () => {
    const rng = createRng(5);
    const weights = [50, 0, 30, 20];
    const out = new Float64Array(4);
    const totals = [0, 0, 0, 0];
    for (let i = 0; i < 2000; i++) {
      multinomialSample(1000, weights, rng, out);
      expect(out.reduce((a, b) => a + b, 0)).toBe(1000);
      expect(out[1]).toBe(0);
      out.forEach((v, c) => (totals[c]! += v));
    }
    expect(totals.map((t) => Math.round(t / 2000 / 10))).toEqual([50, 0, 30, 20]);
  });

  it("gives the bootstrap interval that resampling pair by pair gives", () => {
    // Observed table 120/30/25/95 as cells row·2 + column.
    const cells = Int32Array.from([...Array(120).fill(0), ...Array(30).fill(1), ...Array(25).fill(2), ...Array(95).fill(3)]);
    const replicates = 4000;
    const fast = bootstrapKappaInterval(cells, 2, "none", { replicates, seed: 9 });
    // The plain method, written out here: draw n pairs with replacement, tally, κ, percentiles.
    const rng = createRng(10);
    const values: number[] = [];
    for (let r = 0; r < replicates; r++) {
      const t = [0, 0, 0, 0];
      for (let i = 0; i < cells.length; i++) t[cells[Math.floor(rng() * cells.length)]!]!++;
      values.push(kappaFromCounts(t, 2).kappa!);
    }
    values.sort((a, b) => a - b);
    const at = (q: number) => values[Math.round(q * (replicates - 1))]!;
    expect(fast.low).not.toBeNull();
    // Two independent Monte Carlo estimates of the same percentiles: equal within their sampling error.
    expect(Math.abs(fast.low! - at(0.025))).toBeLessThan(0.015);
    expect(Math.abs(fast.high! - at(0.975))).toBeLessThan(0.015);
  });
});

describe("prevalence, bias and PABAK", () => {
  it("computes the indices of the kappa-paradox tables", () => {
    // [[45,15],[25,15]]: PI = (45 − 15)/100 = 0.3, BI = (15 − 25)/100 = −0.1, PABAK = 2·0.6 − 1 = 0.2.
    const t1 = prevalenceBiasIndices(
      [
        [45, 15],
        [25, 15],
      ],
      ["yes", "no"],
    );
    expectClose(t1.prevalenceIndex, 0.3);
    expectClose(t1.biasIndex, -0.1);
    expectClose(t1.pabak, 0.2);
    expect(t1.positive).toBe("yes");
    // [[25,35],[5,35]]: PI = (25 − 35)/100 = −0.1, BI = (35 − 5)/100 = 0.3, same P_o → same PABAK.
    const t2 = prevalenceBiasIndices(
      [
        [25, 35],
        [5, 35],
      ],
      ["yes", "no"],
    );
    expectClose(t2.prevalenceIndex, -0.1);
    expectClose(t2.biasIndex, 0.3);
    expectClose(t2.pabak, 0.2);
    expect(t1.skewed || t2.skewed).toBe(false);
  });

  it("warns when one category dominates", () => {
    // [[90,4],[3,3]]: P_o = 0.93 but κ = 129/304 ≈ 0.42; "ok" takes (94 + 93)/200 = 93.5% of the labels.
    const table = [
      [90, 4],
      [3, 3],
    ];
    expectClose(kappaFromTable(table).kappa, 129 / 304, 1e-14);
    const r = prevalenceBiasIndices(table, ["ok", "bad"]);
    expect(r.skewed).toBe(true);
    expectClose(r.dominantShare, 0.935);
    expect(r.warning).toMatch(/"ok" makes up 93\.5%/);
    expectClose(r.prevalenceIndex, 0.87);
    expectClose(r.pabak, 0.86);
  });

  it("collapses k categories to positive-vs-rest and generalises PABAK to k", () => {
    // rows a: [[5,1,0],[1,3,1],[0,2,7]], positive "c" (index 2): A = 7, B = 0 + 2 = 2 (a=c, b≠c), C = 0 + 1 = 1,
    // D = 20 − 10 = 10 → PI = (7 − 10)/20, BI = (2 − 1)/20; PABAK = (3·15/20 − 1)/2 = 0.625.
    const r = prevalenceBiasIndices(
      [
        [5, 1, 0],
        [1, 3, 1],
        [0, 2, 7],
      ],
      ["a", "b", "c"],
      "c",
    );
    expectClose(r.prevalenceIndex, -3 / 20);
    expectClose(r.biasIndex, 1 / 20);
    expectClose(r.pabak, 0.625);
    expect(
      prevalenceBiasIndices(
        [
          [5, 1, 0],
          [1, 3, 1],
          [0, 2, 7],
        ],
        ["a", "b", "c"],
      ).prevalenceIndex,
    ).toBeNull();
    expect(pabak(null, 2)).toBeNull();
    expect(() => prevalenceBiasIndices([[1]], ["a"], "z")).toThrow(/not one of/);
  });
});

describe("Wilson interval", () => {
  it("matches published values and stays inside [0, 1]", () => {
    const half = wilsonInterval(5, 10);
    expect(half.low!).toBeCloseTo(0.2366, 4);
    expect(half.high!).toBeCloseTo(0.7634, 4);
    expectClose(half.low! + half.high!, 1, 1e-14); // symmetric about 1/2
    // x = 0: low = 0 and high = (z²/n)/(1 + z²/n).
    const zero = wilsonInterval(0, 10);
    expect(zero.low).toBe(0);
    expectClose(zero.high, Z_95 ** 2 / 10 / (1 + Z_95 ** 2 / 10), 1e-14);
    const all = wilsonInterval(10, 10);
    expect(all.high).toBe(1);
    expectClose(all.low, 1 - zero.high!, 1e-14);
    const rare = wilsonInterval(1, 1000);
    expect(rare.low!).toBeGreaterThan(0);
    expect(rare.low!).toBeCloseTo(0.000177, 6);
    expect(rare.high!).toBeCloseTo(0.005643, 6);
  });
  it("is undefined for n = 0 and rejects impossible counts", () => {
    expect(wilsonInterval(0, 0)).toMatchObject({ estimate: null, low: null, high: null });
    expect(() => wilsonInterval(3, 2)).toThrow(/from 0 to n = 2/);
    expect(() => wilsonInterval(1.5, 2)).toThrow(AgreementInputError);
  });
});

describe("Fleiss' κ", () => {
  it("reproduces the Wikipedia worked example", () => {
    const counts = [
      [0, 0, 0, 0, 14],
      [0, 2, 6, 4, 2],
      [0, 0, 3, 5, 6],
      [0, 3, 9, 2, 0],
      [2, 2, 8, 1, 1],
      [7, 7, 0, 0, 0],
      [3, 2, 6, 3, 0],
      [2, 5, 3, 2, 2],
      [6, 5, 2, 1, 0],
      [0, 2, 2, 3, 7],
    ];
    const r = fleissKappaFromCounts(counts, ["1", "2", "3", "4", "5"]);
    expect(r.observedAgreement!).toBeCloseTo(0.378, 3);
    expect(r.expectedAgreement!).toBeCloseTo(0.213, 3);
    expect(r.kappa!).toBeCloseTo(0.21, 3);
    expect(r.ratingsPerItem).toBe(14);
  });

  it("matches a hand computation, with the SE under κ = 0", () => {
    // Items [a,a,a], [a,a,b], [b,b,b]: P_i = 1, 2/6, 1 → P̄ = 7/9; p_a = 5/9, p_b = 4/9 → P̄_e = 41/81;
    // κ = (63/81 − 41/81)/(40/81) = 11/20. Σ p q = 40/81, Σ p q (q − p) = 0 → SE₀ = √2/√(3·3·2) = 1/3, z = 1.65.
    const r = fleissKappa([
      ["a", "a", "a"],
      ["a", "a", "b"],
      ["b", "b", "b"],
    ]);
    expectClose(r.kappa, 11 / 20);
    expectClose(r.observedAgreement, 7 / 9);
    expectClose(r.expectedAgreement, 41 / 81);
    expectClose(r.se0, 1 / 3);
    expectClose(r.z, 1.65);
    // Two raters always disagreeing: P̄ = 0, P̄_e = 1/2 → κ = −1.
    expect(
      fleissKappa([
        ["x", "y"],
        ["y", "x"],
      ]).kappa,
    ).toBe(-1);
  });

  it("is undefined, with the reason, for unequal ratings per item, one rating per item and a single category", () => {
    const unequal = fleissKappa([
      ["a", "a", "b"],
      ["a", "b"],
      ["b", "b", "b"],
    ]);
    expect(unequal.kappa).toBeNull();
    expect(unequal.reason).toMatch(/different numbers of ratings \(2 to 3\)/);
    // A null rating is missing, so the item has one rating fewer.
    expect(
      fleissKappa([
        ["a", null, "b"],
        ["a", "a", "b"],
      ]).reason,
    ).toMatch(/different numbers/);
    expect(fleissKappa([["a"], ["b"]]).reason).toMatch(/at least 2/);
    const single = fleissKappa([
      ["p", "p"],
      ["p", "p"],
    ]);
    expect(single.kappa).toBeNull();
    expect(single.reason).toMatch(/same category/);
    expect(fleissKappa([]).kappa).toBeNull();
  });
});

describe("Krippendorff's α (nominal)", () => {
  it("reproduces Krippendorff (2011) and the Wikipedia example", () => {
    const k2011 = [
      ["1", "2", "3", "3", "2", "1", "4", "1", "2", null, null, null],
      ["1", "2", "3", "3", "2", "2", "4", "1", "2", "5", null, "3"],
      [null, "3", "3", "3", "2", "3", "4", "2", "2", "5", "1", null],
      ["1", "2", "3", "3", "2", "4", "4", "1", "2", "5", "1", null],
    ];
    const r = krippendorffAlphaNominal(k2011);
    expectClose(r.alpha, 113 / 152, 1e-14);
    expect(r.pairableValues).toBe(40);
    expect(r.pairableUnits).toBe(11);
    const wiki = [
      [null, null, null, null, null, "3", "4", "1", "2", "1", "1", "3", "3", null, "3"],
      ["1", null, "2", "1", "3", "3", "4", "3", null, null, null, null, null, null, null],
      [null, null, "2", "1", "3", "4", "4", null, "2", "1", "1", "3", "3", null, "4"],
    ];
    expect(krippendorffAlphaNominal(wiki).alpha!).toBeCloseTo(0.691, 3);
  });

  it("matches a hand computation with missing values", () => {
    // Units {a,a}, {b,b,b}, {a,b}: n = 7, n_a = 3, n_b = 4 → n² − Σn_c² = 24;
    // disagreement (m² − Σ n_uc²)/(m − 1): 0, 0, (4 − 2)/1 = 2 → α = 1 − 6·2/24 = 1/2.
    const r = krippendorffAlphaNominal([
      ["a", "b", "a"],
      ["a", "b", "b"],
      [null, "b", null],
    ]);
    expectClose(r.alpha, 0.5);
    expect(krippendorffAlphaNominalUnits([["a", "a"], ["b", "b", "b"], ["a", "b"], ["z"]]).alpha).toBe(0.5);
    // Two coders always disagreeing on 4 units: n = 8, Σ n_c² = 32 → α = 1 − 7·8/32 = −0.75.
    expect(
      krippendorffAlphaNominal([
        ["x", "y", "x", "y"],
        ["y", "x", "y", "x"],
      ]).alpha,
    ).toBe(-0.75);
  });

  it("equals 1 − (1 − Fleiss' κ)(n − 1)/n on complete data", () => {
    const rng = createRng(9);
    const labels = ["p", "q", "r"];
    const units = Array.from({ length: 40 }, () => Array.from({ length: 4 }, () => labels[Math.floor(rng() * 3)]!));
    const kappa = fleissKappa(units).kappa!;
    const n = 40 * 4;
    expectClose(krippendorffAlphaNominalUnits(units).alpha, 1 - ((1 - kappa) * (n - 1)) / n, 1e-12);
  });

  it("is undefined when nothing is pairable or only one value occurs", () => {
    const none = krippendorffAlphaNominal([
      ["a", null],
      [null, "b"],
    ]);
    expect(none.alpha).toBeNull();
    expect(none.reason).toMatch(/pairable/);
    const one = krippendorffAlphaNominal([
      ["x", "x", null],
      ["x", "x", "x"],
    ]);
    expect(one.alpha).toBeNull();
    expect(one.reason).toMatch(/only one value/);
    expect(krippendorffAlphaNominal([]).alpha).toBeNull();
    expect(() => krippendorffAlphaNominal([["a", "b"], ["a"]])).toThrow(/one entry per unit/);
  });
});

describe("percent agreement", () => {
  it("computes the three definitions with their missing-label rules", () => {
    const two = percentAgreementTwoRaters(["a", "b", null, "a"], ["a", "a", "b", "a"]);
    expectClose(two.value, 2 / 3);
    expect(two.excluded).toBe(1);
    // P_i: [a,a,b] → 2/6, [a,b] → 0, [x] has one rating and is left out → mean 1/6.
    const mean = meanPairwiseAgreement([["a", "a", "b"], ["a", null, "b"], ["x"]]);
    expectClose(mean.value, 1 / 6);
    expect(mean.items).toBe(2);
    // Items with a missing label are left out entirely (listwise): 2 of the 3 complete items agree.
    const all = allAgreeShare([
      ["a", "a"],
      ["a", null],
      ["b", "b"],
      ["a", "b"],
    ]);
    expectClose(all.value, 2 / 3);
    expect(all.items).toBe(3);
  });
  it("is undefined when no item qualifies", () => {
    expect(percentAgreementTwoRaters([], []).value).toBeNull();
    expect(meanPairwiseAgreement([["a"], []]).value).toBeNull();
    expect(allAgreeShare([["a", null]]).value).toBeNull();
    expect(() => percentAgreementTwoRaters(["a"], [])).toThrow(/differ in length/);
  });
});

describe("confusion matrix and precision/recall/F1", () => {
  it("counts a judge against the reference for a chosen positive class", () => {
    const ref = ["success", "success", "failure", "failure", "success", null];
    const pred = ["success", "failure", "failure", "success", "success", "success"];
    const cm = confusionMatrix(ref, pred, ["success", "failure"]);
    expect(cm.matrix).toEqual([
      [2, 1],
      [1, 1],
    ]);
    expect(cm.missingPairs).toBe(1);
    // TP = 2, FN = 1, FP = 1, TN = 1.
    const m = binaryMetrics(cm, "success");
    expect(m).toMatchObject({ truePositive: 2, falseNegative: 1, falsePositive: 1, trueNegative: 1 });
    expectClose(m.precision, 2 / 3);
    expectClose(m.recall, 2 / 3);
    expectClose(m.f1, 2 / 3);
    expectClose(m.accuracy, 3 / 5);
    const f = binaryMetrics(cm, "failure");
    expectClose(f.precision, 1 / 2);
    expectClose(f.recall, 1 / 2);
  });
  it("leaves precision undefined when nothing is predicted positive", () => {
    const m = binaryMetrics(confusionMatrix(["s", "f"], ["f", "f"]), "s");
    expect(m.precision).toBeNull();
    expect(m.recall).toBe(0);
    expect(m.f1).toBe(0);
  });
});

describe("ratings in long form", () => {
  it("reports α, mean pairwise agreement, Fleiss' κ and pairwise κ for rater pairs with enough shared items", () => {
    // 12 items rated by r1 and r2; r3 rates only the first 4.
    const r1 = ["y", "y", "n", "n", "y", "n", "y", "y", "n", "y", "n", "y"];
    const r2 = ["y", "n", "n", "n", "y", "n", "y", "y", "y", "y", "n", "y"];
    const r3 = ["y", "y", "n", "y"];
    const records = [
      ...r1.map((label, i) => ({ item: `t${i}`, rater: "r1", label })),
      ...r2.map((label, i) => ({ item: `t${i}`, rater: "r2", label })),
      ...r3.map((label, i) => ({ item: `t${i}`, rater: "r3", label })),
    ];
    const report = analyzeRatings(records);
    expect(report).toMatchObject({ items: 12, raters: 3, ratings: 28, pairableItems: 12 });
    expect(report.fleiss.kappa).toBeNull();
    expect(report.fleiss.reason).toMatch(/different numbers of ratings \(2 to 3\)/);
    expect(report.pairwise.map((p) => [p.raterA, p.raterB])).toEqual([["r1", "r2"]]);
    const direct = cohenKappa(r1, r2);
    expectClose(report.pairwise[0]!.kappa, direct.kappa!, 1e-14);
    expectClose(report.pairwise[0]!.waldLow, direct.waldLow!, 1e-14);
    const units = r1.map((l, i) => [l, r2[i]!, ...(i < 4 ? [r3[i]!] : [])]);
    expectClose(report.krippendorff.alpha, krippendorffAlphaNominalUnits(units).alpha!, 1e-14);
    expectClose(report.percentAgreement.value, meanPairwiseAgreement(units).value!, 1e-14);
  });
  it("gives each rater pair the κ of its shared items, whatever the other raters did", () => {
    const rng = createRng(21);
    const labels = ["nav", "click", "answer", "timeout", "other"];
    const raters = ["r1", "r2", "r3", "r4"];
    const byRater = new Map<string, Map<number, string>>(raters.map((r) => [r, new Map()]));
    const records = [];
    for (let item = 0; item < 80; item++) {
      const latent = labels[Math.floor(rng() * labels.length)]!;
      for (const rater of raters) {
        if (rng() < 0.3) continue;
        const label = rng() < 0.6 ? latent : labels[Math.floor(rng() * labels.length)]!;
        byRater.get(rater)!.set(item, label);
        records.push({ item: `i${item}`, rater, label });
      }
    }
    const report = analyzeRatings(records, { minSharedItems: 10 });
    expect(report.pairwise).toHaveLength(6);
    for (const p of report.pairwise) {
      const a = byRater.get(p.raterA)!;
      const b = byRater.get(p.raterB)!;
      const items = [...a.keys()].filter((i) => b.has(i));
      const direct = cohenKappa(
        items.map((i) => a.get(i)!),
        items.map((i) => b.get(i)!),
      );
      expect(p.sharedItems).toBe(items.length);
      expectClose(p.kappa, direct.kappa!, 1e-14);
      expectClose(p.stdKappa, direct.stdKappa!, 1e-14);
      expectClose(p.percentAgreement, direct.percentAgreement!, 1e-14);
    }
    expect(analyzeRatings(records, { minSharedItems: 1000 }).pairwise).toEqual([]);
  });
  it("rejects a rater labelling the same item twice", () => {
    expect(() =>
      analyzeRatings([
        { item: "t1", rater: "ann", label: "y", source: "line 2" },
        { item: "t1", rater: "ann", label: "n", source: "line 5" },
      ]),
    ).toThrow(/rater "ann" labelled item "t1" more than once \(line 2 and line 5\)/);
  });
});
