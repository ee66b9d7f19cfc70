/**
 * The staged judge protocols: the judge is asked in several calls and grades criteria on its way to the verdict.
 *
 * Key points, after WebJudge (Online-Mind2Web, Xue et al. 2025, "An Illusion of Progress? Assessing the Current
 * State of Web Agents"): (1) the judge lists the key points the task states explicitly; (2) each screenshot is
 * scored 1–5 for how much it shows about those key points, one call per screenshot; (3) the screenshots scored at
 * or above a threshold (WebJudge's default: 3) are shown with the task, the key points and the action history, and
 * the judge grades each key point and gives the outcome.
 *
 * Rubric, after the rubric verifiers of CUAVerifierBench: (1) the judge writes the task's criteria, each tagged
 * outcome (what must hold at the end) or process (how the agent must go about it); (2) it grades every criterion
 * PASS or FAIL against the trajectory, the process as a whole apart from the outcome, and says whether a failure
 * was within the agent's control (CONTROLLABLE) or caused by the environment (UNCONTROLLABLE: a CAPTCHA, a block,
 * an outage). The verdict is the outcome.
 *
 * Both always ask for citations (citations.ts). Pure: prompts as text and image placeholders, strict parsers.
 * The judge service (server/services/evaluation/staged-judging.ts) makes the calls.
 */
import { CITATION_INSTRUCTIONS } from "./citations";
import {
  describeCase,
  parseJudgeReply,
  screenshotCaption,
  selectScreenshotSteps,
  type JudgeInput,
  type ParsedJudgeReply,
  type PromptPart,
} from "./judge-protocol";
import type { CriterionKind, CriterionResult, JudgeK, JudgeOptions } from "./verdicts";

export const KEY_POINTS_VERSION = "verdict-keypoints-v1";
export const RUBRIC_VERSION = "verdict-rubric-v1";
export type StagedPromptVersion = typeof KEY_POINTS_VERSION | typeof RUBRIC_VERSION;

export function isStagedVersion(version: string): version is StagedPromptVersion {
  return version === KEY_POINTS_VERSION || version === RUBRIC_VERSION;
}

/** WebJudge keeps the screenshots scored 3 or more. */
export const DEFAULT_RELEVANCE_THRESHOLD = 3;
/** A task yields a handful of key points or criteria; a longer list is cut here, and the cut is reported. */
export const MAX_CRITERIA = 12;

export interface StagePrompt {
  system: string;
  parts: PromptPart[];
}

export interface Criterion {
  kind: CriterionKind;
  text: string;
}

export interface GradedCriterion extends Criterion {
  position: number;
  result: CriterionResult;
}

// ---- stage 1: key points or criteria from the task ----

const KEY_POINTS_SYSTEM = [
  "You read the task a web-browsing agent was given and list its key points: the things the task itself states",
  "that a correct result must satisfy (the item sought, each condition on it such as a price limit, a date, a",
  "quantity, a place or a sort order, and the action to carry out). List only what the task says; add nothing it",
  "does not state, and do not judge any agent.",
  "",
  "Answer in this form:",
  "Key points:",
  "1. <first key point>",
  "2. <second key point>",
].join("\n");

const CRITERIA_SYSTEM = [
  "You read the task a web-browsing agent was given and write the rubric its attempt will be graded by.",
  "Write outcome criteria for what must hold when the agent is done (each condition the task states, and the answer",
  "or the change on the site it asks for), and process criteria for how the agent must go about it (no needless",
  "repetition, no actions the task did not ask for, such as purchases or messages). Tag each with its kind.",
  "",
  "Answer in this form:",
  "Criteria:",
  "1. [outcome] <criterion>",
  "2. [process] <criterion>",
].join("\n");

export function buildKeyPointsPrompt(intent: string): StagePrompt {
  return { system: KEY_POINTS_SYSTEM, parts: [{ type: "text", text: `Task: ${intent.trim()}` }] };
}

export function buildCriteriaPrompt(intent: string): StagePrompt {
  return { system: CRITERIA_SYSTEM, parts: [{ type: "text", text: `Task: ${intent.trim()}` }] };
}

export type ParsedList = { items: Criterion[]; problem: string | null };

const LIST_LINE = /^\s*(?:\d+[.)]|[-*•])\s*(?:\[(outcome|process)\]\s*)?(.+?)\s*$/i;

