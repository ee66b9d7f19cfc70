/**
 * SeeAct action strings.
 *
 * Research tool (`src/seeact.py`) action history entries:
 *   `[button type="submit"] Search -> CLICK`, `[textbox]  Query -> TYPE: wedding photographer`, `… -> SELECT: Blue`,
 *   bare `PRESS ENTER` / `TERMINATE`, `No Operation`, `Human intervention[ with a message: …]`, and failures either
 *   after the arrow (`… -> Failed to CLICK because <err>, did a HOVER instead`) or on their own
 *   (`Failed to CLICK <element> because <err>`, `Failed to TYPE <value> for <element> because <err>`).
 * pip package (`seeact/agent.py`) adds `SCROLL UP|DOWN`, `PRESS HOME|END|PAGEUP|PAGEDOWN`, `NEW TAB`, `CLOSE TAB`,
 *   `GO BACK`, `GO FORWARD`, `GOTO: url`, `SAY: text`, `MEMORIZE: text`, `NONE`, pixel-mode entries without the
 *   `[tag]` head, and `Failed to perform <OP> on <element> with value '<v>': <err>`; its `all_predictions.json`
 *   records `{action, value, element}` per step.
 *
 * History strings name elements by description only (the option letter is not kept), so `target` is null for
 * them; predictions carry the chosen option letter when the grounding output names it.
 *
 * Pure. Never throws.
 */
import type { ParsedAction } from "../types";

/** Every operation either runner writes, longest first so "PRESS ENTER" wins over a shorter prefix. */
const OPERATIONS = [
  "PRESS PAGEDOWN",
  "PRESS PAGEUP",
  "PRESS ENTER",
  "PRESS HOME",
  "PRESS END",
  "SCROLL DOWN",
  "SCROLL UP",
  "GO FORWARD",
  "CLOSE TAB",
  "TERMINATE",
  "MEMORIZE",
  "GO BACK",
  "NEW TAB",
  "SELECT",
  "CLICK",
  "HOVER",
  "TYPE",
  "GOTO",
  "NONE",
  "SAY",
] as const;
type Operation = (typeof OPERATIONS)[number];
/** Matched in any case: SeeAct writes "CLICK", forks and hand-edited histories write "Click" or "click". */
const OP_PATTERN = OPERATIONS.map((o) => o.replace(/ /g, "\\s+")).join("|");

function unparsed(value: string | null, parseError: string): ParsedAction {
  return { type: "unparsed", value, parseError };
}

function normaliseOp(op: string): string {
  return op.trim().replace(/\s+/g, " ").toUpperCase();
}

/** A SeeAct value of "None" (Python's None stringified) or "" means no value. */
function cleanValue(v: string | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  const t = v.trim();
  return t === "" || t === "None" ? null : t;
}

/** The operations that take neither a target nor a value, and the action each one is. */
const FIXED_OPERATIONS: Partial<Record<Operation, ParsedAction>> = {
  "PRESS HOME": { type: "press", value: "Home" },
  "PRESS END": { type: "press", value: "End" },
  "PRESS PAGEUP": { type: "press", value: "PageUp" },
  "PRESS PAGEDOWN": { type: "press", value: "PageDown" },
  "SCROLL UP": { type: "scroll", direction: "up" },
  "SCROLL DOWN": { type: "scroll", direction: "down" },
  "NEW TAB": { type: "new_tab" },
  "CLOSE TAB": { type: "close_tab" },
  "GO BACK": { type: "go_back" },
  "GO FORWARD": { type: "go_forward" },
};

/** Maps one SeeAct operation with its value onto a ParsedAction; null when the operation is unknown. */
export function seeActOperation(opRaw: string, valueRaw: string | null | undefined, target: string | null = null): ParsedAction | null {
  const op = normaliseOp(opRaw) as Operation;
  const fixed = FIXED_OPERATIONS[op];
  if (fixed) return { ...fixed };
  const value = cleanValue(valueRaw);
  switch (op) {
    case "CLICK":
      return { type: "click", target };
    case "HOVER":
      return { type: "hover", target };
    case "TYPE":
      return { type: "type", target, value: value ?? "", submit: false };
    case "SELECT":
      return { type: "select", target, value };
    case "PRESS ENTER":
      return { type: "press", target, value: "Enter" };
    case "GOTO":
      return value ? { type: "goto", value } : null;
    // SeeAct's TERMINATE declares the task complete without an answer text.
    case "TERMINATE":
      return { type: "answer", value: null };
    // SAY is a message to the user, the same role as BrowserGym's send_msg_to_user.
    case "SAY":
      return { type: "answer", value };
    case "MEMORIZE":
      return { type: "noop", value };
    case "NONE":
      return { type: "noop" };
    default:
      return null;
  }
}

