/**
 * Runs a staged judge protocol (server/domain/evaluation/staged-protocols.ts) for one trajectory: the calls in
 * order, each through the caller's `ask` (which sends images and redacts keys), stopping with an unparseable
 * verdict, and the reason, as soon as a stage's reply cannot be read. The caller stores the outcome.
 */
import {
  buildCriteriaPrompt,
  buildKeyPointOutcomePrompt,
  buildKeyPointsPrompt,
  buildRelevancePrompt,
  buildRubricOutcomePrompt,
  checkThreshold,
  DEFAULT_RELEVANCE_THRESHOLD,
  keptScreenshots,
  KEY_POINTS_VERSION,
  parseCriteriaList,
  parseKeyPointOutcome,
  parseRelevanceScore,
  parseRubricOutcome,
  type Criterion,
  type GradedCriterion,
  type ParsedStagedReply,
  type RelevanceScore,
  type StagedPromptVersion,
} from "../../domain/evaluation/staged-protocols";
import { selectScreenshotSteps, type JudgeInput, type PromptPart } from "../../domain/evaluation/judge-protocol";
import {
  applyPromptVersion,
  perturbScreenshots,
  subsetOfSteps,
  variantWindow,
  type JudgeVariant,
  type PromptVersionContent,
} from "../../domain/evaluation/prompt-variants";
import type { JudgeK, JudgeOptions, VerdictValue } from "../../domain/evaluation/verdicts";
import type { JudgeCallResult } from "./judge-client";

export interface AskResult {
  /** The reply (a refusal's text when the model refused). */
  raw: string;
  refused: boolean;
  result: JudgeCallResult;
  /** The screenshots the call sent: step index and the size sent. */
  images: { step: number; sentWidth: number; sentHeight: number }[];
}

export type Ask = (system: string, parts: PromptPart[]) => Promise<AskResult>;

export interface StagedOutcome {
  verdict: VerdictValue;
  rationale: string;
  /** The reply of the last call made. */
  rawReply: string;
  /** The screenshots the outcome call saw. */
  stepIndices: number[];
  criteria: GradedCriterion[];
  process: ParsedStagedReply["process"];
  failureCause: ParsedStagedReply["failureCause"];
  relevance: RelevanceScore[] | null;
  threshold: number | null;
  problems: string[];
  /** Every call made, in order (usage, latency and attempts are summed over them). */
  calls: AskResult[];
  /** What each stage replied, for the verdict's details. */
  stages: { stage: string; reply: string }[];
  /** The screenshots of the outcome call, as sent (for checking citations). */
  outcomeImages: AskResult["images"];
}

function stopped(calls: AskResult[], stages: StagedOutcome["stages"], problem: string, last: AskResult): StagedOutcome {
  return {
    verdict: "unparseable",
    rationale: last.raw.trim(),
    rawReply: last.raw,
    stepIndices: [],
    criteria: [],
    process: null,
    failureCause: null,
    relevance: null,
    threshold: null,
    problems: [problem],
    calls,
    stages,
    outcomeImages: [],
  };
}

async function planStage(version: StagedPromptVersion, intent: string, ask: Ask, calls: AskResult[], stages: StagedOutcome["stages"]) {
  const keyPoints = version === KEY_POINTS_VERSION;
  const prompt = keyPoints ? buildKeyPointsPrompt(intent) : buildCriteriaPrompt(intent);
  const reply = await ask(prompt.system, prompt.parts);
  calls.push(reply);
  stages.push({ stage: keyPoints ? "key points" : "criteria", reply: reply.raw });
  const parsed = reply.refused ? { items: [], problem: "the model refused" } : parseCriteriaList(reply.raw, keyPoints ? "key_point" : "rubric");
  return { reply, parsed };
}

