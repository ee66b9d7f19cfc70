/**
 * A selection: the set of trajectories behind one figure of the analytics views, written as conditions rather than
 * as a list of ids, so a cell of 40,000 trajectories still travels in a short link. The views attach one to every
 * number they show; /analytics/trajectories resolves it (with the same code that computed the number, so n and the
 * list always match) and lists the trajectories.
 *
 * Conditions combine with AND. Absent fields do not constrain. `site: null` means "tasks without a site".
 * Links carry it as base64url-encoded JSON (`?sel=…`).
 */
import { ValidationError } from "../../errors";
import { z } from "zod";
import { LABEL_VERDICTS } from "../annotation/label-schema";
import { VERDICT_VALUES } from "../evaluation/verdicts";

export const DIFFICULTY_DIMENSIONS = ["overall", "reasoning", "visual"] as const;
export type DifficultyDimension = (typeof DIFFICULTY_DIMENSIONS)[number];

const id = z.number().int().positive();
const shortText = z.string().max(500);
const range = z.object({ min: z.number().int().nonnegative().optional(), max: z.number().int().nonnegative().optional() }).strict();

/** A human reference (ReferenceSpec in reference.ts) as the API takes it. */
export const referenceSpecSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("consolidated") }).strict(),
  z.object({ kind: z.literal("majority") }).strict(),
  z.object({ kind: z.literal("annotator"), annotator: z.string().min(1).max(300) }).strict(),
]);

export const evaluatorIdentitySchema = z
  .object({
    key: z.string().min(1).max(500),
    k: z.string().max(50),
    pv: z.string().max(200),
  })
  .strict();
export type EvaluatorIdentity = z.infer<typeof evaluatorIdentitySchema>;

