/**
 * The side-by-side page's keys, as data: the player's stepping keys move every column together, `s` and `u`
 * switch how the columns are aligned. The keys the two views share come from the player's map, read by its rule
 * (typing in a field and browser shortcuts are left alone).
 */
import { keyFor, playerKeysFor, type KeyLike, type TargetLike } from "@/server/domain/player/keyboard";

export type CompareCommand = "prev" | "next" | "first" | "last" | "byStep" | "byUrl" | "divergence" | "toggleOverlay" | "toggleAction" | "toggleHelp" | "close";

export const COMPARE_SHORTCUTS: { keys: string[]; command: CompareCommand; description: string }[] = [
  { keys: ["←", "k"], command: "prev", description: "Previous step, in every column" },
  { keys: ["→", "j"], command: "next", description: "Next step, in every column" },
  { keys: ["Home"], command: "first", description: "First step" },
  { keys: ["End"], command: "last", description: "Last step" },
  { keys: ["s"], command: "byStep", description: "Align by step number" },
  { keys: ["u"], command: "byUrl", description: "Align by URL (a page one attempt skipped shows a gap)" },
  { keys: ["d"], command: "divergence", description: "Go to where the attempts first differ" },
  { keys: ["o"], command: "toggleOverlay", description: "Show / hide Set-of-Marks boxes" },
  { keys: ["a"], command: "toggleAction", description: "Show / hide the action overlay" },
  { keys: ["?"], command: "toggleHelp", description: "This list" },
  { keys: ["Esc"], command: "close", description: "Close zoom or help" },
];

/** The player's keys for what the two views share, and the compare view's own. */
const KEYMAP: Record<string, CompareCommand> = {
  ...playerKeysFor(["prev", "next", "first", "last", "toggleOverlay", "toggleAction", "toggleHelp", "close"] as const),
  s: "byStep",
  u: "byUrl",
  d: "divergence",
};

export function compareCommandForKey(e: KeyLike, target: TargetLike | null | undefined): CompareCommand | null {
  const key = keyFor(e, target);
  return key === null ? null : (KEYMAP[key] ?? null);
}
