/**
 * Step-budget curves: what a run would have scored had it been stopped after k steps. A trajectory counts as a
 * success at budget k only if it succeeded and used at most k steps; one that succeeded in more steps would have been
 * cut off before its answer, so at that budget it is a failure. Trajectories without a success/failure outcome (no
 * verdict, unsure, not evaluable) are left out of every point, so the denominator is the same along a curve and its
 * last point is the run's success rate.
 *
 * Each point carries a Wilson 95% interval (server/domain/agreement/proportion.ts). Beside the curve: steps per
 * success (every step spent, failures included, divided by the successes: what one success costs) and the mean
 * steps of the successes themselves.
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
  return {
    group,
    n,
    successes,
    points,
    stepsPerSuccess: successes ? totalSteps / successes : null,
    meanStepsOfSuccesses: successes ? successSteps.reduce((a, b) => a + b, 0) / successes : null,
    saturatesAt: successes ? Math.max(...successSteps) : null,
  };
}

/** A curve per group (sorted by name), at the same budgets for all: 1…the longest counted trajectory unless `ks` is given. */
export function budgetCurves(items: readonly BudgetItem[], ks?: readonly number[]): BudgetCurve[] {
  const budgets = budgetsFor(items, ks);
  const groups = new Map<string, BudgetItem[]>();
  for (const i of items) groups.set(i.group, [...(groups.get(i.group) ?? []), i]);
  return [...groups.keys()].sort((a, b) => a.localeCompare(b)).map((g) => budgetCurve(g, groups.get(g)!, budgets));
}
