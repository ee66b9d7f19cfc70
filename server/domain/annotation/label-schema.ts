/**
 * What a label is: a campaign's label schema, validation of one label against it, the field-by-field difference
 * between two versions of a label, and the rule that turns the labels of one trajectory into a consolidated label
 * (or sends it to adjudication).
 *
 * The defaults follow WebVoyager's human evaluation: a binary verdict, and for failures one main error category
 * from their Table 3 (navigation stuck, visual grounding issue, hallucination, prompt misalignment) plus "other".
 * "unsure" is a value of its own (AgentRewardBench keeps it and leaves it out of agreement statistics); a campaign
 * may allow it.
 */
import { FieldValidationError } from "../../errors";
import { z } from "zod";
import { buildQuestions, QuestionError, validateAnswers, type LabelAnswers, type Question } from "./questions";
import { MAX_MARK_LABEL_LENGTH, MAX_MARK_LABELS, type RegionMark } from "./region-marks";

/**
 * "not_executable" is Online-Mind2Web's label 2: the task could not be carried out for reasons outside the
 * agent (CAPTCHA, site down, the site changed so the task no longer exists). A campaign accepts it only when its
 * schema says so; like "unsure" it is neither a success nor a failure of the agent.
 */
export const LABEL_VERDICTS = ["success", "failure", "unsure", "not_executable"] as const;
export type LabelVerdict = (typeof LABEL_VERDICTS)[number];

export const ITEM_STATES = ["open", "agreed", "disputed", "adjudicated"] as const;
export type ItemState = (typeof ITEM_STATES)[number];

export type ConsolidationMethod = "unanimous" | "adjudicated";

export const WEBVOYAGER_ERROR_CATEGORIES = ["navigation stuck", "visual grounding issue", "hallucination", "prompt misalignment"] as const;

export const DEFAULT_ERROR_CATEGORIES: readonly string[] = [...WEBVOYAGER_ERROR_CATEGORIES, "other"];

/** Keys `1`–`9` pick a category, so a schema has at most nine. */
export const MAX_CATEGORIES = 9;
export const MAX_NOTE_LENGTH = 10_000;

export interface LabelSchema {
  /** Error categories a failure can be given, in the order the keys `1`–`9` select them. */
  categories: string[];
  /** A failure must name a category. */
  requireCategory: boolean;
  /** "unsure" is accepted as a verdict. */
  allowUnsure: boolean;
  /** The label panel asks for the first failing step (always optional to fill in). */
  firstFailingStep: boolean;
  /** The label panel has a free-text note. */
  note: boolean;
  /**
   * What must be unanimous for a trajectory to be consolidated without adjudication: the verdict alone, or the
   * verdict and (for failures) the category.
   */
  agreementOn: "verdict" | "verdict_and_category";
  /** "not executable" is accepted as a verdict (Online-Mind2Web's 2). Absent in schemas made before protocols. */
  allowNotExecutable?: boolean;
  /** A failure must name its failure point (the first failing step). */
  requireFailureStep?: boolean;
  /** A failure must say why in the note (Online-Mind2Web's "reasoning"). */
  requireReasoning?: boolean;
  /** The campaign's own questions, asked after the verdict (see questions.ts). */
  questions?: Question[];
  /** The labels a region mark can be given; absent: DEFAULT_MARK_LABELS (see region-marks.ts). */
  markLabels?: string[];
  /** Items go to a QA reviewer once they have their labels (see protocols.ts). */
  qaReview?: boolean;
}

export interface LabelValues {
  verdict: LabelVerdict;
  category: string | null;
  firstFailingStep: number | null;
  note: string | null;
  /** Answers to the campaign's questions, by question id; absent when the campaign asks none. */
  answers?: LabelAnswers;
  /** Boxes and points drawn on the steps' screenshots; absent when there are none. */
  marks?: RegionMark[];
}

export function defaultLabelSchema(): LabelSchema {
  return {
    categories: [...DEFAULT_ERROR_CATEGORIES],
    requireCategory: true,
    allowUnsure: false,
    firstFailingStep: true,
    note: true,
    agreementOn: "verdict_and_category",
    allowNotExecutable: false,
    requireFailureStep: false,
    requireReasoning: false,
    questions: [],
    qaReview: false,
  };
}

/**
 * The settings that are switches and choices: checked alike by the API's input (server/api/routers/annotation.ts)
 * and by buildLabelSchema, so that the two name the same settings.
 */
export const LABEL_SCHEMA_SWITCHES = {
  requireCategory: z.boolean().optional(),
  allowUnsure: z.boolean().optional(),
  firstFailingStep: z.boolean().optional(),
  note: z.boolean().optional(),
  agreementOn: z.enum(["verdict", "verdict_and_category"]).optional(),
  allowNotExecutable: z.boolean().optional(),
  requireFailureStep: z.boolean().optional(),
  requireReasoning: z.boolean().optional(),
  qaReview: z.boolean().optional(),
};

