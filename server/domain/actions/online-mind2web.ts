/**
 * Action strings of Online-Mind2Web result files (`result.json` `action_history`).
 *
 * The benchmark leaves the action text to each agent, so one history holds whatever its agent wrote:
 *   pixel actions     `Click at (600, 475)`, `Double click at (…)`, `Right click at (…)`, `Hover at (…)`,
 *                     `Scroll (delta_x=0, delta_y=400)` [` at (x, y)`], `Drag from (x1, y1) to (x2, y2)`,
 *                     `CLICK coords(320, 180)`, `click(x=10, y=20)`
 *   keyboard          `Type "support services"` [` at (x, y)`], `Press ENTER`, `Press CONTROL+HOME`
 *   navigation        `Navigate to https://…`, `Navigate back`, `Go forward`, `Wait`
 *   element actions   SeeAct's `<element> -> CLICK`, `[button] Search -> TYPE: text`, a runner's
 *                     `page -> NAVIGATE -> open start page | SUCCESS`, `Select picker sp_4 -> Select option(s) [211]`
 *   the end           `ANSWER: …`, `TASK_COMPLETE -> ANSWER: …`, `TERMINATE`
 *   computer-use JSON `{"action": "left_click", "coordinate": [x, y]}` (Anthropic) or
 *                     `{"type": "scroll", "x": …, "scroll_y": 400}` (OpenAI), as text or as an object.
 * Words are matched case-insensitively. Anything else becomes `unparsed` with the text kept, so nothing the agent
 * recorded is lost. Coordinates are kept as written (screenshot pixels).
 *
 * Pure. Never throws.
 */
import type { ParsedAction, ScrollDirection } from "../types";
import { parseSeeActHistory } from "./seeact";

const NUM = String.raw`-?\d+(?:\.\d+)?`;
/** `(600, 475)`, `(600,475)`, `[600, 475]`, `x=600, y=475`, `coords(600, 475)`. */
const POINT = String.raw`(?:coords?\s*)?[([]?\s*(?:x\s*[=:]\s*)?(${NUM})\s*,\s*(?:y\s*[=:]\s*)?(${NUM})\s*[)\]]?`;

function point(m: RegExpExecArray, at: number): [number, number] {
  return [Number(m[at]), Number(m[at + 1])];
}

export function scrollDirectionOf(dx: number, dy: number): ScrollDirection | null {
  if (Math.abs(dy) >= Math.abs(dx) && dy !== 0) return dy > 0 ? "down" : "up";
  if (dx !== 0) return dx > 0 ? "right" : "left";
  return null;
}

