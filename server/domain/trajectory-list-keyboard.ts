/**
 * The trajectory list's keyboard map, on the player's conventions (server/domain/player/keyboard.ts): j/k move,
 * ? shows the keys, Esc closes, and keys are left alone while typing or with Ctrl/Cmd/Alt held. `x` toggles the
 * focused row's selection, as in mail clients; Enter or `o` opens it.
 */
import { isTypingTarget, type KeyLike, type TargetLike } from "./player/keyboard";

export type ListCommand = "down" | "up" | "toggle" | "open" | "toggleHelp" | "close";

/** Shortcuts as the list's help dialog shows them (same order). */
export const LIST_SHORTCUTS: { keys: string[]; command: ListCommand; description: string }[] = [
  { keys: ["j", "↓"], command: "down", description: "Focus the next row" },
  { keys: ["k", "↑"], command: "up", description: "Focus the previous row" },
  { keys: ["x"], command: "toggle", description: "Select / unselect the focused row" },
  { keys: ["Enter", "o"], command: "open", description: "Open the focused row in the player" },
  { keys: ["?"], command: "toggleHelp", description: "This list" },
  { keys: ["Esc"], command: "close", description: "Close this list" },
];

const KEYMAP: Record<string, ListCommand> = {
  j: "down",
  ArrowDown: "down",
  k: "up",
  ArrowUp: "up",
  x: "toggle",
  o: "open",
  Enter: "open",
  "?": "toggleHelp",
  Escape: "close",
};

/**
 * The command a key press means on the list, or null to leave it to the browser. Enter and the arrows belong to
 * a focused link, button or checkbox (they activate or scroll it), so they only act on the list from elsewhere.
 */
export function listCommandForKey(e: KeyLike, target: TargetLike | null | undefined): ListCommand | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  if (isTypingTarget(target)) return null;
  const key = e.key.length === 1 && e.key !== "?" ? e.key.toLowerCase() : e.key;
  if (e.shiftKey && key.length === 1 && /[a-z]/.test(key)) return null;
  const tag = (target?.tagName ?? "").toUpperCase();
  const onControl = tag === "A" || tag === "BUTTON" || tag === "INPUT" || target?.role === "button";
  if (onControl && (key === "Enter" || key === " ")) return null;
  return KEYMAP[key] ?? null;
}
