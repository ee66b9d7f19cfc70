/**
 * The LMM judge protocol, after WebVoyager's auto-evaluator: the judge sees the task, the agent's final answer
 * and the last k screenshots, reasons, then gives a binary verdict. Pure: builds the prompt as text and image
 * placeholders, parses replies, picks screenshots, estimates tokens. The judge service (server/services/evaluation)
 * turns placeholders into images and talks to the endpoint.
 *
 * The prompt is Verdict's own and versioned: every stored verdict records the version that produced it, and a
 * changed prompt gets a new version so old verdicts stay interpretable.
 */
import type { ParsedAction } from "../types";
import { CITATION_INSTRUCTIONS } from "./citations";
import type { JudgeK, JudgeOptions, VerdictValue } from "./verdicts";

export const JUDGE_PROMPT_VERSIONS = ["verdict-judge-v1", "verdict-keypoints-v1", "verdict-rubric-v1"] as const;
export type JudgePromptVersion = (typeof JUDGE_PROMPT_VERSIONS)[number];
export const CURRENT_JUDGE_PROMPT_VERSION: JudgePromptVersion = "verdict-judge-v1";

export function isJudgePromptVersion(v: string): v is JudgePromptVersion {
  return (JUDGE_PROMPT_VERSIONS as readonly string[]).includes(v);
}

/**
 * The built-in judge protocols a configuration chooses from. Each is a prompt version of its own, so verdicts of
 * different protocols never replace each other. The WebVoyager one asks once; the staged ones (server/domain/
 * evaluation/staged-protocols.ts) ask in several calls and grade criteria on the way to the verdict.
 */
export const JUDGE_PROTOCOLS = [
  {
    id: "webvoyager",
    promptVersion: "verdict-judge-v1",
    name: "WebVoyager",
    summary: "The task, the answer and the last k screenshots; one call, one verdict.",
  },
  {
    id: "key-points",
    promptVersion: "verdict-keypoints-v1",
    name: "Key points (WebJudge)",
    summary: "Key points from the task, each screenshot scored 1–5 for relevance, those at or above the threshold judged with the key points.",
  },
  {
    id: "rubric",
    promptVersion: "verdict-rubric-v1",
    name: "Rubric (process and outcome)",
    summary: "Criteria from the task, each graded PASS or FAIL; process apart from outcome; a failure's cause controllable or not.",
  },
] as const satisfies readonly { id: string; promptVersion: JudgePromptVersion; name: string; summary: string }[];
export type JudgeProtocolId = (typeof JUDGE_PROTOCOLS)[number]["id"];

/** The protocol a prompt version belongs to (the WebVoyager one for versions of earlier releases). */
export function protocolOfVersion(version: string): JudgeProtocolId {
  return JUDGE_PROTOCOLS.find((p) => p.promptVersion === version)?.id ?? "webvoyager";
}

/** The prompt version of a protocol given by its id ("key-points") or its version; throws naming the known ones. */
export function promptVersionOfProtocol(text: string): JudgePromptVersion {
  const found = JUDGE_PROTOCOLS.find((p) => p.id === text || p.promptVersion === text);
  if (!found) throw new Error(`unknown judge protocol ${JSON.stringify(text)} (known: ${JUDGE_PROTOCOLS.map((p) => p.id).join(", ")})`);
  return found.promptVersion;
}

export interface JudgeStep {
  /** The step's stored index. */
  index: number;
  url: string | null;
  thought: string | null;
  actionRaw: string | null;
  action: ParsedAction;
  /** Whether a screenshot can be sent for this step (after choosing marked or raw). */
  hasScreenshot: boolean;
}

export interface JudgeInput {
  intent: string;
  finalAnswer: string | null;
  /** All steps in order. */
  steps: JudgeStep[];
}

export type PromptPart = { type: "text"; text: string } | { type: "image"; stepIndex: number };

export interface JudgePrompt {
  version: JudgePromptVersion;
  system: string;
  /** The user message: text and image placeholders in order. */
  parts: PromptPart[];
  /** Step indices whose screenshots the parts reference, oldest first. */
  stepIndices: number[];
}

/** The last k steps that have a screenshot (all of them for "full"), oldest first. Steps without one are skipped. */
export function selectScreenshotSteps(steps: Pick<JudgeStep, "index" | "hasScreenshot">[], k: JudgeK): number[] {
  const withImage = steps.filter((s) => s.hasScreenshot).map((s) => s.index);
  if (k === "full") return withImage;
  return withImage.slice(Math.max(0, withImage.length - k));
}

