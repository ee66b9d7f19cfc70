import { describe, expect, it } from "vitest";
import { choiceOfOutcome, outcomeOfChoice, planPairs, sideOfA, type PairCandidate } from "../../server/domain/annotation/pairwise-pairs";
import { rankAgents, type PairwiseComparison } from "../../server/domain/annotation/pairwise-ranking";

function repeat(agentA: string, agentB: string, outcome: PairwiseComparison["outcome"], n: number): PairwiseComparison[] {
  return Array.from({ length: n }, () => ({ agentA, agentB, outcome }));
}

// Three tasks: task 1 has agents 10, 20, 30 (agent 20 twice), task 2 agents 10 and 20, task 3 only agent 30.
const candidates: PairCandidate[] = [
  { trajectoryId: 1, taskId: 1, agentId: 10 },
  { trajectoryId: 2, taskId: 1, agentId: 20 },
  { trajectoryId: 3, taskId: 1, agentId: 20 },
  { trajectoryId: 4, taskId: 1, agentId: 30 },
  { trajectoryId: 5, taskId: 2, agentId: 20 },
  { trajectoryId: 6, taskId: 2, agentId: 10 },
  { trajectoryId: 7, taskId: 3, agentId: 30 },
];

describe("planPairs", () => {
  it("pairs one attempt per agent within each task, A being the lower trajectory id", () => {
    const plan = planPairs(candidates, { seed: 7 });
    expect(plan.pairs.map((p) => [p.taskId, p.agentA, p.agentB].join(":")).sort()).toEqual(["1:10:20", "1:10:30", "1:20:30", "2:20:10"].sort());
    for (const p of plan.pairs) {
      expect(p.trajectoryA).toBeLessThan(p.trajectoryB);
      expect(p.agentA).not.toBe(p.agentB);
    }
    expect(plan.tasksWithoutPair).toEqual([{ taskId: 3, agents: 1 }]);
    expect(plan.repeatsLeftOut).toBe(1);
    // Agent 20's attempt at task 1 is one of its two, the same one in all its pairs.
    const twenty = new Set(
      plan.pairs.filter((p) => p.taskId === 1).flatMap((p) => (p.agentA === 20 ? [p.trajectoryA] : p.agentB === 20 ? [p.trajectoryB] : [])),
    );
    expect(twenty.size).toBe(1);
    expect([2, 3]).toContain([...twenty][0]);
  });

  it("gives the same plan for the same seed whatever the read order, and caps pairs per task", () => {
    const a = planPairs(candidates, { seed: 99, pairsPerTask: 1 });
    expect(planPairs([...candidates].reverse(), { seed: 99, pairsPerTask: 1 })).toEqual(a);
    expect(a.pairs.filter((p) => p.taskId === 1)).toHaveLength(1);
    expect(a.pairs.filter((p) => p.taskId === 2)).toHaveLength(1);
    const seeds = new Set(Array.from({ length: 12 }, (_, s) => JSON.stringify(planPairs(candidates, { seed: s, pairsPerTask: 1 }).pairs)));
    expect(seeds.size).toBeGreaterThan(1);
  });

  it("refuses a seed or cap that is not a whole number", () => {
    expect(() => planPairs(candidates, { seed: 1.5 })).toThrow(/seed/);
    expect(() => planPairs(candidates, { seed: 1, pairsPerTask: 0 })).toThrow(/pairsPerTask/);
  });
});

describe("sides", () => {
  it("derives A's side from the pair's seed (pinned: mulberry32(42) first draws 0.6011, so A is on the right)", () => {
    expect(sideOfA(42)).toBe("right");
    const sides = new Set(Array.from({ length: 20 }, (_, s) => sideOfA(s)));
    expect(sides).toEqual(new Set(["left", "right"]));
  });

  it("turns a left/right choice into A/B and back", () => {
    expect(outcomeOfChoice("right", 42)).toBe("a");
    expect(outcomeOfChoice("left", 42)).toBe("b");
    expect(outcomeOfChoice("tie", 42)).toBe("tie");
    expect(outcomeOfChoice("both_fail", 42)).toBe("both_fail");
    for (let seed = 0; seed < 10; seed++)
      for (const c of ["left", "right", "tie", "both_fail"] as const) expect(choiceOfOutcome(outcomeOfChoice(c, seed), seed)).toBe(c);
  });
});

// The worked example. Its strengths were computed once outside Verdict, by Newton–Raphson on the Bradley–Terry
// log-likelihood with ties as half wins (numpy, agent "alpha" pinned, then centred):
//   alpha 0.50165, beta −0.010313, delta −0.614878, gamma 0.123541.
const worked: PairwiseComparison[] = [
  ...repeat("alpha", "beta", "a", 3),
  ...repeat("alpha", "beta", "b", 1),
  ...repeat("alpha", "beta", "tie", 1),
  ...repeat("alpha", "gamma", "a", 2),
  ...repeat("alpha", "gamma", "b", 2),
  ...repeat("beta", "gamma", "a", 2),
  ...repeat("beta", "gamma", "b", 1),
  ...repeat("beta", "gamma", "tie", 2),
  ...repeat("gamma", "delta", "a", 3),
  ...repeat("gamma", "delta", "b", 1),
  ...repeat("beta", "delta", "a", 1),
  ...repeat("beta", "delta", "b", 1),
  // Both fail: counted, left out of the fit (alpha and delta are never compared otherwise).
  ...repeat("alpha", "delta", "both_fail", 2),
];

