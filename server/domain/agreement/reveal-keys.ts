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
import { formCommandForKey, type KeyLike, type TargetLike } from "../player/keyboard";

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
  const always: Record<string, RevealCommand> = { c: { kind: "keep" }, v: { kind: "revise" }, n: { kind: "focusReason" } };
  const revising: Record<string, RevealCommand> = {
    s: { kind: "verdict", verdict: "success" },
    x: { kind: "verdict", verdict: "failure" },
    f: { kind: "markFirstFailing" },
  };
  return formCommandForKey<RevealCommand>(e, target, {
    submit: { kind: "confirm" },
    categories: opts.revising ? opts.categories : 0,
    keys: opts.revising ? { ...always, ...revising } : always,
  });
}
