/**
 * BrowserGym HighLevelActionSet action strings (also AgentLab and AgentRewardBench): Python calls such as
 * `click('a51')`, `fill('237', "hello")`, `send_msg_to_user("The price is $279.49")`, possibly several per string
 * (multi-action mode) with keyword arguments and `#` comments. Every function of the action set is mapped onto
 * Verdict's normalised `ParsedAction`; arguments are bound by position or keyword exactly as Python would.
 *
 * Pure. Never throws: malformed or unknown input gives `{type: "unparsed", parseError}`.
 */
import type { ActionType, ParsedAction, ScrollDirection } from "../types";
import { parsePythonCalls, PythonSyntaxError, type PyCall, type PyValue } from "./python-literal";

type Args = Record<string, PyValue | undefined>;

interface Signature {
  /** Parameter names in order; a trailing `?` marks an optional one. */
  params: string[];
  map(a: Args, name: string): ParsedAction;
}

class ArgumentError extends Error {}

function str(a: Args, key: string, fn: string): string {
  const v = a[key];
  // Element ids are strings in BrowserGym, but models often write click(12); accept and normalise.
  if (typeof v === "string") return v;
  if (typeof v === "number") return String(v);
  throw new ArgumentError(`${fn}(): argument '${key}' must be a string, got ${describeValue(v)}`);
}

function optStr(a: Args, key: string, fn: string): string | null {
  return a[key] === undefined || a[key] === null ? null : str(a, key, fn);
}

function num(a: Args, key: string, fn: string): number {
  const v = a[key];
  if (typeof v === "number") return v;
  throw new ArgumentError(`${fn}(): argument '${key}' must be a number, got ${describeValue(v)}`);
}

/** A string or a list of strings (select_option's options, upload_file's files). */
function strOrList(a: Args, key: string, fn: string): string {
  const v = a[key];
  if (Array.isArray(v)) {
    return v
      .map((item) => {
        if (typeof item !== "string" && typeof item !== "number") {
          throw new ArgumentError(`${fn}(): '${key}' must hold strings, got ${describeValue(item)}`);
        }
        return String(item);
      })
      .join(", ");
  }
  return str(a, key, fn);
}

function describeValue(v: PyValue | undefined): string {
  if (v === undefined) return "nothing";
  if (v === null) return "None";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a dict";
  return typeof v === "string" ? `the string ${JSON.stringify(v)}` : `${typeof v} ${String(v)}`;
}

function scrollDirection(dx: number, dy: number): ScrollDirection | null {
  if (dy > 0) return "down";
  if (dy < 0) return "up";
  if (dx > 0) return "right";
  if (dx < 0) return "left";
  return null;
}

/** click/dblclick keep non-default buttons and modifiers as a readable value ("Control+Shift, right button"). */
function clickDetail(a: Args, fn: string): string | null {
  const parts: string[] = [];
  const mods = a.modifiers;
  if (Array.isArray(mods) && mods.length) parts.push(mods.map((m) => String(m)).join("+"));
  else if (mods !== undefined && mods !== null && !Array.isArray(mods)) {
    throw new ArgumentError(`${fn}(): 'modifiers' must be a list`);
  }
  const button = optStr(a, "button", fn);
  if (button && button !== "left") parts.push(`${button} button`);
  return parts.length ? parts.join(", ") : null;
}

const bidAction =
  (type: ActionType, value: string | null = null) =>
  (a: Args, fn: string): ParsedAction => ({ type, target: str(a, "bid", fn), value });

const coordAction =
  (type: ActionType, value?: (a: Args, fn: string) => string | null) =>
  (a: Args, fn: string): ParsedAction => ({
    type,
    target: null,
    coords: [num(a, "x", fn), num(a, "y", fn)],
    value: value ? value(a, fn) : null,
  });

