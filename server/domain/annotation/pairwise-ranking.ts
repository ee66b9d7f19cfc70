/**
 * Ranking agents from pairwise answers with the Bradley–Terry model: agent i beats agent j with probability
 * p_i / (p_i + p_j). The strengths are the maximum-likelihood estimate, found with Hunter's (2004) MM algorithm:
 *
 *   p_i ← W_i / Σ_j n_ij / (p_i + p_j)
 *
 * where W_i is i's wins and n_ij the comparisons between i and j, then rescaled so the log-strengths average 0.
 *
 * How answers count:
 * - "A" or "B": a win for that agent;
 * - tie: half a win to each agent (one comparison between them);
 * - both fail: left out of the fit (neither attempt is better), but counted and reported per agent.
 *
 * The estimate exists only when the comparison graph is connected (otherwise two groups were never compared and
 * their relative strength is unknown: refused, naming the groups) and every group of agents won or tied at least
 * once against the rest (otherwise the loser's strength runs to 0). In the second case a prior is added, stated in
 * the result: one virtual tie between every pair of agents that were compared (one more comparison per such pair,
 * half a win to each side). It keeps every estimate finite and pulls them slightly towards each other.
 *
 * Intervals: a percentile bootstrap over comparisons (resampling the decisive and tied answers with replacement,
 * seeded), 95%, on each agent's log-strength; resamples whose graph falls apart are left out and counted.
 */
import { createRng, type Rng } from "../agreement/random";
import { percentileBounds } from "../agreement/interval";

export interface PairwiseComparison {
  agentA: string;
  agentB: string;
  outcome: "a" | "b" | "tie" | "both_fail";
}

export interface AgentStanding {
  agent: string;
  /** Log-strength, centred so the agents' log-strengths average 0. */
  logStrength: number;
  /** 95% percentile-bootstrap bounds of the log-strength (null when no resample was usable). */
  low: number | null;
  high: number | null;
  /** Probability of beating an agent of average strength (log-strength 0). */
  winProbabilityVsAverage: number;
  wins: number;
  losses: number;
  ties: number;
  bothFail: number;
  rank: number;
}

export interface RankingOptions {
  replicates?: number;
  seed?: number;
}

export type PairwiseRanking =
  | {
      ok: true;
      agents: AgentStanding[];
      /** Answers used in the fit (wins, losses and ties) and both-fail answers left out of it. */
      comparisons: number;
      bothFail: number;
      /** Why a prior was added, or null when the plain maximum-likelihood estimate exists. */
      prior: string | null;
      method: string;
      replicates: number;
      seed: number;
      /** Resamples left out because their comparison graph fell apart. */
      unusableReplicates: number;
      /** Agents whose every answer was both-fail: not ranked, their both-fail count given. */
      unranked: { agent: string; bothFail: number }[];
    }
  | { ok: false; reason: string; agents: string[]; comparisons: number; bothFail: number };

export const PAIRWISE_BOOTSTRAP_REPLICATES = 1000;
export const PAIRWISE_BOOTSTRAP_SEED = 20260;
const MAX_ITERATIONS = 10_000;
const TOLERANCE = 1e-10;

/** Wins (ties as halves) and comparison counts, as a k×k matrix over agent indices. */
interface Tally {
  wins: Float64Array;
  counts: Float64Array;
}

function emptyTally(k: number): Tally {
  return { wins: new Float64Array(k * k), counts: new Float64Array(k * k) };
}

/** Adds one answer: wins[i*k+j] holds i's wins over j. */
function addAnswer(t: Tally, k: number, i: number, j: number, outcome: "a" | "b" | "tie"): void {
  const wi = outcome === "a" ? 1 : outcome === "tie" ? 0.5 : 0;
  t.wins[i * k + j]! += wi;
  t.wins[j * k + i]! += 1 - wi;
  t.counts[i * k + j]! += 1;
  t.counts[j * k + i]! += 1;
}

/** Connected groups of the comparison graph (agents compared at least once are joined). */
function components(t: Tally, k: number): number[][] {
  const seen = new Int32Array(k).fill(-1);
  const groups: number[][] = [];
  for (let s = 0; s < k; s++) {
    if (seen[s] !== -1) continue;
    const group = [s];
    seen[s] = groups.length;
    for (let q = 0; q < group.length; q++) {
      const i = group[q]!;
      for (let j = 0; j < k; j++)
        if (seen[j] === -1 && t.counts[i * k + j]! > 0) {
          seen[j] = groups.length;
          group.push(j);
        }
    }
    groups.push(group);
  }
  return groups;
}

