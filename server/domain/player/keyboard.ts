/**
 * The player's keyboard map, as data: which key does what, and when keys must be left alone.
 * Pure so that the rules (never fire while typing, never steal browser shortcuts) are unit-tested.
 */
export type PlayerCommand =
  | "prev"
  | "next"
  | "first"
  | "last"
  | "togglePlay"
  | "toggleOverlay"
  | "toggleAction"
  | "toggleRaw"
  | "toggleZoom"
  | "toggleHelp"
  | "toggleEvaluations"
  | "comments"
  | "close"
  | "slower"
  | "faster"
  | "copyLink";

export interface KeyLike {
  key: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
  shiftKey?: boolean;
  repeat?: boolean;
}

export interface TargetLike {
  tagName?: string;
  isContentEditable?: boolean;
  type?: string;
  role?: string | null;
}

/** Shortcuts as the help overlay lists them (same order). */
export const SHORTCUTS: { keys: string[]; command: PlayerCommand; description: string }[] = [
  { keys: ["←", "k"], command: "prev", description: "Previous step" },
  { keys: ["→", "j"], command: "next", description: "Next step" },
  { keys: ["Home"], command: "first", description: "First step" },
  { keys: ["End"], command: "last", description: "Last step" },
  { keys: ["Space"], command: "togglePlay", description: "Play / pause" },
  { keys: ["-", "+"], command: "faster", description: "Slower / faster playback" },
  { keys: ["o"], command: "toggleOverlay", description: "Show / hide Set-of-Marks boxes" },
  { keys: ["a"], command: "toggleAction", description: "Show / hide the action overlay" },
  { keys: ["r"], command: "toggleRaw", description: "Raw / marked screenshot (when a raw one exists)" },
  { keys: ["z"], command: "toggleZoom", description: "Zoom: full resolution, drag or scroll to pan" },
  { keys: ["e"], command: "toggleEvaluations", description: "Show / hide the evaluations (verdicts, labels) beside the step" },
  { keys: ["l"], command: "copyLink", description: "Copy a link to this step (it keeps working after re-imports)" },
  { keys: ["?"], command: "toggleHelp", description: "This list" },
  { keys: ["Esc"], command: "close", description: "Close zoom or help" },
];

const KEYMAP: Record<string, PlayerCommand> = {
  ArrowLeft: "prev",
  k: "prev",
  ArrowRight: "next",
  j: "next",
  Home: "first",
  End: "last",
  " ": "togglePlay",
  o: "toggleOverlay",
  a: "toggleAction",
  r: "toggleRaw",
  z: "toggleZoom",
  e: "toggleEvaluations",
  l: "copyLink",
  "?": "toggleHelp",
  Escape: "close",
  "-": "slower",
  "+": "faster",
  "=": "faster",
};

/**
 * The comments key (`c`): opens the comments panel and puts the cursor in its comment box. It is not in the map above
 * because the reveal panel (keep the blind label) and the QA page (cycle confidence) give `c` their own meaning there;
 * the player listens for it only where it shows comments and `c` is free (TrajectoryPlayer's `commentsKey`), and lists
 * it in its help only then.
 */
export const COMMENTS_SHORTCUT: { keys: string[]; command: PlayerCommand; description: string } = {
  keys: ["c"],
  command: "comments",
  description: "Comments: open the panel and write in the comment box",
};

/** True for a press of the comments key (the player's rules: never while typing, with a modifier or Shift). */
export function isCommentsKey(e: KeyLike, target: TargetLike | null | undefined): boolean {
  return !e.repeat && keyFor(e, target) === "c";
}

/**
 * The rules a labelling form's keyboard map (label, QA, reveal) applies before it looks a key up: Ctrl/Cmd+Enter
 * submits, from a text field too, but never on key repeat; otherwise nothing fires while typing in a field, with
 * Ctrl/Cmd or Alt held, on key repeat, or with Shift on a letter. What is left is the key to look up: a letter
 * in lower case, a digit, or a named key.
 */
export function formKeyOf(e: KeyLike, target: TargetLike | null | undefined): { submit: true } | { submit: false; key: string } | null {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey) return e.repeat ? null : { submit: true };
  if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return null;
  if (isTypingTarget(target)) return null;
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  if (e.shiftKey && /^[a-z]$/.test(key)) return null;
  return { submit: false, key };
}

