/**
 * Agreement on the first failing step: where, in a failed trajectory, things went wrong. Compared only where both
 * raters gave a step (both called the trajectory a failure and marked one): exact agreement, agreement within one
 * step, and the offset (second rater's step minus the first's). Human vs human: every pair of annotators who
 * marked the same campaign item. Evaluator vs human: each evaluator setting's step (judges asked for it, heuristics
 * the step they fire on) against the consolidated label's. Rules give none and are left out.
 */
import type { Db } from "../../../db/database";
import { NULL_INT } from "../../../db/repositories/analytics";
import { evaluatorsInScope, type EvaluatorInfo } from "./common";
import {
  cachedAnalytics,
  getCampaignLabels,
  getFacts,
  getReference,
  getVerdictSets,
  JUDGE_MEASURE_TABLES,
  REF_FAILURE,
  scopeMask,
  V_FAILURE,
  type Scope,
} from "./dataset";

export interface StepAgreement {
  /** Pairs where both gave a step. */
  pairs: number;
  exact: number;
  withinOne: number;
  exactRate: number | null;
  withinOneRate: number | null;
  /** Mean of (second − first) and of its absolute value, in steps. */
  meanOffset: number | null;
  meanAbsoluteOffset: number | null;
}

export class StepAgreementCounter {
  private pairs = 0;
  private exact = 0;
  private withinOne = 0;
  private offset = 0;
  private absolute = 0;

  add(first: number, second: number): void {
    const d = second - first;
    this.pairs++;
    if (d === 0) this.exact++;
    if (Math.abs(d) <= 1) this.withinOne++;
    this.offset += d;
    this.absolute += Math.abs(d);
  }

  result(): StepAgreement {
    const n = this.pairs;
    return {
      pairs: n,
      exact: this.exact,
      withinOne: this.withinOne,
      exactRate: n ? this.exact / n : null,
      withinOneRate: n ? this.withinOne / n : null,
      meanOffset: n ? this.offset / n : null,
      meanAbsoluteOffset: n ? this.absolute / n : null,
    };
  }
}

export interface EvaluatorStepAgreement {
  info: EvaluatorInfo;
  agreement: StepAgreement;
  /** Evaluator failures on human failures with a marked step where the evaluator gave no step (not asked, or unparseable). */
  withoutStep: number;
}

export interface StepItem {
  trajectoryId: number;
  stepCount: number;
  human: number;
  /** Steps of the evaluators that gave one, by evaluator id. */
  evaluators: Record<string, number>;
}

export interface FailureStepResult {
  humans: StepAgreement;
  evaluators: EvaluatorStepAgreement[];
  /** Trajectories with a consolidated step and at least one evaluator step, the largest disagreement first (for the drill-down). */
  items: StepItem[];
}

const MAX_ITEMS = 50;

async function compute(db: Db, scope: Scope, campaignId: number | undefined): Promise<FailureStepResult> {
  const facts = await getFacts(db);
  const mask = scopeMask(facts, scope);
  const ref = await getReference(db, campaignId);

  // Human vs human, in each campaign the reference labels come from.
  const campaigns = new Set<number>();
  for (let r = 0; r < facts.n; r++) if (mask[r] && ref.campaignId[r]! > 0) campaigns.add(ref.campaignId[r]!);
  const humans = new StepAgreementCounter();
  for (const c of campaigns) {
    const labels = await getCampaignLabels(db, c);
    const failure = labels.dict.verdict.indexOf("failure");
    const byItem = new Map<number, number[]>();
    for (let i = 0; i < labels.length; i++) {
      const r = facts.rowOf(labels.col.trajectoryId[i]!);
      if (r < 0 || !mask[r] || labels.col.verdict[i] !== failure) continue;
      const step = labels.col.firstFailingStep[i]!;
      if (step === NULL_INT) continue;
      const item = labels.col.itemId[i]!;
      const steps = byItem.get(item);
      if (steps) steps.push(step);
      else byItem.set(item, [step]);
    }
    for (const steps of byItem.values()) for (let a = 0; a < steps.length; a++) for (let b = a + 1; b < steps.length; b++) humans.add(steps[a]!, steps[b]!);
  }

  const items = new Map<number, StepItem>();
  const evaluators: EvaluatorStepAgreement[] = [];
  for (const { set, info } of await evaluatorsInScope(db, await getVerdictSets(db), mask)) {
    const counter = new StepAgreementCounter();
    let withoutStep = 0;
    let anyStep = false;
    for (let i = 0; i < set.rows.length; i++) {
      const r = set.rows[i]!;
      if (!mask[r] || ref.verdict[r] !== REF_FAILURE) continue;
      const human = ref.firstFailingStep[r]!;
      if (human === NULL_INT || set.verdict[i] !== V_FAILURE) continue;
      const step = set.firstFailingStep[i]!;
      if (step === NULL_INT) {
        withoutStep++;
        continue;
      }
      anyStep = true;
      counter.add(human, step);
      const id = facts.id[r]!;
      let item = items.get(id);
      if (!item) items.set(id, (item = { trajectoryId: id, stepCount: facts.stepCount[r]!, human, evaluators: {} }));
      item.evaluators[info.id] = step;
    }
    // Evaluators that never give a step (rules, judges not asked) have nothing to compare.
    if (anyStep) evaluators.push({ info, agreement: counter.result(), withoutStep });
  }
  const spread = (x: StepItem) => Math.max(0, ...Object.values(x.evaluators).map((s) => Math.abs(s - x.human)));
  const list = [...items.values()].sort((a, b) => spread(b) - spread(a) || a.trajectoryId - b.trajectoryId).slice(0, MAX_ITEMS);
  return { humans: humans.result(), evaluators, items: list };
}

export async function failureStepAgreement(db: Db, input: { scope: Scope; campaignId?: number }): Promise<FailureStepResult> {
  const key = `failure-steps:${JSON.stringify([input.scope.taskSetId ?? null, input.scope.runId ?? null, input.scope.site === undefined ? "*" : input.scope.site, input.campaignId ?? null, input.scope.includeFlagged === true])}`;
  // Human pairs come from the campaign labels as well.
  return cachedAnalytics(db, key, [...JUDGE_MEASURE_TABLES, "labels"], () => compute(db, input.scope, input.campaignId));
}
