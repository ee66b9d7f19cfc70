/**
 * One LMM-judge verdict: trajectory × judge configuration × k.
 *
 * Reads the trajectory and its screenshots, builds the versioned prompt, calls the endpoint, parses the reply
 * strictly and stores the verdict with everything needed to audit it (steps sent, image sizes, raw reply, tokens,
 * latency, cost, attempts). A call that fails for good stores nothing, so a later run retries it; an unparseable
 * reply is stored as "unparseable", never as a guess.
 */
import { LRUCache } from "lru-cache";
import { withTransaction, type Db, type TransactionOptions } from "../../../db/database";
import { judgeSettings } from "../../config";
import { findVerdict, upsertVerdict, type PublicJudgeConfig, type VerdictValues } from "../../../db/repositories/evaluation/verdicts";
import { getStepScreenshots, getTrajectoryDetail } from "../../../db/repositories/trajectories";
import type { StepRow } from "../../../db/schema/index";
import { replaceVerdictEvidence, type CitationValues, type CriterionValues } from "../../../db/repositories/evaluation/verdict-evidence";
import { checkCitations, parseCitations } from "../../domain/evaluation/citations";
import {
  costUsd,
  isJudgePromptVersion,
  parseFailureStep,
  parseJudgeReply,
  type JudgeInput,
  type JudgePromptVersion,
  type JudgeStep,
  type PromptPart,
} from "../../domain/evaluation/judge-protocol";
import { isStagedVersion, type StagedPromptVersion } from "../../domain/evaluation/staged-protocols";
import { buildVariantPrompt } from "../../domain/evaluation/prompt-variants";
import { formatK, type JudgeK, type JudgeOptions, type VerdictValue } from "../../domain/evaluation/verdicts";
import { NotFoundError, ValidationError } from "../../errors";
import type { ScreenshotStore } from "../../storage/screenshot-store";
import {
  createJudgeClient,
  type ChatMessage,
  type ContentPart,
  type JudgeCallResult,
  type JudgeClient,
  type JudgeEndpoint,
  type RetryPolicy,
} from "./judge-client";
import { endpointErrorText, judgeEvaluatorKey, redactSecret, requireJudgeConfig, judgeEndpointOf, type Env } from "./judge-configs";
import { prepareScreenshot } from "./images";
import { resolveJudgeVariant, type VariantCache } from "./judge-variants";
import { runStagedProtocol, type Ask, type StagedOutcome } from "./staged-judging";

export interface JudgeDeps {
  db: Db;
  store: ScreenshotStore;
  env: Env;
  /** Tests and benchmarks shorten backoff; production uses the default policy. */
  retryPolicy?: RetryPolicy;
  /** Replaces the HTTP client (tests); receives the resolved endpoint. */
  clientFactory?: (endpoint: JudgeEndpoint, policy?: RetryPolicy) => JudgeClient;
  /**
   * Trajectories already read during this batch run: a batch judges each trajectory once per k, in a row, so
   * reading it once saves most of the database work per call.
   */
  trajectoryCache?: TrajectoryCache;
  /** Variants already resolved during this run (a batch asks thousands of items under a handful of variants). */
  variantCache?: VariantCache;
}

type TrajectoryData = { detail: NonNullable<Awaited<ReturnType<typeof getTrajectoryDetail>>>; shots: Awaited<ReturnType<typeof getStepScreenshots>> };

/** A small least-recently-used cache of trajectories for one batch run. */
export class TrajectoryCache {
  private readonly entries: LRUCache<number, TrajectoryData>;
  constructor(capacity = 32) {
    this.entries = new LRUCache({ max: capacity });
  }

  async get(db: Db, trajectoryId: number): Promise<TrajectoryData | undefined> {
    const hit = this.entries.get(trajectoryId);
    if (hit) return hit;
    const detail = await getTrajectoryDetail(db, trajectoryId);
    if (!detail) return undefined;
    const data = { detail, shots: await getStepScreenshots(db, trajectoryId) };
    this.entries.set(trajectoryId, data);
    return data;
  }
}

