/**
 * Validation that stops at the first problem. zod checks every element of an array and keeps an issue for each one
 * that fails, so a document of two million small invalid objects costs millions of issue objects (gigabytes) before
 * anything is reported. `firstIssue` walks the schema and the value together and returns the first problem it
 * meets: arrays element by element, objects key by key, anything else through the schema itself, whose issues are
 * then few. A value it passes still goes through `schema.safeParse` for its parsed form (defaults filled in), which
 * then finds at most the checks that belong to an array or object as a whole.
 */
import type { z } from "zod";

export interface FirstIssue {
  path: (string | number)[];
  message: string;
}

/** The parts of zod 4's schema definitions the walk needs (`schema._zod.def`). */
interface SchemaDef {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  getter?: () => z.ZodType;
}

function defOf(schema: z.ZodType): SchemaDef {
  return (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The first problem of `value` against `schema`, or null when there is none at the element and key level. */
export function firstIssue(schema: z.ZodType, value: unknown, path: (string | number)[] = []): FirstIssue | null {
  const def = defOf(schema);
  switch (def.type) {
    case "optional":
      return value === undefined ? null : firstIssue(def.innerType!, value, path);
    case "nullable":
      return value === null ? null : firstIssue(def.innerType!, value, path);
    case "default":
    case "prefault":
      return value === undefined ? null : firstIssue(def.innerType!, value, path);
    case "lazy":
      return firstIssue(def.getter!(), value, path);
    case "array":
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const issue = firstIssue(def.element!, value[i], [...path, i]);
          if (issue) return issue;
        }
        return null;
      }
      break;
    case "object":
      if (isPlainObject(value)) {
        for (const [key, field] of Object.entries(def.shape!)) {
          const issue = firstIssue(field, value[key], [...path, key]);
          if (issue) return issue;
        }
        return null;
      }
      break;
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0]!;
  return { path: [...path, ...issue.path.map((p) => (typeof p === "number" ? p : String(p)))], message: issue.message };
}

/** "trajectories[3].steps[12].action.type" */
export function issuePath(path: (string | number)[]): string {
  return path.map((p, n) => (typeof p === "number" ? `[${p}]` : n === 0 ? p : `.${p}`)).join("") || "(root)";
}