export interface SeeActHistoryEntry {
  action: ParsedAction;
  /** The element as the history names it: tag head (`button type="submit"`) and description. */
  element: { tagHead: string | null; tag: string | null; description: string } | null;
  /** The failure SeeAct recorded for this step, if any (the action was attempted but did not run as predicted). */
  failure: string | null;
}

function tagOf(tagHead: string | null): string | null {
  if (!tagHead) return null;
  const first = tagHead.trim().split(/\s+/)[0];
  return first ? first.toLowerCase() : null;
}

/** `Failed to TYPE "v" because e, did a CLICK instead` after the arrow, or `Failed to CLICK because e`. */
function parseArrowFailure(rest: string): { action: ParsedAction; failure: string } | null {
  const m = new RegExp(`^Failed to (${OP_PATTERN})(?: "([\\s\\S]*?)")? because ([\\s\\S]*)$`, "i").exec(rest);
  if (!m) return null;
  let reason = m[3]!;
  let performed: string | null = null;
  let performedValue: string | null = null;
  const instead = new RegExp(`, did a (${OP_PATTERN})(?: ([\\s\\S]*?))? instead$`, "i").exec(reason);
  if (instead) {
    performed = instead[1]!;
    performedValue = instead[2] ?? null;
    reason = reason.slice(0, instead.index);
  }
  const attempted = seeActOperation(m[1]!, m[2] ?? null);
  const action = performed ? seeActOperation(performed, performedValue) : attempted;
  if (!action) return null;
  const failure = performed
    ? `Failed to ${normaliseOp(m[1]!)}${m[2] !== undefined ? ` "${m[2]}"` : ""} because ${reason}; did a ${normaliseOp(performed)} instead`
    : `Failed to ${normaliseOp(m[1]!)}${m[2] !== undefined ? ` "${m[2]}"` : ""} because ${reason}`;
  return { action, failure };
}

