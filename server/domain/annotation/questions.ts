/**
 * Custom questions a campaign asks besides the verdict: single choice, multiple choice, number, free text and
 * step reference (a step of the trajectory). Any question may be per step: the annotator then answers it for
 * the individual steps they pick in the player, and the answer is a map from step index to value.
 *
 * Answers are stored with the label as JSON keyed by question id and validated strictly against the campaign's
 * questions on every submit; errors name the question so the annotator (or the script calling the API) knows
 * which answer to fix.
 */
import { FieldValidationError } from "../../errors";
import { z } from "zod";

export const QUESTION_TYPES = ["single_choice", "multiple_choice", "number", "text", "step_ref"] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

/** When a question is asked: always, or only for one verdict (e.g. "failure type" only on failures). */
export const QUESTION_WHEN = ["always", "success", "failure"] as const;
export type QuestionWhen = (typeof QUESTION_WHEN)[number];

export const MAX_QUESTIONS = 20;
export const MAX_OPTIONS = 20;
export const MAX_TEXT_ANSWER = 5_000;

export interface QuestionBase {
  /** Stable key of the answer in labels and exports: lower-case letters, digits and underscores. */
  id: string;
  /** The question as annotators read it. */
  prompt: string;
  /** An answer must be given (when the question is asked at all, see `when`). */
  required: boolean;
  /** Answered for individual steps: the answer is `{ "<step index>": value }`. */
  perStep: boolean;
  when: QuestionWhen;
}

export type Question =
  | (QuestionBase & { type: "single_choice"; options: string[] })
  | (QuestionBase & { type: "multiple_choice"; options: string[] })
  | (QuestionBase & { type: "number"; min: number | null; max: number | null; integer: boolean })
  | (QuestionBase & { type: "text"; maxLength: number })
  | (QuestionBase & { type: "step_ref" });

export type AnswerValue = string | string[] | number;
/** A per-step question's answer: step index (as a string, JSON keys) to value. */
export type PerStepAnswer = Record<string, AnswerValue>;
export type LabelAnswers = Record<string, AnswerValue | PerStepAnswer>;

const option = z.string().trim().min(1, "an option cannot be empty").max(120, "an option is at most 120 characters");
const base = {
  id: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, "an id is 1–40 lower-case letters, digits or _, starting with a letter"),
  prompt: z.string().trim().min(1, "a question needs a prompt").max(500, "a prompt is at most 500 characters"),
  required: z.boolean().default(false),
  perStep: z.boolean().default(false),
  when: z.enum(QUESTION_WHEN).default("always"),
};
const optionList = z.array(option).min(2, "a choice question needs at least 2 options").max(MAX_OPTIONS, `at most ${MAX_OPTIONS} options`);

export const questionInput = z.discriminatedUnion("type", [
  z.object({ ...base, type: z.literal("single_choice"), options: optionList }).strict(),
  z.object({ ...base, type: z.literal("multiple_choice"), options: optionList }).strict(),
  z
    .object({
      ...base,
      type: z.literal("number"),
      min: z.number().finite().nullable().default(null),
      max: z.number().finite().nullable().default(null),
      integer: z.boolean().default(false),
    })
    .strict(),
  z.object({ ...base, type: z.literal("text"), maxLength: z.number().int().min(1).max(MAX_TEXT_ANSWER).default(2_000) }).strict(),
  z.object({ ...base, type: z.literal("step_ref") }).strict(),
]);
export type QuestionInput = z.input<typeof questionInput>;

export class QuestionError extends FieldValidationError {
  override name = "QuestionError";
}

/** Checks a campaign's question list (ids unique, options unique, min ≤ max); errors name the question. */
export function buildQuestions(input: unknown, field = "labelSchema.questions"): Question[] {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) throw new QuestionError(field, "must be a list of questions");
  if (input.length > MAX_QUESTIONS) throw new QuestionError(field, `at most ${MAX_QUESTIONS} questions, got ${input.length}`);
  const out: Question[] = [];
  const ids = new Set<string>();
  input.forEach((raw, i) => {
    const parsed = questionInput.safeParse(raw);
    const name = typeof (raw as { id?: unknown })?.id === "string" ? `${field}[${i}] (${(raw as { id: string }).id})` : `${field}[${i}]`;
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const at = issue.path.length ? `.${issue.path.join(".")}` : "";
      throw new QuestionError(`${name}${at}`, issue.code === "invalid_union" ? `type must be one of ${QUESTION_TYPES.join(", ")}` : issue.message);
    }
    const q = parsed.data as Question;
    if (ids.has(q.id)) throw new QuestionError(name, `the id ${JSON.stringify(q.id)} is used by another question`);
    ids.add(q.id);
    if (q.type === "single_choice" || q.type === "multiple_choice") {
      const seen = new Set<string>();
      for (const o of q.options) {
        if (seen.has(o.toLowerCase())) throw new QuestionError(`${name}.options`, `${JSON.stringify(o)} is listed twice`);
        seen.add(o.toLowerCase());
      }
    }
    if (q.type === "number" && q.min !== null && q.max !== null && q.min > q.max) {
      throw new QuestionError(name, `min (${q.min}) is above max (${q.max})`);
    }
    out.push(q);
  });
  return out;
}

/** Whether a question is asked for a label with this verdict. */
export function isAsked(q: Question, verdict: string): boolean {
  return q.when === "always" || q.when === verdict;
}

function label(q: Question): string {
  return `answers.${q.id} (${JSON.stringify(q.prompt)})`;
}