async function scoreScreenshots(
  input: JudgeInput,
  candidates: number[],
  keyPoints: Criterion[],
  ask: Ask,
  calls: AskResult[],
  stages: StagedOutcome["stages"],
): Promise<RelevanceScore[]> {
  const scores: RelevanceScore[] = [];
  for (const stepIndex of candidates) {
    const prompt = buildRelevancePrompt(input, keyPoints, stepIndex);
    const reply = await ask(prompt.system, prompt.parts);
    calls.push(reply);
    stages.push({ stage: `relevance of step index ${stepIndex}`, reply: reply.raw });
    const parsed = reply.refused ? { score: null, problem: "the model refused" } : parseRelevanceScore(reply.raw);
    scores.push({ stepIndex, score: parsed.score, problem: parsed.problem });
  }
  return scores;
}

/**
 * A stress test's perturbation or an alignment study's prompt version, for the staged protocols: a random subset
 * picks the screenshots before any is scored or shown; a shuffle reorders the outcome call's screenshots; the answer
 * or the history removed leave the outcome call without them (the options say which); a prompt version's rubric
 * and examples go into the outcome call's system prompt, where the verdict is decided.
 */
export interface StagedVariant {
  variant: JudgeVariant;
  version: PromptVersionContent | null;
  trajectoryId: number;
}

export async function runStagedProtocol(args: {
  version: StagedPromptVersion;
  input: JudgeInput;
  k: JudgeK;
  /** The options asked with (a variant's answer or history removal already applied). */
  options: JudgeOptions;
  ask: Ask;
  variant?: StagedVariant;
}): Promise<StagedOutcome> {
  const { version, input, k, ask } = args;
  const v = args.variant;
  const perturbation = v?.variant.perturbation;
  const options = { ...args.options, withoutActionHistory: perturbation?.kind === "no-history" };
  const window = subsetOfSteps(selectScreenshotSteps(input.steps, variantWindow(k, v?.variant ?? {})), perturbation, v?.trajectoryId ?? 0);
  const calls: AskResult[] = [];
  const stages: StagedOutcome["stages"] = [];
  const plan = await planStage(version, input.intent, ask, calls, stages);
  if (plan.parsed.items.length === 0) return stopped(calls, stages, plan.parsed.problem ?? "nothing listed", plan.reply);
  const items = plan.parsed.items;
  const problems = plan.parsed.problem ? [plan.parsed.problem] : [];

  let relevance: RelevanceScore[] | null = null;
  let threshold: number | null = null;
  let prompt;
  if (version === KEY_POINTS_VERSION) {
    threshold = checkThreshold(options.relevanceThreshold ?? DEFAULT_RELEVANCE_THRESHOLD);
    relevance = await scoreScreenshots(input, window, items, ask, calls, stages);
    for (const s of relevance) if (s.problem) problems.push(`relevance of step index ${s.stepIndex}: ${s.problem}`);
    prompt = buildKeyPointOutcomePrompt(input, items, keptScreenshots(relevance, threshold), threshold, relevance.length, options);
  } else {
    prompt = buildRubricOutcomePrompt(input, items, window, options);
  }
  if (v) prompt = perturbScreenshots(prompt, perturbation, v.trajectoryId);
  if (v?.version) prompt = { ...prompt, system: applyPromptVersion(prompt.system, v.version) };
  const reply = await ask(prompt.system, prompt.parts);
  calls.push(reply);
  stages.push({ stage: "outcome", reply: reply.raw });
  const parsed: ParsedStagedReply = reply.refused
    ? {
        verdict: "unparseable",
        rationale: reply.raw,
        criteria: items.map((c, i) => ({ ...c, position: i + 1, result: "unparseable" })),
        process: null,
        failureCause: null,
        problems: ["the model refused"],
      }
    : version === KEY_POINTS_VERSION
      ? parseKeyPointOutcome(reply.raw, items)
      : parseRubricOutcome(reply.raw, items);
  return {
    verdict: parsed.verdict,
    rationale: parsed.rationale,
    rawReply: reply.raw,
    stepIndices: prompt.stepIndices,
    criteria: parsed.criteria,
    process: parsed.process,
    failureCause: parsed.failureCause,
    relevance,
    threshold,
    problems: [...problems, ...parsed.problems],
    calls,
    stages,
    outcomeImages: reply.images,
  };
}
