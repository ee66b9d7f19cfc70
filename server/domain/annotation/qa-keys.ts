/**
 * The QA page's keyboard map, in the spirit of the label panel's (label-keys.ts): `y` approves the consolidated
 * label as it stands (puts the form back to it), `s` / `x` / `b` override the verdict (success, failure, not
 * executable), `1`–`9` pick the failure type, `f` marks the step on screen as the failure point, `n` focuses the
 * reasoning, `c` and `d` cycle the reviewer's confidence and the source of the disagreement, `g` shows the
 * guidelines, and Ctrl/Cmd+Enter records the review and opens the next item. No key overlaps the player's.
 *
 * Same safety rules: nothing fires while typing in a field, with Alt, or with Ctrl/Cmd held, except
 * Ctrl/Cmd+Enter, which must work from the reasoning box; key repeat never submits twice.
 */
import { formCommandForKey, type KeyLike, type TargetLike } from "../player/keyboard";

export type QaCommand =
  | { kind: "approve" }
  | { kind: "verdict"; verdict: "success" | "failure" | "not_executable" }
  | { kind: "category"; index: number }
  | { kind: "markFailurePoint" }
  | { kind: "focusReasoning" }
  | { kind: "cycleConfidence" }
  | { kind: "cycleSource" }
  | { kind: "guidelines" }
  | { kind: "submitAndNext" };

export const QA_SHORTCUTS: { keys: string[]; description: string }[] = [
  { keys: ["y"], description: "Approve: back to the consolidated label as it stands" },
  { keys: ["s"], description: "Override: success" },
  { keys: ["x"], description: "Override: failure" },
  { keys: ["b"], description: "Override: not executable (when the campaign accepts it)" },
  { keys: ["1", "…", "9"], description: "Failure type" },
  { keys: ["f"], description: "Mark the step on screen as the failure point (again to clear)" },
  { keys: ["n"], description: "Write the reasoning" },
  { keys: ["c"], description: "Your confidence: low → medium → high" },
  { keys: ["d"], description: "Source of the disagreement (next one)" },
  { keys: ["g"], description: "Show / hide the campaign's guidelines" },
  { keys: ["Ctrl/⌘", "Enter"], description: "Record the review and go to the next item" },
];

export function qaCommandForKey(
  e: KeyLike,
  target: TargetLike | null | undefined,
  opts: { categories: number; allowNotExecutable: boolean },
): QaCommand | null {
  return formCommandForKey<QaCommand>(e, target, {
    submit: { kind: "submitAndNext" },
    categories: opts.categories,
    keys: {
      y: { kind: "approve" },
      s: { kind: "verdict", verdict: "success" },
      x: { kind: "verdict", verdict: "failure" },
      b: opts.allowNotExecutable ? { kind: "verdict", verdict: "not_executable" } : null,
      f: { kind: "markFailurePoint" },
      n: { kind: "focusReasoning" },
      c: { kind: "cycleConfidence" },
      d: { kind: "cycleSource" },
      g: { kind: "guidelines" },
    },
  });
}

/**
 * What a QA review records: "confirmed" when the reviewer's form still equals the consolidated label, else
 * "corrected" (an override). A disputed item has no consolidated label, so any decision on it is a correction.
 */
export function qaDecisionFor(
  consolidated: { verdict: string; category: string | null; firstFailingStep: number | null } | null,
  form: { verdict: string | null; category: string | null; firstFailingStep: number | null },
): "confirmed" | "corrected" {
  if (!consolidated) return "corrected";
  const same =
    consolidated.verdict === form.verdict &&
    (consolidated.category ?? null) === (form.category ?? null) &&
    (consolidated.firstFailingStep ?? null) === (form.firstFailingStep ?? null);
  return same ? "confirmed" : "corrected";
}
