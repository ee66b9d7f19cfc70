import { describe, expect, it } from "vitest";
import { revealMeasures, type RevealPair } from "../../server/domain/agreement/reveal";

const pair = (taskKey: string, evaluator: string, blind: [string, string | null], informed: [string, string | null] | null): RevealPair => ({
  taskKey,
  evaluator,
  blindVerdict: blind[0],
  blindCategory: blind[1],
  informedVerdict: informed ? informed[0] : null,
  informedCategory: informed ? informed[1] : null,
});

/**
 * Worked by hand:
 *  #1 T1 judge S, blind S → S      agreed, kept
 *  #2 T1 judge S, blind F(wrong element) → S   disagreed, flipped toward
 *  #3 T2 judge F, blind S → S      disagreed, kept
 *  #4 T2 judge F, blind F → F      agreed, kept
 *  #5 T3 judge F, blind F(A) → S   agreed, flipped away
 *  #6 T3 judge unparseable, blind S → F   left out of flips and κ, but a category flip
 *  #7 T3 judge S, blind unsure → S disagreed, flipped toward (not in κ: blind not success/failure)
 *  #8 T1 judge S, blind S, not decided yet
 */
const PAIRS: RevealPair[] = [
  pair("T1", "success", ["success", null], ["success", null]),
  pair("T1", "success", ["failure", "wrong element"], ["success", null]),
  pair("T2", "failure", ["success", null], ["success", null]),
  pair("T2", "failure", ["failure", null], ["failure", null]),
  pair("T3", "failure", ["failure", "A"], ["success", null]),
  pair("T3", "unparseable", ["success", null], ["failure", null]),
  pair("T3", "success", ["unsure", null], ["success", null]),
  pair("T1", "success", ["success", null], null),
];

