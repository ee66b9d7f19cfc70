/**
 * Which of a trajectory's steps an evaluator looked at, for showing beside the trajectory (the evaluations panel
 * and the filmstrip's marks). A judge sees the last k screenshots (or all of them); the window is computed with
 * the judge's own selection (`selectScreenshotSteps`), so what the player marks is what the judge was sent.
 * Pure.
 */
import { selectScreenshotSteps } from "./judge-protocol";
import { parseK } from "./verdicts";

export interface WindowStep {
  /** The step's stored index. */
  index: number;
  hasScreenshot: boolean;
}

export type ScreenshotWindow =
  /** Steps are the player's 0-based positions, oldest first; `source` says whether the verdict recorded them. */
  | { kind: "steps"; positions: number[]; source: "recorded" | "from-k" }
  /** The evaluator has no screenshot window (rules, most imports). */
  | { kind: "none" };

/**
 * The player positions whose screenshots an evaluator saw. A verdict that recorded the step indices it was sent
 * is believed as is; otherwise its k (stored as "1", "3", "full"; imported verdicts may carry one too) is applied
 * to the trajectory's steps the way the judge applies it. Without either, there is no window.
 */
export function screenshotWindow(verdict: { k: string; stepIndices: number[] | null }, steps: readonly WindowStep[]): ScreenshotWindow {
  const position = new Map(steps.map((s, i) => [s.index, i]));
  if (verdict.stepIndices && verdict.stepIndices.length > 0) {
    const positions = verdict.stepIndices.map((i) => position.get(i)).filter((p): p is number => p !== undefined);
    return { kind: "steps", positions, source: "recorded" };
  }
  if (!verdict.k.trim()) return { kind: "none" };
  let k;
  try {
    k = parseK(verdict.k);
  } catch {
    // An imported k we cannot read (e.g. "last"): show no window rather than guess one.
    return { kind: "none" };
  }
  const indices = selectScreenshotSteps([...steps], k);
  return { kind: "steps", positions: indices.map((i) => position.get(i)!), source: "from-k" };
}

/** "k = 3", "all screenshots", for people. */
export function describeK(k: string): string {
  if (!k.trim()) return "no screenshots";
  return k.trim().toLowerCase() === "full" ? "all screenshots (k = full)" : `last ${k} screenshot${k === "1" ? "" : "s"} (k = ${k})`;
}