export const selectionSchema = z
  .object({
    taskSetId: id.optional(),
    runId: id.optional(),
    site: shortText.nullable().optional(),
    /** Trajectories of tasks flagged in the validity ledger count too (they are left out unless this is true). */
    includeFlagged: z.boolean().optional(),
    difficulty: z
      .object({ dim: z.enum(DIFFICULTY_DIMENSIONS), value: shortText.nullable() })
      .strict()
      .optional(),
    /** A task attribute (a field the source's task file carried) has this value; `value: null` = tasks without it. */
    attribute: z
      .object({ name: z.string().min(1).max(100), value: z.string().max(200).nullable() })
      .strict()
      .optional(),
    /** Step count within [min, max]. */
    steps: range.optional(),
    /** An evaluator's verdict on the trajectory is one of `verdicts`. */
    evaluator: evaluatorIdentitySchema
      .extend({ verdicts: z.array(z.enum(VERDICT_VALUES)).min(1).max(4) })
      .strict()
      .optional(),
    /**
     * The consolidated human label (of `campaignId`, else the latest campaign's) matches. `category: null` means
     * "a failure without a category"; `step` is the first failing step's index, `position` its decile 1–10 of the
     * trajectory ((step + 1) / step count).
     */
    reference: z
      .object({
        campaignId: id.optional(),
        verdicts: z.array(z.enum(LABEL_VERDICTS)).min(1).max(3).optional(),
        category: shortText.nullable().optional(),
        step: range.optional(),
        position: z.number().int().min(1).max(10).optional(),
        /** The human reference: consolidated labels (absent), the annotators' majority, or one annotator's labels. */
        source: referenceSpecSchema.optional(),
      })
      .strict()
      .optional(),
    /**
     * Items of an annotation campaign with at least one active label. `annotators`: every listed annotator gave a
     * success/failure label. `label`: one of them (anyone, when none is listed) gave that combined label.
     * `minLabels`: at least that many success/failure labels. `disagree`: the considered labels are not all the
     * same, at `level` "label" (combined label, "unsure" a value of its own; the default) or "verdict"
     * (success/failure only).
     */
    campaign: z
      .object({
        campaignId: id,
        annotators: z.array(z.string().min(1).max(300)).max(2).optional(),
        label: shortText.optional(),
        minLabels: z.number().int().min(1).max(100).optional(),
        disagree: z.boolean().optional(),
        level: z.enum(["verdict", "label"]).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export type Selection = z.infer<typeof selectionSchema>;

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("not base64url text");
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  const binary = atob(padded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}

/** Drops undefined fields and empty objects so that equal selections encode to the same text. */
function compact(sel: Selection): Selection {
  return JSON.parse(JSON.stringify(sel)) as Selection;
}

export function encodeSelection(sel: Selection): string {
  return toBase64Url(JSON.stringify(compact(sel)));
}

export class SelectionError extends ValidationError {
  constructor(message: string) {
    super(message);
    this.name = "SelectionError";
  }
}

/** Parses a `sel` parameter; throws SelectionError naming what is wrong. */
export function decodeSelection(text: string): Selection {
  let json: unknown;
  try {
    json = JSON.parse(fromBase64Url(text));
  } catch (e) {
    throw new SelectionError(`sel: not a selection link (${(e as Error).message})`);
  }
  const parsed = selectionSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SelectionError(`sel.${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  return parsed.data;
}

/** The drill-down page of a selection. */
export function selectionHref(sel: Selection): string {
  return `/analytics/trajectories?sel=${encodeSelection(sel)}`;
}

export interface SelectionNames {
  run?: (id: number) => string | undefined;
  taskSet?: (id: number) => string | undefined;
  campaign?: (id: number) => string | undefined;
  evaluator?: (e: EvaluatorIdentity) => string | undefined;
  annotator?: (key: string) => string | undefined;
}

function listWords(values: readonly string[]): string {
  return values.length <= 1 ? (values[0] ?? "") : `${values.slice(0, -1).join(", ")} or ${values[values.length - 1]}`;
}

function rangeText(r: { min?: number; max?: number }): string {
  if (r.min !== undefined && r.max !== undefined) return r.min === r.max ? `${r.min}` : `${r.min}–${r.max}`;
  if (r.min !== undefined) return `≥ ${r.min}`;
  if (r.max !== undefined) return `≤ ${r.max}`;
  return "any";
}

/** One line per condition, for the drill-down page's heading. */
export function describeSelection(sel: Selection, names: SelectionNames = {}): string[] {
  const out: string[] = [];
  if (sel.taskSetId !== undefined) out.push(`task set ${names.taskSet?.(sel.taskSetId) ?? `#${sel.taskSetId}`}`);
  if (sel.runId !== undefined) out.push(`run ${names.run?.(sel.runId) ?? `#${sel.runId}`}`);
  if (sel.site !== undefined) out.push(sel.site === null ? "tasks without a site" : `site ${sel.site}`);
  if (sel.difficulty) out.push(`${sel.difficulty.dim} difficulty ${sel.difficulty.value ?? "not given"}`);
  if (sel.attribute) out.push(sel.attribute.value === null ? `tasks without ${sel.attribute.name}` : `${sel.attribute.name} = ${sel.attribute.value}`);
  if (sel.steps) out.push(`${rangeText(sel.steps)} steps`);
  if (sel.evaluator) {
    const e = sel.evaluator;
    const name = names.evaluator?.(e) ?? `${e.key}${e.k ? ` (k = ${e.k})` : ""}`;
    out.push(`${name} said ${listWords(e.verdicts.map((v) => v.replace("_", " ")))}`);
  }
  if (sel.reference) {
    const r = sel.reference;
    const campaign = r.campaignId !== undefined ? ` in ${names.campaign?.(r.campaignId) ?? `campaign #${r.campaignId}`}` : "";
    const verdicts = r.verdicts ? listWords(r.verdicts) : "labelled";
    const source =
      r.source?.kind === "majority"
        ? "majority of the annotators"
        : r.source?.kind === "annotator"
          ? `label of ${names.annotator?.(r.source.annotator) ?? r.source.annotator}`
          : "consolidated human label";
    let text = `${source}${campaign}: ${verdicts}`;
    if (r.category !== undefined) text += r.category === null ? ", no error category" : `, category ${r.category}`;
    if (r.step) text += `, first failing step ${rangeText(r.step)}`;
    if (r.position !== undefined) text += `, first failing step in the ${(r.position - 1) * 10}–${r.position * 10}% part of the trajectory`;
    out.push(text);
  }
  if (sel.campaign) {
    const c = sel.campaign;
    let text = names.campaign?.(c.campaignId) ?? `campaign #${c.campaignId}`;
    if (c.annotators?.length) text += `, labelled by ${c.annotators.map((a) => names.annotator?.(a) ?? a).join(" and ")}`;
    if (c.minLabels !== undefined) text += `, with ≥ ${c.minLabels} success/failure labels`;
    if (c.label !== undefined) text += `, labelled “${c.label}”${c.annotators?.length ? " by one of them" : " by someone"}`;
    if (c.disagree) {
      const what = c.level === "verdict" ? "verdict" : "label";
      text += c.annotators?.length ? `, where they give different ${what}s` : `, where the ${what}s differ`;
    }
    out.push(text);
  }
  if (out.length === 0) out.push("all trajectories");
  return out;
}
