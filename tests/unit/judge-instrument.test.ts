/**
 * Judges as measured instruments (server/domain/analytics/instrument.ts), on data worked by hand: false-positive
 * and false-negative rates and the success-rate gap with intervals from a bootstrap over tasks, Kendall's τ-b with
 * ties, competition ranks, and calibration (reliability bins, ECE, Brier) of a vote-share confidence.
 */
import { describe, expect, it } from "vitest";
import { CalibrationCounter, clusteredErrorRates, competitionRanks, kendallTauB, TASK_SLOTS, voteShare } from "../../server/domain/analytics/instrument";

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

  it("draws whole tasks: with two tasks the resamples are AA, AB, BA, BB, so the 95% bounds are the AA/BB values", () => {
    // AA: FPR 2/4, FNR 0/4, gap (2 − 0)/8. BB: FPR 0/4, FNR 2/2, gap (0 − 2)/6. Each has probability 1/4 > 2.5%.
    const r = clusteredErrorRates(ab, { replicates: 1000, seed: 7 });
    expect([r.falsePositive.low, r.falsePositive.high]).toEqual([0, 0.5]);
    expect([r.falseNegative.low, r.falseNegative.high]).toEqual([0, 1]);
    expect(r.gap.low).toBeCloseTo(-1 / 3, 12);
    expect(r.gap.high).toBeCloseTo(0.25, 12);
  });

  it("is wider than a per-trajectory bootstrap when a task's trajectories fail together", () => {
    // 10 tasks × 10 human failures; the evaluator wrongly passes every trajectory of one task: FPR 10%.
    const clustered = tasks(...Array.from({ length: 10 }, (_, i) => [0, 0, i === 0 ? 10 : 0, i === 0 ? 0 : 10] as [number, number, number, number]));
    const perTrajectory = tasks(...Array.from({ length: 100 }, (_, i) => [0, 0, i < 10 ? 1 : 0, i < 10 ? 0 : 1] as [number, number, number, number]));
    const a = clusteredErrorRates(clustered, { replicates: 2000, seed: 3 });
    const b = clusteredErrorRates(perTrajectory, { replicates: 2000, seed: 3 });
    expect(a.falsePositive.estimate).toBe(0.1);
    expect(b.falsePositive.estimate).toBe(0.1);
    // Clustered: the number of "bad" tasks drawn is Binomial(10, 0.1), whose 97.5% point is 3 → 30%.
    expect(a.falsePositive.high).toBeGreaterThanOrEqual(0.25);
    // Per trajectory: Binomial(100, 0.1)/100, 97.5% point ≈ 16%.
    expect(b.falsePositive.high).toBeLessThan(0.2);
  });

  it("is deterministic for a seed and changes with it", () => {
    const data = tasks([3, 1, 2, 4], [1, 0, 0, 5], [2, 2, 1, 1], [0, 1, 3, 0], [4, 0, 0, 2]);
    const a = clusteredErrorRates(data, { replicates: 500, seed: 11 });
    expect(clusteredErrorRates(data, { replicates: 500, seed: 11 })).toEqual(a);
    const b = clusteredErrorRates(data, { replicates: 500, seed: 12 });
    const bounds = (r: typeof a) => [r.falsePositive.low, r.falsePositive.high, r.falseNegative.low, r.falseNegative.high];
    expect(bounds(a).every((v) => typeof v === "number")).toBe(true);
    expect(bounds(b)).not.toEqual(bounds(a));
  });

  it("with a memo, gives back an earlier result for the same input and draws again only for a changed one, equal to a fresh run", () => {
    const store = new Map<string, ReturnType<typeof clusteredErrorRates>>();
    let hits = 0;
    const memo = { get: (k: string) => (store.has(k) ? (hits++, store.get(k)) : undefined), set: (k: string, v: ReturnType<typeof clusteredErrorRates>) => void store.set(k, v) };
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
    expect(one.falsePositive.low).toBeNull();
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
