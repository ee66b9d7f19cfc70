/**
 * VisualWebArena's evaluator router: runs every eval type a task's config lists and combines them the way VWA
 * does (the task score is the product of the type scores, so PASS needs every type to pass).
 *
 * On a recorded trajectory only `string_match` (final answer) and `url_match` (final URL) can be decided.
 * `program_html` (JavaScript locators on the final page) and `page_image_query` (images on the final page, VQA or
 * SSIM against a reference) need the live page: the live runner passes `live` capabilities at the end of a run
 * and this same module applies the checks; without them those types report not_evaluable, never a guess.
 */
import { parseVwaEvalConfig, type VwaEvalConfig, type VwaEvalType, type VwaPageImageQuery } from "./config";
import type { FuzzyMatcher } from "./fuzzy-prompt";
import { summarise, type CheckDetail, type EvalTypeResult } from "./results";
import { OR_SEPARATOR, compareInequality, evaluateStringMatch, exactMatch, mustExclude, mustInclude, parseInteger } from "./string-match";
import { evaluateUrlMatch, resolvePlaceholders } from "./url-match";

/** Stored with every rule verdict; bump when a check's behaviour changes. */
export const VWA_RULES_VERSION = "vwa-rules-v1";

/** VWA's default SSIM threshold for fuzzy image matches. */
export const DEFAULT_SSIM_THRESHOLD = 0.8;

export interface VwaTrajectoryFacts {
  intent: string;
  finalAnswer: string | null;
  /** URL of the page the agent ended on. */
  finalUrl: string | null;
}

/** What a live page offers at the end of a run. Each returns undefined when it cannot serve that request. */
export interface LivePage {
  /**
   * Content a program_html locator selects: the page HTML for an empty locator, the value of a `document.…`
   * expression, or a helper's result. null = nothing selected (VWA then scores 0). undefined = unsupported here.
   */
  locate?(target: { url: string; locator: string; prepActions: string[] }): Promise<string | null | undefined>;
  /** Encoded images under a CSS selector on a page ("last" = the final page). undefined = unsupported. */
  pageImages?(target: { url: string; selector: string }): Promise<Uint8Array[] | undefined>;
  /** A visual question answered for each image. undefined = no VQA model. */
  vqa?(images: Uint8Array[], question: string): Promise<string[] | undefined>;
}

export interface VwaEvaluatorDeps {
  /** LLM grading for fuzzy_match and unachievable tasks. */
  fuzzy?: FuzzyMatcher;
  /** Base URL per site placeholder ("__REDDIT__" or "REDDIT" → "http://127.0.0.1:9999"). */
  siteUrls?: Record<string, string>;
  live?: LivePage;
  /** Loads an eval_fuzzy_image_match reference (URL or path, placeholders resolved); null = unavailable. */
  referenceImage?(spec: string): Promise<Uint8Array | null>;
  /** SSIM of two encoded images brought to a common size (the service decodes with sharp). */
  imageSimilarity?(a: Uint8Array, b: Uint8Array): Promise<number>;
}

export type RuleVerdict = "success" | "failure" | "not_evaluable";

export interface VwaEvaluation {
  verdict: RuleVerdict;
  /** 1 (PASS) or 0, as VWA scores it; null when not evaluable. */
  score: number | null;
  types: EvalTypeResult[];
  /** Why not evaluable. */
  reason?: string;
  version: string;
}

const LIVE_ONLY: Record<"program_html" | "page_image_query", string> = {
  program_html: "program_html runs JavaScript locators on the final page, which a recorded trajectory does not keep",
  page_image_query: "page_image_query inspects images on the final page, which a recorded trajectory does not keep",
};

// ---- program_html ----