/** Agents reachable from `start` along "has won or tied against" edges (forward) or their reverse. */
function reach(t: Tally, k: number, start: number, forward: boolean): Uint8Array {
  const seen = new Uint8Array(k);
  const stack = [start];
  seen[start] = 1;
  while (stack.length) {
    const i = stack.pop()!;
    for (let j = 0; j < k; j++) {
      const w = forward ? t.wins[i * k + j]! : t.wins[j * k + i]!;
      if (!seen[j] && w > 0) {
        seen[j] = 1;
        stack.push(j);
      }
    }
  }
  return seen;
}

/** Hunter's condition for a finite estimate: every agent reaches every other along "won or tied against" edges. */
function stronglyConnected(t: Tally, k: number): boolean {
  return reach(t, k, 0, true).every(Boolean) && reach(t, k, 0, false).every(Boolean);
}

/** The prior: one virtual tie between each compared pair (half a win each way, one more comparison). */
function withPrior(t: Tally, k: number): Tally {
  const out = { wins: Float64Array.from(t.wins), counts: Float64Array.from(t.counts) };
  for (let i = 0; i < k; i++)
    for (let j = 0; j < k; j++)
      if (i !== j && t.counts[i * k + j]! > 0) {
        out.wins[i * k + j]! += 0.5;
        out.counts[i * k + j]! += 1;
      }
  return out;
}

/** The MM iteration to convergence; returns centred log-strengths. */
function fitBradleyTerry(t: Tally, k: number): Float64Array {
  const p = new Float64Array(k).fill(1);
  const wins = new Float64Array(k);
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) wins[i]! += t.wins[i * k + j]!;
  for (let iter = 0; iter < MAX_ITERATIONS; iter++) {
    const next = new Float64Array(k);
    for (let i = 0; i < k; i++) {
      let denom = 0;
      for (let j = 0; j < k; j++) if (j !== i && t.counts[i * k + j]! > 0) denom += t.counts[i * k + j]! / (p[i]! + p[j]!);
      next[i] = wins[i]! / denom;
    }
    let logMean = 0;
    for (let i = 0; i < k; i++) logMean += Math.log(next[i]!) / k;
    let change = 0;
    for (let i = 0; i < k; i++) {
      const v = Math.exp(Math.log(next[i]!) - logMean);
      change = Math.max(change, Math.abs(Math.log(v) - Math.log(p[i]!)));
      p[i] = v;
    }
    if (change < TOLERANCE) break;
  }
  return p.map((v) => Math.log(v));
}

/** The tally's fit, or null when its graph is disconnected; `prior` says whether the prior was needed. */
function fitTally(t: Tally, k: number): { theta: Float64Array; prior: boolean } | null {
  if (components(t, k).length > 1) return null;
  if (stronglyConnected(t, k)) return { theta: fitBradleyTerry(t, k), prior: false };
  return { theta: fitBradleyTerry(withPrior(t, k), k), prior: true };
}

interface Indexed {
  agents: string[];
  i: number[];
  j: number[];
  outcome: ("a" | "b" | "tie")[];
  bothFail: Map<string, number>;
  bothFailTotal: number;
}

/** Agents in name order; the fit's answers as index arrays; both-fail answers counted per agent. */
function indexComparisons(comparisons: readonly PairwiseComparison[]): Indexed {
  const names = new Set<string>();
  for (const c of comparisons) if (c.outcome !== "both_fail") names.add(c.agentA).add(c.agentB);
  const agents = [...names].sort();
  const at = new Map(agents.map((a, n) => [a, n]));
  const out: Indexed = { agents, i: [], j: [], outcome: [], bothFail: new Map(), bothFailTotal: 0 };
  for (const c of comparisons) {
    if (c.agentA === c.agentB) throw new RangeError(`a comparison of agent ${JSON.stringify(c.agentA)} with itself`);
    if (c.outcome === "both_fail") {
      for (const a of [c.agentA, c.agentB]) out.bothFail.set(a, (out.bothFail.get(a) ?? 0) + 1);
      out.bothFailTotal++;
      continue;
    }
    out.i.push(at.get(c.agentA)!);
    out.j.push(at.get(c.agentB)!);
    out.outcome.push(c.outcome);
  }
  return out;
}

