/**
 * Action text a live policy may write, and the replies it comes in.
 *
 * The live runner accepts both seed grammars, so a policy prompted in either style (or a script copied from either
 * benchmark's logs) runs unchanged:
 *   VisualWebArena  click [3] · type [5] [text] [0|1] · hover [3] · press [Control+a] · scroll [down] · goto [url]
 *                   new_tab · tab_focus [1] · close_tab · go_back · go_forward · stop [answer]
 *   WebVoyager      Click [3] · Type [5]; text · Scroll [WINDOW]; down · Scroll [7]; up · Wait · GoBack · Google
 *                   ANSWER; text
 * plus two forms neither grammar has: `select [N] [option]` for drop-down lists and `scroll [N] [down]` for
 * scrolling inside an element (the WebVoyager parser reads the latter already).
 *
 * Pure; never throws. Text neither grammar accepts becomes `unparsed`, which the runner reports back to the policy.
 */
import { parseVwaAction, splitVwaPrediction } from "../actions/vwa";
import { parseWebVoyagerAction, WEBVOYAGER_KEYWORDS } from "../actions/webvoyager";
import type { ParsedAction } from "../types";

const VWA_NAMES = new Set([
  "click",
  "hover",
  "clear",
  "type",
  "press",
  "scroll",
  "goto",
  "tab_focus",
  "page_focus",
  "new_tab",
  "close_tab",
  "go_back",
  "go_forward",
  "stop",
  "upload",
  "none",
]);

// WebVoyager keywords are case-sensitive in its own parser; models often write them in lower case
// (WEBVOYAGER_KEYWORDS maps the lower-case word to the keyword).

const SELECT = /^select ?\[(\d+)\] ?\[([\s\S]+)\]$/i;

function firstWord(s: string): string {
  return (/^[A-Za-z_]+/.exec(s)?.[0] ?? "").toLowerCase();
}

/** Removes the backticks models often wrap an action in. */
function tidy(text: string): string {
  let s = text.trim();
  const fenced = /^`{1,3}([\s\S]*?)`{1,3}$/.exec(s);
  if (fenced) s = fenced[1]!.trim();
  return s;
}

export function parseLiveAction(text: string): ParsedAction {
  const s = tidy(text);
  if (!s) return { type: "unparsed", value: text, parseError: "empty action" };

  const select = SELECT.exec(s);
  if (select) return { type: "select", target: select[1]!, value: select[2]!.trim() };

  const word = firstWord(s);
  const vwa = VWA_NAMES.has(word) ? parseVwaAction(s) : null;
  if (vwa && vwa.type !== "unparsed") return vwa;

  const wv = parseWebVoyagerAction(s);
  if (wv.type !== "unparsed") return wv;
  const keyword = WEBVOYAGER_KEYWORDS[word];
  if (keyword) {
    const again = parseWebVoyagerAction(keyword + s.slice(word.length));
    if (again.type !== "unparsed") return again;
  }

  const parseError = vwa?.parseError ?? wv.parseError ?? "not an action";
  return {
    type: "unparsed",
    value: s,
    parseError: vwa || keyword ? parseError : `"${s.slice(0, 60)}" is not an action of this runner`,
  };
}

export interface PolicyReply {
  thought: string | null;
  /** The action text as written (null when the reply holds none). */
  actionRaw: string | null;
  action: ParsedAction;
}

/**
 * Splits a model reply into its reasoning and action. Recognised shapes, in order: a line starting with
 * "Action:" (everything before it is the reasoning, with a leading "Reasoning:" or "Thought:" label dropped);
 * VisualWebArena's fenced action after its reasoning; a reply that is nothing but one action line.
 */
export function parsePolicyReply(content: string | null | undefined): PolicyReply {
  const text = (content ?? "").replace(/\r\n/g, "\n").trim();
  if (!text) return { thought: null, actionRaw: null, action: { type: "unparsed", value: null, parseError: "the reply is empty" } };

  const marker = /(^|\n)\s*\**Action\**\s*:\**\s*/gi;
  let last: RegExpExecArray | null = null;
  for (let m = marker.exec(text); m; m = marker.exec(text)) last = m;
  if (last) {
    const head = text.slice(0, last.index);
    let actionRaw = text.slice(last.index + last[0].length);
    // Anything after a blank line is commentary, not part of the action.
    const blank = actionRaw.search(/\n\s*\n/);
    if (blank !== -1) actionRaw = actionRaw.slice(0, blank);
    actionRaw = tidy(actionRaw);
    const thought = head.replace(/^\s*\**(Reasoning|Thought)\**\s*:\**\s*/i, "").trim() || null;
    return { thought, actionRaw, action: parseLiveAction(actionRaw) };
  }

  if (text.includes("```")) {
    const { thought, action } = splitVwaPrediction(text);
    if (action !== null) return { thought, actionRaw: action, action: parseLiveAction(action) };
  }

  if (!text.includes("\n")) return { thought: null, actionRaw: text, action: parseLiveAction(text) };
  return {
    thought: text,
    actionRaw: null,
    action: { type: "unparsed", value: null, parseError: 'the reply has no "Action:" line' },
  };
}