/** VWA checks only the first of these keys present in required_contents. */
function checkRequiredContents(required: unknown, content: string): { checks: CheckDetail[]; fuzzy: string[] } {
  const rc = (required && typeof required === "object" && !Array.isArray(required) ? required : {}) as Record<string, unknown>;
  const checks: CheckDetail[] = [];
  if (typeof rc.exact_match === "string") {
    checks.push({ check: "exact_match", reference: rc.exact_match, observed: content, passed: exactMatch(rc.exact_match, content) });
  } else if (Array.isArray(rc.must_include)) {
    for (const item of rc.must_include as string[]) {
      checks.push({
        check: "must_include",
        reference: item,
        observed: content.slice(0, 500),
        passed: item.split(OR_SEPARATOR).some((alt) => mustInclude(alt, content)),
      });
    }
  } else if (Array.isArray(rc.must_exclude)) {
    for (const item of rc.must_exclude as string[]) {
      checks.push({ check: "must_exclude", reference: item, observed: content.slice(0, 500), passed: mustExclude(item, content) });
    }
  } else if (Array.isArray(rc.required_values)) {
    const value = parseInteger(content);
    for (const item of rc.required_values as string[]) {
      checks.push(
        value === null
          ? { check: "required_values", reference: item, observed: content.slice(0, 100), passed: false, note: "not an integer" }
          : { check: "required_values", reference: item, observed: value, passed: item.split(OR_SEPARATOR).some((q) => compareInequality(value, q)) },
      );
    }
  } else if (typeof rc.fuzzy_match === "string") {
    return { checks, fuzzy: rc.fuzzy_match.split(OR_SEPARATOR) };
  } else {
    checks.push({ check: "program_html", passed: null, note: `unknown required_contents ${JSON.stringify(Object.keys(rc))}` });
  }
  return { checks, fuzzy: [] };
}

async function evaluateProgramHtml(config: VwaEvalConfig, facts: VwaTrajectoryFacts, deps: VwaEvaluatorDeps): Promise<EvalTypeResult> {
  const entries = config.program_html ?? [];
  if (!deps.live?.locate) {
    return summarise("program_html", [{ check: "program_html", passed: null, note: LIVE_ONLY.program_html }]);
  }
  const checks: CheckDetail[] = [];
  for (const entry of entries) {
    const url = resolvePlaceholders(entry.url, deps.siteUrls ?? {}, null).text;
    const content = await deps.live.locate({ url, locator: entry.locator ?? "", prepActions: entry.prep_actions ?? [] });
    if (content === undefined) {
      checks.push({ check: "program_html", reference: entry.locator, passed: null, note: `locator not supported here: ${entry.locator}` });
      continue;
    }
    if (content === null) {
      checks.push({ check: "program_html", reference: entry.locator, observed: null, passed: false, note: "nothing selected on the page" });
      break;
    }
    const { checks: found, fuzzy } = checkRequiredContents(entry.required_contents, content);
    checks.push(...found);
    for (const reference of fuzzy) {
      if (!deps.fuzzy) {
        checks.push({ check: "fuzzy_match", reference, passed: null, note: "fuzzy_match needs a judge endpoint (fuzzy matcher)" });
        continue;
      }
      const r = await deps.fuzzy({ kind: "semantic", intent: facts.intent, reference, prediction: content });
      checks.push({
        check: "fuzzy_match",
        reference,
        observed: content.slice(0, 500),
        passed: r.match,
        note: r.match === null ? "judge reply unparseable" : undefined,
      });
    }
  }
  return summarise("program_html", checks, "program_html lists no checks");
}

// ---- page_image_query ----

async function evaluateImageQuery(query: VwaPageImageQuery, deps: VwaEvaluatorDeps): Promise<CheckDetail[]> {
  const selector = query.eval_image_class;
  const images = deps.live?.pageImages
    ? await deps.live.pageImages({ url: resolvePlaceholders(query.eval_image_url, deps.siteUrls ?? {}, null).text, selector })
    : undefined;
  if (images === undefined) {
    return [{ check: "page_image_query", reference: selector, passed: null, note: LIVE_ONLY.page_image_query }];
  }
  if (images.length === 0) {
    return [{ check: "page_image_query", reference: selector, observed: 0, passed: false, note: "no image under the selector" }];
  }
  const checks: CheckDetail[] = [];
  for (const qa of query.eval_vqa ?? []) {
    const answers = deps.live?.vqa ? await deps.live.vqa(images, qa.question) : undefined;
    if (answers === undefined) {
      checks.push({ check: "vqa", reference: `${qa.question} → ${qa.answer}`, passed: null, note: "needs a visual question answering model" });
      continue;
    }
    const want = qa.answer.toLowerCase();
    checks.push({
      check: "vqa",
      reference: `${qa.question} → ${qa.answer}`,
      observed: answers.join(" | "),
      passed: answers.some((a) => a.toLowerCase().includes(want)),
    });
  }
  if (query.eval_fuzzy_image_match !== undefined) {
    checks.push(await fuzzyImageCheck(query, images, deps));
  }
  return checks;
}