export interface JudgeRequest {
  configId: number;
  trajectoryId: number;
  k: JudgeK;
  batchId?: number | null;
  /** Recompute even if a verdict with this identity is stored. */
  force?: boolean;
  signal?: AbortSignal;
  /** The configuration row when the caller already holds it (batches load it once, not per call). */
  config?: PublicJudgeConfig;
  /**
   * Replies to ask for (temperature > 0): the verdict is their majority and the share saying success is the judge's
   * confidence (stored per verdict, with every sample in details.samples). Default 1.
   */
  samples?: number;
  /**
   * Asked just before the verdict is stored, in the same transaction: false means this caller may no longer store
   * it (a batch job whose lease another worker took over), and nothing is written.
   */
  mayStore?: () => Promise<boolean>;
  /**
   * Ask with a variant of the configuration's prompt (prompt-variants.ts): a prompt version of an alignment study or
   * a stress test's perturbation. Its verdicts record it in their prompt version, beside the configuration's own.
   */
  variant?: string;
}

/** The caller lost the right to store the verdict it computed (see JudgeRequest.mayStore); nothing was stored. */
export class VerdictNotStored extends Error {
  constructor(message: string) {
    super(message);
    this.name = "VerdictNotStored";
  }
}

export interface JudgeOutcome {
  verdictId: number;
  verdict: VerdictValue;
  /** True when a stored verdict was kept and no call was made. */
  skipped: boolean;
}

/** The screenshot a judge sees for a step under the configured preference; the other one when only it exists. */
export function screenshotFor(step: Pick<StepRow, "screenshotHash" | "rawScreenshotHash">, pref: JudgeOptions["screenshots"]): string | null {
  return pref === "raw" ? (step.rawScreenshotHash ?? step.screenshotHash) : (step.screenshotHash ?? step.rawScreenshotHash);
}

export function judgeStepsOf(steps: StepRow[], pref: JudgeOptions["screenshots"]): JudgeStep[] {
  return steps.map((s) => ({
    index: s.index,
    url: s.url,
    thought: s.thought,
    actionRaw: s.actionRaw,
    action: s.action,
    hasScreenshot: screenshotFor(s, pref) !== null,
  }));
}

type Sent = Record<string, unknown> & { step: number; sentWidth: number; sentHeight: number };

/** Turns prompt parts into message content: image placeholders become the step's screenshot as a data URL. */
async function contentOf(
  deps: JudgeDeps,
  data: TrajectoryData,
  options: JudgeOptions,
  trajectoryId: number,
  parts: PromptPart[],
): Promise<{ content: ContentPart[]; sent: Sent[] }> {
  const stepByIndex = new Map(data.detail.steps.map((s) => [s.index, s]));
  const content: ContentPart[] = [];
  const sent: Sent[] = [];
  for (const part of parts) {
    if (part.type === "text") {
      content.push({ type: "text", text: part.text });
      continue;
    }
    const hash = screenshotFor(stepByIndex.get(part.stepIndex)!, options.screenshots)!;
    const meta = data.shots.get(hash);
    if (!meta) throw new Error(`trajectory ${trajectoryId} step ${part.stepIndex}: screenshot ${hash} has no row in screenshots`);
    const img = await prepareScreenshot(deps.store, meta, options.maxImageSide);
    content.push({ type: "image_url", image_url: { url: img.dataUrl, detail: options.imageDetail } });
    sent.push({ step: part.stepIndex, hash, width: meta.width, height: meta.height, sentWidth: img.width, sentHeight: img.height, bytes: img.bytes });
  }
  return { content, sent };
}