/**
 * A form's key map read as data (the label, QA and reveal panels): Ctrl/Cmd+Enter is `submit`, a key its entry in
 * `keys` (null: not offered here), `1`–`9` the category of that number while there are that many, anything else null.
 * The safety rules are formKeyOf's.
 */
export function formCommandForKey<C>(
  e: KeyLike,
  target: TargetLike | null | undefined,
  map: { submit: C; keys: Record<string, C | null>; categories: number },
): C | { kind: "category"; index: number } | null {
  const pressed = formKeyOf(e, target);
  if (!pressed) return null;
  if (pressed.submit) return map.submit;
  const key = pressed.key;
  if (Object.hasOwn(map.keys, key)) return map.keys[key] ?? null;
  if (!/^[1-9]$/.test(key)) return null;
  const index = Number(key) - 1;
  return index < map.categories ? { kind: "category", index } : null;
}

/** True when keystrokes belong to a text field (or a control that uses the keys itself). */
export function isTypingTarget(t: TargetLike | null | undefined): boolean {
  if (!t) return false;
  if (t.isContentEditable) return true;
  const tag = (t.tagName ?? "").toUpperCase();
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") {
    // Checkboxes and buttons do not take text; every other input type does.
    const type = (t.type ?? "text").toLowerCase();
    return !["checkbox", "radio", "button", "submit", "reset", "range", "color", "file", "image"].includes(type);
  }
  return t.role === "textbox" || t.role === "combobox" || t.role === "slider";
}

/**
 * The command a key press means, or null to let the browser have it: while typing, with Ctrl/Cmd/Alt held
 * (browser and OS shortcuts), or for unmapped keys. Space on a focused button stays the button's.
 */
export function commandForKey(e: KeyLike, target: TargetLike | null | undefined): PlayerCommand | null {
  const key = keyFor(e, target);
  return key === null ? null : (KEYMAP[key] ?? null);
}

/**
 * The key a press stands for once the browser's and the text fields' claims are set aside, or null: the one rule
 * every view that steps through trajectories (the player, the side-by-side compare view) reads its keys by.
 */
export function keyFor(e: KeyLike, target: TargetLike | null | undefined): string | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  if (isTypingTarget(target)) return null;
  const tag = (target?.tagName ?? "").toUpperCase();
  if (e.key === " " && (tag === "BUTTON" || tag === "A" || target?.role === "button")) return null;
  const key = e.key.length === 1 && e.key !== "?" && e.key !== "+" ? e.key.toLowerCase() : e.key;
  // Shift+letter is left for future commands and for the label panel's own shortcuts.
  if (e.shiftKey && key.length === 1 && /[a-z]/.test(key)) return null;
  return key;
}

/** The player's keys for some of its commands, so another view that shares those commands shares their keys. */
export function playerKeysFor<C extends PlayerCommand>(commands: readonly C[]): Record<string, C> {
  return Object.fromEntries(Object.entries(KEYMAP).filter(([, c]) => (commands as readonly PlayerCommand[]).includes(c))) as Record<string, C>;
}

/**
 * The player's help row for one of its commands, for a view that uses the player's key for it (compare, pairwise):
 * the keys as the player lists them, the description the view's own where it says more (`description`).
 */
export function playerShortcut<C extends PlayerCommand>(command: C, description?: string): { keys: string[]; command: C; description: string } {
  const row = SHORTCUTS.find((s) => s.command === command);
  if (!row) throw new Error(`The player's help lists no key for "${command}"`);
  return { keys: row.keys, command, description: description ?? row.description };
}

export const PLAYBACK_SPEEDS = [0.5, 1, 2, 4] as const;
/** Milliseconds a step stays on screen at 1× playback. */
export const BASE_STEP_MS = 1200;

export function nextSpeed(current: number, dir: 1 | -1): number {
  const i = PLAYBACK_SPEEDS.indexOf(current as (typeof PLAYBACK_SPEEDS)[number]);
  const j = Math.min(PLAYBACK_SPEEDS.length - 1, Math.max(0, (i === -1 ? 1 : i) + dir));
  return PLAYBACK_SPEEDS[j]!;
}
