/**
 * Step-budget curves over the analytics data (server/domain/analytics/step-budget.ts): per agent run or site, the
 * success rate had every trajectory been stopped after k steps, judged by the consolidated human label (each
 * trajectory's latest, or one campaign's). Trajectories that were not the agent's attempt (infrastructure errors,
 * blocked pages) are left out, as in every success rate. Beside the curves, what a success costs in recorded time
 * and in steps against a person's on the same task, where the source gave them.
 */
import type { Db } from "../../../db/database";
import { budgetCurves, type BudgetCurve, type BudgetItem } from "../../domain/analytics/step-budget";
import { taskHumanSteps, trajectoryStepTimes } from "../../../db/repositories/analytics";
import { runNames } from "./common";
import { flaggedInScope, getFacts, getReference, REF_FAILURE, REF_SUCCESS, scopeMask, type FlaggedCount, type Scope, type TrajectoryFacts } from "./dataset";

/**
 * Seconds per fully timed trajectory, and a person's steps per task. Read on every call, not cached: step times and
 * a task's source fields can change without moving the change counters the analytics cache is stamped with.
 */
async function stepCosts(db: Db, facts: TrajectoryFacts): Promise<{ seconds: Map<number, number>; humanSteps: Map<number, number> }> {
  const [times, humanSteps] = await Promise.all([trajectoryStepTimes(db), taskHumanSteps(db)]);
  const seconds = new Map<number, number>();
  for (const t of times) {
    const r = facts.rowOf(t.id);
    if (r >= 0 && facts.stepCount[r]! > 0 && t.timedSteps >= facts.stepCount[r]!) seconds.set(t.id, t.seconds);
  }
  return { seconds, humanSteps };
}

export const BUDGET_GROUPINGS = ["run", "site"] as const;
export type BudgetGrouping = (typeof BUDGET_GROUPINGS)[number];

export interface StepBudgetInput {
  scope: Scope;
  campaignId?: number;
  by: BudgetGrouping;
  /** Budgets to report; default every k from 1 to the longest labelled trajectory. */
  ks?: number[];
}

export async function stepBudgets(db: Db, input: StepBudgetInput): Promise<{ by: BudgetGrouping; curves: BudgetCurve[]; flagged: FlaggedCount }> {
  const facts = await getFacts(db);
  const mask = scopeMask(facts, input.scope);
  const ref = await getReference(db, input.campaignId);
  const runName = new Map((await runNames(db)).map((r) => [r.id, r.name]));
  const costs = await stepCosts(db, facts);
  const items: BudgetItem[] = [];
  for (let r = 0; r < facts.n; r++) {
    if (!mask[r]) continue;
    const v = ref.verdict[r];
    const group =
      input.by === "run" ? (runName.get(facts.runId[r]!) ?? `run ${facts.runId[r]}`) : facts.site[r]! < 0 ? "(no site)" : facts.sites[facts.site[r]!]!;
    items.push({
      group,
      steps: facts.stepCount[r]!,
      success: v === REF_SUCCESS ? true : v === REF_FAILURE ? false : null,
      seconds: costs.seconds.get(facts.id[r]!) ?? null,
      humanSteps: costs.humanSteps.get(facts.taskId[r]!) ?? null,
    });
  }
  return { by: input.by, curves: budgetCurves(items, input.ks), flagged: flaggedInScope(facts, input.scope) };
}