/** One call to the endpoint; the key never reaches an error message or a stored reply. */
async function callOnce(client: JudgeClient, messages: ChatMessage[], apiKey: string | undefined, signal: AbortSignal | undefined) {
  let result;
  try {
    result = await client.complete(messages, { signal });
  } catch (e) {
    if (e instanceof Error) e.message = endpointErrorText(e.message, apiKey);
    throw e;
  }
  // An endpoint that echoes the key (some error pages and proxies do) must not get it stored.
  const reply = result.content == null ? null : redactSecret(result.content, apiKey);
  const refusal = result.refusal == null ? null : redactSecret(result.refusal, apiKey);
  return { reply, refusal, result };
}

/** What a judge call path hands back to be stored: the verdict's fields and its evidence. */
interface Judged {
  values: Omit<
    VerdictValues,
    "trajectoryId" | "evaluatorKey" | "k" | "promptVersion" | "kind" | "origin" | "evaluatorName" | "judgeConfigId" | "batchId" | "costUsd" | "details"
  > & { details: Record<string, unknown> };
  criteria: CriterionValues[];
  citations: CitationValues[];
}

interface CallContext {
  deps: JudgeDeps;
  req: JudgeRequest;
  config: PublicJudgeConfig;
  resolved: Awaited<ReturnType<typeof resolveJudgeVariant>>;
  data: TrajectoryData;
  options: JudgeOptions;
  client: JudgeClient;
  apiKey: string | undefined;
}

/** The citations of a reply, checked against the trajectory and the screenshots the call sent. */
function citationsOf(ctx: CallContext, reply: string, sent: { step: number; sentWidth: number; sentHeight: number }[]): CitationValues[] {
  const sentByStep = new Map(sent.map((s) => [s.step, { width: s.sentWidth, height: s.sentHeight }]));
  const steps = ctx.data.detail.steps.map((s) => {
    const hash = screenshotFor(s, ctx.options.screenshots);
    const meta = hash ? ctx.data.shots.get(hash) : undefined;
    return { index: s.index, sent: sentByStep.get(s.index) ?? null, stored: meta ? { width: meta.width, height: meta.height } : null };
  });
  return checkCitations(parseCitations(reply), steps).map((c) => ({
    position: c.position,
    stepNumber: c.stepNumber,
    stepIndex: c.stepIndex,
    box: c.storedBox,
    note: c.note,
    problem: c.problem,
  }));
}

/** The WebVoyager protocol: one prompt, asked once per sample; the verdict is the samples' majority. */
async function judgeInOneCall(ctx: CallContext, input: JudgeInput): Promise<Judged> {
  const { req, resolved, options, data } = ctx;
  const prompt = buildVariantPrompt(
    input,
    req.k,
    resolved.variant,
    options,
    resolved.version,
    ctx.config.promptVersion as JudgePromptVersion,
    req.trajectoryId,
  );
  const { content, sent } = await contentOf(ctx.deps, data, options, req.trajectoryId, prompt.parts);
  const messages: ChatMessage[] = [
    { role: "system", content: prompt.system },
    { role: "user", content },
  ];
  const samples = req.samples ?? 1;
  // Each sample is its own call; they go one after another so a batch's concurrency still bounds the load on the endpoint.
  const replies: { parsed: ReturnType<typeof parseJudgeReply>; raw: string; result: JudgeCallResult }[] = [];
  for (let i = 0; i < samples; i++) {
    const { reply, refusal, result } = await callOnce(ctx.client, messages, ctx.apiKey, req.signal);
    const parsed = reply == null && refusal ? { verdict: "unparseable" as const, rationale: refusal, problem: "the model refused" } : parseJudgeReply(reply);
    replies.push({ parsed, raw: reply ?? refusal ?? "", result });
  }
  const vote = majorityOf(replies.map((r) => r.parsed.verdict));
  // The stored reply and rationale are those of the first sample that says what the majority says.
  const shown = replies.find((r) => r.parsed.verdict === vote.verdict) ?? replies[0]!;
  const problem = vote.problem ?? shown.parsed.problem;
  // Asked for, the first failing step is parsed strictly from the reply shown; a failure without one is kept apart.
  const failureStep = options.askFirstFailingStep
    ? parseFailureStep(
        shown.raw,
        vote.verdict,
        data.detail.steps.map((s) => s.index),
      )
    : null;
  const usage = sumUsage(replies.map((r) => r.result));
  return {
    values: {
      stepIndices: prompt.stepIndices,
      verdict: vote.verdict,
      score: scoreOf(vote.verdict),
      rationale: shown.parsed.rationale,
      rawReply: shown.raw,
      details: {
        images: sent,
        attempts: shown.result.attempts,
        retried: replies.flatMap((r) => r.result.retried.map((x) => redactSecret(x, ctx.apiKey))),
        finishReason: shown.result.finishReason,
        ...(problem ? { problem } : {}),
        ...(failureStep && failureStep.status !== "not-applicable" ? { failureStep } : {}),
        ...(samples > 1
          ? {
              samples: replies.map((r) => ({
                verdict: r.parsed.verdict,
                rationale: r.parsed.rationale,
                rawReply: r.raw,
                finishReason: r.result.finishReason,
                ...(r.parsed.problem ? { problem: r.parsed.problem } : {}),
              })),
            }
          : {}),
      },
      firstFailingStep: failureStep?.status === "given" ? failureStep.stepIndex : null,
      ...(samples > 1 ? { sampleCount: samples, sampleSuccesses: vote.successes, sampleFailures: vote.failures } : {}),
      model: shown.result.model,
      ...usage,
    },
    criteria: [],
    citations: citationsOf(ctx, shown.raw, sent),
  };
}

