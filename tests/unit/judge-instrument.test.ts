/**
 * Judges as measured instruments (server/domain/analytics/evaluator-measures.ts), on data worked by hand: false-positive
 * and false-negative rates with Wilson intervals at the tasks' effective sample size, the success-rate gap with a
 * bootstrap over tasks, Kendall's τ-b with
 * ties, competition ranks, and calibration (reliability bins, ECE, Brier) of a vote-share confidence.
 */
import { describe, expect, it } from "vitest";
import {
  CalibrationCounter,
  clusteredErrorRates,
  competitionRanks,
  kendallTauB,
  TASK_SLOTS,
  voteShare,
} from "../../server/domain/analytics/evaluator-measures";

function tasks(...rows: [number, number, number, number][]): Float64Array {
  return Float64Array.from(rows.flat());
}

describe("error rates with a bootstrap over tasks", () => {
  // Task A: 2 hS·jS, 1 hF·jS, 1 hF·jF. Task B: 1 hS·jF, 2 hF·jF. Totals: ss 2, sf 1, fs 1, ff 3 (n = 7).
  const ab = tasks([2, 0, 1, 1], [0, 1, 0, 2]);

  it("gives FPR = fs/(fs+ff), FNR = sf/(ss+sf) and the paired gap (fs − sf)/n", () => {
    const r = clusteredErrorRates(ab);
    expect(r.n).toBe(7);
    expect(r.tasks).toBe(2);
    expect(r.falsePositive).toMatchObject({ estimate: 0.25, errors: 1, of: 4 });
    expect(r.falseNegative.estimate).toBeCloseTo(1 / 3, 12);
    expect(r.falseNegative).toMatchObject({ errors: 1, of: 3 });
    expect(r.gap.estimate).toBe(0);
    expect(r.gap.evaluatorRate).toBeCloseTo(3 / 7, 12);
    expect(r.gap.humanRate).toBeCloseTo(3 / 7, 12);
  });

  it("gives the error rates Wilson intervals at the effective sample size of their tasks", () => {
    // FPR: A 1 of 2, B 0 of 2; p̂ = 1/4, n = 4, C = 2 tasks. Σ (x − p̂ n)² = 0.5² + 0.5² = 0.5, clustered variance
    // 2/1 · 0.5 / 16 = 1/16, binomial (1/4)(3/4)/4 = 3/64, deff = 4/3, n_eff = 3: Wilson(0.25, n = 3).
    // FNR: A 0 of 2, B 1 of 1; p̂ = 1/3, n = 3. Σ = (2/3)² + (2/3)² = 8/9, clustered 2 · (8/9) / 9 = 16/81, binomial
    // 2/27, deff = 8/3, n/deff = 9/8, held at the 2 tasks: Wilson(1/3, n = 2). (Bounds from the Wilson formula by hand.)
    const r = clusteredErrorRates(ab, { replicates: 1000, seed: 7 });
    expect(r.falsePositive.low).toBeCloseTo(0.03684119619498477, 12);
    expect(r.falsePositive.high).toBeCloseTo(0.7439073196825379, 12);
    expect(r.falseNegative.low).toBeCloseTo(0.045255085819509266, 12);
    expect(r.falseNegative.high).toBeCloseTo(0.840618171678273, 12);
  });

  it("draws whole tasks for the gap: with two tasks the resamples are AA, AB, BA, BB, so the 95% bounds are the AA/BB values", () => {
    // AA: gap (2 − 0)/8. BB: gap (0 − 2)/6. Each has probability 1/4 > 2.5%.
    const r = clusteredErrorRates(ab, { replicates: 1000, seed: 7 });
    expect(r.gap.low).toBeCloseTo(-1 / 3, 12);
    expect(r.gap.high).toBeCloseTo(0.25, 12);
    expect(r.reason).toBeNull();
  });

  it("never shows a single point: no errors still has an upper bound, and a gap every resample repeats has no interval", () => {
    // Two tasks, the evaluator always right: FPR 0 of 4 and FNR 0 of 2 (p̂ = 0: n_eff = n), gap 0 in every resample.
    const r = clusteredErrorRates(tasks([1, 0, 0, 2], [1, 0, 0, 2]), { replicates: 300, seed: 2 });
    expect(r.falsePositive).toMatchObject({ estimate: 0, low: 0 });
    expect(r.falsePositive.high).toBeCloseTo(3.841458820694124 / (4 + 3.841458820694124), 12); // Wilson at x = 0: z²/(n + z²)
    expect(r.falseNegative.high).toBeCloseTo(3.841458820694124 / (2 + 3.841458820694124), 12);
    expect(r.gap).toMatchObject({ estimate: 0, low: null, high: null });
    expect(r.reason).toMatch(/every resample of the tasks gives the same gap/);
  });

  it("is wider than a per-trajectory bootstrap when a task's trajectories fail together", () => {
    // 10 tasks × 10 human failures; the evaluator wrongly passes every trajectory of one task: FPR 10%.
    const clustered = tasks(...Array.from({ length: 10 }, (_, i) => [0, 0, i === 0 ? 10 : 0, i === 0 ? 0 : 10] as [number, number, number, number]));
    const perTrajectory = tasks(...Array.from({ length: 100 }, (_, i) => [0, 0, i < 10 ? 1 : 0, i < 10 ? 0 : 1] as [number, number, number, number]));
    const a = clusteredErrorRates(clustered, { replicates: 2000, seed: 3 });
    const b = clusteredErrorRates(perTrajectory, { replicates: 2000, seed: 3 });
    expect(a.falsePositive.estimate).toBe(0.1);
    expect(b.falsePositive.estimate).toBe(0.1);
    // Clustered: Σ (x − p̂ n)² = 9² + 9·1² = 90, clustered variance 10/9 · 90/100² = 0.01, binomial 0.0009, deff 11.1,
    // n/deff = 9 held at the 10 tasks: Wilson(0.1, n = 10) = [0.0179, 0.4042].
    expect(a.falsePositive.high).toBeCloseTo(0.40415002679523854, 12);
    // Per trajectory (100 tasks of one): deff = (100/99 · 9/100²)/0.0009 = 1.0101, but n_eff never falls below the
    // 100 tasks: Wilson(0.1, n = 100) = [0.0552, 0.1744].
    expect(b.falsePositive.high).toBeCloseTo(0.17436566150491348, 12);
  });

  it("is deterministic for a seed and changes with it", () => {
    const data = tasks([3, 1, 2, 4], [1, 0, 0, 5], [2, 2, 1, 1], [0, 1, 3, 0], [4, 0, 0, 2]);
    const a = clusteredErrorRates(data, { replicates: 500, seed: 11 });
    expect(clusteredErrorRates(data, { replicates: 500, seed: 11 })).toEqual(a);
    const b = clusteredErrorRates(data, { replicates: 500, seed: 12 });
    // Only the gap is drawn (the error rates' Wilson intervals do not depend on the seed); with 5 tasks its
    // percentiles fall on the same resample values, so the seeds are compared on 40 varied tasks.
    const many = tasks(...Array.from({ length: 40 }, (_, i) => [(i * 7) % 5, (i * 3) % 4, (i * 5) % 3, (i * 11) % 6] as [number, number, number, number]));
    const bounds = (r: typeof a) => [r.gap.low, r.gap.high];
    const c = clusteredErrorRates(many, { replicates: 500, seed: 11 });
    const d = clusteredErrorRates(many, { replicates: 500, seed: 12 });
    expect(bounds(c).every((v) => typeof v === "number")).toBe(true);
    expect(bounds(d)).not.toEqual(bounds(c));
    expect([b.falsePositive.low, b.falsePositive.high]).toEqual([a.falsePositive.low, a.falsePositive.high]);
  });

  it("with a memo, gives back an earlier result for the same input and draws again only for a changed one, equal to a fresh run", () => {
    const store = new Map<string, ReturnType<typeof clusteredErrorRates>>();
    let hits = 0;
    const memo = {
      get: (k: string) => (store.has(k) ? (hits++, store.get(k)) : undefined),
      set: (k: string, v: ReturnType<typeof clusteredErrorRates>) => void store.set(k, v),
    };
    const data = tasks([3, 1, 2, 4], [1, 0, 0, 5], [2, 2, 1, 1], [0, 1, 3, 0], [4, 0, 0, 2]);
    const settings = { replicates: 400, seed: 5 };
    const first = clusteredErrorRates(data, settings, memo);
    expect(first).toEqual(clusteredErrorRates(data, settings));
    expect(clusteredErrorRates(Float64Array.from(data), settings, memo)).toBe(first);
    expect(hits).toBe(1);
    // Empty tasks do not change the input: still a hit.
    expect(clusteredErrorRates(Float64Array.from([...data, 0, 0, 0, 0]), settings, memo)).toBe(first);
    // One count moved (a verdict flipped): a new result, the same as without the memo.
    const changed = Float64Array.from(data);
    changed[2] = 1;
    changed[3] = 5;
    const second = clusteredErrorRates(changed, settings, memo);
    expect(hits).toBe(2);
    expect(second).toEqual(clusteredErrorRates(changed, settings));
    expect(second.falsePositive.estimate).not.toBe(first.falsePositive.estimate);
    // Other settings are other inputs.
    expect(clusteredErrorRates(data, { replicates: 400, seed: 6 }, memo)).toEqual(clusteredErrorRates(data, { replicates: 400, seed: 6 }));
    expect(hits).toBe(2);
  });

  it("ignores tasks with nothing compared and reports why there is no interval", () => {
    const empty = clusteredErrorRates(new Float64Array(2 * TASK_SLOTS));
    expect(empty).toMatchObject({ n: 0, tasks: 0, falsePositive: { estimate: null, low: null }, gap: { estimate: null } });
    expect(empty.reason).toMatch(/no trajectory/);
    const one = clusteredErrorRates(tasks([0, 0, 0, 0], [1, 1, 1, 1]));
    expect(one.tasks).toBe(1);
    expect(one.falsePositive.estimate).toBe(0.5);
    // One task counts as one observation: Wilson(0.5, n = 1) = [0.0546, 0.9454], wide as it should be.
    expect(one.falsePositive.low).toBeCloseTo(0.05462075552885198, 12);
    expect(one.falsePositive.high).toBeCloseTo(0.945379244471148, 12);
    expect(one.gap.low).toBeNull();
    expect(one.reason).toMatch(/one task/);
  });

  it("leaves a rate undefined when humans never gave its class (one-class data)", () => {
    // Humans: only failures → FNR is 0/0.
    const r = clusteredErrorRates(tasks([0, 0, 1, 1], [0, 0, 0, 2]), { replicates: 200 });
    expect(r.falseNegative).toMatchObject({ estimate: null, low: null, high: null, of: 0 });
    expect(r.falsePositive.estimate).toBe(0.25);
    expect(r.falsePositive.low).not.toBeNull();
  });

  it("rejects malformed input with a clear message", () => {
    expect(() => clusteredErrorRates(new Float64Array(5))).toThrow(/groups of 4/);
    expect(() => clusteredErrorRates(new Float64Array(4), { replicates: 0 })).toThrow(/replicates/);
  });
});