/**
 * The numbered (or bulleted) lines of a key-point or criteria reply. Rubric criteria must carry their [outcome] or
 * [process] tag: an untagged line is left out and reported, never given a kind by guess. An empty list is a problem.
 */
export function parseCriteriaList(reply: string | null | undefined, kind: "key_point" | "rubric"): ParsedList {
  const items: Criterion[] = [];
  const untagged: string[] = [];
  for (const line of (reply ?? "").replace(/\r\n?/g, "\n").split("\n")) {
    const m = LIST_LINE.exec(line);
    if (!m) continue;
    const text = m[2]!.replace(/\*\*/g, "").trim();
    if (!text) continue;
    if (kind === "key_point") items.push({ kind: "key_point", text });
    else if (m[1]) items.push({ kind: m[1].toLowerCase() as "outcome" | "process", text });
    else untagged.push(text);
  }
  const problems: string[] = [];
  if (untagged.length) problems.push(`${untagged.length} criteri${untagged.length === 1 ? "on" : "a"} without an [outcome] or [process] tag left out`);
  if (items.length > MAX_CRITERIA) problems.push(`${items.length} ${kind === "key_point" ? "key points" : "criteria"} listed, the first ${MAX_CRITERIA} kept`);
  const kept = items.slice(0, MAX_CRITERIA);
  if (kept.length === 0) problems.push(kind === "key_point" ? "no key points listed" : "no tagged criteria listed");
  if (kind === "rubric" && kept.length > 0 && !kept.some((c) => c.kind === "outcome")) problems.push("no outcome criterion listed");
  return { items: kept, problem: problems.length ? problems.join("; ") : null };
}

function numbered(list: Criterion[], tagged: boolean): string {
  return list.map((c, i) => `${i + 1}. ${tagged ? `[${c.kind}] ` : ""}${c.text}`).join("\n");
}

// ---- key points, stage 2: one relevance score per screenshot ----

const RELEVANCE_SYSTEM = [
  "You help judge whether a web-browsing agent accomplished a task. You are shown the task, its key points and one",
  "screenshot from the agent's attempt. Score how much the screenshot shows that bears on the key points:",
  "1 = nothing relevant; 2 = barely related; 3 = some relevant information or a needed intermediate page;",
  "4 = important evidence for at least one key point; 5 = clear evidence that key points are met or not met.",
  "",
  "Answer in this form:",
  "Reasoning: <what the screenshot shows that matters>",
  "Score: <1 to 5>",
].join("\n");

/** The window of screenshots the relevance stage scores: the configuration's last k (all for "full"). */
export function relevanceCandidates(input: JudgeInput, k: JudgeK): number[] {
  return selectScreenshotSteps(input.steps, k);
}

export function buildRelevancePrompt(input: JudgeInput, keyPoints: Criterion[], stepIndex: number): StagePrompt {
  const position = input.steps.findIndex((s) => s.index === stepIndex) + 1;
  const step = input.steps[position - 1]!;
  return {
    system: RELEVANCE_SYSTEM,
    parts: [
      { type: "text", text: `Task: ${input.intent.trim()}\n\nKey points:\n${numbered(keyPoints, false)}\n` },
      { type: "text", text: screenshotCaption(position, input.steps.length, step.url) },
      { type: "image", stepIndex },
    ],
  };
}

export type ParsedScore = { score: number; problem: null } | { score: null; problem: string };

const SCORE_LINE = /^[\s*_#>`-]*score[\s*_`]*:[\s*_`]*(\S+?)[\s*_`.]*$/i;

/** Strict: exactly one "Score: N" line (all such lines agreeing), N a whole number from 1 to 5. */
export function parseRelevanceScore(reply: string | null | undefined): ParsedScore {
  const values = new Set<string>();
  for (const line of (reply ?? "").replace(/\r\n?/g, "\n").split("\n")) {
    const m = SCORE_LINE.exec(line);
    if (m) values.add(m[1]!.replace(/\/5$/, ""));
  }
  if (values.size === 0) return { score: null, problem: "no 'Score:' line" };
  if (values.size > 1) return { score: null, problem: `conflicting scores: ${[...values].join(", ")}` };
  const text = [...values][0]!;
  if (!/^[1-5]$/.test(text)) return { score: null, problem: `score ${JSON.stringify(text)} is not a whole number from 1 to 5` };
  return { score: Number(text), problem: null };
}

export interface RelevanceScore {
  stepIndex: number;
  score: number | null;
  problem: string | null;
}

/** The screenshots shown for the outcome: those scored at or above the threshold, in trajectory order. */
export function keptScreenshots(scores: RelevanceScore[], threshold: number): number[] {
  return scores.filter((s) => s.score !== null && s.score >= threshold).map((s) => s.stepIndex);
}

export function checkThreshold(value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > 5) throw new Error(`the relevance threshold is a whole number from 1 to 5, got ${value}`);
  return value;
}