const MAX_THOUGHT_CHARS = 600;
const MAX_ACTION_CHARS = 300;

function clip(text: string, max: number): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** One readable line for an action: the agent's own text when recorded, else the parsed form. */
export function describeAction(action: ParsedAction, actionRaw: string | null): string {
  if (actionRaw && actionRaw.trim()) return clip(actionRaw, MAX_ACTION_CHARS);
  let s: string = action.type;
  if (action.target) s += ` [${action.target}]`;
  if (action.direction) s += ` ${action.direction}`;
  if (action.value) s += ` "${action.value}"`;
  if (action.coords) s += ` at (${action.coords[0]}, ${action.coords[1]})`;
  return clip(s, MAX_ACTION_CHARS);
}

const SYSTEM_V1 = [
  "You evaluate web-browsing agents. An agent was given a task to carry out in a web browser. You are shown the task,",
  "the final answer the agent reported, and screenshots of the browser from the agent's last steps, oldest first.",
  "Sometimes you also get the list of actions the agent took.",
  "",
  "Decide whether the agent accomplished the task.",
  "- The screenshots are your evidence. When the agent's answer and the screenshots disagree, believe the screenshots.",
  "- Every part of the task counts: conditions such as a price limit, a date, a quantity or a place must all hold.",
  "- A question is answered only if the answer is correct and supported by, or at least consistent with, what the",
  "  screenshots show. A task asking the agent to do something on a site is done only if the screenshots show it done.",
  "- A vague, partly correct or unsupported answer is a failure, and so is giving up.",
  "- Do not reward effort, and do not hold a long but successful route against the agent.",
  "",
  "Answer in this form:",
  "Reasoning: <a few sentences weighing the evidence>",
  "Verdict: SUCCESS",
  "or, if the task was not accomplished,",
  "Verdict: FAILURE",
  "The verdict line comes last and holds exactly one of the two words.",
].join("\n");

/**
 * The prompt version verdicts record: the configuration's version plus a suffix per option that changes the prompt
 * ("verdict-judge-v1+first-step+no-answer"), so verdicts of differently asked judges never replace each other and
 * the judge's page lists them as separate settings.
 */
export function effectivePromptVersion(version: string, options: Pick<JudgeOptions, "askFirstFailingStep" | "withoutFinalAnswer" | "askCitations">): string {
  let v = version;
  if (options.askFirstFailingStep) v += "+first-step";
  if (options.withoutFinalAnswer) v += "+no-answer";
  // The staged protocols always ask for citations: only the WebVoyager prompt changes with the option.
  if (options.askCitations && version === "verdict-judge-v1") v += "+cite";
  return v;
}

/** The configuration version and options an effective prompt version stands for (null for a foreign string). */
export function parseEffectivePromptVersion(
  v: string,
): { version: string; askFirstFailingStep: boolean; withoutFinalAnswer: boolean; askCitations: boolean } | null {
  const [version, ...suffixes] = v.split("+");
  if (!version || suffixes.some((x) => x !== "first-step" && x !== "no-answer" && x !== "cite")) return null;
  return {
    version,
    askFirstFailingStep: suffixes.includes("first-step"),
    withoutFinalAnswer: suffixes.includes("no-answer"),
    askCitations: suffixes.includes("cite"),
  };
}

const FIRST_STEP_INSTRUCTIONS = [
  "",
  "If the task was not accomplished, also name the first step at which the agent went wrong (the step from which",
  "success was no longer reachable without undoing something), by its number as given above, on a line before the",
  "verdict line:",
  "First failing step: <number>",
].join("\n");

/**
 * The case as text, shared by every protocol: the task, the agent's final answer (or why it is not shown) and,
 * when asked for, the action history numbered from 1 with each step's page and thought.
 */
