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

const CLICK = /Click \[?(\d+)\]?/;
const TYPE = /Type \[?(\d+)\]?[; ]+([\s\S]*)$/;
const SCROLL = /Scroll \[?(\d+|WINDOW)\]?[; ]+\[?(up|down)\]?/i;
const ANSWER = /ANSWER[; ]+([\s\S]*)$/;

/** Strips one pair of brackets that the prompt's `[Content]` placeholder invites models to copy. */
function unbracket(s: string): string {
  const t = s.trim();
  return t.startsWith("[") && t.endsWith("]") && t.indexOf("]") === t.length - 1 ? t.slice(1, -1).trim() : t;
}

export function parseWebVoyagerAction(text: string): ParsedAction {
  const a = text.trim();
  if (!a) return { type: "unparsed", value: text, parseError: "empty action" };
  const keyword = /^(Click|Type|Scroll|Wait|GoBack|Google|ANSWER)\b/.exec(a)?.[1];
  const order = keyword ? [keyword] : ["Click", "Type", "Scroll", "Wait", "GoBack", "Google", "ANSWER"];
  for (const k of order) {
    switch (k) {
      case "Click": {
        const m = CLICK.exec(a);
        if (m) return { type: "click", target: m[1]! };
        break;
      }
      case "Type": {
        const m = TYPE.exec(a);
        if (m) return { type: "type", target: m[1]!, value: unbracket(m[2]!), submit: true };
        break;
      }
      case "Scroll": {
        const m = SCROLL.exec(a);
        if (m) {
          const where = m[1]!.toUpperCase() === "WINDOW" ? null : m[1]!;
          return { type: "scroll", target: where, direction: m[2]!.toLowerCase() as "up" | "down" };
        }
        break;
      }
      case "Wait":
        if (/^Wait/.test(a)) return { type: "wait" };
        break;
      case "GoBack":
        if (/^GoBack/.test(a)) return { type: "go_back" };
        break;
      case "Google":
        if (/^Google/.test(a)) return { type: "search_engine", value: "https://www.google.com/" };
        break;
      case "ANSWER": {
        const m = ANSWER.exec(a);
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

export interface WebVoyagerReply {
  thought: string | null;
  actionRaw: string | null;
  action: ParsedAction;
}

/** Splits an assistant reply into thought and action; a reply without "Action:" is a format error. */
export function parseWebVoyagerReply(content: string): WebVoyagerReply {
  const actionAt = content.search(/Action:/);
  if (actionAt === -1) {
    const thought = content.replace(/^\s*Thought:\s*/, "").trim() || null;
    return { thought, actionRaw: null, action: { type: "unparsed", value: null, parseError: "reply has no 'Action:'" } };
  }
  const head = content.slice(0, actionAt);
  let actionRaw = content.slice(actionAt + "Action:".length);
  // WebVoyager splits on Observation: too; anything after it is not part of the action.
  const obs = actionRaw.search(/Observation:/);
  if (obs !== -1) actionRaw = actionRaw.slice(0, obs);
  actionRaw = actionRaw.trim();
  const thought = head.replace(/^\s*Thought:\s*/, "").trim() || null;
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
