import { describe, expect, it } from "vitest";
import { wilsonInterval } from "../../server/domain/agreement/proportion";
import { goldStanding, isGoldCorrect, isGoldTurn, pickCandidate, type QueueCandidate, type StratumCoverage } from "../../server/domain/annotation/assignment";

const C = (itemId: number, labelCount: number, order: number, extra: Partial<QueueCandidate> = {}): QueueCandidate => ({
  itemId,
  trajectoryId: 100 + itemId,
  labelCount,
  reserved: 0,
  order,
  ...extra,
});

describe("isGoldTurn", () => {
  it("gives the same answer for the same annotator, campaign and turn", () => {
    const a = Array.from({ length: 200 }, (_, t) => isGoldTurn("user-a", 7, t, 0.1));
    const b = Array.from({ length: 200 }, (_, t) => isGoldTurn("user-a", 7, t, 0.1));
    expect(a).toEqual(b);
  });

  it("differs between annotators and between campaigns", () => {
    const seq = (u: string, c: number) => Array.from({ length: 200 }, (_, t) => isGoldTurn(u, c, t, 0.1)).join("");
    expect(seq("user-a", 7)).not.toBe(seq("user-b", 7));
    expect(seq("user-a", 7)).not.toBe(seq("user-a", 8));
  });

  it("mixes gold at the configured rate over many turns (10 % ± 1 point over 20,000 turns)", () => {
    let gold = 0;
    for (let t = 0; t < 20_000; t++) if (isGoldTurn("annotator-17", 3, t, 0.1)) gold++;
    expect(gold / 20_000).toBeGreaterThan(0.09);
    expect(gold / 20_000).toBeLessThan(0.11);
  });

  it("never at rate 0, always at rate 1", () => {
    for (let t = 0; t < 100; t++) {
      expect(isGoldTurn("u", 1, t, 0)).toBe(false);
      expect(isGoldTurn("u", 1, t, 1)).toBe(true);
    }
  });
});

describe("pickCandidate", () => {
  const cands = [C(1, 2, 5), C(2, 0, 9), C(3, 1, 1), C(4, 0, 3)];

  it("least_covered: fewest labels + reservations, ties by the annotator's order", () => {
    expect(pickCandidate("least_covered", cands, 3)?.itemId).toBe(4);
    // Item 4 now has two live reservations of others: item 2 (0 + 0) wins.
    expect(pickCandidate("least_covered", [C(1, 2, 5), C(2, 0, 9), C(4, 0, 3, { reserved: 2 })], 3)?.itemId).toBe(2);
  });

  it("random: the annotator's own order regardless of coverage, skipping full items", () => {
    expect(pickCandidate("random", cands, 3)?.itemId).toBe(3);
    expect(pickCandidate("random", [C(3, 1, 1, { reserved: 2 }), C(1, 2, 5)], 3)?.itemId).toBe(1);
  });

  it("by_site: the stratum furthest behind first, least covered inside it", () => {
    const strata = new Map<string, StratumCoverage>([
      // Allrecipes: 2 items × 3 needed = 6 slots, 3 labels = 50 %; Amazon: 4 items, 2 labels = 17 %.
      ["Allrecipes", { items: 2, labels: 3 }],
      ["Amazon", { items: 4, labels: 2 }],
    ]);
    const withSites = [
      C(1, 0, 1, { stratum: "Allrecipes" }),
      C(2, 1, 8, { stratum: "Amazon" }),
      C(3, 1, 2, { stratum: "Amazon" }),
      C(4, 2, 0, { stratum: "Amazon" }),
    ];
    expect(pickCandidate("by_site", withSites, 3, strata)?.itemId).toBe(3);
  });

  it("disputed_first: items whose labels disagree first, even at full coverage", () => {
    const q = [C(1, 0, 1), C(2, 3, 9, { disputed: true, verdicts: 2 }), C(3, 1, 4, { verdicts: 2 }), C(4, 3, 0, { verdicts: 1 })];
    expect(pickCandidate("disputed_first", q, 3)?.itemId).toBe(3);
    expect(
      pickCandidate(
        "disputed_first",
        q.filter((c) => c.itemId !== 3),
        3,
      )?.itemId,
    ).toBe(2);
    expect(pickCandidate("disputed_first", [C(1, 0, 1), C(4, 3, 0, { verdicts: 1 })], 3)?.itemId).toBe(1);
  });

  it("nothing when every item is full", () => {
    expect(pickCandidate("least_covered", [C(1, 3, 1), C(2, 2, 2, { reserved: 1 })], 3)).toBeUndefined();
  });
});

describe("gold answers", () => {
  it("a label is right when the verdict matches and, if the answer has a category, the category too", () => {
    expect(isGoldCorrect({ verdict: "failure", category: null }, { verdict: "failure", category: "other" })).toBe(true);
    expect(isGoldCorrect({ verdict: "failure", category: "hallucination" }, { verdict: "failure", category: "other" })).toBe(false);
    expect(isGoldCorrect({ verdict: "success", category: null }, { verdict: "failure", category: null })).toBe(false);
  });

  it("standing: Wilson interval, too few below the minimum, then block below the block threshold and warn below the warn one", () => {
    const t = { goldWarnBelow: 0.8, goldBlockBelow: 0.5, goldMinAnswered: 4 };
    // 1 of 3: below both thresholds but too few answers yet.
    expect(goldStanding(1, 3, t).status).toBe("too_few");
    // 1 of 4 = 25 % < 50 %: blocked.
    expect(goldStanding(1, 4, t).status).toBe("blocked");
    // 3 of 5 = 60 %: warned, not blocked.
    expect(goldStanding(3, 5, t).status).toBe("warn");
    expect(goldStanding(4, 5, t).status).toBe("ok");
    // Hand-worked Wilson 95 % for 4 of 5: centre (0.8 + 1.9208/5)/(1 + 3.8416/5) = 0.6696, half-width 1.96/1.7683 · √(0.16/5 + 3.8416/100) = 0.2941.
    const s = goldStanding(4, 5, t);
    expect(s.accuracy.estimate).toBe(0.8);
    expect(s.accuracy.low!).toBeCloseTo(0.3755, 3);
    expect(s.accuracy.high!).toBeCloseTo(0.9638, 3);
    expect(s.accuracy).toEqual(wilsonInterval(4, 5));
    expect(goldStanding(0, 10, { goldWarnBelow: null, goldBlockBelow: null, goldMinAnswered: 1 }).status).toBe("ok");
  });
});
