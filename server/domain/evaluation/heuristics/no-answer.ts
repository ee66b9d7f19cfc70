/**
 * heuristic:no-answer — the agent never answered: it ran out of steps, or ended (error, cancelled, gave up) without
 * a final answer. For information-seeking tasks this is a failure whatever else happened; for tasks done by acting
 * on the site (no answer expected) it is not, so trust it on question-answering task sets.
 */
import { stepName, type HeuristicEvaluator, type HeuristicTrajectory, type HeuristicVerdict } from "./types";

export function evaluateNoAnswer(t: HeuristicTrajectory): HeuristicVerdict {
  if (t.outcome === "running") return { verdict: "not_evaluable", step: null, reason: "The run is still going." };
  const last = t.steps.length ? t.steps[t.steps.length - 1]!.index : null;
  const at = last === null ? "" : ` at ${stepName(last)}`;
  if (t.outcome === "step_limit") {
    return { verdict: "failure", step: last, reason: `Stopped by the step limit${at}.`, facts: { outcome: t.outcome, answered: !!t.finalAnswer?.trim() } };
  }
  if (!t.finalAnswer?.trim()) {
    return {
      verdict: "failure",
      step: last,
      reason: `Ended without a final answer${at} (outcome ${t.outcome}).`,
      facts: { outcome: t.outcome, answered: false },
    };
  }
  return { verdict: "success", step: null, reason: "The agent gave a final answer." };
}

export const NO_ANSWER_HEURISTIC: HeuristicEvaluator = {
  key: "heuristic:no-answer",
  name: "Heuristic: no answer / step limit",
  version: "1",
  evaluate: evaluateNoAnswer,
};
