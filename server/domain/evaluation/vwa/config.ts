/**
 * VisualWebArena's per-task evaluator configuration (the `eval` object of a task config), validated.
 *
 * Tasks keep the object verbatim in `tasks.evaluator_config`; evaluators parse it here so a malformed config is
 * reported with the field that is wrong instead of failing half-way through an evaluation. Fields the checks do
 * not use pass through untouched.
 */
import { ValidationError } from "../../../errors";
import { z } from "zod";

export const VWA_EVAL_TYPES = ["string_match", "url_match", "program_html", "page_image_query"] as const;
export type VwaEvalType = (typeof VWA_EVAL_TYPES)[number];

const stringList = z.array(z.string());

const referenceAnswersSchema = z
  .object({
    exact_match: z.string().optional(),
    must_include: stringList.optional(),
    must_exclude: stringList.optional(),
    one_of: stringList.optional(),
    /** "N/A" marks an unachievable task; otherwise reference answers judged for meaning. */
    fuzzy_match: z.union([z.string(), stringList]).optional(),
    required_values: stringList.optional(),
  })
  .strict();

const programHtmlSchema = z
  .object({
    url: z.string(),
    locator: z.string().optional(),
    required_contents: z.unknown(),
    prep_actions: z.array(z.string()).optional(),
  })
  .passthrough();

const pageImageQuerySchema = z
  .object({
    eval_image_url: z.string(),
    eval_image_class: z.string(),
    eval_vqa: z.array(z.object({ question: z.string(), answer: z.string() })).optional(),
    eval_fuzzy_image_match: z.string().optional(),
    ssim_threshold: z.number().min(0).max(1).optional(),
  })
  .passthrough();

export const vwaEvalConfigSchema = z
  .object({
    eval_types: z.array(z.enum(VWA_EVAL_TYPES)).min(1),
    reference_answers: z.union([referenceAnswersSchema, z.null(), z.array(z.never())]).optional(),
    reference_url: z.string().nullish(),
    url_note: z.string().nullish(),
    string_note: z.string().nullish(),
    program_html: z.array(programHtmlSchema).nullish(),
    page_image_query: z.array(pageImageQuerySchema).nullish(),
    reference_answer_raw_annotation: z.string().nullish(),
  })
  .passthrough()
  .superRefine((c, ctx) => {
    if (c.eval_types.includes("string_match") && (!c.reference_answers || Array.isArray(c.reference_answers))) {
      ctx.addIssue({ code: "custom", path: ["reference_answers"], message: "string_match needs a reference_answers object" });
    }
    if (c.eval_types.includes("url_match") && !c.reference_url) {
      ctx.addIssue({ code: "custom", path: ["reference_url"], message: "url_match needs a reference_url" });
    }
    if (c.eval_types.includes("page_image_query") && !(c.page_image_query && c.page_image_query.length > 0)) {
      ctx.addIssue({ code: "custom", path: ["page_image_query"], message: "page_image_query needs at least one query" });
    }
    for (const [i, q] of (c.page_image_query ?? []).entries()) {
      if (!(q.eval_vqa && q.eval_vqa.length > 0) && q.eval_fuzzy_image_match === undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["page_image_query", i],
          message: "a page_image_query needs eval_vqa questions or eval_fuzzy_image_match",
        });
      }
    }
  });

export type VwaEvalConfig = z.infer<typeof vwaEvalConfigSchema>;
export type VwaReferenceAnswers = z.infer<typeof referenceAnswersSchema>;
export type VwaPageImageQuery = z.infer<typeof pageImageQuerySchema>;

/** A config that cannot be evaluated as written; `where` names the task or file, `field` the offending path. */
export class VwaConfigError extends ValidationError {
  constructor(
    readonly where: string,
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${where}: evaluator config ${field ? `field "${field}" ` : ""}${problem}`);
    this.name = "VwaConfigError";
  }
}

/**
 * Accepts either the `eval` object itself (what tasks store) or a whole task config holding one under `eval`.
 */
export function parseVwaEvalConfig(raw: unknown, where: string): VwaEvalConfig {
  if (raw == null) throw new VwaConfigError(where, "", "is missing");
  const obj = typeof raw === "object" && !Array.isArray(raw) && "eval" in raw && !("eval_types" in raw) ? (raw as { eval: unknown }).eval : raw;
  const parsed = vwaEvalConfigSchema.safeParse(obj);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path
      .map((p) => (typeof p === "number" ? `[${p}]` : String(p)))
      .join(".")
      .replace(/\.\[/g, "[");
    throw new VwaConfigError(where, field, issue.message);
  }
  return parsed.data;
}

/** True when the value looks like a VWA evaluator config (has eval_types), without validating it. */
export function looksLikeVwaEvalConfig(raw: unknown): boolean {
  if (!raw || typeof raw !== "object") return false;
  const o = raw as Record<string, unknown>;
  return Array.isArray(o.eval_types) || (typeof o.eval === "object" && o.eval !== null && Array.isArray((o.eval as Record<string, unknown>).eval_types));
}
