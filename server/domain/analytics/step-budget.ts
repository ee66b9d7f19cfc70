/**
 * Step-budget curves: what a run would have scored had it been stopped after k steps. A trajectory counts as a
 * success at budget k only if it succeeded and used at most k steps; one that succeeded in more steps would have been
 * cut off before its answer, so at that budget it is a failure. Trajectories without a success/failure outcome (no
 * verdict, unsure, not evaluable) are left out of every point, so the denominator is the same along a curve and its
 * last point is the run's success rate.
 *
 * Each point carries a Wilson 95% interval (server/domain/agreement/proportion.ts). Beside the curve: steps per
 * success (every step spent, failures included, divided by the successes: what one success costs), the mean
 * steps of the successes themselves, the same cost in recorded time when the source timed every step, and how a
 * success's steps compare with the steps a person took on the same task (the benchmark's reference length, e.g.
 * Online-Mind2Web's `reference_length`).
 */
import { ValidationError } from "../../errors";
import { wilsonInterval, type ProportionInterval } from "../agreement/proportion";

export interface BudgetItem {
  /** The group the item belongs to: an agent run, a site, "run · site". */
  group: string;
  /** Steps the trajectory took. */
  steps: number;
  /** Its outcome by the chosen reference, or null when it has none (left out). */
  success: boolean | null;
  /** Seconds its steps took when the source timed every step; null (or absent) otherwise. */
  seconds?: number | null;
  /** Steps a person took on the same task (the benchmark's reference length); null (or absent) when unknown. */
  humanSteps?: number | null;
}

/** A group's successes beside a person's attempt at the same tasks. */
export interface VersusHuman {
  /** Successes whose task has a human step count. */
  n: number;
  meanAgentSteps: number;
  meanHumanSteps: number;
  /** Σ agent steps / Σ human steps over those successes (above 1: the agent took more steps than the person). */
  ratio: number;
}

export interface BudgetPoint extends ProportionInterval {
  /** The step limit. */
  k: number;
}

export interface BudgetCurve {
  group: string;
  /** Items with an outcome (the denominator of every point). */
  n: number;
  successes: number;
  /** Points at each budget asked for, ascending. */
  points: BudgetPoint[];
  /** Σ steps of every counted item / successes; null without a success. */
  stepsPerSuccess: number | null;
  /** Mean steps of the successes; null without a success. */
  meanStepsOfSuccesses: number | null;
  /** Smallest budget at which the curve reaches its final rate (every success fits); null without a success. */
  saturatesAt: number | null;
  /** Counted items whose every step was timed. */
  timed: number;
  /** Σ seconds of every counted item / successes, when all of them were timed; null otherwise or without a success. */
  secondsPerSuccess: number | null;
  /** The successes against a person's steps on the same tasks; null when none of their tasks has a human step count. */
  versusHuman: VersusHuman | null;
}

export class BudgetInputError extends ValidationError {
  constructor(message: string) {
    super(message);
    this.name = "BudgetInputError";
  }
}

/** Budgets 1…max, or the given ones (positive integers, sorted and de-duplicated). */
export function budgetsFor(items: readonly BudgetItem[], ks?: readonly number[]): number[] {
  if (ks) {
    for (const k of ks) if (!Number.isInteger(k) || k < 1) throw new BudgetInputError(`a step budget is a positive whole number of steps, got ${k}`);
    return [...new Set(ks)].sort((a, b) => a - b);
  }
  const max = items.reduce((m, i) => (i.success === null ? m : Math.max(m, i.steps)), 0);
  return Array.from({ length: max }, (_, i) => i + 1);
}

/** One group's curve at the given budgets. */
export function budgetCurve(group: string, items: readonly BudgetItem[], ks: readonly number[]): BudgetCurve {
  const counted = items.filter((i) => i.success !== null);
  for (const i of counted)
    if (!Number.isInteger(i.steps) || i.steps < 0) throw new BudgetInputError(`steps must be a non-negative whole number, got ${i.steps}`);
  const successSteps = counted.filter((i) => i.success).map((i) => i.steps);
  const n = counted.length;
  const totalSteps = counted.reduce((s, i) => s + i.steps, 0);
  const points = ks.map((k) => ({ k, ...wilsonInterval(successSteps.filter((s) => s <= k).length, n) }));
  const successes = successSteps.length;
  const timed = counted.filter((i) => i.seconds !== null && i.seconds !== undefined);
  for (const i of timed)
    if (!Number.isFinite(i.seconds) || i.seconds! < 0)
      throw new BudgetInputError(`a trajectory's time must be a non-negative number of seconds, got ${i.seconds}`);
  return {
    group,
    n,
    successes,
    points,
    stepsPerSuccess: successes ? totalSteps / successes : null,
    meanStepsOfSuccesses: successes ? successSteps.reduce((a, b) => a + b, 0) / successes : null,
    saturatesAt: successes ? Math.max(...successSteps) : null,
    timed: timed.length,
    secondsPerSuccess: successes && timed.length === n ? timed.reduce((t, i) => t + i.seconds!, 0) / successes : null,
    versusHuman: versusHuman(counted.filter((i) => i.success)),
  };
}

function versusHuman(successes: readonly BudgetItem[]): VersusHuman | null {
  const paired = successes.filter((i) => i.humanSteps !== null && i.humanSteps !== undefined);
  for (const i of paired)
    if (!Number.isInteger(i.humanSteps) || i.humanSteps! < 1)
      throw new BudgetInputError(`a person's step count must be a positive whole number, got ${i.humanSteps}`);
  if (!paired.length) return null;
  const agent = paired.reduce((t, i) => t + i.steps, 0);
  const human = paired.reduce((t, i) => t + i.humanSteps!, 0);
  return { n: paired.length, meanAgentSteps: agent / paired.length, meanHumanSteps: human / paired.length, ratio: agent / human };
}

/** A curve per group (sorted by name), at the same budgets for all: 1…the longest counted trajectory unless `ks` is given. */
export function budgetCurves(items: readonly BudgetItem[], ks?: readonly number[]): BudgetCurve[] {
  const budgets = budgetsFor(items, ks);
  const groups = new Map<string, BudgetItem[]>();
  for (const i of items) groups.set(i.group, [...(groups.get(i.group) ?? []), i]);
  return [...groups.keys()].sort((a, b) => a.localeCompare(b)).map((g) => budgetCurve(g, groups.get(g)!, budgets));
}