export const labelSchemaInput = z
  .object({
    categories: z
      .array(z.string().trim().min(1, "a category cannot be empty").max(80, "a category is at most 80 characters"))
      .max(MAX_CATEGORIES, `at most ${MAX_CATEGORIES} categories (keys 1–9 select them)`)
      .optional(),
    ...LABEL_SCHEMA_SWITCHES,
    // Checked question by question in buildQuestions, whose errors name the question.
    questions: z.array(z.unknown()).optional(),
    markLabels: z.array(z.string().trim().min(1).max(MAX_MARK_LABEL_LENGTH)).max(MAX_MARK_LABELS).optional(),
  })
  .strict();

export class LabelValidationError extends FieldValidationError {
  override name = "LabelValidationError";
}

/** A complete schema from partial input over the defaults; errors name the field. */
export function buildLabelSchema(input: z.input<typeof labelSchemaInput> = {}): LabelSchema {
  const parsed = labelSchemaInput.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new LabelValidationError(`labelSchema.${issue.path.join(".") || "(root)"}`, issue.message);
  }
  const p = parsed.data;
  const schema = { ...defaultLabelSchema(), ...Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) } as LabelSchema;
  const seen = new Set<string>();
  for (const c of schema.categories) {
    const key = c.toLowerCase();
    if (seen.has(key)) throw new LabelValidationError("labelSchema.categories", `category ${JSON.stringify(c)} is listed twice`);
    seen.add(key);
  }
  if (schema.requireCategory && schema.categories.length === 0) {
    throw new LabelValidationError("labelSchema.categories", "a failure must name a category, so the list cannot be empty");
  }
  if (schema.requireFailureStep && !schema.firstFailingStep) {
    throw new LabelValidationError("labelSchema.requireFailureStep", "a failure point is required, so firstFailingStep must be on");
  }
  if (schema.requireReasoning && !schema.note) {
    throw new LabelValidationError("labelSchema.requireReasoning", "reasoning is written in the note, so note must be on");
  }
  try {
    schema.questions = buildQuestions(p.questions ?? schema.questions);
  } catch (e) {
    if (e instanceof QuestionError) throw new LabelValidationError(e.field, e.message.slice(e.field.length + 2));
    throw e;
  }
  return schema;
}

export interface LabelInput {
  verdict: string;
  category?: string | null;
  firstFailingStep?: number | null;
  note?: string | null;
  answers?: unknown;
}

/**
 * Checks one label against the schema and the trajectory's step count, and returns it normalised: the category
 * and first failing step are dropped from successes (they describe failures), an empty note becomes null.
 */
export function validateLabel(schema: LabelSchema, input: LabelInput, stepCount: number): LabelValues {
  const verdict = input.verdict as LabelVerdict;
  if (!LABEL_VERDICTS.includes(verdict)) {
    throw new LabelValidationError("verdict", `must be one of ${LABEL_VERDICTS.join(", ")}, got ${JSON.stringify(input.verdict)}`);
  }
  if (verdict === "unsure" && !schema.allowUnsure) throw new LabelValidationError("verdict", `this campaign does not accept "unsure"`);
  if (verdict === "not_executable" && !schema.allowNotExecutable) throw new LabelValidationError("verdict", `this campaign does not accept "not_executable"`);

  let category: string | null = input.category ?? null;
  let firstFailingStep: number | null = input.firstFailingStep ?? null;
  // Category and failure point describe how the agent failed; a success or a task that could not be run has none.
  if (verdict === "success" || verdict === "not_executable") {
    category = null;
    firstFailingStep = null;
  }
  if (category !== null && !schema.categories.includes(category)) {
    throw new LabelValidationError(
      "category",
      `${JSON.stringify(category)} is not one of this campaign's categories (${schema.categories.map((c) => JSON.stringify(c)).join(", ")})`,
    );
  }
  if (verdict === "failure" && schema.requireCategory && category === null) {
    throw new LabelValidationError("category", "a failure needs an error category");
  }
  if (firstFailingStep !== null) {
    if (!schema.firstFailingStep) throw new LabelValidationError("firstFailingStep", "this campaign does not ask for a first failing step");
    if (!Number.isInteger(firstFailingStep) || firstFailingStep < 0 || firstFailingStep >= Math.max(stepCount, 1)) {
      throw new LabelValidationError("firstFailingStep", `must be a step index from 0 to ${Math.max(stepCount - 1, 0)}, got ${firstFailingStep}`);
    }
  }
  if (verdict === "failure" && schema.requireFailureStep && firstFailingStep === null) {
    throw new LabelValidationError("firstFailingStep", "a failure needs its failure point: the step where the agent went wrong");
  }
  let note = input.note ?? null;
  if (note !== null) {
    if (note.length > MAX_NOTE_LENGTH) throw new LabelValidationError("note", `is ${note.length} characters; the limit is ${MAX_NOTE_LENGTH}`);
    if (note.trim() === "") note = null;
  }
  if (verdict === "failure" && schema.requireReasoning && note === null) {
    throw new LabelValidationError("note", "a failure needs its reasoning: say why the trajectory failed");
  }
  const questions = schema.questions ?? [];
  if (!questions.length) {
    if (input.answers !== undefined && input.answers !== null && Object.keys(input.answers as object).length) {
      throw new LabelValidationError("answers", "this campaign asks no questions besides the verdict");
    }
    return { verdict, category, firstFailingStep, note };
  }
  let answers: LabelAnswers;
  try {
    answers = validateAnswers(questions, input.answers, verdict, stepCount);
  } catch (e) {
    if (e instanceof QuestionError) throw new LabelValidationError(e.field, e.message.slice(e.field.length + 2));
    throw e;
  }
  return { verdict, category, firstFailingStep, note, answers };
}

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