export function describeCase(input: JudgeInput, options: Pick<JudgeOptions, "includeActionHistory" | "includeThoughts" | "withoutFinalAnswer">): string {
  const total = input.steps.length;
  const answer = input.finalAnswer && input.finalAnswer.trim() ? input.finalAnswer.trim() : null;
  let head = `Task: ${input.intent.trim()}\n\n`;
  if (options.withoutFinalAnswer) head += "The agent's final answer is not shown: judge from the actions and screenshots alone.\n";
  else
    head += answer
      ? `Final answer reported by the agent: ${answer}\n`
      : "Final answer reported by the agent: (none; the agent stopped without reporting an answer)\n";
  if (options.includeActionHistory && total > 0) {
    head += `\nActions the agent took (${total} step${total === 1 ? "" : "s"}):\n`;
    input.steps.forEach((s, i) => {
      // Left out, the answer must not come back through the action that reported it.
      const reportsAnswer = options.withoutFinalAnswer && (s.action.type === "answer" || s.action.type === "report_infeasible");
      head += `Step ${i + 1}: ${reportsAnswer ? `${s.action.type === "answer" ? "ANSWER" : "REPORT INFEASIBLE"} (not shown)` : describeAction(s.action, s.actionRaw)}`;
      if (s.url) head += `  (page: ${clip(s.url, 200)})`;
      head += "\n";
      if (options.includeThoughts && s.thought && s.thought.trim()) head += `  Thought: ${clip(s.thought, MAX_THOUGHT_CHARS)}\n`;
    });
  }
  return head;
}

/** The line before a screenshot: its step number as the prompt counts steps, and its page. */
export function screenshotCaption(position: number, total: number, url: string | null): string {
  return `Step ${position} of ${total}${url ? ` (page: ${clip(url, 200)})` : ""}:`;
}

export function buildJudgePrompt(
  input: JudgeInput,
  k: JudgeK,
  options: Pick<JudgeOptions, "includeActionHistory" | "includeThoughts" | "askFirstFailingStep" | "withoutFinalAnswer" | "askCitations">,
  version: JudgePromptVersion = CURRENT_JUDGE_PROMPT_VERSION,
): JudgePrompt {
  if (version !== "verdict-judge-v1") throw new Error(`Prompt version ${JSON.stringify(version)} is asked in stages (staged-protocols.ts), not in one prompt`);
  const stepIndices = selectScreenshotSteps(input.steps, k);
  const total = input.steps.length;
  const position = new Map(input.steps.map((s, i) => [s.index, i + 1]));
  const parts: PromptPart[] = [];

  let head = describeCase(input, options);
  if (stepIndices.length === 0) {
    head += "\nNo screenshots were recorded for this trajectory.\n";
  } else if (k === "full" || stepIndices.length === input.steps.filter((s) => s.hasScreenshot).length) {
    head += `\nScreenshots of all ${stepIndices.length} recorded steps, oldest first:`;
  } else {
    head += `\nScreenshots of the last ${stepIndices.length} steps (of ${total}), oldest first:`;
  }
  parts.push({ type: "text", text: head });

  const byIndex = new Map(input.steps.map((s) => [s.index, s]));
  for (const idx of stepIndices) {
    const s = byIndex.get(idx)!;
    parts.push({ type: "text", text: screenshotCaption(position.get(idx)!, total, s.url) });
    parts.push({ type: "image", stepIndex: idx });
  }
  parts.push({
    type: "text",
    text: options.askFirstFailingStep
      ? `Was the task accomplished? Give your reasoning, then, if it was not, the first failing step (1 to ${total}), then the verdict line.`
      : "Was the task accomplished? Give your reasoning, then the verdict line.",
  });
  const system =
    (options.withoutFinalAnswer ? SYSTEM_V1.replace("the final answer the agent reported, and screenshots", "and screenshots") : SYSTEM_V1) +
    (options.askFirstFailingStep ? FIRST_STEP_INSTRUCTIONS : "") +
    (options.askCitations ? `\n\n${CITATION_INSTRUCTIONS}` : "");
  return { version, system, parts, stepIndices };
}

export interface ParsedJudgeReply {
  verdict: Extract<VerdictValue, "success" | "failure" | "unparseable">;
  /** The reasoning with the verdict line removed; the whole reply when unparseable. */
  rationale: string;
  /** Why a reply is unparseable. */
  problem?: string;
}