/** Parses one action-history string from either SeeAct runner. */
export function parseSeeActHistory(entry: string | null | undefined): SeeActHistoryEntry {
  if (entry === null || entry === undefined) return { action: unparsed(null, "no action history entry"), element: null, failure: null };
  const s = entry.trim();
  if (!s) return { action: unparsed(entry, "empty action history entry"), element: null, failure: null };

  if (s === "No Operation") return { action: { type: "noop" }, element: null, failure: null };
  const human = /^Human intervention(?: with a message: ([\s\S]*))?$/.exec(s);
  if (human) return { action: { type: "noop", value: human[1] ? `Human intervention: ${human[1]}` : "Human intervention" }, element: null, failure: null };
  const changed = /^Changed task from [\s\S]* to: ([\s\S]*)$/.exec(s);
  if (changed) return { action: { type: "noop", value: `Task changed to: ${changed[1]}` }, element: null, failure: null };

  // pip: "Failed to perform CLICK on Search with value 'None': <err>"
  const pipFail = new RegExp(`^Failed to perform (${OP_PATTERN}) on ([\\s\\S]*?) with value '([\\s\\S]*?)': ([\\s\\S]*)$`, "i").exec(s);
  if (pipFail) {
    const action = seeActOperation(pipFail[1]!, pipFail[3]!);
    if (action) {
      return {
        action,
        element: { tagHead: null, tag: null, description: pipFail[2]!.trim() },
        failure: `Failed to perform ${normaliseOp(pipFail[1]!)}: ${pipFail[4]}`,
      };
    }
  }
  // research tool, no element head: "Failed to TYPE <value> for <element> because <err>" / "Failed to CLICK <element> because <err>"
  const bareFail = new RegExp(`^Failed to (${OP_PATTERN}) ([\\s\\S]*?) because ([\\s\\S]*)$`, "i").exec(s);
  if (bareFail) {
    const op = normaliseOp(bareFail[1]!);
    let value: string | null = null;
    let description = bareFail[2]!;
    if (op === "TYPE" || op === "SELECT") {
      const forAt = description.lastIndexOf(" for ");
      if (forAt >= 0) {
        value = description.slice(0, forAt);
        description = description.slice(forAt + 5);
      }
    }
    const action = seeActOperation(op, value);
    if (action) {
      return {
        action,
        element: { tagHead: null, tag: null, description: description.trim() },
        failure: `Failed to ${op} because ${bareFail[3]}`,
      };
    }
  }

  // "[tag head] description -> OP[: value]" (the head is absent in the pip package's pixel mode).
  const arrow = new RegExp(`^(?:\\[([^\\]]*)\\])?\\s*([\\s\\S]*?)\\s*->\\s*((?:Failed to )?(?:${OP_PATTERN})[\\s\\S]*)$`, "i").exec(s);
  if (arrow) {
    const tagHead = arrow[1] !== undefined ? arrow[1].trim() : null;
    const element = { tagHead, tag: tagOf(tagHead), description: arrow[2]!.trim() };
    const rest = arrow[3]!;
    if (/^failed to /i.test(rest)) {
      const f = parseArrowFailure(rest);
      if (f) return { action: f.action, element, failure: f.failure };
      return { action: unparsed(entry, `unrecognised failure "${rest.slice(0, 60)}"`), element, failure: rest };
    }
    const op = new RegExp(`^(${OP_PATTERN})(?::\\s?([\\s\\S]*))?$`, "i").exec(rest);
    const action = op ? seeActOperation(op[1]!, op[2] ?? null) : null;
    if (action) return { action, element, failure: null };
    return { action: unparsed(entry, `unrecognised operation "${rest.slice(0, 60)}"`), element, failure: null };
  }

  // Bare operations: "PRESS ENTER", "TERMINATE", "SCROLL DOWN", "GOTO: https://…", "SAY: …".
  const bare = new RegExp(`^(${OP_PATTERN})(?::\\s?([\\s\\S]*))?$`, "i").exec(s);
  if (bare) {
    const action = seeActOperation(bare[1]!, bare[2] ?? null);
    if (action) return { action, element: null, failure: null };
    return { action: unparsed(entry, `${normaliseOp(bare[1]!)} needs a value`), element: null, failure: null };
  }
  return { action: unparsed(entry, "not a SeeAct action history entry"), element: null, failure: null };
}

/** Convenience: the ParsedAction of one history entry. */
export function parseSeeActAction(entry: string | null | undefined): ParsedAction {
  return parseSeeActHistory(entry).action;
}

/** The option letter(s) named by a grounding output ("ELEMENT: B\nACTION: CLICK\nVALUE: None"). */
export function seeActGroundingElement(grounding: string | null | undefined): string | null {
  if (!grounding) return null;
  const m = /ELEMENT:\s*([A-Z]{1,2})\b/.exec(grounding);
  return m ? m[1]! : null;
}

/** One entry of the pip package's `all_predictions.json`, as far as Verdict reads it. */
export interface SeeActPrediction {
  action?: unknown;
  value?: unknown;
  element?: { option?: unknown; description?: unknown } | null;
  action_grounding?: unknown;
}

/** The option letter of a prediction's chosen element: `element.option`, else the grounding output's ELEMENT line. */
export function seeActPredictionLabel(p: SeeActPrediction): string | null {
  const option = p.element && typeof p.element.option === "string" && p.element.option.trim() ? p.element.option.trim() : null;
  if (option) return option;
  return typeof p.action_grounding === "string" ? seeActGroundingElement(p.action_grounding) : null;
}

/** Parses one pip-package prediction (`{action, value, element}`) into a ParsedAction targeting the option letter. */
export function parseSeeActPrediction(p: SeeActPrediction | null | undefined): ParsedAction {
  if (!p || typeof p !== "object") return unparsed(null, "prediction is not an object");
  if (typeof p.action !== "string" || !p.action.trim()) {
    return unparsed(typeof p.action === "string" ? p.action : null, "prediction has no action");
  }
  const value = typeof p.value === "string" ? p.value : p.value === null || p.value === undefined ? null : String(p.value);
  const target = p.element ? seeActPredictionLabel(p) : null;
  const action = seeActOperation(p.action, value, target);
  if (!action) {
    const raw = value && cleanValue(value) ? `${p.action}: ${value}` : p.action;
    return unparsed(raw, `unknown SeeAct operation "${p.action.slice(0, 40)}"`);
  }
  return action;
}
