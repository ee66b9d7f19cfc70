/**
 * The side-by-side page's keys, as data: the player's stepping keys move every column together, `s` and `u`
 * switch how the columns are aligned. The keys the two views share come from the player's map, read by its rule
 * (typing in a field and browser shortcuts are left alone), and are listed in the help as the player lists them.
 */
import { keyFor, playerKeysFor, playerShortcut, type KeyLike, type TargetLike } from "@/server/domain/player/keyboard";

export type CompareCommand = "prev" | "next" | "first" | "last" | "byStep" | "byUrl" | "divergence" | "toggleOverlay" | "toggleAction" | "toggleHelp" | "close";

export const COMPARE_SHORTCUTS: { keys: string[]; command: CompareCommand; description: string }[] = [
  playerShortcut("prev", "Previous step, in every column"),
  playerShortcut("next", "Next step, in every column"),
  playerShortcut("first"),
  playerShortcut("last"),
  { keys: ["s"], command: "byStep", description: "Align by step number" },
  { keys: ["u"], command: "byUrl", description: "Align by URL (a page one attempt skipped shows a gap)" },
  { keys: ["d"], command: "divergence", description: "Go to where the attempts first differ" },
  playerShortcut("toggleOverlay"),
  playerShortcut("toggleAction"),
  playerShortcut("toggleHelp"),
  playerShortcut("close"),
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
