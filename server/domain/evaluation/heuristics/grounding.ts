/**
 * heuristic:grounding — the agent acted on something that is not where it said: the action's target label is not
 * among the step's Set-of-Marks elements, or its click point lies outside its target's box. The same red flag the
 * player shows on the step (stepGrounding in server/domain/player/overlay.ts); fires on the first flagged step.
 */
import { stepGrounding } from "../../player/overlay";
import { stepName, type HeuristicEvaluator, type HeuristicTrajectory, type HeuristicVerdict } from "./types";

/** Without a screenshot size nothing can be placed: boxes and points count as off the image, as in the player. */
const NO_SIZE = { width: 0, height: 0 };

export function evaluateGrounding(t: HeuristicTrajectory): HeuristicVerdict {
  let checked = 0;
  for (const s of t.steps) {
    if (s.elements === null) continue;
    checked++;
    const flag = stepGrounding({ natural: s.screenshotSize ?? NO_SIZE, elements: s.elements, action: s.action });
    if (flag) {
      return {
        verdict: "failure",
        step: s.index,
        reason: `Grounding mismatch at ${stepName(s.index)}: ${flag.message}.`,
        facts: { flag: flag.kind, target: s.action.target ?? null },
      };
    }
  }
  if (checked === 0) return { verdict: "not_evaluable", step: null, reason: "No step recorded its Set-of-Marks elements, so targets cannot be checked." };
  return {
    verdict: "success",
    step: null,
    reason: `Every action target was found among its step's elements (${checked} step${checked === 1 ? "" : "s"} with elements).`,
  };
}

export const GROUNDING_HEURISTIC: HeuristicEvaluator = {
  key: "heuristic:grounding",
  name: "Heuristic: grounding mismatch",
  version: "1",
  evaluate: evaluateGrounding,
};
