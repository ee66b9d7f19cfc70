/**
 * The label panel's keyboard map: `s` success, `x` failure, `1`–`9` category, `f` marks the step on screen as the
 * first failing one, `q` unsure (when allowed), `u` undoes the last submit, `n` focuses the note, `m` turns the region-mark mode on and off (drag a box, click a point on the screenshot), Ctrl/Cmd+Enter submits and moves to the
 * next trajectory. These keys do not overlap the player's (see server/domain/player/keyboard.ts), so both
 * listen on the window.
 *
 * Same safety rules as the player: nothing fires while typing in a field, with Alt, or with Ctrl/Cmd held, except
 * Ctrl/Cmd+Enter, which must work from the note too (finish the note, submit, next). Key repeat never submits
 * twice.
 */
import { formCommandForKey, type KeyLike, type TargetLike } from "../player/keyboard";

export type LabelCommand =
  | { kind: "verdict"; verdict: "success" | "failure" | "unsure" | "not_executable" }
  | { kind: "guidelines" }
  | { kind: "category"; index: number }
  | { kind: "markFirstFailing" }
  | { kind: "undo" }
  | { kind: "focusNote" }
  | { kind: "toggleMarks" }
  | { kind: "submitAndNext" };

export const LABEL_SHORTCUTS: { keys: string[]; description: string }[] = [
  { keys: ["s"], description: "Success" },
  { keys: ["x"], description: "Failure" },
  { keys: ["q"], description: "Unsure (when the campaign accepts it)" },
  { keys: ["b"], description: "Not executable: blocked by the site, not the agent (when the campaign accepts it)" },
  { keys: ["g"], description: "Show / hide the campaign's guidelines" },
  { keys: ["1", "…", "9"], description: "Error category (failures)" },
  { keys: ["f"], description: "Mark the step on screen as the first failing step (again to clear)" },
  { keys: ["m"], description: "Region marks: draw on the screenshot (drag a box, click a point); m or Esc stops" },
  { keys: ["n"], description: "Write a note" },
  { keys: ["Ctrl/⌘", "Enter"], description: "Submit and go to the next trajectory" },
  { keys: ["u"], description: "Undo your last submit" },
];

export function labelCommandForKey(
  e: KeyLike,
  target: TargetLike | null | undefined,
  opts: { categories: number; allowUnsure: boolean; allowNotExecutable?: boolean },
): LabelCommand | null {
  return formCommandForKey<LabelCommand>(e, target, {
    submit: { kind: "submitAndNext" },
    categories: opts.categories,
    keys: {
      s: { kind: "verdict", verdict: "success" },
      x: { kind: "verdict", verdict: "failure" },
      q: opts.allowUnsure ? { kind: "verdict", verdict: "unsure" } : null,
      b: opts.allowNotExecutable ? { kind: "verdict", verdict: "not_executable" } : null,
      f: { kind: "markFirstFailing" },
      u: { kind: "undo" },
      n: { kind: "focusNote" },
      m: { kind: "toggleMarks" },
      g: { kind: "guidelines" },
    },
  });
}
