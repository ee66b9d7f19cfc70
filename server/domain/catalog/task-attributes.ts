/**
 * Task attributes: the fields a source's task file carries beyond the ones Verdict reads. Forks add their own
 * (a WebVoyager fork's `ques_group` and `lang`, GAIA's `Level`), and researchers want their figures split by them,
 * so an importer keeps every such field instead of dropping it:
 *
 * - a scalar value (text, number, true/false) becomes an attribute, as text: `3` → "3", `true` → "true"; text is
 *   kept exactly as written (no trimming or case folding: "en" and "EN" are two groups, as in the file);
 * - a value that is not a split key (an object, a list, or text longer than MAX_ATTRIBUTE_VALUE) is kept verbatim
 *   in the task's `extra` under `taskFields`, so nothing the file said is lost;
 * - null and absent fields are not attributes.
 *
 * Attribute names are the file's field names. Analytics offer each as a split key beside site, run and difficulty.
 */
import type { TaskAttributes } from "../types";

/** Longest attribute value kept as a split key (longer text is a description, not a group). */
export const MAX_ATTRIBUTE_VALUE = 200;
/** Longest field name taken as an attribute. */
export const MAX_ATTRIBUTE_NAME = 100;
/** Most attributes per task: a row with more fields keeps the rest in `extra`. */
export const MAX_ATTRIBUTES = 50;

export interface SplitTaskFields {
  /** Null when the row has no attribute. */
  attributes: TaskAttributes | null;
  /** Fields that are not attributes (objects, lists, long text), verbatim; empty when none. */
  rest: Record<string, unknown>;
}

/** The attributes and the other leftover fields of a task row, leaving out the fields the importer reads itself. */
export function splitTaskFields(row: Record<string, unknown>, readByImporter: ReadonlySet<string>): SplitTaskFields {
  const attributes: TaskAttributes = {};
  const rest: Record<string, unknown> = {};
  let count = 0;
  for (const [name, value] of Object.entries(row)) {
    if (readByImporter.has(name) || value === null || value === undefined) continue;
    const text =
      typeof value === "string"
        ? value
        : typeof value === "number" && Number.isFinite(value)
          ? String(value)
          : typeof value === "boolean"
            ? String(value)
            : null;
    if (text !== null && text.length <= MAX_ATTRIBUTE_VALUE && name.length > 0 && name.length <= MAX_ATTRIBUTE_NAME && count < MAX_ATTRIBUTES) {
      attributes[name] = text;
      count++;
    } else rest[name] = value;
  }
  return { attributes: count ? attributes : null, rest };
}

/** A stored attributes value read back (anything that is not a name → text map counts as none). */
export function readTaskAttributes(value: unknown): TaskAttributes {
  if (!value || typeof value !== "object" || Array.isArray(value)) return {};
  const out: TaskAttributes = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) if (typeof v === "string") out[k] = v;
  return out;
}