describe("reveal measures", () => {
  const m = revealMeasures(PAIRS, { replicates: 500, seed: 7 });

  it("counts revealed, decided, revised and evaluator-undecided pairs", () => {
    expect(m.revealed).toBe(8);
    expect(m.decided).toBe(7);
    expect(m.revised).toBe(4);
    expect(m.evaluatorUndecided).toBe(1);
  });

  it("flip toward: 2 of the 3 blind disagreements; flip away: 1 of the 3 blind agreements, with Wilson intervals", () => {
    expect(m.flipToward.successes).toBe(2);
    expect(m.flipToward.n).toBe(3);
    expect(m.flipToward.estimate).toBeCloseTo(2 / 3, 10);
    // Wilson 95% for 2/3: centre 0.57308, half-width 0.36543.
    expect(m.flipToward.low).toBeCloseTo(0.2077, 4);
    expect(m.flipToward.high).toBeCloseTo(0.9385, 4);
    expect(m.flipAway.successes).toBe(1);
    expect(m.flipAway.n).toBe(3);
    expect(m.flipAway.low).toBeCloseTo(1 - 0.9385, 4);
  });

  it("κ before = 1/6 (table [[1,1],[1,2]]) and after = 2/7 (table [[2,2],[0,1]]) over the same 5 pairs in 3 tasks", () => {
    expect(m.kappaPairs).toBe(5);
    expect(m.kappaTasks).toBe(3);
    expect(m.kappaBefore.estimate.kappa).toBeCloseTo(1 / 6, 10);
    expect(m.kappaAfter.estimate.kappa).toBeCloseTo(2 / 7, 10);
    expect(m.kappaChange.estimate).toBeCloseTo(5 / 42, 10);
    expect(m.intervalReason).toBeNull();
  });

  it("κ intervals: the percentiles of resampling the 3 tasks, worked out exactly over all 27 resamples", () => {
    // Per task, (human, judge) pairs before and after the reveal (pairs #1–#5 above; S = success, F = failure).
    const tasks = [
      { before: ["SS", "FS"], after: ["SS", "SS"] }, // T1
      { before: ["SF", "FF"], after: ["SF", "FF"] }, // T2
      { before: ["FF"], after: ["SF"] }, // T3
    ];
    // Cohen's κ written out: (p_o − p_e) / (1 − p_e), undefined when p_e = 1.
    const kappa = (pairs: string[]) => {
      const n = pairs.length;
      const share = (pos: 0 | 1, v: string) => pairs.filter((p) => p[pos] === v).length / n;
      const po = pairs.filter((p) => p[0] === p[1]).length / n;
      const pe = share(0, "S") * share(1, "S") + share(0, "F") * share(1, "F");
      return pe === 1 ? null : (po - pe) / (1 - pe);
    };
    const exact = (stage: "before" | "after") => {
      const values: number[] = [];
      for (const a of tasks)
        for (const b of tasks)
          for (const c of tasks) {
            const k = kappa([...a[stage], ...b[stage], ...c[stage]]);
            if (k !== null) values.push(k);
          }
      // Every resample has probability 1/27 > 2.5 %: the 2.5th and 97.5th percentiles are the extremes.
      return [Math.min(...values), Math.max(...values)] as const;
    };
    const [beforeLow, beforeHigh] = exact("before");
    const [afterLow, afterHigh] = exact("after");
    expect(beforeLow).toBeLessThan(1 / 6);
    expect(afterHigh).toBeGreaterThan(2 / 7);
    expect(m.kappaBefore.low).toBeCloseTo(beforeLow, 12);
    expect(m.kappaBefore.high).toBeCloseTo(beforeHigh, 12);
    expect(m.kappaAfter.low).toBeCloseTo(afterLow, 12);
    expect(m.kappaAfter.high).toBeCloseTo(afterHigh, 12);
  });

  it("category flips, most frequent first, then by blind verdict and category", () => {
    expect(m.categoryFlips).toEqual([
      { fromVerdict: "failure", fromCategory: "A", toVerdict: "success", toCategory: null, count: 1 },
      { fromVerdict: "failure", fromCategory: "wrong element", toVerdict: "success", toCategory: null, count: 1 },
      { fromVerdict: "success", fromCategory: null, toVerdict: "failure", toCategory: null, count: 1 },
      { fromVerdict: "unsure", fromCategory: null, toVerdict: "success", toCategory: null, count: 1 },
    ]);
  });

  it("the same seed gives the same intervals", () => {
    const again = revealMeasures(PAIRS, { replicates: 500, seed: 7 });
    expect(again.kappaBefore.low).toBe(m.kappaBefore.low);
    expect(again.kappaChange.high).toBe(m.kappaChange.high);
  });

  it("resamples whole tasks: identical tasks give the same κ in every resample, which is no interval", () => {
    // Each task: one agreeing success pair and one agreeing failure pair blind; the failure flips to success after.
    const same = ["a", "b", "c"].flatMap((t) => [
      pair(t, "success", ["success", null], ["success", null]),
      pair(t, "failure", ["failure", null], ["success", null]),
    ]);
    const r = revealMeasures(same, { replicates: 200 });
    expect(r.kappaBefore.estimate.kappa).toBe(1);
    expect(r.kappaBefore.low).toBeNull();
    expect(r.kappaBefore.high).toBeNull();
    // After: table [[3,3],[0,0]]: P_o = 1/2, P_e = 1/2, κ = 0 in every resample.
    expect(r.kappaAfter.estimate.kappa).toBe(0);
    expect(r.kappaAfter.low).toBeNull();
    expect(r.intervalReason).toBe(
      "every resample of the tasks gives the same value for κ before the reveal, κ after the reveal and the change in κ, so these have no interval",
    );
    expect(r.kappaChange.estimate).toBe(-1);
    expect(r.flipAway.successes).toBe(3);
  });

  it("no interval from one task, and empty input gives nulls with reasons", () => {
    const one = revealMeasures([pair("T", "success", ["success", null], ["success", null]), pair("T", "failure", ["failure", null], ["failure", null])]);
    expect(one.kappaBefore.estimate.kappa).toBe(1);
    expect(one.kappaBefore.low).toBeNull();
    expect(one.intervalReason).toMatch(/one task/);
    const none = revealMeasures([]);
    expect(none.flipToward.estimate).toBeNull();
    expect(none.kappaBefore.estimate.kappa).toBeNull();
    expect(none.intervalReason).toMatch(/no pair/);
  });
});
