/**
 * Pairwise campaigns ask "which of these two attempts at the same task is better?". This module plans the pairs: for
 * each task, one trajectory per agent (a run is an agent here), and pairs of those trajectories from different
 * agents. Everything is driven by the campaign's seed, so the same selection and seed always give the same pairs,
 * whatever order the trajectories were read in.
 *
 * Each pair is stored as (A, B) with A the lower trajectory id, and with its own seed, from which the side A is
 * shown on is derived. An annotator answers "left" or "right"; only the server, which holds the seed, turns that into
 * A or B, so neither the page nor the API tells an annotator which trajectory (and so which agent) is on which side.
 */
import { ValidationError } from "../../errors";
import { createRng, type Rng } from "../agreement/random";
import { streamSeed } from "../sampling";

export interface PairCandidate {
  trajectoryId: number;
  taskId: number;
  /** The agent the trajectory belongs to (its run). */
  agentId: number;
}

export interface PlannedPair {
  taskId: number;
  /** The lower trajectory id of the two. */
  trajectoryA: number;
  trajectoryB: number;
  agentA: number;
  agentB: number;
  /** This pair's own seed: which side A is shown on follows from it (see `sidesOf`). */
  sideSeed: number;
}

export interface PairPlanOptions {
  seed: number;
  /** At most this many pairs per task, drawn at random with the seed; all pairs of the task's agents when omitted. */
  pairsPerTask?: number;
}

export interface PairPlan {
  pairs: PlannedPair[];
  /** Tasks with fewer than two agents among the candidates: they give no pair (each named with its agent count). */
  tasksWithoutPair: { taskId: number; agents: number }[];
  /** Trajectories left out because their agent had another attempt at the same task (one attempt per agent is paired). */
  repeatsLeftOut: number;
}

/** A seeded partial Fisher–Yates shuffle: the first `n` of a shuffled copy. */
function drawN<T>(items: readonly T[], n: number, rng: Rng): T[] {
  const out = [...items];
  const take = Math.min(n, out.length);
  for (let i = 0; i < take; i++) {
    const j = i + Math.floor(rng() * (out.length - i));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out.slice(0, take);
}

/** Groups candidates by task, then by agent, everything in ascending id order so the plan does not depend on read order. */
function groupByTask(candidates: readonly PairCandidate[]): Map<number, Map<number, number[]>> {
  const byTask = new Map<number, Map<number, number[]>>();
  const sorted = [...candidates].sort((x, y) => x.taskId - y.taskId || x.agentId - y.agentId || x.trajectoryId - y.trajectoryId);
  for (const c of sorted) {
    let agents = byTask.get(c.taskId);
    if (!agents) byTask.set(c.taskId, (agents = new Map()));
    const list = agents.get(c.agentId);
    if (list) list.push(c.trajectoryId);
    else agents.set(c.agentId, [c.trajectoryId]);
  }
  return byTask;
}

function checkOptions(options: PairPlanOptions): void {
  if (!Number.isInteger(options.seed)) throw new ValidationError(`seed: a whole number, got ${options.seed}`);
  const n = options.pairsPerTask;
  if (n !== undefined && (!Number.isInteger(n) || n < 1)) throw new ValidationError(`pairsPerTask: a whole number of at least 1, got ${n}`);
}

/** The pairs of a selection of trajectories: per task, one attempt per agent (drawn with the seed), then pairs of agents. */
export function planPairs(candidates: readonly PairCandidate[], options: PairPlanOptions): PairPlan {
  checkOptions(options);
  const pairs: PlannedPair[] = [];
  const tasksWithoutPair: PairPlan["tasksWithoutPair"] = [];
  let repeatsLeftOut = 0;
  for (const [taskId, agents] of groupByTask(candidates)) {
    const rng = createRng(streamSeed(options.seed, `task:${taskId}`));
    const chosen = [...agents].map(([agentId, ids]) => {
      repeatsLeftOut += ids.length - 1;
      return { agentId, trajectoryId: ids.length === 1 ? ids[0]! : drawN(ids, 1, rng)[0]! };
    });
    if (chosen.length < 2) {
      tasksWithoutPair.push({ taskId, agents: chosen.length });
      continue;
    }
    const all: [(typeof chosen)[number], (typeof chosen)[number]][] = [];
    for (let i = 0; i < chosen.length; i++) for (let j = i + 1; j < chosen.length; j++) all.push([chosen[i]!, chosen[j]!]);
    const kept = options.pairsPerTask === undefined ? all : drawN(all, options.pairsPerTask, rng);
    for (const [x, y] of kept) {
      const [a, b] = x.trajectoryId < y.trajectoryId ? [x, y] : [y, x];
      pairs.push({
        taskId,
        trajectoryA: a.trajectoryId,
        trajectoryB: b.trajectoryId,
        agentA: a.agentId,
        agentB: b.agentId,
        sideSeed: streamSeed(options.seed, `pair:${a.trajectoryId}:${b.trajectoryId}`),
      });
    }
  }
  return { pairs, tasksWithoutPair, repeatsLeftOut };
}

export type PairSide = "left" | "right";

/** Which side trajectory A is shown on, from the pair's seed (the first draw of its generator: below one half is left). */
export function sideOfA(sideSeed: number): PairSide {
  return createRng(sideSeed)() < 0.5 ? "left" : "right";
}

/** What an annotator can answer, in the page's terms. */
export const PAIRWISE_CHOICES = ["left", "right", "tie", "both_fail"] as const;
export type PairwiseChoice = (typeof PAIRWISE_CHOICES)[number];

/** What is stored: the answer in terms of the pair's A and B, which the annotator never sees. */
export const PAIRWISE_OUTCOMES = ["a", "b", "tie", "both_fail"] as const;
export type PairwiseOutcome = (typeof PAIRWISE_OUTCOMES)[number];

/** The stored outcome of an annotator's choice on a pair with the given seed. */
export function outcomeOfChoice(choice: PairwiseChoice, sideSeed: number): PairwiseOutcome {
  if (choice === "tie" || choice === "both_fail") return choice;
  return choice === sideOfA(sideSeed) ? "a" : "b";
}

/** The choice as the annotator made it (for showing their own answer back on the page), from the stored outcome. */
export function choiceOfOutcome(outcome: PairwiseOutcome, sideSeed: number): PairwiseChoice {
  if (outcome === "tie" || outcome === "both_fail") return outcome;
  const aSide = sideOfA(sideSeed);
  return outcome === "a" ? aSide : aSide === "left" ? "right" : "left";
}