// ---- final stage: the outcome, with each criterion graded ----

const KEY_POINT_OUTCOME_SYSTEM = [
  "You evaluate web-browsing agents. An agent was given a task to carry out in a web browser. You are shown the",
  "task, the final answer the agent reported, the task's key points, the actions the agent took, and the",
  "screenshots judged relevant to the key points, oldest first.",
  "",
  "Decide whether the agent accomplished the task.",
  "- Grade every key point: MET only when the screenshots or the actions show it satisfied; a key point left",
  "  unchecked, approximated or contradicted is NOT MET.",
  "- The task is accomplished only when every key point is met and the screenshots support the final answer.",
  "  When the answer and the screenshots disagree, believe the screenshots.",
  "- Do not reward effort, and do not hold a long but successful route against the agent.",
  "",
  "Answer in this form:",
  "Reasoning: <a few sentences weighing the evidence>",
  "Key point 1: MET or NOT MET",
  "(one line per key point, in the order given)",
  "Evidence: step <number> — <what that step shows>",
  "Verdict: SUCCESS or FAILURE",
  "The verdict line comes last and holds exactly one of the two words.",
].join("\n");

const RUBRIC_OUTCOME_SYSTEM = [
  "You evaluate web-browsing agents against a rubric. An agent was given a task to carry out in a web browser.",
  "You are shown the task, the final answer the agent reported, the rubric's criteria, the actions the agent took",
  "and screenshots of its last steps, oldest first.",
  "",
  "Grade the attempt.",
  "- Grade every criterion PASS or FAIL from the evidence; a criterion the evidence does not show met is FAIL.",
  "- Grade the process (the process criteria taken together) apart from the outcome: an agent can reach the right",
  "  result by a poor route, or follow a sound route to a wrong result.",
  "- The verdict is the outcome: SUCCESS only when every outcome criterion passes.",
  "- When the verdict is FAILURE, say whether the agent could have avoided it (CONTROLLABLE) or the environment",
  "  prevented it (UNCONTROLLABLE: a CAPTCHA, a login wall, a blocked or broken site); NONE for a success.",
  "",
  "Answer in this form:",
  "Reasoning: <a few sentences weighing the evidence>",
  "Criterion 1: PASS or FAIL",
  "(one line per criterion, in the order given)",
  "Process: PASS or FAIL",
  "Failure cause: CONTROLLABLE, UNCONTROLLABLE or NONE",
  "Evidence: step <number> — <what that step shows>",
  "Verdict: SUCCESS or FAILURE",
  "The verdict line comes last and holds exactly one of the two words.",
].join("\n");

const FIRST_STEP_LINE = [
  "",
  "If the task was not accomplished, also name the first step at which the agent went wrong, by its number as",
  "given above, on a line before the verdict line:",
  "First failing step: <number>",
].join("\n");

type OutcomeOptions = Partial<Pick<JudgeOptions, "includeThoughts" | "withoutFinalAnswer" | "askFirstFailingStep">> & {
  /** A stress test's "action history removed": the outcome call shows neither actions nor thoughts. */
  withoutActionHistory?: boolean;
};

/** The outcome call's system prompt (what an alignment study's prompt versions change and compare). */
export function stagedOutcomeSystem(version: StagedPromptVersion, options: OutcomeOptions): string {
  return outcomeSystem(version === KEY_POINTS_VERSION ? KEY_POINT_OUTCOME_SYSTEM : RUBRIC_OUTCOME_SYSTEM, options);
}

function caseText(input: JudgeInput, options: OutcomeOptions): string {
  // The staged protocols show the action history (WebJudge always does; process criteria are about it), unless a
  // stress test takes it away.
  const history = !options.withoutActionHistory;
  return describeCase(input, { ...options, includeThoughts: history && !!options.includeThoughts, includeActionHistory: history });
}

export interface OutcomePrompt extends StagePrompt {
  /** Step indices whose screenshots the prompt holds, oldest first. */
  stepIndices: number[];
}

