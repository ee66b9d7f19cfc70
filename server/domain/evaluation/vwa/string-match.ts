/**
 * VisualWebArena's `string_match`: compares the agent's final answer with the task's reference answers.
 *
 * Semantics follow VWA's evaluator: answers are lower-cased and stripped of one pair of surrounding quotes;
 * `exact_match` compares whole strings; each `must_include` item must appear (alternatives joined by " |OR| ",
 * any one suffices), as a whole token when the item is a single word; each `must_exclude` item must not appear;
 * `one_of` needs any listed value as a substring; `required_values` reads the answer as an integer and tests
 * inequalities like ">= 12"; `fuzzy_match` asks an LLM whether the answer means the same as each reference, and
 * `fuzzy_match: "N/A"` marks an unachievable task: the answer "N/A" passes, otherwise an LLM compares the agent's
 * stated reason with `string_note`.
 *
 * LLM checks run last and only when every deterministic check passed (a failed check already fixes the score at 0),
 * which saves judge calls without changing any outcome.
 */
import type { FuzzyMatcher, FuzzyMatchRequest } from "./fuzzy-prompt";
import type { VwaReferenceAnswers } from "./config";
import { summarise, type CheckDetail, type EvalTypeResult } from "./results";
import { wordTokenize } from "./tokenize";

export const OR_SEPARATOR = " |OR| ";

/** Lower-case, and drop one pair of matching surrounding quotes. */
export function cleanAnswer(answer: string): string {
  let a = answer;
  if (a.length >= 2 && ((a.startsWith("'") && a.endsWith("'")) || (a.startsWith('"') && a.endsWith('"')))) {
    a = a.slice(1, -1);
  }
  return a.toLowerCase();
}

export function exactMatch(reference: string, prediction: string): boolean {
  return cleanAnswer(prediction) === cleanAnswer(reference);
}

/** Single-word references must be a whole token of the answer; longer ones a substring. */
export function mustInclude(reference: string, prediction: string): boolean {
  const ref = cleanAnswer(reference);
  const pred = cleanAnswer(prediction);
  if (wordTokenize(ref).length === 1) return wordTokenize(pred).includes(ref);
  return pred.includes(ref);
}

export function mustExclude(reference: string, prediction: string): boolean {
  const ref = cleanAnswer(reference);
  const pred = cleanAnswer(prediction);
  if (wordTokenize(ref).length === 1) return !wordTokenize(pred).includes(ref);
  return !pred.includes(ref);
}

/** Reads "1,234" or " 12 " as an integer; null when the text is not one. */
export function parseInteger(text: string): number | null {
  const t = text.trim().replace(/,/g, "");
  return /^[+-]?\d+$/.test(t) ? Number(t) : null;
}

const INEQUALITY_OPS: [string, (a: number, b: number) => boolean][] = [
  ["<=", (a, b) => a <= b + 1e-8],
  [">=", (a, b) => a >= b - 1e-8],
  ["==", (a, b) => Math.abs(a - b) <= 1e-8],
  ["<", (a, b) => a < b + 1e-8],
  [">", (a, b) => a > b - 1e-8],
];

/** Tests "value OP number" for an inequality such as ">= 12" or "< 700". Throws on a malformed inequality. */
export function compareInequality(value: number, inequality: string): boolean {
  for (const [op, test] of INEQUALITY_OPS) {
    const at = inequality.indexOf(op);
    if (at === -1) continue;
    const bound = Number(inequality.slice(at + op.length).trim());
    if (!Number.isFinite(bound)) throw new Error(`bad inequality ${JSON.stringify(inequality)}`);
    return test(value, bound);
  }
  throw new Error(`bad inequality ${JSON.stringify(inequality)} (expected <, <=, ==, >=, >)`);
}

export interface StringMatchInput {
  intent: string;
  /** The agent's final answer; null counts as the empty answer, as VWA's stop action without text. */
  finalAnswer: string | null;
  reference: VwaReferenceAnswers;
  /** Ground-truth reason an unachievable task cannot be done (VWA `string_note`). */
  stringNote?: string | null;
  fuzzy?: FuzzyMatcher;
  /** Another eval type already failed: LLM checks are skipped (the task's score is 0 whatever they say). */
  alreadyFailed?: boolean;
}

export async function evaluateStringMatch(input: StringMatchInput): Promise<EvalTypeResult> {
  const pred = cleanAnswer(input.finalAnswer ?? "");
  const ref = input.reference;
  const checks: CheckDetail[] = [];

  if (ref.exact_match !== undefined) {
    checks.push({ check: "exact_match", reference: ref.exact_match, observed: pred, passed: exactMatch(ref.exact_match, pred) });
  }
  for (const item of ref.must_include ?? []) {
    const alternatives = item.split(OR_SEPARATOR);
    checks.push({ check: "must_include", reference: item, observed: pred, passed: alternatives.some((a) => mustInclude(a, pred)) });
  }
  for (const item of ref.must_exclude ?? []) {
    checks.push({ check: "must_exclude", reference: item, observed: pred, passed: mustExclude(item, pred) });
  }
  if (ref.one_of !== undefined) {
    const hit = ref.one_of.find((v) => pred.includes(cleanAnswer(v)));
    checks.push({ check: "one_of", reference: ref.one_of.join(OR_SEPARATOR), observed: pred, passed: hit !== undefined });
  }
  if (ref.required_values !== undefined) {
    const value = parseInteger(pred);
    for (const item of ref.required_values) {
      if (value === null) {
        checks.push({ check: "required_values", reference: item, observed: pred, passed: false, note: "answer is not an integer" });
        continue;
      }
      checks.push({
        check: "required_values",
        reference: item,
        observed: value,
        passed: item.split(OR_SEPARATOR).some((ineq) => compareInequality(value, ineq)),
      });
    }
  }

  // LLM-graded checks, run after the deterministic ones.
  const graded: { check: "unachievable" | "fuzzy_match"; reference: string; request: FuzzyMatchRequest }[] = [];
  const fuzzy = ref.fuzzy_match;
  if (fuzzy === "N/A") {
    if (exactMatch("N/A", pred)) {
      checks.push({ check: "unachievable", reference: "N/A", observed: pred, passed: true, note: 'answered "N/A"' });
    } else {
      const reason = input.stringNote ?? "";
      graded.push({ check: "unachievable", reference: reason, request: { kind: "unachievable", intent: input.intent, reason, prediction: pred } });
    }
  } else if (fuzzy !== undefined) {
    for (const reference of Array.isArray(fuzzy) ? fuzzy : [fuzzy]) {
      graded.push({ check: "fuzzy_match", reference, request: { kind: "semantic", intent: input.intent, reference, prediction: pred } });
    }
  }

  let failed = input.alreadyFailed === true || checks.some((c) => c.passed === false);
  for (const g of graded) {
    const base = { check: g.check, reference: g.reference, observed: pred };
    if (failed) {
      checks.push({ ...base, passed: null, note: "skipped: another check already failed" });
    } else if (!input.fuzzy) {
      checks.push({ ...base, passed: null, note: `${g.check} needs a judge endpoint (fuzzy matcher)` });
    } else {
      const r = await input.fuzzy(g.request);
      checks.push({ ...base, passed: r.match, note: r.match === null ? `judge reply unparseable: ${r.raw.slice(0, 200)}` : undefined });
      if (r.match === false) failed = true;
    }
  }
  return summarise("string_match", checks, "reference_answers holds no check");
}