/** Every function of BrowserGym's HighLevelActionSet (all subsets), with its Python parameter list. */
const SIGNATURES: Record<string, Signature> = {
  // chat / infeasible
  send_msg_to_user: { params: ["text"], map: (a, f) => ({ type: "answer", value: str(a, "text", f) }) },
  report_infeasible: { params: ["reason"], map: (a, f) => ({ type: "report_infeasible", value: str(a, "reason", f) }) },
  noop: { params: ["wait_ms?"], map: () => ({ type: "noop" }) },
  // bid
  fill: {
    params: ["bid", "value", "enable_autocomplete_menu?"],
    map: (a, f) => ({ type: "type", target: str(a, "bid", f), value: str(a, "value", f), submit: false }),
  },
  // check/uncheck/focus have no kind of their own: each is a click on the element as far as a reviewer sees.
  check: { params: ["bid"], map: bidAction("click", "check") },
  uncheck: { params: ["bid"], map: bidAction("click", "uncheck") },
  focus: { params: ["bid"], map: bidAction("click", "focus") },
  select_option: {
    params: ["bid", "options"],
    map: (a, f) => ({ type: "select", target: str(a, "bid", f), value: strOrList(a, "options", f) }),
  },
  click: {
    params: ["bid", "button?", "modifiers?"],
    map: (a, f) => ({ type: "click", target: str(a, "bid", f), value: clickDetail(a, f) }),
  },
  dblclick: {
    params: ["bid", "button?", "modifiers?"],
    map: (a, f) => ({ type: "dblclick", target: str(a, "bid", f), value: clickDetail(a, f) }),
  },
  hover: { params: ["bid"], map: bidAction("hover") },
  press: {
    params: ["bid", "key_comb"],
    map: (a, f) => ({ type: "press", target: str(a, "bid", f), value: str(a, "key_comb", f) }),
  },
  clear: { params: ["bid"], map: bidAction("clear") },
  drag_and_drop: {
    params: ["from_bid", "to_bid"],
    map: (a, f) => ({ type: "drag", target: str(a, "from_bid", f), value: str(a, "to_bid", f) }),
  },
  upload_file: {
    params: ["bid", "file"],
    map: (a, f) => ({ type: "upload", target: str(a, "bid", f), value: strOrList(a, "file", f) }),
  },
  scroll: {
    params: ["delta_x", "delta_y"],
    map: (a, f) => {
      const dx = num(a, "delta_x", f);
      const dy = num(a, "delta_y", f);
      return { type: "scroll", direction: scrollDirection(dx, dy), value: `${dx},${dy}`, delta: [dx, dy] };
    },
  },
  // coord
  scroll_at: {
    params: ["x", "y", "dx", "dy"],
    map: (a, f) => {
      const dx = num(a, "dx", f);
      const dy = num(a, "dy", f);
      return { type: "scroll", coords: [num(a, "x", f), num(a, "y", f)], direction: scrollDirection(dx, dy), value: `${dx},${dy}`, delta: [dx, dy] };
    },
  },
  mouse_move: { params: ["x", "y"], map: coordAction("hover") },
  mouse_up: { params: ["x", "y", "button?"], map: coordAction("click", () => "mouse up") },
  mouse_down: { params: ["x", "y", "button?"], map: coordAction("click", () => "mouse down") },
  mouse_click: {
    params: ["x", "y", "button?"],
    map: coordAction("click", (a, f) => {
      const b = optStr(a, "button", f);
      return b && b !== "left" ? `${b} button` : null;
    }),
  },
  mouse_dblclick: {
    params: ["x", "y", "button?"],
    map: coordAction("dblclick", (a, f) => {
      const b = optStr(a, "button", f);
      return b && b !== "left" ? `${b} button` : null;
    }),
  },
  mouse_drag_and_drop: {
    params: ["from_x", "from_y", "to_x", "to_y"],
    map: (a, f) => ({
      type: "drag",
      coords: [num(a, "from_x", f), num(a, "from_y", f)],
      to: [num(a, "to_x", f), num(a, "to_y", f)],
      value: `${num(a, "to_x", f)},${num(a, "to_y", f)}`,
    }),
  },
  mouse_upload_file: {
    params: ["x", "y", "file"],
    map: (a, f) => ({ type: "upload", coords: [num(a, "x", f), num(a, "y", f)], value: strOrList(a, "file", f) }),
  },
  keyboard_down: { params: ["key"], map: (a, f) => ({ type: "press", value: str(a, "key", f) }) },
  keyboard_up: { params: ["key"], map: (a, f) => ({ type: "press", value: str(a, "key", f) }) },
  keyboard_press: { params: ["key"], map: (a, f) => ({ type: "press", value: str(a, "key", f) }) },
  keyboard_type: { params: ["text"], map: (a, f) => ({ type: "type", value: str(a, "text", f), submit: false }) },
  keyboard_insert_text: { params: ["text"], map: (a, f) => ({ type: "type", value: str(a, "text", f), submit: false }) },
  // nav
  go_back: { params: [], map: () => ({ type: "go_back" }) },
  go_forward: { params: [], map: () => ({ type: "go_forward" }) },
  goto: { params: ["url"], map: (a, f) => ({ type: "goto", value: str(a, "url", f) }) },
  // tab
  new_tab: { params: [], map: () => ({ type: "new_tab" }) },
  tab_close: { params: [], map: () => ({ type: "close_tab" }) },
  tab_focus: {
    params: ["index"],
    map: (a, f) => {
      const v = a.index;
      if (typeof v !== "number" && typeof v !== "string") {
        throw new ArgumentError(`${f}(): argument 'index' must be a number, got ${describeValue(v)}`);
      }
      return { type: "tab_focus", value: String(v) };
    },
  },
};