/** A line holding only the verdict, allowing markdown emphasis and a closing full stop around it. */
const VERDICT_LINE = /^[\s*_#>`-]*verdict[\s*_`]*:[\s*_`]*(success|failure)[\s*_`.!]*$/i;

/**
 * Strict parse: the reply must contain at least one line that is only "Verdict: SUCCESS" or "Verdict: FAILURE",
 * and all such lines must agree. Prose elsewhere ("the task was a success") is never read as a verdict.
 */
export function parseJudgeReply(reply: string | null | undefined): ParsedJudgeReply {
  const text = (reply ?? "").replace(/\r\n?/g, "\n");
  if (!text.trim()) return { verdict: "unparseable", rationale: "", problem: "empty reply" };
  const lines = text.split("\n");
  const found = new Set<"success" | "failure">();
  const keep: string[] = [];
  for (const line of lines) {
    const m = VERDICT_LINE.exec(line);
    if (m) found.add(m[1]!.toLowerCase() as "success" | "failure");
    else keep.push(line);
  }
  if (found.size === 0) return { verdict: "unparseable", rationale: text.trim(), problem: "no verdict line" };
  if (found.size > 1) return { verdict: "unparseable", rationale: text.trim(), problem: "conflicting verdict lines" };
  const rationale = keep
    .join("\n")
    .trim()
    .replace(/^[\s*_#]*reasoning[\s*_]*:[\s*_]*/i, "")
    .trim();
  return { verdict: [...found][0]!, rationale };
}

// ---- Token and cost estimates (used before a batch starts; real usage is recorded per verdict) ----

/**
 * Image input tokens by OpenAI's published rule for GPT-4o-class models: "low" = 85; otherwise fit within
 * 2048×2048, scale the short side down to 768, then 170 per 512-px tile + 85. Other providers count
 * differently, so this is an estimate only.
 */
export function estimateImageTokens(width: number, height: number, detail: JudgeOptions["imageDetail"]): number {
  if (detail === "low") return 85;
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shrink = Math.min(1, 768 / Math.min(w, h));
  w *= shrink;
  h *= shrink;
  return 170 * Math.ceil(w / 512) * Math.ceil(h / 512) + 85;
}

/** Rough text token count (≈ 4 characters per token for English). */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Expected reply length used for estimates: a few sentences of reasoning and the verdict line. */
export const EXPECTED_OUTPUT_TOKENS = 250;

/** Size an image will be sent at, after shrinking to fit maxSide. */
export function scaledSize(width: number, height: number, maxSide: number | null): { width: number; height: number } {
  if (!maxSide || Math.max(width, height) <= maxSide) return { width, height };
  const f = maxSide / Math.max(width, height);
  return { width: Math.max(1, Math.round(width * f)), height: Math.max(1, Math.round(height * f)) };
}

export function costUsd(
  tokens: { input: number | null; output: number | null },
  price: { inputPerMTok: number | null; outputPerMTok: number | null },
): number | null {
  if (price.inputPerMTok == null || price.outputPerMTok == null) return null;
  if (tokens.input == null && tokens.output == null) return null;
  return ((tokens.input ?? 0) * price.inputPerMTok + (tokens.output ?? 0) * price.outputPerMTok) / 1_000_000;
}

// ---- First failing step (prompt option askFirstFailingStep) ----

export type ParsedFailureStep =
  | { status: "given"; /** The step's stored index. */ stepIndex: number; /** 1-based position as the prompt numbered it. */ position: number }
  | { status: "not-asked" }
  | { status: "not-applicable" }
  | { status: "unparseable"; problem: string };

const STEP_LINE = /^[\s*_#>`-]*first[\s_-]+failing[\s_-]+step[\s*_`]*:[\s*_`]*(\S.*?)[\s*_`.]*$/i;

/**
 * Strict parse of the first failing step in a reply to a prompt that asked for it: exactly one line "First failing
 * step: N" with N a whole number from 1 to the number of steps; N is the position the prompt gave, mapped back to
 * the step's stored index. Only asked of failures: a success has none. Anything else is unparseable — kept apart,
 * never guessed from prose.
 */
export function parseFailureStep(reply: string | null | undefined, verdict: VerdictValue, stepIndices: readonly number[]): ParsedFailureStep {
  if (verdict !== "failure") return { status: "not-applicable" };
  const values: string[] = [];
  for (const line of (reply ?? "").replace(/\r\n?/g, "\n").split("\n")) {
    const m = STEP_LINE.exec(line);
    if (m) values.push(m[1]!);
  }
  if (values.length === 0) return { status: "unparseable", problem: "no 'First failing step:' line" };
  if (new Set(values).size > 1) return { status: "unparseable", problem: `conflicting first failing steps: ${values.join(", ")}` };
  const text = values[0]!;
  if (!/^\d+$/.test(text)) return { status: "unparseable", problem: `first failing step ${JSON.stringify(text)} is not a step number` };
  const position = Number(text);
  if (position < 1 || position > stepIndices.length)
    return { status: "unparseable", problem: `first failing step ${position} is outside 1–${stepIndices.length}` };
  return { status: "given", stepIndex: stepIndices[position - 1]!, position };
}