/** A staged protocol (key points, rubric): several calls; the criteria graded on the way are kept with the verdict. */
async function judgeInStages(ctx: CallContext, input: JudgeInput, version: StagedPromptVersion): Promise<Judged> {
  const { req, options, data, resolved } = ctx;
  const images: Sent[] = [];
  const ask: Ask = async (system, parts) => {
    const { content, sent } = await contentOf(ctx.deps, data, options, req.trajectoryId, parts);
    images.push(...sent);
    const { reply, refusal, result } = await callOnce(
      ctx.client,
      [
        { role: "system", content: system },
        { role: "user", content },
      ],
      ctx.apiKey,
      req.signal,
    );
    return { raw: reply ?? refusal ?? "", refused: reply == null && !!refusal, result, images: sent };
  };
  const variant = { variant: resolved.variant, version: resolved.version, trajectoryId: req.trajectoryId };
  // Samples: the whole protocol is run again each time (its key points and criteria are drawn again too), one run after
  // another; the verdict is the majority, and the criteria, citations and reply kept are those of the first run that
  // says what the majority says.
  const samples = req.samples ?? 1;
  const runs: StagedOutcome[] = [];
  for (let i = 0; i < samples; i++) runs.push(await runStagedProtocol({ version, input, k: req.k, options: resolved.askedOptions, ask, variant }));
  const vote = majorityOf(runs.map((r) => r.verdict));
  const out = runs.find((r) => r.verdict === vote.verdict) ?? runs[0]!;
  const allCalls = runs.flatMap((r) => r.calls);
  const last = out.calls[out.calls.length - 1]!.result;
  const failureStep =
    options.askFirstFailingStep && out.stages.at(-1)?.stage === "outcome"
      ? parseFailureStep(
          out.rawReply,
          vote.verdict,
          data.detail.steps.map((s) => s.index),
        )
      : null;
  const problems = [...(vote.problem ? [vote.problem] : []), ...out.problems];
  return {
    values: {
      stepIndices: out.stepIndices,
      verdict: vote.verdict,
      score: scoreOf(vote.verdict),
      rationale: out.rationale,
      rawReply: out.rawReply,
      details: {
        images,
        calls: allCalls.length,
        attempts: allCalls.reduce((n, c) => n + c.result.attempts, 0),
        retried: allCalls.flatMap((c) => c.result.retried.map((x) => redactSecret(x, ctx.apiKey))),
        finishReason: last.finishReason,
        stages: out.stages,
        ...(out.relevance ? { relevance: out.relevance, threshold: out.threshold } : {}),
        ...(out.process ? { process: out.process } : {}),
        ...(out.failureCause ? { failureCause: out.failureCause } : {}),
        ...(problems.length ? { problem: problems.join("; ") } : {}),
        ...(failureStep && failureStep.status !== "not-applicable" ? { failureStep } : {}),
        ...(samples > 1 ? { samples: runs.map((r) => ({ verdict: r.verdict, rationale: r.rationale, rawReply: r.rawReply, calls: r.calls.length })) } : {}),
      },
      firstFailingStep: failureStep?.status === "given" ? failureStep.stepIndex : null,
      ...(samples > 1 ? { sampleCount: samples, sampleSuccesses: vote.successes, sampleFailures: vote.failures } : {}),
      model: last.model,
      ...sumUsage(allCalls.map((c) => c.result)),
    },
    criteria: out.criteria.map((c) => ({ position: c.position, kind: c.kind, text: c.text, result: c.result })),
    citations: out.stages.at(-1)?.stage === "outcome" ? citationsOf(ctx, out.rawReply, out.outcomeImages) : [],
  };
}

