/**
 * One LMM-judge verdict: trajectory × judge configuration × k.
 *
 * Reads the trajectory and its screenshots, builds the versioned prompt, calls the endpoint, parses the reply
 * strictly and stores the verdict with everything needed to audit it (steps sent, image sizes, raw reply, tokens,
 * latency, cost, attempts). A call that fails for good stores nothing, so a later run retries it; an unparseable
 * reply is stored as "unparseable", never as a guess.
 */
import type { Db } from "../../../db/client";
import { findVerdict, upsertVerdict, type PublicJudgeConfig } from "../../../db/repositories/evaluation";
import { getStepScreenshots, getTrajectoryDetail } from "../../../db/repositories/trajectories";
import type { StepRow } from "../../../db/schema/index";
import {
  buildJudgePrompt,
  costUsd,
  isJudgePromptVersion,
  parseJudgeReply,
  type JudgeStep,
} from "../../domain/evaluators/judge-protocol";
import { DEFAULT_JUDGE_OPTIONS, formatK, type JudgeK, type JudgeOptions, type VerdictValue } from "../../domain/evaluators/verdicts";
import { NotFoundError, ValidationError } from "../../errors";
import type { ScreenshotStore } from "../screenshot-store";
import { createJudgeClient, type ChatMessage, type ContentPart, type JudgeClient, type JudgeEndpoint, type RetryPolicy } from "./client";
import { endpointErrorText, judgeEvaluatorKey, redactSecret, requireJudgeConfig, judgeEndpointOf, type Env } from "./configs";
import { prepareScreenshot } from "./images";

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
}

type TrajectoryData = { detail: NonNullable<ReturnType<typeof getTrajectoryDetail>>; shots: ReturnType<typeof getStepScreenshots> };

/** A small least-recently-used cache of trajectories for one batch run. */
export class TrajectoryCache {
  private readonly entries = new Map<number, TrajectoryData>();
  constructor(private readonly capacity = 32) {}

  get(db: Db, trajectoryId: number): TrajectoryData | undefined {
    const hit = this.entries.get(trajectoryId);
    if (hit) {
      this.entries.delete(trajectoryId);
      this.entries.set(trajectoryId, hit);
      return hit;
    }
    const detail = getTrajectoryDetail(db, trajectoryId);
    if (!detail) return undefined;
    const data = { detail, shots: getStepScreenshots(db, trajectoryId) };
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
  const config = req.config && req.config.id === req.configId ? req.config : requireJudgeConfig(db, req.configId);
  if (!isJudgePromptVersion(config.promptVersion)) {
    throw new ValidationError(`Judge configuration ${config.name} uses unknown prompt version ${config.promptVersion}`);
  }
  const identity = {
    trajectoryId: req.trajectoryId,
    evaluatorKey: judgeEvaluatorKey(config.id),
    k: formatK(req.k),
    promptVersion: config.promptVersion,
  };
  if (!req.force) {
    const existing = findVerdict(db, identity);
    if (existing) return { verdictId: existing.id, verdict: existing.verdict, skipped: true };
  }
  const data = deps.trajectoryCache
    ? deps.trajectoryCache.get(db, req.trajectoryId)
    : (() => {
        const d = getTrajectoryDetail(db, req.trajectoryId);
        return d ? { detail: d, shots: getStepScreenshots(db, req.trajectoryId) } : undefined;
      })();
  if (!data) throw new NotFoundError("trajectory", req.trajectoryId);
  const { detail, shots } = data;
  const options: JudgeOptions = { ...DEFAULT_JUDGE_OPTIONS, ...config.options };
  const prompt = buildJudgePrompt(
    { intent: detail.task.intent, finalAnswer: detail.trajectory.finalAnswer, steps: judgeStepsOf(detail.steps, options.screenshots) },
    req.k,
    options,
    config.promptVersion,
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

  const endpoint = judgeEndpointOf(db, config, deps.env);
  const apiKey = endpoint.apiKey;
  const client = (deps.clientFactory ?? createJudgeClient)(endpoint, deps.retryPolicy);
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
  const cost = costUsd(
    { input: result.inputTokens, output: result.outputTokens },
    { inputPerMTok: config.priceInputPerMTok, outputPerMTok: config.priceOutputPerMTok },
  );
  const saved = upsertVerdict(db, {
    ...identity,
    kind: "judge",
    origin: "verdict",
    evaluatorName: config.name,
    judgeConfigId: config.id,
    batchId: req.batchId ?? null,
    stepIndices: prompt.stepIndices,
    verdict: parsed.verdict,
    score: parsed.verdict === "success" ? 1 : parsed.verdict === "failure" ? 0 : null,
    rationale: parsed.rationale,
    rawReply: reply ?? refusal ?? "",
    details: {
      requestedModel: config.model,
      temperature: config.temperature,
      seed: config.seed,
      options,
      totalSteps: detail.steps.length,
      images: sent,
      attempts: result.attempts,
      retried: result.retried.map((r) => redactSecret(r, apiKey)),
      finishReason: result.finishReason,
      ...(parsed.problem ? { problem: parsed.problem } : {}),
    },
    model: result.model,
    inputTokens: result.inputTokens,
    outputTokens: result.outputTokens,
    latencyMs: result.latencyMs,
    costUsd: cost,
  });
  return { verdictId: saved.id, verdict: parsed.verdict, skipped: false };
}