async function fuzzyImageCheck(query: VwaPageImageQuery, images: Uint8Array[], deps: VwaEvaluatorDeps): Promise<CheckDetail> {
  const spec = query.eval_fuzzy_image_match ?? "";
  const threshold = query.ssim_threshold ?? DEFAULT_SSIM_THRESHOLD;
  const base = { check: "image_match", reference: spec };
  if (!deps.referenceImage || !deps.imageSimilarity) {
    return { ...base, passed: null, note: "comparing images needs a reference image loader and SSIM" };
  }
  const refs: Uint8Array[] = [];
  for (const one of spec.split(OR_SEPARATOR)) {
    const resolved = resolvePlaceholders(one.trim(), deps.siteUrls ?? {}, null);
    const bytes = resolved.text ? await deps.referenceImage(resolved.text) : null;
    if (bytes) refs.push(bytes);
  }
  if (refs.length === 0) return { ...base, passed: null, note: `reference image unavailable: ${JSON.stringify(spec)}` };
  let best = -Infinity;
  for (const ref of refs) {
    for (const img of images) best = Math.max(best, await deps.imageSimilarity(img, ref));
  }
  return { ...base, observed: Number(best.toFixed(6)), passed: best > threshold, note: `SSIM threshold ${threshold}` };
}

async function evaluatePageImageQuery(config: VwaEvalConfig, deps: VwaEvaluatorDeps): Promise<EvalTypeResult> {
  const checks: CheckDetail[] = [];
  for (const query of config.page_image_query ?? []) {
    const found = await evaluateImageQuery(query, deps);
    checks.push(...found);
    // VWA returns 0 as soon as a query finds no image.
    if (found.some((c) => c.passed === false && c.check === "page_image_query")) break;
  }
  return summarise("page_image_query", checks);
}

// ---- router ----

export interface VwaEvaluator {
  config: VwaEvalConfig;
  types: VwaEvalType[];
  /** Types that a recorded trajectory can decide (string_match, url_match). */
  offlineTypes: VwaEvalType[];
  evaluate(facts: VwaTrajectoryFacts, deps?: VwaEvaluatorDeps): Promise<VwaEvaluation>;
}

/** Validates a task's evaluator config and returns its evaluator; throws VwaConfigError naming `where` and the field. */
export function buildVwaEvaluator(rawConfig: unknown, where: string): VwaEvaluator {
  const config = parseVwaEvalConfig(rawConfig, where);
  const types = [...new Set(config.eval_types)];
  return {
    config,
    types,
    offlineTypes: types.filter((t) => t === "string_match" || t === "url_match"),
    evaluate: (facts, deps = {}) => evaluateVwa(config, types, facts, deps),
  };
}

async function evaluateVwa(config: VwaEvalConfig, types: VwaEvalType[], facts: VwaTrajectoryFacts, deps: VwaEvaluatorDeps): Promise<VwaEvaluation> {
  const results = new Map<VwaEvalType, EvalTypeResult>();
  // Deterministic checks first, so LLM calls can be skipped once the score is already 0.
  if (types.includes("url_match")) {
    results.set(
      "url_match",
      evaluateUrlMatch({
        referenceUrl: config.reference_url ?? "",
        urlNote: config.url_note,
        finalUrl: facts.finalUrl,
        siteUrls: deps.siteUrls,
      }),
    );
  }
  if (types.includes("string_match")) {
    const reference = config.reference_answers && !Array.isArray(config.reference_answers) ? config.reference_answers : {};
    results.set(
      "string_match",
      await evaluateStringMatch({
        intent: facts.intent,
        finalAnswer: facts.finalAnswer,
        reference,
        stringNote: config.string_note,
        fuzzy: deps.fuzzy,
        alreadyFailed: results.get("url_match")?.status === "fail",
      }),
    );
  }
  if (types.includes("program_html")) results.set("program_html", await evaluateProgramHtml(config, facts, deps));
  if (types.includes("page_image_query")) results.set("page_image_query", await evaluatePageImageQuery(config, deps));

  const ordered = types.map((t) => results.get(t)!);
  if (ordered.some((r) => r.status === "fail")) return { verdict: "failure", score: 0, types: ordered, version: VWA_RULES_VERSION };
  const open = ordered.filter((r) => r.status === "not_evaluable");
  if (open.length > 0) {
    return {
      verdict: "not_evaluable",
      score: null,
      types: ordered,
      reason: open.map((r) => `${r.type}: ${r.reason}`).join("; "),
      version: VWA_RULES_VERSION,
    };
  }
  return { verdict: "success", score: 1, types: ordered, version: VWA_RULES_VERSION };
}
