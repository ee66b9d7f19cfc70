/**
 * Vocabulary shared by every automatic evaluator: what a verdict can be, who produced it, and how a judge's
 * screenshot window k is written. Pure; imported by the schema for its JSON column types.
 */

/**
 * success / failure: the evaluator decided.
 * unparseable: an LMM judge replied, but not in the form its prompt asked for; counted apart, never guessed.
 * not_evaluable: the evaluator cannot decide on this trajectory (a rule that needs the live page, a missing answer
 * or URL, a fuzzy check without a judge endpoint); the reason is recorded.
 */
export const VERDICT_VALUES = ["success", "failure", "unparseable", "not_evaluable"] as const;
export type VerdictValue = (typeof VERDICT_VALUES)[number];

/**
 * What a staged judge protocol grades besides its verdict: a key point of the task (key-point protocol), an outcome
 * criterion or a process criterion (rubric protocol).
 */
export const CRITERION_KINDS = ["key_point", "outcome", "process"] as const;
export type CriterionKind = (typeof CRITERION_KINDS)[number];

/** met: the judge said MET / PASS; not_met: NOT MET / FAIL; unparseable: the reply gave no clear grade for it. */
export const CRITERION_RESULTS = ["met", "not_met", "unparseable"] as const;
export type CriterionResult = (typeof CRITERION_RESULTS)[number];

/** rule: a benchmark's programmatic check; judge: an LMM judge; human: a person's grade imported from elsewhere. */
export const EVALUATOR_KINDS = ["rule", "judge", "human"] as const;
export type EvaluatorKind = (typeof EVALUATOR_KINDS)[number];

/** verdict: computed by Verdict itself; import: read from another system's output. */
export const VERDICT_ORIGINS = ["verdict", "import"] as const;
export type VerdictOrigin = (typeof VERDICT_ORIGINS)[number];

/** How many of the last screenshots a judge sees: a positive count, or the whole trajectory. */
export type JudgeK = number | "full";

/** "1", "3", "full". The empty string stands for "not applicable" (rules, imports) in the verdicts table. */
export function formatK(k: JudgeK): string {
  return k === "full" ? "full" : String(k);
}

/** Parses one k value ("1", "full"); throws a message naming the bad value. */
export function parseK(text: string): JudgeK {
  const t = text.trim().toLowerCase();
  if (t === "full" || t === "all") return "full";
  if (!/^\d+$/.test(t) || Number(t) < 1 || Number(t) > 1000) {
    throw new Error(`k must be a positive whole number or "full", got ${JSON.stringify(text)}`);
  }
  return Number(t);
}

/** Parses "1,3,full" into distinct k values, in the order given. */
export function parseKList(text: string): JudgeK[] {
  const parts = text
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  if (parts.length === 0) throw new Error(`k list is empty (expected e.g. "1,3,full")`);
  const out: JudgeK[] = [];
  for (const p of parts) {
    const k = parseK(p);
    if (!out.includes(k)) out.push(k);
  }
  return out;
}

/** Options that change what a judge is shown, stored with its configuration. */
export interface JudgeOptions {
  /** Add the agent's actions, one line per step, as text. */
  includeActionHistory: boolean;
  /** Add each step's thought (reasoning) to the action history; needs includeActionHistory. */
  includeThoughts: boolean;
  /** Which screenshot to send when a step has both: the Set-of-Marks annotated one or the unmarked one. */
  screenshots: "marked" | "raw";
  /** OpenAI image_url detail. */
  imageDetail: "auto" | "low" | "high";
  /** Longest side in pixels; larger screenshots are shrunk (never enlarged) before sending. Null = as stored. */
  maxImageSide: number | null;
  /**
   * Ask the judge, when it says failure, for the first step that went wrong ("First failing step: N"). Changes the
   * prompt: verdicts record the prompt version with "+first-step".
   */
  askFirstFailingStep?: boolean;
  /**
   * Judge hygiene (Online-Mind2Web): leave the agent's final answer out of the prompt, so the judge decides from the
   * screenshots and actions alone. Verdicts record the prompt version with "+no-answer".
   */
  withoutFinalAnswer?: boolean;
  /**
   * Ask the judge to cite the steps (and regions) its verdict rests on ("Evidence: step N [x1, y1, x2, y2] — …").
   * The staged protocols always ask; for the WebVoyager prompt it is an option and verdicts record "+cite".
   */
  askCitations?: boolean;
  /** Key-point protocol: the lowest relevance score (1–5) a screenshot needs to be shown for the outcome (WebJudge: 3). */
  relevanceThreshold?: number;
}

export const DEFAULT_JUDGE_OPTIONS: JudgeOptions = {
  includeActionHistory: false,
  includeThoughts: false,
  screenshots: "marked",
  imageDetail: "auto",
  maxImageSide: null,
};