function scoreOf(verdict: VerdictValue): number | null {
  return verdict === "success" ? 1 : verdict === "failure" ? 0 : null;
}

/** Tokens and latency summed over calls; null when any call did not report them. */
function sumUsage(results: JudgeCallResult[]) {
  const sum = (f: (r: JudgeCallResult) => number | null | undefined) => {
    let total = 0;
    for (const r of results) {
      const v = f(r);
      if (v == null) return null;
      total += v;
    }
    return total;
  };
  return { inputTokens: sum((r) => r.inputTokens), outputTokens: sum((r) => r.outputTokens), latencyMs: sum((r) => r.latencyMs) };
}

export async function judgeTrajectory(deps: JudgeDeps, req: JudgeRequest): Promise<JudgeOutcome> {
  const { db } = deps;
  const config = req.config && req.config.id === req.configId ? req.config : await requireJudgeConfig(db, req.configId);
  if (!isJudgePromptVersion(config.promptVersion)) {
    throw new ValidationError(`Judge configuration ${config.name} uses unknown prompt version ${config.promptVersion}`);
  }
  const variantText = req.variant ?? "";
  const resolved = deps.variantCache ? await deps.variantCache.get(db, config, variantText) : await resolveJudgeVariant(db, config, variantText);
  const options: JudgeOptions = resolved.configOptions;
  const identity = {
    trajectoryId: req.trajectoryId,
    evaluatorKey: judgeEvaluatorKey(config.id),
    k: formatK(req.k),
    promptVersion: resolved.promptVersion,
  };
  const existing = await findVerdict(db, identity);
  // A forced batch replaces older verdicts once: one this batch stored already (before a cancel or a lost lease sent
  // its job round again) is kept, so a resumed batch neither pays for the call again nor writes the verdict twice.
  const storedByThisBatch = req.force && req.batchId != null && existing?.batchId === req.batchId;
  if (existing && (!req.force || storedByThisBatch)) return { verdictId: existing.id, verdict: existing.verdict, skipped: true };
  const data = deps.trajectoryCache
    ? await deps.trajectoryCache.get(db, req.trajectoryId)
    : await (async () => {
        const d = await getTrajectoryDetail(db, req.trajectoryId);
        return d ? { detail: d, shots: await getStepScreenshots(db, req.trajectoryId) } : undefined;
      })();
  if (!data) throw new NotFoundError("trajectory", req.trajectoryId);
  const samples = req.samples ?? 1;
  if (!Number.isInteger(samples) || samples < 1 || samples > MAX_JUDGE_SAMPLES)
    throw new ValidationError(`samples must be a whole number from 1 to ${MAX_JUDGE_SAMPLES}, got ${samples}`);
  if (samples > 1 && !(config.temperature > 0)) {
    throw new ValidationError(
      `Judge configuration ${config.name} has temperature 0: asking it ${samples} times gives the same reply each time; set a temperature above 0 to sample`,
    );
  }
  const endpoint = await judgeEndpointOf(db, config, judgeSettings(deps.env));
  const client = (deps.clientFactory ?? createJudgeClient)(endpoint, deps.retryPolicy);
  const ctx: CallContext = { deps, req, config, resolved, data, options, client, apiKey: endpoint.apiKey };
  const input: JudgeInput = {
    intent: data.detail.task.intent,
    finalAnswer: data.detail.trajectory.finalAnswer,
    steps: judgeStepsOf(data.detail.steps, options.screenshots),
  };
  const judged = isStagedVersion(config.promptVersion) ? await judgeInStages(ctx, input, config.promptVersion) : await judgeInOneCall(ctx, input);
  const values: VerdictValues = {
    ...identity,
    kind: "judge",
    origin: "verdict",
    evaluatorName: config.name,
    judgeConfigId: config.id,
    batchId: req.batchId ?? null,
    ...judged.values,
    details: {
      requestedModel: config.model,
      temperature: config.temperature,
      seed: config.seed,
      options: resolved.askedOptions,
      ...(variantText ? { variant: variantText } : {}),
      totalSteps: data.detail.steps.length,
      ...judged.values.details,
    },
    costUsd: costUsd(
      { input: judged.values.inputTokens ?? null, output: judged.values.outputTokens ?? null },
      { inputPerMTok: config.priceInputPerMTok, outputPerMTok: config.priceOutputPerMTok },
    ),
  };
  const saved = await withTransaction(
    db,
    async () => {
      if (req.mayStore && !(await req.mayStore())) {
        throw new VerdictNotStored(`trajectory ${req.trajectoryId} k=${identity.k}: the verdict was not stored, another worker took over this job`);
      }
      const row = await upsertVerdict(db, values);
      await replaceVerdictEvidence(db, row.id, judged.criteria, judged.citations);
      return row;
    },
    VERDICT_WRITE_TRANSACTION,
  );
  return { verdictId: saved.id, verdict: values.verdict, skipped: false };
}

