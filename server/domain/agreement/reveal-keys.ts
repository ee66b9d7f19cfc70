/**
 * The reveal panel's keyboard map (blind → reveal → revise), in the spirit of the label panel's: `c` keep the blind
 * label, `v` revise it, then while revising `s` / `x` verdict, `1`–`9` category, `f` the step on screen as the first
 * failing one; `n` writes the reason; Ctrl/Cmd+Enter records the decision, and once recorded goes to the next
 * trajectory. `k` and `r` would read better but the player already owns them (previous step, raw screenshot) and both
 * listen on the window, so these keys stay clear of the player's and the label panel's.
 *
 * Nothing fires while typing in a field, with Alt, or with Ctrl/Cmd held, except Ctrl/Cmd+Enter (finish the
 * reason, confirm). Key repeat never confirms twice.
 */
import { formKeyOf, type KeyLike, type TargetLike } from "../player/keyboard";

export type RevealCommand =
  | { kind: "keep" }
  | { kind: "revise" }
  | { kind: "verdict"; verdict: "success" | "failure" }
  | { kind: "category"; index: number }
  | { kind: "markFirstFailing" }
  | { kind: "focusReason" }
  | { kind: "confirm" };

export const REVEAL_SHORTCUTS: { keys: string[]; description: string }[] = [
  { keys: ["c"], description: "Keep your blind label" },
  { keys: ["v"], description: "Revise it" },
  { keys: ["s", "x"], description: "Revising: success / failure" },
  { keys: ["1", "…", "9"], description: "Revising: error category" },
  { keys: ["f"], description: "Revising: the step on screen is the first failing step" },
  { keys: ["n"], description: "Write your reason (required)" },
  { keys: ["Ctrl/⌘", "Enter"], description: "Record your decision; once recorded, next trajectory" },
];

export function revealCommandForKey(e: KeyLike, target: TargetLike | null | undefined, opts: { categories: number; revising: boolean }): RevealCommand | null {
  const pressed = formKeyOf(e, target);
  if (!pressed) return null;
  if (pressed.submit) return { kind: "confirm" };
  const key = pressed.key;
  switch (key) {
    case "c":
      return { kind: "keep" };
    case "v":
      return { kind: "revise" };
    case "n":
      return { kind: "focusReason" };
  }
  if (!opts.revising) return null;
  if (key === "s") return { kind: "verdict", verdict: "success" };
  if (key === "x") return { kind: "verdict", verdict: "failure" };
  if (key === "f") return { kind: "markFirstFailing" };
  if (/^[1-9]$/.test(key) && Number(key) <= opts.categories) return { kind: "category", index: Number(key) - 1 };
  return null;
}
