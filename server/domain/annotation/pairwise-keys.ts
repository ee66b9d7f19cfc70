/**
 * The pairwise page's keyboard map: `1` left is better, `2` right is better, `3` tie, `4` both fail, Ctrl/Cmd+Enter
 * submits the answer and opens the next pair, `g` shows the guidelines. The player's stepping and overlay keys
 * (←/k, →/j, Home, End, o, a, ?, Esc) move and show both attempts together, as on the labelling page.
 *
 * The answer keys go through the labelling forms' rule (formKeyOf: never while typing, with Ctrl/Cmd or Alt held or on
 * key repeat); the stepping keys through the player's (keyFor), so holding → still steps.
 */
import { formKeyOf, keyFor, playerKeysFor, playerShortcut, type KeyLike, type TargetLike } from "../player/keyboard";
import type { PairwiseChoice } from "./pairwise-pairs";

export type PairwiseStepCommand = "prev" | "next" | "first" | "last" | "toggleOverlay" | "toggleAction" | "toggleHelp" | "close";

export type PairwiseCommand =
  { kind: "choose"; choice: PairwiseChoice } | { kind: "submitAndNext" } | { kind: "guidelines" } | { kind: "player"; command: PairwiseStepCommand };

/** The answers in key order: key `1` is the first. */
export const PAIRWISE_ANSWER_KEYS: { key: string; choice: PairwiseChoice; label: string }[] = [
  { key: "1", choice: "left", label: "Left is better" },
  { key: "2", choice: "right", label: "Right is better" },
  { key: "3", choice: "tie", label: "Tie: equally good" },
  { key: "4", choice: "both_fail", label: "Both fail the task" },
];

export const PAIRWISE_SHORTCUTS: { keys: string[]; description: string }[] = [
  ...PAIRWISE_ANSWER_KEYS.map((a) => ({ keys: [a.key], description: a.label })),
  { keys: ["Ctrl/⌘", "Enter"], description: "Submit the answer and go to the next pair" },
  playerShortcut("prev", "Previous step, on both sides"),
  playerShortcut("next", "Next step, on both sides"),
  playerShortcut("first"),
  playerShortcut("last", "Last step (each side's own)"),
  playerShortcut("toggleOverlay"),
  playerShortcut("toggleAction"),
  { keys: ["g"], description: "Show / hide the campaign's guidelines" },
  playerShortcut("toggleHelp"),
  playerShortcut("close", "Close help or guidelines"),
];

const STEP_KEYS = playerKeysFor(["prev", "next", "first", "last", "toggleOverlay", "toggleAction", "toggleHelp", "close"] as const);

export function pairwiseCommandForKey(e: KeyLike, target: TargetLike | null | undefined): PairwiseCommand | null {
  const pressed = formKeyOf(e, target);
  if (pressed?.submit) return { kind: "submitAndNext" };
  if (pressed) {
    const answer = PAIRWISE_ANSWER_KEYS.find((a) => a.key === pressed.key);
    if (answer) return { kind: "choose", choice: answer.choice };
    if (pressed.key === "g") return { kind: "guidelines" };
  }
  const key = keyFor(e, target);
  const command = key === null ? undefined : STEP_KEYS[key];
  return command ? { kind: "player", command } : null;
}
