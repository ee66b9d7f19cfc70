/**
 * VisualWebArena / WebArena id-based action grammar.
 *
 * Three shapes reach Verdict:
 *  - the model's action, e.g. `click [12]`, `type [5] [guitar] [0]` (Enter is pressed unless the flag is 0),
 *    `scroll [down]`, `stop [$279.49]`;
 *  - the rendered `parsed_action` string the result HTML shows: `click [11] where [11]`,
 *    `type [5] [guitar\n] where [5]` (a trailing newline in the text means Enter), the a11y variant
 *    `… where [11] is <accessibility-tree line>`, `page_focus [1]`, `upload [file] to [3]`, `none`;
 *  - the raw LLM output, whose action sits between the splitter backticks after
 *    "In summary, the next action I will perform is".
 *
 * Pure. Never throws: anything malformed gives `{type: "unparsed", value: <raw>, parseError}`.
 */
import type { ParsedAction } from "../types";

export const VWA_ANSWER_PHRASE = "In summary, the next action I will perform is";
const DEFAULT_SPLITTER = "```";

function unparsed(value: string, parseError: string): ParsedAction {
  return { type: "unparsed", value, parseError };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Splits raw model output into its reasoning and the action text between the splitters. The action is the first
 * fenced span after the answer phrase when the phrase is present, otherwise the first fenced span anywhere
 * (which is what VisualWebArena itself does). `action` is null when no fenced span exists.
 */
export function splitVwaPrediction(raw: string, splitter = DEFAULT_SPLITTER): { thought: string | null; action: string | null } {
  const fence = new RegExp(`${escapeRegExp(splitter)}([\\s\\S]*?)${escapeRegExp(splitter)}`);
  const phraseAt = raw.lastIndexOf(VWA_ANSWER_PHRASE);
  let match: RegExpExecArray | null = null;
  let thoughtEnd = -1;
  if (phraseAt >= 0) {
    match = fence.exec(raw.slice(phraseAt));
    thoughtEnd = phraseAt;
  }
  if (!match) {
    match = fence.exec(raw);
    thoughtEnd = match ? match.index : -1;
  }
  if (!match) return { thought: raw.trim() || null, action: null };
  const thought = raw.slice(0, thoughtEnd).trim();
  return { thought: thought || null, action: match[1]!.trim() };
}

/** The action text in raw model output, or null when there is none. */
export function extractVwaAction(raw: string, splitter = DEFAULT_SPLITTER): string | null {
  return splitVwaPrediction(raw, splitter).action;
}

/** Parses raw model output: extraction, then the action grammar. */
export function parseVwaPrediction(raw: string, splitter = DEFAULT_SPLITTER): ParsedAction {
  const action = extractVwaAction(raw, splitter);
  if (action === null) return unparsed(raw, `no action between ${splitter} splitters`);
  return parseVwaAction(action);
}

/** `type` text: a trailing newline (rendered form) means Enter was pressed after typing. */
function typed(target: string, text: string, submit: boolean): ParsedAction {
  if (text.endsWith("\n")) return { type: "type", target, value: text.slice(0, -1), submit: true };
  if (text.endsWith("\\n")) return { type: "type", target, value: text.slice(0, -2), submit: true };
  return { type: "type", target, value: text, submit };
}

/**
 * Parses one id-based action, in the model's form or the rendered `parsed_action` form.
 */
export function parseVwaAction(input: string): ParsedAction {
  const raw = input;
  const s = input.trim();
  if (!s) return unparsed(raw, "empty action");
  const name = (s.includes("[") ? s.slice(0, s.indexOf("[")) : s.split(/\s+/)[0]!).trim().toLowerCase();

  // Element actions may carry the rendered " where [id] …" suffix; the backreference keeps an id-like
  // "where [3]" inside typed text from being mistaken for it.
  const elementOnly = (kind: "click" | "hover" | "clear"): ParsedAction => {
    const m = new RegExp(`^${kind} ?\\[(\\d+)\\](?:\\s+where \\[\\1\\][\\s\\S]*)?$`, "i").exec(s);
    if (!m) return unparsed(raw, `invalid ${kind} action: expected "${kind} [id]"`);
    return { type: kind, target: m[1]! };
  };

  switch (name) {
    case "click":
    case "hover":
    case "clear":
      return elementOnly(name);
    case "type": {
      const rendered = /^type ?\[(\d+)\] ?\[([\s\S]*)\] where \[\1\](?: is [\s\S]*)?$/i.exec(s);
      if (rendered) return typed(rendered[1]!, rendered[2]!, false);
      // The flag as VWA's prompt spells it out ("[press_enter_after=0]") or as models shorten it ("[0]").
      const flagged = /^type ?\[(\d+)\] ?\[([\s\S]+?)\] ?\[(?:press_enter_after\s*=\s*)?(\d+)\]$/i.exec(s);
      if (flagged) return typed(flagged[1]!, flagged[2]!, flagged[3] === "1");
      const plain = /^type ?\[(\d+)\] ?\[([\s\S]+)\]$/i.exec(s);
      if (plain) return typed(plain[1]!, plain[2]!, true);
      return unparsed(raw, 'invalid type action: expected "type [id] [text] [0|1]"');
    }
    case "press": {
      const m = /^press ?\[(.+)\]$/is.exec(s);
      if (!m || !m[1]!.trim()) return unparsed(raw, 'invalid press action: expected "press [key_comb]"');
      return { type: "press", value: m[1]!.trim() };
    }
    case "scroll": {
      const m = /^scroll ?\[?(up|down)\]?$/i.exec(s);
      if (!m) return unparsed(raw, 'invalid scroll action: expected "scroll [up]" or "scroll [down]"');
      return { type: "scroll", direction: m[1]!.toLowerCase() as "up" | "down" };
    }
    case "goto": {
      const m = /^goto ?\[(.+)\]$/is.exec(s);
      if (!m || !m[1]!.trim()) return unparsed(raw, 'invalid goto action: expected "goto [url]"');
      return { type: "goto", value: m[1]!.trim() };
    }
    case "tab_focus":
    case "page_focus": {
      const m = /^(?:tab|page)_focus ?\[(\d+)\]$/i.exec(s);
      if (!m) return unparsed(raw, `invalid ${name} action: expected "${name} [index]"`);
      return { type: "tab_focus", value: m[1]! };
    }
    case "new_tab":
    case "close_tab":
    case "go_back":
    case "go_forward": {
      if (s.toLowerCase() !== name) return unparsed(raw, `${name} takes no argument`);
      return { type: name };
    }
    case "stop": {
      // "stop" alone or with empty brackets is a valid stop with an empty answer.
      const m = /^stop ?\[([\s\S]*)\]$/i.exec(s);
      if (m) return { type: "answer", value: m[1]! };
      if (s.toLowerCase() === "stop") return { type: "answer", value: "" };
      return unparsed(raw, 'invalid stop action: expected "stop [answer]"');
    }
    case "upload": {
      const rendered = /^upload \[([\s\S]+)\] to \[(\d+)\]$/i.exec(s);
      if (rendered) return { type: "upload", target: rendered[2]!, value: rendered[1]! };
      const m = /^upload ?\[(\d+)\] ?\[([\s\S]+?)\](?: ?\[[01]\])?$/i.exec(s);
      if (m) return { type: "upload", target: m[1]!, value: m[2]! };
      return unparsed(raw, 'invalid upload action: expected "upload [id] [file]"');
    }
    case "none":
      if (s.toLowerCase() !== "none") return unparsed(raw, "none takes no argument");
      return { type: "noop" };
    default:
      return unparsed(raw, `unknown action "${name.slice(0, 40)}"`);
  }
}

/** Matches the answers VisualWebArena's runner writes itself when it stops a task (not the model's answer). */
export function vwaEarlyStop(answer: string): { outcome: "step_limit" | "error"; detail: string } | null {
  const a = answer.trim();
  if (/^Early stop: Reach max steps/i.test(a)) return { outcome: "step_limit", detail: a };
  if (/^Early stop:/i.test(a)) return { outcome: "error", detail: a };
  if (/^ERROR:/.test(a)) return { outcome: "error", detail: a };
  return null;
}

/**
 * Some WebArena forks render the Enter of `type [id] [text] [1]` as a trailing space rather than a newline
 * (`type [20] [query ] where [20] is …`). The model's own action says whether Enter was pressed: when it asked for
 * Enter and typed the same text without the space, the rendered action is read as typed-then-submitted.
 */
export function withModelTypeSubmit(rendered: ParsedAction, modelAction: string | null): ParsedAction {
  if (rendered.type !== "type" || rendered.submit || modelAction === null) return rendered;
  const text = rendered.value ?? "";
  if (!text.endsWith(" ")) return rendered;
  const model = parseVwaAction(modelAction);
  if (model.type !== "type" || !model.submit || model.target !== rendered.target || model.value !== text.slice(0, -1)) return rendered;
  return { ...rendered, value: model.value, submit: true };
}
