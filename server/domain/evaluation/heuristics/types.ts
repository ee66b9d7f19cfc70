/**
 * What the heuristic evaluators read and say. A heuristic is a free, instant check over a trajectory's recorded
 * data; researchers compare its verdicts with human labels next to the paid LMM judges.
 *
 * Verdict semantics: `failure` when the heuristic fires, with the step it fires on; `success` means "no evidence of
 * failure" (not "the task was done"), so agreement with humans is computable; `not_evaluable` when the recorded
 * data holds nothing the heuristic could look at (no element lists, no answer).
 */
import type { Size } from "../../player/overlay";
import type { ParsedAction, SomElement } from "../../types";

export interface HeuristicStep {
  /** The step's index as stored (0-based, the number humans mark as first failing step). */
  index: number;
  action: ParsedAction;
  url: string | null;
  elements: SomElement[] | null;
  /** Content hash of the (marked) screenshot; equal hashes are identical images. */
  screenshotHash: string | null;
  /** Difference hash of that screenshot (dhash.ts), when computed. */
  screenshotDhash: string | null;
  /** Pixel size of that screenshot, when known (needed to place boxes and points). */
  screenshotSize: Size | null;
}

export interface HeuristicTrajectory {
  intent: string;
  finalAnswer: string | null;
  /** answered | step_limit | error | cancelled | running | unknown */
  outcome: string;
  steps: HeuristicStep[];
}

export interface HeuristicVerdict {
  verdict: "success" | "failure" | "not_evaluable";
  /** Stored index of the step the heuristic fires on; null when it does not fire (or fires on no particular step). */
  step: number | null;
  /** One sentence for people: why it fired, or why not. */
  reason: string;
  /** Machine-readable facts behind the verdict (which signal, which tokens…). */
  facts?: Record<string, unknown>;
}

export interface HeuristicEvaluator {
  /** Evaluator identity in stored verdicts: "heuristic:loop". */
  key: string;
  /** Name shown in the agreement views. */
  name: string;
  /** Implementation version; a new version stores new verdicts next to the old ones. */
  version: string;
  evaluate(t: HeuristicTrajectory): HeuristicVerdict;
}

/** "step 4" as the player numbers steps (from 1), for sentences. */
export function stepName(index: number): string {
  return `step ${index + 1}`;
}
