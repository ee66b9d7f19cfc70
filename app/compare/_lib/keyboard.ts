/**
 * The side-by-side page's keys, as data: the player's stepping keys move every column together, `s` and `u`
 * switch how the columns are aligned. Typing in a field and browser shortcuts are left alone, by the player's rule.
 */
import { isTypingTarget, type KeyLike, type TargetLike } from "@/server/domain/player/keyboard";

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

const KEYMAP: Record<string, CompareCommand> = {
  ArrowLeft: "prev",
  k: "prev",
  ArrowRight: "next",
  j: "next",
  Home: "first",
  End: "last",
  s: "byStep",
  u: "byUrl",
  d: "divergence",
  o: "toggleOverlay",
  a: "toggleAction",
  "?": "toggleHelp",
  Escape: "close",
};

export function compareCommandForKey(e: KeyLike, target: TargetLike | null | undefined): CompareCommand | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  if (isTypingTarget(target)) return null;
  const key = e.key.length === 1 && e.key !== "?" ? e.key.toLowerCase() : e.key;
  if (e.shiftKey && key.length === 1 && /[a-z]/.test(key)) return null;
  return KEYMAP[key] ?? null;
}