/** A quoted string's content: "…", '…', “…”; the text as is when it is not quoted. */
function unquote(s: string): string {
  const t = s.trim();
  const m = /^"([\s\S]*)"$|^'([\s\S]*)'$|^“([\s\S]*)”$/.exec(t);
  if (!m) return t;
  const inner = m[1] ?? m[2] ?? m[3] ?? "";
  // JSON-style escapes inside double quotes (\" and \\) read back as the characters typed.
  return m[1] !== undefined ? inner.replace(/\\(["\\])/g, "$1") : inner;
}

type Rule = (s: string) => ParsedAction | null;

const RULES: Rule[] = [
  // Drag first: its text also holds "to" and two points.
  (s) => {
    const m = new RegExp(String.raw`^(?:left_click_)?drag(?:\s+and\s+drop)?\s*(?:from\s*)?${POINT}\s*(?:to|->|→)\s*${POINT}`, "i").exec(s);
    return m ? { type: "drag", coords: point(m, 1), to: point(m, 3) } : null;
  },
  (s) => {
    const m = new RegExp(
      String.raw`^scroll\s*\(\s*(?:delta_?x|dx|x)\s*[=:]\s*(${NUM})\s*,\s*(?:delta_?y|dy|y)\s*[=:]\s*(${NUM})\s*\)(?:\s*at\s*${POINT})?`,
      "i",
    ).exec(s);
    if (!m) return null;
    const dx = Number(m[1]);
    const dy = Number(m[2]);
    const action: ParsedAction = { type: "scroll", direction: scrollDirectionOf(dx, dy), delta: [dx, dy] };
    if (m[3] !== undefined) action.coords = point(m, 3);
    return action;
  },
  (s) => {
    // "Scroll down", "Scroll up by 300", "scroll down 2 pages", "Scroll down at (x, y)"
    const m = new RegExp(String.raw`^scroll\s+(up|down|left|right)\b(?:\s*(?:by\s*)?(${NUM})\s*(px|pixels?|pages?)?)?(?:\s*at\s*${POINT})?`, "i").exec(s);
    if (!m) return null;
    const direction = m[1]!.toLowerCase() as ScrollDirection;
    const action: ParsedAction = { type: "scroll", direction };
    const amount = m[2] !== undefined ? Math.abs(Number(m[2])) : null;
    if (amount !== null && !/^page/i.test(m[3] ?? "")) {
      const sign = direction === "up" || direction === "left" ? -1 : 1;
      action.delta = direction === "up" || direction === "down" ? [0, sign * amount] : [sign * amount, 0];
    } else if (amount !== null) action.value = `${amount} page${amount === 1 ? "" : "s"}`;
    if (m[4] !== undefined) action.coords = point(m, 4);
    return action;
  },
  (s) => {
    const m = new RegExp(String.raw`^(left\s*|right\s*|middle\s*|double[\s-]*|triple[\s-]*)?click\s*(?:at|on)?\s*${POINT}\s*$`, "i").exec(s);
    if (!m) return null;
    const kind = (m[1] ?? "").trim().toLowerCase().replace(/[\s-]/g, "");
    const coords = point(m, 2);
    if (kind === "double") return { type: "dblclick", coords };
    if (kind === "right" || kind === "middle") return { type: "click", coords, value: `${kind} button` };
    if (kind === "triple") return { type: "click", coords, value: "triple click" };
    return { type: "click", coords };
  },
  (s) => {
    const m = new RegExp(String.raw`^(?:hover|mouse\s*move|move(?:\s+(?:mouse|cursor))?)\s*(?:at|to|over)?\s*${POINT}\s*$`, "i").exec(s);
    return m ? { type: "hover", coords: point(m, 1) } : null;
  },
  (s) => {
    // Type "text" [at (x, y) | into <element>] [and press Enter]; unquoted text runs to the end (or to " at (x, y)").
    const quoted =
      /^type(?:\s+text)?\s*[:;]?\s*("(?:[^"\\]|\\.)*"|'[^']*'|“[^”]*”)(?:\s+(?:at|into|in|on)\s+([\s\S]+?))?(\s+and\s+(?:press|hit)\s+enter)?\s*$/i.exec(s);
    const plain = quoted ? null : new RegExp(String.raw`^type(?:\s+text)?\s*[:;]?\s*([\s\S]*?)(?:\s+at\s+${POINT})?\s*$`, "i").exec(s);
    const m = quoted ?? plain;
    if (!m) return null;
    const action: ParsedAction = { type: "type", value: unquote(m[1]!), submit: !!quoted?.[3] };
    if (quoted?.[2] !== undefined) {
      const at = new RegExp(`^${POINT}$`, "i").exec(quoted[2].trim());
      if (at) action.coords = point(at, 1);
      else action.target = quoted[2].trim();
    } else if (plain?.[2] !== undefined) action.coords = point(plain, 2);
    return action;
  },
  (s) => {
    const m = /^(?:press|key(?:press)?|hotkey|send[_\s]keys?)\s*(?:key\s*)?[:;]?\s*([\s\S]+)$/i.exec(s);
    return m ? { type: "press", value: unquote(m[1]!) } : null;
  },
  (s) => {
    if (/^(?:navigate|go|browse)\s*back\b|^back$|^go_back\b/i.test(s)) return { type: "go_back" };
    if (/^(?:navigate|go|browse)\s*forward\b|^forward$|^go_forward\b/i.test(s)) return { type: "go_forward" };
    const m = /^(?:navigate(?:\s+to)?|go\s*to|goto|open(?:\s+url)?|visit|load)\s*[:;]?\s*(\S[\s\S]*)$/i.exec(s);
    if (m) return { type: "goto", value: unquote(m[1]!) };
    if (/^navigate$/i.test(s)) return { type: "goto", value: null };
    return null;
  },
  (s) => (/^(?:refresh|reload)(?:\s+(?:the\s+)?page)?$/i.test(s) ? { type: "goto", value: "(reload)" } : null),
  (s) => (/^(?:new\s*tab|open\s+(?:a\s+)?new\s+tab)\b/i.test(s) ? { type: "new_tab" } : null),
  (s) => (/^close\s*tab\b/i.test(s) ? { type: "close_tab" } : null),
  (s) => {
    const m = /^(?:switch|focus)(?:\s+to)?\s+tab\s*[:#]?\s*(\S+)/i.exec(s);
    return m ? { type: "tab_focus", value: m[1]! } : null;
  },
  (s) => {
    const m = /^wait\b\s*(?:for\s*)?([\s\S]*)$/i.exec(s);
    return m ? { type: "wait", value: m[1]!.trim() || null } : null;
  },
  (s) => {
    const m = /^(?:answer|final[\s_]answer|stop|respond|done|task_complete|terminate)\s*[:;]?\s*([\s\S]*)$/i.exec(s);
    if (!m) return null;
    const text = unquote(m[1]!);
    return { type: "answer", value: text || null };
  },
];

/** Online-Mind2Web's own select, `Select picker <id> -> Select option(s) [211]`, and plain `Select "x"`. */
function selectAction(s: string): ParsedAction | null {
  const picker = /^select\s+([\s\S]*?)\s*->\s*select\s+option\(?s?\)?\s*\[?([\s\S]*?)\]?\s*$/i.exec(s);
  if (picker) return { type: "select", target: null, value: picker[2]!.trim() || null };
  const plain = /^select\s+(?:option\s+)?("(?:[^"\\]|\\.)*"|'[^']*')(?:\s+(?:in|from)\s+[\s\S]*)?$/i.exec(s);
  return plain ? { type: "select", value: unquote(plain[1]!) } : null;
}

function byRules(s: string): ParsedAction | null {
  const select = selectAction(s);
  if (select) return select;
  for (const rule of RULES) {
    const a = rule(s);
    if (a) return a;
  }
  return null;
}

const STATUS = /\s*\|\s*(SUCCESS|SUCCEEDED|FAILED|FAILURE|ERROR)\b([^|]*)$/i;

export interface Mind2WebActionEntry {
  action: ParsedAction;
  /** A failure the entry itself reports (`… | FAILED`, SeeAct's `Failed to CLICK …`). */
  failure: string | null;
}

/** Parses one `action_history` entry: a string, or an object some runners write (computer-use actions, `{action}`). */
export function parseMind2WebEntry(entry: unknown): Mind2WebActionEntry {
  if (entry !== null && typeof entry === "object" && !Array.isArray(entry)) {
    const o = entry as Record<string, unknown>;
    const computer = computerUseAction(o);
    if (computer) return { action: computer, failure: null };
    for (const key of ["action", "action_str", "action_text", "description"]) {
      if (typeof o[key] === "string") return parseMind2WebText(o[key] as string);
    }
    return { action: { type: "unparsed", value: JSON.stringify(entry), parseError: "an action object Verdict does not know" }, failure: null };
  }
  if (typeof entry !== "string")
    return { action: { type: "unparsed", value: entry === undefined ? null : JSON.stringify(entry), parseError: "not an action string" }, failure: null };
  return parseMind2WebText(entry);
}

export function parseMind2WebText(text: string): Mind2WebActionEntry {
  let s = text.trim();
  if (!s) return { action: { type: "unparsed", value: text, parseError: "empty action" }, failure: null };
  if (s.startsWith("{")) {
    try {
      const o = JSON.parse(s) as unknown;
      if (o && typeof o === "object") {
        const computer = computerUseAction(o as Record<string, unknown>);
        if (computer) return { action: computer, failure: null };
      }
    } catch {
      // Not JSON after all: read as text.
    }
  }
  let failure: string | null = null;
  const status = STATUS.exec(s);
  if (status) {
    if (/^(FAIL|ERROR)/i.test(status[1]!)) failure = `${status[1]}${status[2] ?? ""}`.trim();
    s = s.slice(0, status.index).trim();
  }
  if (s.includes("->")) {
    // An answer anywhere takes the rest of the text (`TASK_COMPLETE -> ANSWER: …`); Online-Mind2Web's own select and
    // drags keep their arrow; then SeeAct's "<element> -> OP[: value]" (and its failures); then a runner's
    // "what -> ACTION -> note": the first part that reads as an action.
    const answerAt = /(?:^|->)\s*(?:final\s+)?answer\s*[:;]\s*/i.exec(s);
    if (answerAt) return { action: { type: "answer", value: s.slice(answerAt.index + answerAt[0].length).trim() || null }, failure };
    const special = selectAction(s) ?? RULES[0]!(s);
    if (special) return { action: special, failure };
    const seeAct = parseSeeActHistory(s);
    if (seeAct.action.type !== "unparsed") return { action: seeAct.action, failure: failure ?? seeAct.failure };
    for (const part of s.split("->").map((p) => p.trim())) {
      const a = byRules(part);
      if (a) return { action: a, failure };
    }
  } else {
    const direct = byRules(s);
    if (direct) return { action: direct, failure };
  }
  const seeAct = parseSeeActHistory(s);
  if (seeAct.action.type !== "unparsed") return { action: seeAct.action, failure: failure ?? seeAct.failure };
  return { action: { type: "unparsed", value: text, parseError: "not an action Verdict recognises" }, failure };
}

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : null;
}

function pair(v: unknown): [number, number] | null {
  if (Array.isArray(v) && v.length === 2) {
    const a = num(v[0]);
    const b = num(v[1]);
    return a !== null && b !== null ? [a, b] : null;
  }
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    const a = num(o.x);
    const b = num(o.y);
    return a !== null && b !== null ? [a, b] : null;
  }
  return null;
}