function outcomeSystem(base: string, options: OutcomeOptions): string {
  let system = options.withoutFinalAnswer ? base.replace("the final answer the agent reported, ", "") : base;
  system += `\n\n${CITATION_INSTRUCTIONS}`;
  if (options.askFirstFailingStep) system += FIRST_STEP_LINE;
  return system;
}

/** A grading call: the case (`head`), the chosen steps' screenshots, then what the judge is asked to do. */
function outcomePrompt(system: string, head: string, input: JudgeInput, stepIndices: number[], ask: string): OutcomePrompt {
  return { system, parts: [{ type: "text", text: head }, ...screenshotParts(input, stepIndices), { type: "text", text: ask }], stepIndices };
}

function screenshotParts(input: JudgeInput, stepIndices: number[]): PromptPart[] {
  const byIndex = new Map(input.steps.map((s, i) => [s.index, { step: s, position: i + 1 }]));
  return stepIndices.flatMap((idx): PromptPart[] => {
    const { step, position } = byIndex.get(idx)!;
    return [
      { type: "text", text: screenshotCaption(position, input.steps.length, step.url) },
      { type: "image", stepIndex: idx },
    ];
  });
}

/**
 * The outcome call of the key-point protocol: the case with the whole action history (WebJudge always shows it),
 * the key points, and the kept screenshots, or a line saying none reached the threshold.
 */
export function buildKeyPointOutcomePrompt(
  input: JudgeInput,
  keyPoints: Criterion[],
  kept: number[],
  threshold: number,
  scored: number,
  options: OutcomeOptions,
): OutcomePrompt {
  let head = caseText(input, options);
  head += `\nKey points:\n${numbered(keyPoints, false)}\n`;
  head +=
    kept.length === 0
      ? `\nNone of the ${scored} screenshots scored ${threshold} or more for relevance; judge from the actions and the answer.\n`
      : `\nThe ${kept.length} of ${scored} screenshots scored ${threshold} or more for relevance, oldest first:`;
  return outcomePrompt(
    outcomeSystem(KEY_POINT_OUTCOME_SYSTEM, options),
    head,
    input,
    kept,
    "Was the task accomplished? Grade each key point, cite your evidence, then give the verdict line.",
  );
}

/**
 * The grading call of the rubric protocol: the case with the action history (process criteria are about it), the
 * criteria and the last k screenshots (or the steps given, for a stress test's random subset).
 */
export function buildRubricOutcomePrompt(input: JudgeInput, criteria: Criterion[], k: JudgeK | number[], options: OutcomeOptions): OutcomePrompt {
  const stepIndices = Array.isArray(k) ? k : selectScreenshotSteps(input.steps, k);
  let head = caseText(input, options);
  head += `\nCriteria:\n${numbered(criteria, true)}\n`;
  head +=
    stepIndices.length === 0
      ? "\nNo screenshots were recorded for this trajectory.\n"
      : `\nScreenshots of ${stepIndices.length} step${stepIndices.length === 1 ? "" : "s"}, oldest first:`;
  return outcomePrompt(
    outcomeSystem(RUBRIC_OUTCOME_SYSTEM, options),
    head,
    input,
    stepIndices,
    "Grade each criterion, the process and the failure cause, cite your evidence, then give the verdict line.",
  );
}

/** "Key point 2: NOT MET", "Criterion 1: PASS": the grade of each listed item, strictly. */
function gradeLines(
  reply: string,
  label: "key point" | "criterion",
  count: number,
  words: { met: RegExp; notMet: RegExp },
): { results: CriterionResult[]; problems: string[] } {
  const found = new Map<number, Set<CriterionResult>>();
  const line = new RegExp(`^[\\s*_#>\`-]*${label}\\s+(\\d+)[\\s*_\`]*:[\\s*_\`]*(.+?)[\\s*_\`.]*$`, "i");
  for (const raw of reply.replace(/\r\n?/g, "\n").split("\n")) {
    const m = line.exec(raw);
    if (!m) continue;
    const n = Number(m[1]);
    const grade = words.notMet.test(m[2]!) ? "not_met" : words.met.test(m[2]!) ? "met" : "unparseable";
    if (!found.has(n)) found.set(n, new Set());
    found.get(n)!.add(grade);
  }
  const problems: string[] = [];
  const results = Array.from({ length: count }, (_, i): CriterionResult => {
    const grades = found.get(i + 1);
    if (!grades) {
      problems.push(`no grade for ${label} ${i + 1}`);
      return "unparseable";
    }
    if (grades.size > 1) {
      problems.push(`conflicting grades for ${label} ${i + 1}`);
      return "unparseable";
    }
    const g = [...grades][0]!;
    if (g === "unparseable") problems.push(`${label} ${i + 1}: grade not readable`);
    return g;
  });
  return { results, problems };
}