describe("Kendall's τ-b", () => {
  it("is 1 for the same order and −1 for the reverse", () => {
    expect(kendallTauB([1, 2, 3, 4], [10, 20, 30, 40]).tau).toBe(1);
    expect(kendallTauB([1, 2, 3, 4], [4, 3, 2, 1]).tau).toBe(-1);
  });

  it("handles ties: [1,2,2,3] vs [1,2,3,3] gives C = 4, D = 0, one tie in each, τ-b = 4/√(5·5) = 0.8", () => {
    const t = kendallTauB([1, 2, 2, 3], [1, 2, 3, 3]);
    expect(t).toMatchObject({ n: 4, concordant: 4, discordant: 0, tiesX: 1, tiesY: 1, tiesBoth: 0 });
    expect(t.tau).toBeCloseTo(0.8, 12);
  });

  it("counts a pair tied in both rankings in both tie counts", () => {
    // Pairs: (0,1) C, (0,2) C, (1,2) tied in both. n0 = 3, τ-b = 2/√(2·2) = 1.
    const t = kendallTauB([1, 2, 2], [5, 6, 6]);
    expect(t.tiesBoth).toBe(1);
    expect(t.tau).toBe(1);
  });

  it("leaves out items one rater did not rank, and is undefined for constant or too-short rankings", () => {
    expect(kendallTauB([1, null, 3], [2, 5, 1])).toMatchObject({ n: 2, tau: -1 });
    expect(kendallTauB([0.5, 0.5, 0.5], [1, 2, 3])).toMatchObject({ tau: null, reason: expect.stringMatching(/level/) });
    expect(kendallTauB([1], [1])).toMatchObject({ tau: null, reason: expect.stringMatching(/fewer than two/) });
    expect(() => kendallTauB([1, 2], [1])).toThrow(/same items/);
  });

  it("ranks highest first, ties sharing the best rank", () => {
    expect(competitionRanks([0.4, 0.9, 0.4, null, 0.1])).toEqual([2, 1, 2, null, 4]);
  });
});

