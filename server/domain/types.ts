/**
 * Shared domain vocabulary: the shapes every importer produces and every view consumes.
 * Pure types, no I/O; imported by db/schema.ts for its JSON columns and by client code as types only.
 */

/** Every action kind the seeds' grammars can express, normalised. */
export const ACTION_TYPES = [
  "click",
  "dblclick",
  "type",
  "clear",
  "select",
  "hover",
  "press",
  "scroll",
  "wait",
  "go_back",
  "go_forward",
  "goto",
  "search_engine",
  "new_tab",
  "tab_focus",
  "close_tab",
  "drag",
  "upload",
  "answer",
  "report_infeasible",
  "noop",
  "unparsed",
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export type ScrollDirection = "up" | "down" | "left" | "right";

export interface ParsedAction {
  type: ActionType;
  /** SoM label / element id the action targets ("12", "a51", "B"); null when none. */
  target?: string | null;
  /** Typed text, answer text, URL, key combination, selected option… */
  value?: string | null;
  direction?: ScrollDirection | null;
  /** Pixel coordinates in screenshot space, for coordinate-based actions (a drag's start). */
  coords?: [number, number] | null;
  /** Where a drag ends, in screenshot pixels. */
  to?: [number, number] | null;
  /** How far a scroll moved the page, [dx, dy] in pixels (positive: right, down), when the source recorded it. */
  delta?: [number, number] | null;
  /** `type` actions: whether Enter is pressed after typing. */
  submit?: boolean;
  /** For strings holding several calls (BrowserGym multi-action): every call, in order. */
  calls?: ParsedAction[];
  /** Why parsing failed, for `unparsed`. */
  parseError?: string;
}

/** One Set-of-Marks element: a numbered box on an interactive element. */
export interface SomElement {
  label: string;
  /** [x, y, width, height] in screenshot pixels; null when the source had only text. */
  bbox: [number, number, number, number] | null;
  tag?: string | null;
  text?: string | null;
  /** The element's XPath in the page, when the source recorded it (Browser Use). */
  xpath?: string | null;
}

/** golden / possible (WebVoyager); exact_match / must_include / must_exclude / fuzzy_match / url (VWA). */
export interface ReferenceAnswer {
  kind: string;
  text: string;
}

export interface TaskDifficulty {
  overall?: string | null;
  reasoning?: string | null;
  visual?: string | null;
}

/** A task's own fields from its source (a fork's `ques_group`, `lang`…), name → value as text. */
export type TaskAttributes = Record<string, string>;

export const OUTCOMES = ["answered", "step_limit", "time_limit", "error", "cancelled", "running", "unknown", "infra_error", "blocked"] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** What a step says whatever holds its screenshots: the page, the agent's thought and action, the marks, an error. */
export interface StepContent {
  url: string | null;
  thought: string | null;
  actionRaw: string | null;
  action: ParsedAction;
  /** Null when the source recorded no element list for this step (not the same as an empty list). */
  elements: SomElement[] | null;
  error: string | null;
}

/**
 * A step's content fields in the order every step record lists them (imports, the ATIF and bundle exports, stored
 * steps, reports); spread it where they go. Elements a source left out are null.
 */
export function stepContent(s: Omit<StepContent, "elements"> & { elements?: SomElement[] | null }): StepContent {
  return { url: s.url, thought: s.thought, actionRaw: s.actionRaw, action: s.action, elements: s.elements ?? null, error: s.error };
}
