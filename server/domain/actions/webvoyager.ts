/**
 * WebVoyager's action grammar and reply format.
 *
 * The agent replies "Thought: …\nAction: <action>" with actions
 *   Click [N] · Type [N]; text · Scroll [N|WINDOW]; up|down · Wait · GoBack · Google · ANSWER; text
 * WebVoyager itself matches its regexes with re.search in that order, so a leading keyword decides here, with the
 * same search order as a fallback when the action does not start with one. Two deliberate differences, both so that
 * nothing the agent wrote is lost: typed text and answers keep `]` characters (WebVoyager cut them at the first `]`),
 * and anything unrecognised becomes `unparsed` with the raw text kept.
 */
import type { ParsedAction, SomElement } from "../types";

const CLICK = /Click\s*\[?(\d+)\]?/i;
const TYPE = /Type\s*\[?(\d+)\]?[;:, ]+([\s\S]*)$/i;
const SCROLL = /Scroll\s*\[?(\d+|WINDOW)\]?[;:, ]+\[?(up|down)\]?/i;
const ANSWER = /ANSWER[\s*`]*[;:]?\s*([\s\S]*)$/i;
/**
 * Action words in any case and with the spacing forks use ("Answer;", "click [3]", "Go Back"), mapped to the
 * canonical keyword. WebVoyager's own prompt spells them "Click", "ANSWER"…, but many fork prompts do not.
 */
const KEYWORD = /^(Click|Type|Scroll|Wait|Go[ _]?Back|Google|ANSWER)(?![A-Za-z])/i;
/** Each keyword by its lower-case word without spaces or underscores (the live runner's action text reads it too). */
export const WEBVOYAGER_KEYWORDS: Record<string, string> = {
  click: "Click",
  type: "Type",
  scroll: "Scroll",
  wait: "Wait",
  goback: "GoBack",
  google: "Google",
  answer: "ANSWER",
};

/** Strips one pair of brackets that the prompt's `[Content]` placeholder invites models to copy. */
function unbracket(s: string): string {
  const t = s.trim();
  return t.startsWith("[") && t.endsWith("]") && t.indexOf("]") === t.length - 1 ? t.slice(1, -1).trim() : t;
}

/**
 * Where a keyword may appear when the action does not start with one (WebVoyager's re.search): numbered actions
 * anywhere in any case, the answer only as "ANSWER" or "answer;" so that prose such as "the answer is 42" stays
 * prose.
 */
const SEARCH: Record<string, { exec(s: string): RegExpExecArray | null }> = {
  Click: CLICK,
  Type: TYPE,
  Scroll: SCROLL,
  ANSWER: { exec: (s) => /ANSWER[; ]+([\s\S]*)$/.exec(s) ?? /answer\s*;\s*([\s\S]*)$/i.exec(s) },
};

export function parseWebVoyagerAction(text: string): ParsedAction {
  const a = text.trim();
  if (!a) return { type: "unparsed", value: text, parseError: "empty action" };
  // Markdown around the action (`**Click [3]**`, `` `Answer; 42` ``, "- Wait") is not part of it; typed text and
  // answers keep their own quotes and brackets.
  const bare = stripWrapping(a).replace(/^[\s*`>#-]+/, "");
  const word = KEYWORD.exec(bare)?.[1];
  const keyword = word ? WEBVOYAGER_KEYWORDS[word.replace(/[ _]/g, "").toLowerCase()]! : undefined;
  const body = keyword ? bare : a;
  const order = keyword ? [keyword] : ["Click", "Type", "Scroll", "Wait", "GoBack", "Google", "ANSWER"];
  for (const k of order) {
    const search = keyword ? undefined : SEARCH[k];
    switch (k) {
      case "Click": {
        const m = (search ?? CLICK).exec(body);
        if (m) return { type: "click", target: m[1]! };
        break;
      }
      case "Type": {
        const m = (search ?? TYPE).exec(body);
        if (m) return { type: "type", target: m[1]!, value: unbracket(m[2]!), submit: true };
        break;
      }
      case "Scroll": {
        const m = (search ?? SCROLL).exec(body);
        if (m) {
          const where = m[1]!.toUpperCase() === "WINDOW" ? null : m[1]!;
          return { type: "scroll", target: where, direction: m[2]!.toLowerCase() as "up" | "down" };
        }
        break;
      }
      case "Wait":
        if (keyword) return { type: "wait" };
        break;
      case "GoBack":
        if (keyword) return { type: "go_back" };
        break;
      case "Google":
        if (keyword) return { type: "search_engine", value: "https://www.google.com/" };
        break;
      case "ANSWER": {
        const m = (search ?? ANSWER).exec(body);
        if (m) return { type: "answer", value: unbracket(m[1]!) };
        break;
      }
    }
  }
  return {
    type: "unparsed",
    value: a,
    parseError: keyword ? `malformed ${keyword} action` : "not a WebVoyager action",
  };
}

