/**
 * One LMM-judge verdict: trajectory × judge configuration × k.
 *
 * Reads the trajectory and its screenshots, builds the versioned prompt, calls the endpoint, parses the reply
 * strictly and stores the verdict with everything needed to audit it (steps sent, image sizes, raw reply, tokens,
 * latency, cost, attempts). A call that fails for good stores nothing, so a later run retries it; an unparseable
 * reply is stored as "unparseable", never as a guess.
 */
import { withTransaction, type Db } from "../../../db/database";
import { findVerdict, upsertVerdict, type PublicJudgeConfig, type VerdictValues } from "../../../db/repositories/evaluation/verdicts";
import { getStepScreenshots, getTrajectoryDetail } from "../../../db/repositories/trajectories";
import type { StepRow } from "../../../db/schema/index";
import {
  costUsd,
  isJudgePromptVersion,
  parseFailureStep,
  parseJudgeReply,
  type JudgeStep,
} from "../../domain/evaluation/judge-protocol";
import { buildVariantPrompt } from "../../domain/evaluation/prompt-variants";
import { formatK, type JudgeK, type JudgeOptions, type VerdictValue } from "../../domain/evaluation/verdicts";
import { NotFoundError, ValidationError } from "../../errors";
import type { ScreenshotStore } from "../../storage/screenshot-store";
import { createJudgeClient, type ChatMessage, type ContentPart, type JudgeClient, type JudgeEndpoint, type RetryPolicy } from "./judge-client";
import { endpointErrorText, judgeEvaluatorKey, redactSecret, requireJudgeConfig, judgeEndpointOf, type Env } from "./judge-configs";
import { prepareScreenshot } from "./images";
import { resolveJudgeVariant, type VariantCache } from "./judge-variants";

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
  private readonly entries = new Map<number, TrajectoryData>();
  constructor(private readonly capacity = 32) {}

  async get(db: Db, trajectoryId: number): Promise<TrajectoryData | undefined> {
    const hit = this.entries.get(trajectoryId);
    if (hit) {
      this.entries.delete(trajectoryId);
      this.entries.set(trajectoryId, hit);
      return hit;
    }
    const detail = await getTrajectoryDetail(db, trajectoryId);
    if (!detail) return undefined;
    const data = { detail, shots: await getStepScreenshots(db, trajectoryId) };
    this.entries.set(trajectoryId, data);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
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
  return pref === "raw" ? step.rawScreenshotHash ?? step.screenshotHash : step.screenshotHash ?? step.rawScreenshotHash;
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
  const { detail, shots } = data;
  const prompt = buildVariantPrompt(
    { intent: detail.task.intent, finalAnswer: detail.trajectory.finalAnswer, steps: judgeStepsOf(detail.steps, options.screenshots) },
    req.k,
    resolved.variant,
    options,
    resolved.version,
    config.promptVersion,
    req.trajectoryId,
  );

  const stepByIndex = new Map(detail.steps.map((s) => [s.index, s]));
  const content: ContentPart[] = [];
  const sent: Record<string, unknown>[] = [];
  for (const part of prompt.parts) {
    if (part.type === "text") {
      content.push({ type: "text", text: part.text });
      continue;
    }
    const hash = screenshotFor(stepByIndex.get(part.stepIndex)!, options.screenshots)!;
    const meta = shots.get(hash);
    if (!meta) throw new Error(`trajectory ${req.trajectoryId} step ${part.stepIndex}: screenshot ${hash} has no row in screenshots`);
    const img = await prepareScreenshot(deps.store, meta, options.maxImageSide);
    content.push({ type: "image_url", image_url: { url: img.dataUrl, detail: options.imageDetail } });
    sent.push({ step: part.stepIndex, hash, width: meta.width, height: meta.height, sentWidth: img.width, sentHeight: img.height, bytes: img.bytes });
  }
  const messages: ChatMessage[] = [
    { role: "system", content: prompt.system },
    { role: "user", content },
  ];

  const endpoint = await judgeEndpointOf(db, config, deps.env);
  const apiKey = endpoint.apiKey;
  const client = (deps.clientFactory ?? createJudgeClient)(endpoint, deps.retryPolicy);
  const samples = req.samples ?? 1;
  if (!Number.isInteger(samples) || samples < 1 || samples > MAX_JUDGE_SAMPLES) throw new ValidationError(`samples must be a whole number from 1 to ${MAX_JUDGE_SAMPLES}, got ${samples}`);
  if (samples > 1 && !(config.temperature > 0)) {
    throw new ValidationError(`Judge configuration ${config.name} has temperature 0: asking it ${samples} times gives the same reply each time; set a temperature above 0 to sample`);
  }

  // Each sample is its own call; they go one after another so a batch's concurrency still bounds the load on the endpoint.
  const replies: { parsed: ReturnType<typeof parseJudgeReply>; raw: string; result: Awaited<ReturnType<JudgeClient["complete"]>> }[] = [];
  for (let i = 0; i < samples; i++) {
    let result;
    try {
      result = await client.complete(messages, { signal: req.signal });
    } catch (e) {
      if (e instanceof Error) e.message = endpointErrorText(e.message, apiKey);
      throw e;
    }
    // An endpoint that echoes the key (some error pages and proxies do) must not get it stored.
    const reply = result.content == null ? null : redactSecret(result.content, apiKey);
    const refusal = result.refusal == null ? null : redactSecret(result.refusal, apiKey);
    const parsed =
      reply == null && refusal
        ? { verdict: "unparseable" as const, rationale: refusal, problem: "the model refused" }
        : parseJudgeReply(reply);
    replies.push({ parsed, raw: reply ?? refusal ?? "", result });
  }

  const vote = majorityOf(replies.map((r) => r.parsed.verdict));
  // The stored reply and rationale are those of the first sample that says what the majority says.
  const shown = replies.find((r) => r.parsed.verdict === vote.verdict) ?? replies[0]!;
  const parsed = shown.parsed;
  const result = shown.result;
  const sum = (f: (r: (typeof replies)[number]["result"]) => number | null | undefined) => {
    let total = 0;
    for (const r of replies) {
      const v = f(r.result);
      if (v == null) return null;
      total += v;
    }
    return total;
  };
  const inputTokens = sum((r) => r.inputTokens);
  const outputTokens = sum((r) => r.outputTokens);
  const cost = costUsd(
    { input: inputTokens, output: outputTokens },
    { inputPerMTok: config.priceInputPerMTok, outputPerMTok: config.priceOutputPerMTok },
  );
  const problem = vote.problem ?? parsed.problem;
  // Asked for, the first failing step is parsed strictly from the reply shown; a failure without one is kept apart.
  const failureStep = options.askFirstFailingStep ? parseFailureStep(shown.raw, vote.verdict, detail.steps.map((s) => s.index)) : null;
  const values: VerdictValues = {
    ...identity,
    kind: "judge",
    origin: "verdict",
    evaluatorName: config.name,
    judgeConfigId: config.id,
    batchId: req.batchId ?? null,
    stepIndices: prompt.stepIndices,
    verdict: vote.verdict,
    score: vote.verdict === "success" ? 1 : vote.verdict === "failure" ? 0 : null,
    rationale: parsed.rationale,
    rawReply: shown.raw,
    details: {
      requestedModel: config.model,
      temperature: config.temperature,
      seed: config.seed,
      options: resolved.askedOptions,
      ...(variantText ? { variant: variantText } : {}),
      totalSteps: detail.steps.length,
      images: sent,
      attempts: result.attempts,
      retried: replies.flatMap((r) => r.result.retried.map((x) => redactSecret(x, apiKey))),
      finishReason: result.finishReason,
      ...(problem ? { problem } : {}),
      ...(failureStep && failureStep.status !== "not-applicable" ? { failureStep } : {}),
      ...(samples > 1 ? { samples: replies.map((r) => ({ verdict: r.parsed.verdict, rationale: r.parsed.rationale, rawReply: r.raw, finishReason: r.result.finishReason, ...(r.parsed.problem ? { problem: r.parsed.problem } : {}) })) } : {}),
    },
    firstFailingStep: failureStep?.status === "given" ? failureStep.stepIndex : null,
    ...(samples > 1 ? { sampleCount: samples, sampleSuccesses: vote.successes, sampleFailures: vote.failures } : {}),
    model: result.model,
    inputTokens,
    outputTokens,
    latencyMs: sum((r) => r.latencyMs),
    costUsd: cost,
  };
  const saved = await withTransaction(db, async () => {
    if (req.mayStore && !(await req.mayStore())) {
      throw new VerdictNotStored(`trajectory ${req.trajectoryId} k=${identity.k}: the verdict was not stored, another worker took over this job`);
    }
    return upsertVerdict(db, values);
  });
  return { verdictId: saved.id, verdict: vote.verdict, skipped: false };
}

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
  return { verdict: "unparseable", successes, failures, problem: successes ? `samples split evenly: ${successes} success, ${failures} failure` : "no sample could be parsed" };
}