describe("rankAgents", () => {
  it("matches the worked example's maximum-likelihood strengths, ties counting half", () => {
    const r = rankAgents(worked, { replicates: 200, seed: 3 });
    if (!r.ok) throw new Error(r.reason);
    const by = new Map(r.agents.map((a) => [a.agent, a]));
    expect(by.get("alpha")!.logStrength).toBeCloseTo(0.50165, 5);
    expect(by.get("beta")!.logStrength).toBeCloseTo(-0.010313, 5);
    expect(by.get("delta")!.logStrength).toBeCloseTo(-0.614878, 5);
    expect(by.get("gamma")!.logStrength).toBeCloseTo(0.123541, 5);
    expect(by.get("alpha")!.winProbabilityVsAverage).toBeCloseTo(0.622847, 5);
    expect(r.agents.map((a) => a.agent)).toEqual(["alpha", "gamma", "beta", "delta"]);
    expect(r.agents.map((a) => a.rank)).toEqual([1, 2, 3, 4]);
    expect(r.prior).toBeNull();
    expect(r.comparisons).toBe(20);
    expect(r.bothFail).toBe(2);
    expect(by.get("alpha")).toMatchObject({ wins: 5, losses: 3, ties: 1, bothFail: 2 });
    expect(by.get("delta")).toMatchObject({ wins: 2, losses: 4, ties: 0, bothFail: 2 });
    expect(r.method).toMatch(/MM algorithm \(Hunter 2004\).*tie counts half.*percentile bootstrap over the 20 answers \(200 resamples, seed 3\)/);
  });

  it("gives seeded bootstrap intervals that hold the estimate and repeat for the same seed", () => {
    const a = rankAgents(worked, { replicates: 300, seed: 11 });
    const b = rankAgents([...worked].reverse(), { replicates: 300, seed: 11 });
    if (!a.ok || !b.ok) throw new Error("refused");
    for (const s of a.agents) {
      expect(s.low).not.toBeNull();
      expect(s.low!).toBeLessThan(s.logStrength);
      expect(s.high!).toBeGreaterThan(s.logStrength);
    }
    // The same answers in another order resample other answers, so only the estimates are compared across orders.
    expect(b.agents.map((s) => s.agent)).toEqual(a.agents.map((s) => s.agent));
    expect(rankAgents(worked, { replicates: 300, seed: 11 })).toEqual(a);
    expect(rankAgents(worked, { replicates: 300, seed: 12 })).not.toEqual(a);
  });

  it("adds its stated prior when an agent never wins, keeping the loser's strength finite and last", () => {
    // delta loses every comparison. Expected strengths with one virtual tie per compared pair, by the same numpy
    // Newton fit: alpha 0.278891, beta 0.121212, delta −0.996337, gamma 0.596234.
    const answers = [
      ...repeat("alpha", "beta", "a", 2),
      ...repeat("alpha", "beta", "b", 1),
      ...repeat("beta", "gamma", "a", 1),
      ...repeat("beta", "gamma", "b", 1),
      ...repeat("gamma", "alpha", "a", 1),
      ...repeat("gamma", "delta", "a", 2),
      ...repeat("beta", "delta", "a", 1),
    ];
    const r = rankAgents(answers, { replicates: 100 });
    if (!r.ok) throw new Error(r.reason);
    expect(r.prior).toMatch(/never won or tied.*one virtual tie/);
    const by = new Map(r.agents.map((a) => [a.agent, a.logStrength]));
    expect(by.get("alpha")).toBeCloseTo(0.278891, 5);
    expect(by.get("beta")).toBeCloseTo(0.121212, 5);
    expect(by.get("delta")).toBeCloseTo(-0.996337, 5);
    expect(by.get("gamma")).toBeCloseTo(0.596234, 5);
    expect(r.agents.at(-1)).toMatchObject({ agent: "delta", wins: 0, losses: 3 });
  });

  it("refuses a comparison graph in two parts, naming the groups", () => {
    const r = rankAgents([
      ...repeat("alpha", "beta", "a", 2),
      ...repeat("alpha", "beta", "b", 1),
      ...repeat("gamma", "delta", "a", 1),
      ...repeat("gamma", "delta", "b", 2),
    ]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toContain("2 groups never compared");
    expect(r.reason).toContain("{alpha, beta}");
    expect(r.reason).toContain("{delta, gamma}");
  });

  it("refuses when only both-fail answers (or one agent) remain", () => {
    const r = rankAgents(repeat("alpha", "beta", "both_fail", 3));
    expect(r).toMatchObject({ ok: false, comparisons: 0, bothFail: 3 });
    if (!r.ok) expect(r.reason).toMatch(/at least two agents/);
    expect(rankAgents([]).ok).toBe(false);
  });

  it("refuses a comparison of an agent with itself", () => {
    expect(() => rankAgents([{ agentA: "x", agentB: "x", outcome: "a" }])).toThrow(/with itself/);
  });

  it("lists an agent whose every answer was both-fail as unranked instead of refusing the rest", () => {
    const r = rankAgents([...repeat("alpha", "beta", "a", 2), ...repeat("alpha", "beta", "b", 1), ...repeat("beta", "omega", "both_fail", 2)], {
      replicates: 50,
    });
    if (!r.ok) throw new Error(r.reason);
    expect(r.agents.map((a) => a.agent)).toEqual(["alpha", "beta"]);
    expect(r.unranked).toEqual([{ agent: "omega", bothFail: 2 }]);
    expect(r.agents[1]).toMatchObject({ agent: "beta", bothFail: 2 });
  });
});
