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
import { formKeyOf, type KeyLike, type TargetLike } from "../player/keyboard";

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
  const pressed = formKeyOf(e, target);
  if (!pressed) return null;
  if (pressed.submit) return { kind: "submitAndNext" };
  const key = pressed.key;
  switch (key) {
    case "s":
      return { kind: "verdict", verdict: "success" };
    case "x":
      return { kind: "verdict", verdict: "failure" };
    case "f":
      return { kind: "markFirstFailing" };
    case "u":
      return { kind: "undo" };
    case "n":
      return { kind: "focusNote" };
    case "m":
      return { kind: "toggleMarks" };
    case "q":
      return opts.allowUnsure ? { kind: "verdict", verdict: "unsure" } : null;
    case "b":
      return opts.allowNotExecutable ? { kind: "verdict", verdict: "not_executable" } : null;
    case "g":
      return { kind: "guidelines" };
  }
  if (/^[1-9]$/.test(key)) {
    const index = Number(key) - 1;
    return index < opts.categories ? { kind: "category", index } : null;
  }
  return null;
}