/** An action wrapped whole in backticks or bold markers (`` `Click [3]` ``, `**Wait**`) without them. */
function stripWrapping(s: string): string {
  const wrapped = /^(`{1,3}|\*{1,2})([\s\S]*?)\1$/.exec(s.trim());
  return (wrapped ? wrapped[2]! : s).trim();
}

export interface WebVoyagerReply {
  thought: string | null;
  actionRaw: string | null;
  action: ParsedAction;
}

/**
 * Where the action label is: WebVoyager's own "Action:" when the reply has it, else a label in another case or
 * with markdown at the start of a line ("ACTION:", "**Action:**", "action:"), the last one when there are several.
 */
function actionLabel(content: string): { at: number; end: number } | null {
  const exact = content.indexOf("Action:");
  if (exact !== -1) return { at: exact, end: exact + "Action:".length };
  const marker = /(^|\n)[ \t]*[*#]*[ \t]*action[ \t]*\**[ \t]*:\**/gi;
  let last: RegExpExecArray | null = null;
  for (let m = marker.exec(content); m; m = marker.exec(content)) last = m;
  return last ? { at: last.index + last[1]!.length, end: last.index + last[0].length } : null;
}

const THOUGHT_LABEL = /^\s*[*#]*\s*thought\s*\**\s*:\**\s*/i;

/** Splits an assistant reply into thought and action; a reply without an "Action:" label is a format error. */
export function parseWebVoyagerReply(content: string): WebVoyagerReply {
  const label = actionLabel(content);
  if (!label) {
    const thought = content.replace(THOUGHT_LABEL, "").trim() || null;
    return { thought, actionRaw: null, action: { type: "unparsed", value: null, parseError: "reply has no 'Action:'" } };
  }
  // Markdown around the label ("**Action:**") belongs to neither side.
  const head = content.slice(0, label.at).replace(/[\s*#]+$/, "");
  let actionRaw = content.slice(label.end).replace(/^[ \t*]+/, "");
  // WebVoyager splits on Observation: too; anything after it is not part of the action.
  const obs = actionRaw.search(/Observation:/);
  if (obs !== -1) actionRaw = actionRaw.slice(0, obs);
  actionRaw = actionRaw.trim();
  const thought = head.replace(THOUGHT_LABEL, "").trim() || null;
  return { thought, actionRaw, action: parseWebVoyagerAction(actionRaw) };
}

/**
 * Parses the element text list WebVoyager puts in observations: `[N]: <tag> "text";` or `[N]: "text", "aria";`
 * entries separated by tabs. Boxes are not recorded by WebVoyager, so bbox is null.
 */
export function parseWebVoyagerElementList(text: string): SomElement[] {
  const out: SomElement[] = [];
  const re = /\[(\d+)\]: (?:<(\w+)> )?"([^"]*)"(?:, "([^"]*)")?;/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const label = m[1]!;
    const textParts = [m[3], m[4]].filter((p): p is string => !!p);
    out.push({ label, bbox: null, tag: m[2] ?? null, text: textParts.join(" · ") || null });
  }
  return out.length ? out : parseAttributeElementList(text);
}

/**
 * Forks list elements as attributes instead, one entry per tab:
 *   [0]: text="Top" class="nav-tab" id="" role="" data-attrs=""\t[5]: <iframe> class="" id="ads" …
 *   [9]: type=button aria-label="Add to cart" class="a-button-text" …
 * The visible text (else the aria label) becomes the element's text.
 */
function parseAttributeElementList(text: string): SomElement[] {
  const out: SomElement[] = [];
  const entry = /(?:^|\t|\n)\[(\d+)\]: ([^\t\n]*)/g;
  for (let m = entry.exec(text); m; m = entry.exec(text)) {
    const body = m[2]!;
    const tag = /^<(\w+)>/.exec(body)?.[1] ?? /^type=(\w+)/.exec(body)?.[1] ?? null;
    const shown = /(?:^|\s)text="([^"]*)"/.exec(body)?.[1] ?? /(?:^|\s)aria-label="([^"]*)"/.exec(body)?.[1] ?? null;
    if (tag === null && shown === null) continue;
    out.push({ label: m[1]!, bbox: null, tag, text: shown || null });
  }
  return out;
}

/** Renders a parsed action back into WebVoyager's canonical text (used by the live runner's prompt history). */
export function formatWebVoyagerAction(a: ParsedAction): string {
  switch (a.type) {
    case "click":
      return `Click [${a.target}]`;
    case "type":
      return `Type [${a.target}]; ${a.value ?? ""}`;
    case "scroll":
      return `Scroll [${a.target ?? "WINDOW"}]; ${a.direction ?? "down"}`;
    case "wait":
      return "Wait";
    case "go_back":
      return "GoBack";
    case "search_engine":
      return "Google";
    case "answer":
      return `ANSWER; ${a.value ?? ""}`;
    default:
      return a.value ?? a.type;
  }
}