function tallyOf(x: Indexed, pick: (n: number) => number, count: number): Tally {
  const k = x.agents.length;
  const t = emptyTally(k);
  for (let n = 0; n < count; n++) {
    const m = pick(n);
    addAnswer(t, k, x.i[m]!, x.j[m]!, x.outcome[m]!);
  }
  return t;
}

function bootstrap(x: Indexed, replicates: number, rng: Rng): { values: Float64Array[]; used: number } {
  const k = x.agents.length;
  const n = x.i.length;
  const values = Array.from({ length: k }, () => new Float64Array(replicates));
  let used = 0;
  for (let r = 0; r < replicates; r++) {
    const fit = fitTally(
      tallyOf(x, () => Math.floor(rng() * n), n),
      k,
    );
    if (!fit) continue;
    for (let a = 0; a < k; a++) values[a]![used] = fit.theta[a]!;
    used++;
  }
  return { values, used };
}

function refusal(x: Indexed, t: Tally): PairwiseRanking {
  const base = { ok: false as const, agents: x.agents, comparisons: x.i.length, bothFail: x.bothFailTotal };
  if (x.i.length === 0) return { ...base, reason: "a ranking needs answers comparing at least two agents (both-fail answers do not count)" };
  const groups = components(t, x.agents.length).map((g) => g.map((a) => x.agents[a]!).join(", "));
  return {
    ...base,
    reason: `the agents fall into ${groups.length} groups never compared with each other (${groups.map((g) => `{${g}}`).join(" ")}): their relative strength is unknown; add pairs between the groups`,
  };
}

function standings(x: Indexed, theta: Float64Array, boot: { values: Float64Array[]; used: number }): AgentStanding[] {
  const rows = x.agents.map((agent, a) => {
    let wins = 0;
    let losses = 0;
    let ties = 0;
    for (let n = 0; n < x.i.length; n++) {
      const side = x.i[n] === a ? "a" : x.j[n] === a ? "b" : null;
      if (!side) continue;
      if (x.outcome[n] === "tie") ties++;
      else if (x.outcome[n] === side) wins++;
      else losses++;
    }
    const [low, high] = boot.used ? percentileBounds(boot.values[a]!, boot.used) : [null, null];
    return {
      agent,
      logStrength: theta[a]!,
      low,
      high,
      winProbabilityVsAverage: 1 / (1 + Math.exp(-theta[a]!)),
      wins,
      losses,
      ties,
      bothFail: x.bothFail.get(agent) ?? 0,
      rank: 0,
    };
  });
  rows.sort((p, q) => q.logStrength - p.logStrength || (p.agent < q.agent ? -1 : 1));
  rows.forEach((r, n) => (r.rank = n + 1));
  return rows;
}

/** The Bradley–Terry ranking of the agents in the answers, with bootstrap intervals; refused with a reason when it cannot be fitted. */
export function rankAgents(comparisons: readonly PairwiseComparison[], options: RankingOptions = {}): PairwiseRanking {
  const replicates = options.replicates ?? PAIRWISE_BOOTSTRAP_REPLICATES;
  const seed = options.seed ?? PAIRWISE_BOOTSTRAP_SEED;
  if (!Number.isInteger(replicates) || replicates < 1) throw new RangeError(`bootstrap replicates must be a positive integer, got ${replicates}`);
  const x = indexComparisons(comparisons);
  const k = x.agents.length;
  const t = tallyOf(x, (n) => n, x.i.length);
  const fit = k >= 2 ? fitTally(t, k) : null;
  if (!fit) return refusal(x, t);
  const boot = bootstrap(x, replicates, createRng(seed));
  return {
    ok: true,
    agents: standings(x, fit.theta, boot),
    comparisons: x.i.length,
    bothFail: x.bothFailTotal,
    prior: fit.prior
      ? "some agents never won or tied against the rest, so their maximum-likelihood strength would be 0: one virtual tie was added between every pair of agents that were compared"
      : null,
    method: `Bradley–Terry, maximum likelihood by the MM algorithm (Hunter 2004); a tie counts half a win to each agent, both-fail answers are left out of the fit; 95% intervals: percentile bootstrap over the ${x.i.length} answers (${replicates} resamples, seed ${seed})`,
    replicates,
    seed,
    unusableReplicates: replicates - boot.used,
    unranked: [...x.bothFail]
      .filter(([a]) => !x.agents.includes(a))
      .map(([agent, bothFail]) => ({ agent, bothFail }))
      .sort((p, q) => (p.agent < q.agent ? -1 : 1)),
  };
}