function str(v: unknown): string | null {
  return typeof v === "string" ? v : Array.isArray(v) && v.every((x) => typeof x === "string") ? v.join("+") : null;
}

/**
 * Computer-use action objects: Anthropic's `{action: "left_click", coordinate: [x, y]}` family and OpenAI's
 * `{type: "click", x, y, button}` family. Null when the object is neither.
 */
export function computerUseAction(o: Record<string, unknown>): ParsedAction | null {
  const name = typeof o.action === "string" ? o.action : typeof o.type === "string" ? o.type : null;
  if (!name) return null;
  const n = name.toLowerCase();
  const at = pair(o.coordinate) ?? pair(o.coordinates) ?? (num(o.x) !== null && num(o.y) !== null ? ([num(o.x)!, num(o.y)!] as [number, number]) : null);
  switch (n) {
    case "left_click":
    case "click":
      if (!at) return null;
      return typeof o.button === "string" && o.button !== "left" ? { type: "click", coords: at, value: `${o.button} button` } : { type: "click", coords: at };
    case "right_click":
    case "middle_click":
      return at ? { type: "click", coords: at, value: `${n.split("_")[0]} button` } : null;
    case "double_click":
      return at ? { type: "dblclick", coords: at } : null;
    case "triple_click":
      return at ? { type: "click", coords: at, value: "triple click" } : null;
    case "mouse_move":
    case "move":
      return at ? { type: "hover", coords: at } : null;
    case "left_click_drag":
    case "drag": {
      const path = Array.isArray(o.path) ? o.path.map(pair).filter((p): p is [number, number] => p !== null) : [];
      const from = pair(o.start_coordinate) ?? path[0] ?? null;
      const to = pair(o.coordinate) ?? (path.length > 1 ? path[path.length - 1]! : null);
      return from ? { type: "drag", coords: from, to } : null;
    }
    case "scroll": {
      const dx = num(o.scroll_x);
      const dy = num(o.scroll_y);
      if (dx !== null || dy !== null) {
        const d: [number, number] = [dx ?? 0, dy ?? 0];
        return { type: "scroll", coords: at, direction: scrollDirectionOf(d[0], d[1]), delta: d };
      }
      const dir = typeof o.scroll_direction === "string" ? (o.scroll_direction.toLowerCase() as ScrollDirection) : null;
      if (!dir || !["up", "down", "left", "right"].includes(dir)) return null;
      const amount = num(o.scroll_amount);
      return { type: "scroll", coords: at, direction: dir, value: amount !== null ? `${amount} clicks` : null };
    }
    case "type":
      return typeof o.text === "string" ? { type: "type", value: o.text, submit: false, coords: at } : null;
    case "key":
    case "keypress":
      return str(o.text) !== null || str(o.keys) !== null ? { type: "press", value: str(o.text) ?? str(o.keys) } : null;
    case "wait":
      return { type: "wait" };
    case "screenshot":
    case "cursor_position":
      return { type: "noop", value: n };
    default:
      return null;
  }
}