/**
 * A batch's calls end side by side (eight at once by default) and every verdict stored bumps the verdicts' change
 * counter: on PostgreSQL, under SERIALIZABLE, those writes abort one another, and on a loaded machine one ran out of
 * its retries and failed its call ("could not serialize access due to concurrent update"). Within a process they take
 * turns instead (a few milliseconds each, against seconds for the call); other processes' writes still meet them
 * rarely, which is what the retries are for.
 */
const VERDICT_WRITE_TRANSACTION: TransactionOptions = { lane: "verdicts" };

export const MAX_JUDGE_SAMPLES = 15;

/**
 * The verdict of k sampled replies: the more frequent of success and failure. Unparseable samples vote for neither;
 * when none parsed, or success and failure are level, the verdict is unparseable (a tie is not decided by guessing).
 */
export function majorityOf(verdicts: VerdictValue[]): { verdict: VerdictValue; successes: number; failures: number; problem: string | null } {
  let successes = 0;
  let failures = 0;
  for (const v of verdicts) {
    if (v === "success") successes++;
    else if (v === "failure") failures++;
  }
  if (verdicts.length === 1) return { verdict: verdicts[0]!, successes, failures, problem: null };
  if (successes > failures) return { verdict: "success", successes, failures, problem: null };
  if (failures > successes) return { verdict: "failure", successes, failures, problem: null };
  return {
    verdict: "unparseable",
    successes,
    failures,
    problem: successes ? `samples split evenly: ${successes} success, ${failures} failure` : "no sample could be parsed",
  };
}