const VALUE_FIELDS = ["verdict", "category", "firstFailingStep", "note"] as const;

/** Fields that differ between two versions of a label (`before` null = the label is new). */
export function diffLabelValues(before: LabelValues | null, after: LabelValues | null): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const f of VALUE_FIELDS) {
    const from = before ? before[f] : null;
    const to = after ? after[f] : null;
    if (from !== to) changes.push({ field: f, from, to });
  }
  const fromAnswers = before?.answers ?? {};
  const toAnswers = after?.answers ?? {};
  for (const id of new Set([...Object.keys(fromAnswers), ...Object.keys(toAnswers)])) {
    const from = fromAnswers[id] ?? null;
    const to = toAnswers[id] ?? null;
    if (JSON.stringify(from) !== JSON.stringify(to)) changes.push({ field: `answers.${id}`, from, to });
  }
  // Marks are compared as a whole list: a revision shows the marks before and after, whichever mark moved.
  const fromMarks = before?.marks ?? [];
  const toMarks = after?.marks ?? [];
  if (JSON.stringify(fromMarks) !== JSON.stringify(toMarks)) changes.push({ field: "marks", from: fromMarks, to: toMarks });
  return changes;
}

export type Consolidation =
  { state: "open"; labelled: number; needed: number } | { state: "agreed"; values: LabelValues } | { state: "disputed"; reason: string };

/**
 * The consolidated outcome of one trajectory's labels. Until `needed` labels exist the item stays open. Then it
 * is agreed when every verdict is the same (and, when the schema says so, every failure's category), and
 * disputed otherwise; an "unsure" label always sends the item to an adjudicator, who can see why.
 *
 * An agreed failure keeps the shared category (or, when only verdicts must agree, the category most labels gave
 * if a strict majority did) and the earliest first failing step any annotator marked: it is where someone first
 * saw the trajectory go wrong, and each annotator's own step stays in their label.
 */
export function consolidate(values: readonly LabelValues[], needed: number, schema: LabelSchema): Consolidation {
  if (values.length < needed || values.length === 0) return { state: "open", labelled: values.length, needed };
  if (values.some((v) => v.verdict === "unsure")) return { state: "disputed", reason: "an annotator was unsure" };
  const verdicts = new Set(values.map((v) => v.verdict));
  if (verdicts.size > 1) return { state: "disputed", reason: "verdicts differ" };
  const verdict = values[0]!.verdict;
  if (verdict === "success" || verdict === "not_executable")
    return { state: "agreed", values: { verdict, category: null, firstFailingStep: null, note: null } };

  const categories = values.map((v) => v.category);
  let category: string | null;
  if (schema.agreementOn === "verdict_and_category") {
    if (new Set(categories).size > 1) return { state: "disputed", reason: "error categories differ" };
    category = categories[0] ?? null;
  } else {
    category = strictMajority(categories);
  }
  const steps = values.map((v) => v.firstFailingStep).filter((s): s is number => s !== null);
  const firstFailingStep = steps.length ? Math.min(...steps) : null;
  return { state: "agreed", values: { verdict, category, firstFailingStep, note: null } };
}

function strictMajority(values: (string | null)[]): string | null {
  const counts = new Map<string | null, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  for (const [v, n] of counts) if (n * 2 > values.length) return v;
  return null;
}

/**
 * A per-annotator salt for the order "next" hands out equally covered trajectories (FNV-1a of the user id, 30
 * bits so `(item id XOR salt) × 2654435761` stays inside SQLite's 64-bit integers). Different annotators walk the
 * campaign in different orders, so order effects do not line up across annotators.
 */
export function queueOrderSalt(userId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) {
    h ^= userId.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h & 0x3fffffff;
}

/** Union of two ascending step-index lists, ascending, without repeats. */
export function mergeStepsViewed(a: readonly number[] | null | undefined, b: readonly number[] | null | undefined): number[] | null {
  if (!a?.length && !b?.length) return a || b ? [] : null;
  return [...new Set([...(a ?? []), ...(b ?? [])])].sort((x, y) => x - y);
}