describe("calibration", () => {
  it("bins confidences and computes ECE and Brier by hand", () => {
    const c = new CalibrationCounter(10);
    // bin 0: 0 (F), 0.05 (F); bin 5: 0.5 (S), 0.55 (F); bin 9: 1 (S).
    c.add(0, false);
    c.add(0.05, false);
    c.add(0.5, true);
    c.add(0.55, false);
    c.add(1, true);
    const r = c.result();
    expect(r.n).toBe(5);
    expect(r.bins).toHaveLength(10);
    expect(r.bins[0]).toMatchObject({ n: 2, observed: 0 });
    expect(r.bins[0]!.meanConfidence).toBeCloseTo(0.025, 12);
    expect(r.bins[5]!.meanConfidence).toBeCloseTo(0.525, 12);
    expect(r.bins[5]!.observed).toBe(0.5);
    expect(r.bins[9]).toMatchObject({ n: 1, meanConfidence: 1, observed: 1, high: 1 });
    expect(r.bins[3]).toMatchObject({ n: 0, meanConfidence: null, observed: null });
    // ECE = 2/5·0.025 + 2/5·0.025 + 1/5·0 = 0.02; Brier = (0 + 0.0025 + 0.25 + 0.3025 + 0)/5 = 0.111.
    expect(r.ece).toBeCloseTo(0.02, 12);
    expect(r.brier).toBeCloseTo(0.111, 12);
  });

  it("is perfect for an evaluator whose confidence matches the observed rate", () => {
    const c = new CalibrationCounter(3);
    for (const y of [true, false, false]) c.add(1 / 3, y);
    expect(c.result().ece).toBeCloseTo(0, 12);
  });

  it("has no ECE without items and rejects confidences outside [0, 1]", () => {
    expect(new CalibrationCounter().result()).toMatchObject({ n: 0, ece: null, brier: null });
    expect(() => new CalibrationCounter().add(1.2, true)).toThrow(/\[0, 1\]/);
    expect(() => new CalibrationCounter(0)).toThrow(/bins/);
  });

  it("takes the vote share of parseable samples as the confidence", () => {
    expect(voteShare(2, 1)).toBeCloseTo(2 / 3, 12);
    expect(voteShare(0, 0)).toBeNull();
  });
});