export const BROWSERGYM_FUNCTIONS: readonly string[] = Object.keys(SIGNATURES);

/** Binds a call's positional and keyword arguments to the signature, as Python would. */
function bind(call: PyCall, sig: Signature): Args {
  const names = sig.params.map((p) => p.replace(/\?$/, ""));
  if (call.args.length > names.length) {
    throw new ArgumentError(`${call.name}() takes ${names.length} argument(s) but ${call.args.length} were given`);
  }
  const bound: Args = {};
  call.args.forEach((v, i) => {
    bound[names[i]!] = v;
  });
  for (const [k, v] of Object.entries(call.kwargs)) {
    if (!names.includes(k)) throw new ArgumentError(`${call.name}() got an unexpected keyword argument '${k}'`);
    if (bound[k] !== undefined) throw new ArgumentError(`${call.name}() got multiple values for argument '${k}'`);
    bound[k] = v;
  }
  sig.params.forEach((p, i) => {
    if (!p.endsWith("?") && bound[names[i]!] === undefined) {
      throw new ArgumentError(`${call.name}() is missing required argument '${names[i]}'`);
    }
  });
  return bound;
}

function mapCall(call: PyCall): ParsedAction {
  if (!Object.prototype.hasOwnProperty.call(SIGNATURES, call.name)) {
    throw new ArgumentError(`unknown BrowserGym function '${call.name}'`);
  }
  const sig = SIGNATURES[call.name]!;
  return sig.map(bind(call, sig), call.name);
}

function unparsed(value: string | null, parseError: string): ParsedAction {
  return { type: "unparsed", value, parseError };
}

/**
 * Parses one BrowserGym action string. Several calls give the first call's fields at the top level and every
 * call, in order, in `calls`.
 */
export function parseBrowserGymAction(raw: string | null | undefined): ParsedAction {
  if (raw === null || raw === undefined) return unparsed(null, "no action string");
  let calls: PyCall[];
  try {
    calls = parsePythonCalls(raw);
  } catch (e) {
    if (e instanceof PythonSyntaxError) return unparsed(raw, `syntax error: ${e.message}`);
    throw e;
  }
  if (calls.length === 0) return unparsed(raw, "empty action (no call)");
  const parsed: ParsedAction[] = [];
  for (const call of calls) {
    try {
      parsed.push(mapCall(call));
    } catch (e) {
      if (e instanceof ArgumentError) {
        return unparsed(raw, calls.length > 1 ? `in ${call.source}: ${e.message}` : e.message);
      }
      throw e;
    }
  }
  if (parsed.length === 1) return parsed[0]!;
  return { ...parsed[0]!, calls: parsed };
}

/** Every call of a parsed action (one for a single call). */
export function actionCalls(action: ParsedAction): ParsedAction[] {
  return action.calls && action.calls.length ? action.calls : [action];
}

/** The text of the last `send_msg_to_user` in an action, if any: the agent's answer. */
export function browserGymAnswer(action: ParsedAction): string | null {
  const answers = actionCalls(action).filter((c) => c.type === "answer");
  const last = answers[answers.length - 1];
  return last ? (last.value ?? null) : null;
}