const MET_WORDS = { met: /^met$/i, notMet: /^not\s+met$/i };
const PASS_WORDS = { met: /^pass(ed)?$/i, notMet: /^fail(ed)?$/i };

export interface ParsedStagedReply {
  verdict: ParsedJudgeReply["verdict"];
  rationale: string;
  criteria: GradedCriterion[];
  /** Rubric: the process graded as a whole; null for the key-point protocol. */
  process: CriterionResult | null;
  /** Rubric: why a failure happened; null for the key-point protocol. */
  failureCause: "controllable" | "uncontrollable" | "none" | "unparseable" | null;
  /** Problems reading the grades (the verdict may still have parsed). */
  problems: string[];
}

function singleLine(reply: string, label: string): string[] {
  const re = new RegExp(`^[\\s*_#>\`-]*${label}[\\s*_\`]*:[\\s*_\`]*(.+?)[\\s*_\`.]*$`, "i");
  return reply
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .flatMap((l) => {
      const m = re.exec(l);
      return m ? [m[1]!.trim().toUpperCase()] : [];
    });
}

/** Grade and citation lines are kept out of the rationale shown to people (the panel shows them apart). */
function rationaleOf(text: string): string {
  return text
    .split("\n")
    .filter((l) => !/^[\s*_#>`-]*(key point \d+|criterion \d+|process|failure cause|evidence|first failing step)[\s*_`]*:/i.test(l))
    .join("\n")
    .trim();
}

export function parseKeyPointOutcome(reply: string | null | undefined, keyPoints: Criterion[]): ParsedStagedReply {
  const text = reply ?? "";
  const base = parseJudgeReply(text);
  const { results, problems } = gradeLines(text, "key point", keyPoints.length, MET_WORDS);
  return {
    verdict: base.verdict,
    rationale: base.verdict === "unparseable" ? base.rationale : rationaleOf(base.rationale),
    criteria: keyPoints.map((c, i) => ({ ...c, position: i + 1, result: results[i]! })),
    process: null,
    failureCause: null,
    problems: base.problem ? [base.problem, ...problems] : problems,
  };
}

export function parseRubricOutcome(reply: string | null | undefined, criteria: Criterion[]): ParsedStagedReply {
  const text = reply ?? "";
  const base = parseJudgeReply(text);
  const { results, problems } = gradeLines(text, "criterion", criteria.length, PASS_WORDS);
  const processLines = new Set(singleLine(text, "process"));
  const process: CriterionResult =
    processLines.size !== 1 ? "unparseable" : (({ PASS: "met", FAIL: "not_met" } as Record<string, CriterionResult>)[[...processLines][0]!] ?? "unparseable");
  if (process === "unparseable") problems.push(processLines.size === 0 ? "no 'Process:' line" : "process grade not readable");
  const causeLines = new Set(singleLine(text, "failure cause"));
  const causeWord = causeLines.size === 1 ? [...causeLines][0]! : "";
  const failureCause =
    causeWord === "CONTROLLABLE" ? "controllable" : causeWord === "UNCONTROLLABLE" ? "uncontrollable" : causeWord === "NONE" ? "none" : "unparseable";
  if (failureCause === "unparseable") problems.push(causeLines.size === 0 ? "no 'Failure cause:' line" : "failure cause not readable");
  return {
    verdict: base.verdict,
    rationale: base.verdict === "unparseable" ? base.rationale : rationaleOf(base.rationale),
    criteria: criteria.map((c, i) => ({ ...c, position: i + 1, result: results[i]! })),
    process,
    failureCause,
    problems: base.problem ? [base.problem, ...problems] : problems,
  };
}

/** Calls a staged protocol makes for one trajectory with `screenshots` in its window (for estimates before a batch). */
export function stagedCallCount(version: StagedPromptVersion, screenshots: number): number {
  return version === KEY_POINTS_VERSION ? 2 + screenshots : 2;
}