function checkValue(q: Question, value: unknown, stepCount: number, where: string): AnswerValue {
  switch (q.type) {
    case "single_choice":
      if (typeof value !== "string" || !q.options.includes(value)) {
        throw new QuestionError(where, `must be one of ${q.options.map((o) => JSON.stringify(o)).join(", ")}, got ${JSON.stringify(value)}`);
      }
      return value;
    case "multiple_choice": {
      if (!Array.isArray(value)) throw new QuestionError(where, `must be a list of options, got ${JSON.stringify(value)}`);
      const bad = value.find((v) => typeof v !== "string" || !q.options.includes(v));
      if (bad !== undefined) throw new QuestionError(where, `${JSON.stringify(bad)} is not one of ${q.options.map((o) => JSON.stringify(o)).join(", ")}`);
      // Kept in the schema's option order, without repeats, so equal answers compare equal.
      return q.options.filter((o) => value.includes(o));
    }
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) throw new QuestionError(where, `must be a number, got ${JSON.stringify(value)}`);
      if (q.integer && !Number.isInteger(value)) throw new QuestionError(where, `must be a whole number, got ${value}`);
      if (q.min !== null && value < q.min) throw new QuestionError(where, `must be at least ${q.min}, got ${value}`);
      if (q.max !== null && value > q.max) throw new QuestionError(where, `must be at most ${q.max}, got ${value}`);
      return value;
    case "text":
      if (typeof value !== "string") throw new QuestionError(where, `must be text, got ${JSON.stringify(value)}`);
      if (value.length > q.maxLength) throw new QuestionError(where, `is ${value.length} characters; the limit is ${q.maxLength}`);
      return value.trim();
    case "step_ref":
      if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value >= Math.max(stepCount, 1)) {
        throw new QuestionError(where, `must be a step index from 0 to ${Math.max(stepCount - 1, 0)}, got ${JSON.stringify(value)}`);
      }
      return value;
  }
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0);
}

/**
 * Checks a label's answers against the campaign's questions and returns them normalised: unknown ids are
 * refused, questions not asked for this verdict are dropped, empty answers are left out, required ones must be
 * there. Per-step answers are maps from a step index within the trajectory to a value.
 */
export function validateAnswers(questions: readonly Question[], input: unknown, verdict: string, stepCount: number): LabelAnswers {
  if (input === undefined || input === null) input = {};
  if (typeof input !== "object" || Array.isArray(input)) throw new QuestionError("answers", "must be an object keyed by question id");
  const given = input as Record<string, unknown>;
  const known = new Map(questions.map((q) => [q.id, q]));
  for (const id of Object.keys(given)) {
    if (!known.has(id)) throw new QuestionError(`answers.${id}`, `this campaign has no question with id ${JSON.stringify(id)}`);
  }
  const out: LabelAnswers = {};
  for (const q of questions) {
    if (!isAsked(q, verdict)) continue;
    const raw = given[q.id];
    if (!q.perStep) {
      if (isEmpty(raw)) {
        if (q.required) throw new QuestionError(label(q), "an answer is required");
        continue;
      }
      const v = checkValue(q, raw, stepCount, label(q));
      if (!isEmpty(v)) out[q.id] = v;
      else if (q.required) throw new QuestionError(label(q), "an answer is required");
      continue;
    }
    if (isEmpty(raw)) {
      if (q.required) throw new QuestionError(label(q), "answer it for at least one step");
      continue;
    }
    if (typeof raw !== "object" || Array.isArray(raw)) throw new QuestionError(label(q), "a per-step question's answer is an object from step index to answer");
    const perStep: PerStepAnswer = {};
    const steps = Object.keys(raw as object)
      .map((k) => {
        const n = Number(k);
        if (!/^\d+$/.test(k) || n >= Math.max(stepCount, 1))
          throw new QuestionError(`${label(q)}[${k}]`, `is not a step of this trajectory (0 to ${Math.max(stepCount - 1, 0)})`);
        return n;
      })
      .sort((a, b) => a - b);
    for (const s of steps) {
      const v = (raw as Record<string, unknown>)[String(s)];
      if (isEmpty(v)) continue;
      const checked = checkValue(q, v, stepCount, `${label(q)}[step ${s}]`);
      if (!isEmpty(checked)) perStep[String(s)] = checked;
    }
    if (Object.keys(perStep).length) out[q.id] = perStep;
    else if (q.required) throw new QuestionError(label(q), "answer it for at least one step");
  }
  return out;
}

/** An answer as one cell of a CSV export: choices joined with "; ", per-step answers as JSON. */
export function answerCell(v: AnswerValue | PerStepAnswer | undefined): string {
  if (v === undefined) return "";
  if (Array.isArray(v)) return v.join("; ");
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/**
 * Answers as they leave Verdict: step references and per-step keys as step numbers (1 = first step), as the
 * player shows them and as the rest of the export writes steps.
 */
export function answersForExport(questions: readonly Question[], answers: LabelAnswers | null | undefined): LabelAnswers | null {
  if (!answers) return null;
  const out: LabelAnswers = {};
  for (const q of questions) {
    const v = answers[q.id];
    if (v === undefined) continue;
    const one = (x: AnswerValue): AnswerValue => (q.type === "step_ref" && typeof x === "number" ? x + 1 : x);
    if (q.perStep && typeof v === "object" && !Array.isArray(v)) {
      out[q.id] = Object.fromEntries(Object.entries(v).map(([k, x]) => [String(Number(k) + 1), one(x)]));
    } else out[q.id] = one(v as AnswerValue);
  }
  return out;
}
