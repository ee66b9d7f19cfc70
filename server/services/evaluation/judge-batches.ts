/**
 * Judge batches: a configuration over a selection of trajectories × several k values (WebVoyager's Table 2
 * compares k = 1, 2, 3, full), run as jobs of the shared queue with a concurrency limit.
 *
 * Lifecycle: estimate (calls, tokens, cost) → create (batch row + one job per (trajectory, k) still missing a
 * verdict, unless forced) → run (a worker on the batch's job group; any process may run or join it) → cancel
 * (queued jobs stop at once, running calls are aborted) → resume (cancelled and failed jobs go back to the queue).
 * Progress is read from the jobs table, so the UI and the CLI see the same numbers.
 */
import { withTransaction, type Db } from "../../../db/database";
import {
  existingVerdictKeys,
  getJudgeBatch,
  insertJudgeBatch,
  listJudgeBatches,
  updateJudgeBatch,
  verdictTotals,
} from "../../../db/repositories/evaluation/verdicts";
import { existingTrajectoryIds, getStepScreenshots, getTrajectoryDetail } from "../../../db/repositories/trajectories";
import type { JobRow, JudgeBatchRow } from "../../../db/schema/index";
import {
  describeCase,
  EXPECTED_OUTPUT_TOKENS,
  estimateImageTokens,
  estimateTextTokens,
  isJudgePromptVersion,
  scaledSize,
  selectScreenshotSteps,
  type JudgeInput,
  type PromptPart,
} from "../../domain/evaluation/judge-protocol";
import { isStagedVersion, stagedCallCount, type StagedPromptVersion } from "../../domain/evaluation/staged-protocols";
import { batchGroupKey, JUDGE_JOB_TYPE, MAX_BATCH_CONCURRENCY, type JudgeJobPayload } from "../../domain/evaluation/judge-jobs";
import { applyPromptVersion, buildVariantPrompt, subsetOfSteps, variantWindow } from "../../domain/evaluation/prompt-variants";
import { formatK, parseK, type JudgeK, type JudgeOptions } from "../../domain/evaluation/verdicts";
import { NotFoundError, ValidationError } from "../../errors";
import {
  cancelGroup,
  enqueueJobs,
  groupProgress,
  isJobHeld,
  jobsOfGroup,
  resumeGroup,
  type GroupProgress,
  RetryableJobError,
  runWorker,
  type JobOutcome,
  type WorkerSummary,
} from "../jobs";
import { JudgeCallError } from "./judge-client";
import { judgeEvaluatorKey, requireJudgeConfig } from "./judge-configs";
import { resolveJudgeVariant, VariantCache, type ResolvedVariant } from "./judge-variants";
import { judgeStepsOf, judgeTrajectory, MAX_JUDGE_SAMPLES, screenshotFor, TrajectoryCache, type JudgeDeps } from "./judge-verdict";

export { batchGroupKey, JUDGE_JOB_TYPE, MAX_BATCH_CONCURRENCY, type JudgeJobPayload };

export interface BatchRequest {
  /** Configuration id or name. */
  config: number | string;
  trajectoryIds: number[];
  kValues: JudgeK[];
  concurrency: number;
  force?: boolean;
  selectionLabel?: string | null;
  /**
   * Replies to ask for per (trajectory, k), for calibration: the verdict is their majority and the share saying
   * success the judge's confidence. Needs a configuration with temperature > 0. Default 1.
   */
  samples?: number;
  /**
   * Variants of the configuration's prompt to ask with, each on every (trajectory, k) (prompt-variants.ts: "pv12",
   * "shuffle-s7", …; "" = the configuration's own prompt). Default: the configuration's own prompt only.
   */
  variants?: string[];
  /** The alignment study the batch runs for. */
  alignmentId?: number | null;
}

export interface BatchEstimate {
  trajectories: number;
  /** trajectories × k values */
  pairs: number;
  /** Pairs that already have a verdict (kept unless forced). */
  existing: number;
  /** Endpoint calls the batch will make (pairs − existing, or all pairs when forced). */
  calls: number;
  images: number;
  inputTokens: number;
  outputTokens: number;
  /** Null when the configuration has no prices. */
  costUsd: number | null;
  perK: { k: string; calls: number; images: number }[];
  /** Per variant asked ("" = the configuration's own prompt), when the batch asks with more than its own prompt. */
  perVariant: { variant: string; promptVersion: string; calls: number; images: number; existing: number }[];
}

function checkRequest(req: BatchRequest): void {
  if (req.kValues.length === 0) throw new ValidationError("a judge batch needs at least one k value");
  if (!Number.isInteger(req.concurrency) || req.concurrency < 1 || req.concurrency > MAX_BATCH_CONCURRENCY) {
    throw new ValidationError(`concurrency must be a whole number from 1 to ${MAX_BATCH_CONCURRENCY}`);
  }
  if (req.trajectoryIds.length === 0) throw new ValidationError("the selection holds no trajectories");
  const samples = req.samples ?? 1;
  if (!Number.isInteger(samples) || samples < 1 || samples > MAX_JUDGE_SAMPLES)
    throw new ValidationError(`samples must be a whole number from 1 to ${MAX_JUDGE_SAMPLES}, got ${samples}`);
  const variants = req.variants ?? [""];
  if (variants.length === 0) throw new ValidationError('a judge batch needs at least one variant ("" for the configuration\'s own prompt)');
  if (new Set(variants).size !== variants.length) throw new ValidationError(`a variant is listed twice: ${variants.map((v) => JSON.stringify(v)).join(", ")}`);
}

interface PlannedPair {
  trajectoryId: number;
  k: string;
  variant: string;
}

type CallCost = { calls: number; images: number; inputTokens: number };

/** A one-call prompt asked `samples` times: every sample is a full call with the same images. */
function oneCallCost(
  prompt: { system: string; parts: PromptPart[]; stepIndices: number[] },
  imageTokens: (stepIndex: number) => number,
  samples: number,
): CallCost {
  let tokens = estimateTextTokens(prompt.system);
  for (const part of prompt.parts) tokens += part.type === "text" ? estimateTextTokens(part.text) : imageTokens(part.stepIndex);
  return { calls: samples, images: prompt.stepIndices.length * samples, inputTokens: tokens * samples };
}

/**
 * A staged protocol: the listing call, one relevance call per screenshot in the window (key points), and the outcome
 * call, all again for each sample. How many screenshots the key-point outcome call keeps is known only after
 * scoring, so the estimate counts them all (an upper bound). A random subset narrows the window; a prompt version
 * adds its rubric and examples to the outcome call.
 */
function stagedCallCost(
  input: JudgeInput,
  k: JudgeK,
  version: StagedPromptVersion,
  options: JudgeOptions,
  imageTokens: (stepIndex: number) => number,
  asked: { variant: ResolvedVariant; trajectoryId: number; samples: number },
): CallCost {
  const { variant, version: content } = asked.variant;
  const window = subsetOfSteps(selectScreenshotSteps(input.steps, variantWindow(k, variant)), variant.perturbation, asked.trajectoryId);
  const windowTokens = window.reduce((n, i) => n + imageTokens(i), 0);
  const caseTokens = estimateTextTokens(describeCase(input, { ...options, includeActionHistory: true }));
  const calls = stagedCallCount(version, window.length);
  const relevanceCalls = calls - 2;
  const versionTokens = content ? estimateTextTokens(applyPromptVersion("", content)) : 0;
  const inputTokens =
    2 * estimateTextTokens(input.intent) + 400 + relevanceCalls * 300 + windowTokens * (relevanceCalls > 0 ? 2 : 1) + caseTokens + 600 + versionTokens;
  const images = window.length + (relevanceCalls > 0 ? window.length : 0);
  return { calls: calls * asked.samples, images: images * asked.samples, inputTokens: inputTokens * asked.samples };
}

/** Works out which (trajectory, k) pairs need a call and what they will cost, from stored metadata only. */
export async function estimateJudgeBatch(db: Db, req: BatchRequest): Promise<BatchEstimate & { plan: PlannedPair[] }> {
  checkRequest(req);
  const config = await requireJudgeConfig(db, req.config);
  if (!isJudgePromptVersion(config.promptVersion)) throw new ValidationError(`unknown prompt version ${config.promptVersion}`);
  const samples = req.samples ?? 1;
  if (samples > 1 && !(config.temperature > 0)) {
    throw new ValidationError(
      `samples: judge configuration ${config.name} has temperature 0, so ${samples} samples would all give the same reply; set its temperature above 0 first`,
    );
  }
  const variants: ResolvedVariant[] = [];
  for (const text of req.variants ?? [""]) variants.push(await resolveJudgeVariant(db, config, text));
  const options = variants[0]!.configOptions;
  const ids = await existingTrajectoryIds(db, req.trajectoryIds);
  const kTexts = req.kValues.map(formatK);
  const existing = new Map<string, Set<string>>();
  for (const v of variants) {
    existing.set(v.text, req.force ? new Set<string>() : await existingVerdictKeys(db, judgeEvaluatorKey(config.id), v.promptVersion, ids, kTexts));
  }
  const estimate: BatchEstimate & { plan: PlannedPair[] } = {
    trajectories: ids.length,
    pairs: ids.length * kTexts.length * variants.length,
    existing: 0,
    calls: 0,
    images: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: null,
    perK: kTexts.map((k) => ({ k, calls: 0, images: 0 })),
    perVariant: variants.map((v) => ({ variant: v.text, promptVersion: v.promptVersion, calls: 0, images: 0, existing: 0 })),
    plan: [],
  };
  for (const id of ids) {
    const todo = variants.flatMap((v) => req.kValues.filter((k) => !existing.get(v.text)!.has(`${id}:${formatK(k)}`)).map((k) => ({ v, k })));
    for (const v of variants) estimate.perVariant.find((p) => p.variant === v.text)!.existing += req.kValues.length - todo.filter((t) => t.v === v).length;
    estimate.existing += req.kValues.length * variants.length - todo.length;
    if (todo.length === 0) continue;
    const detail = (await getTrajectoryDetail(db, id))!;
    const shots = await getStepScreenshots(db, id);
    const steps = judgeStepsOf(detail.steps, options.screenshots);
    const byIndex = new Map(detail.steps.map((s) => [s.index, s]));
    const imageTokens = (stepIndex: number) => {
      const meta = shots.get(screenshotFor(byIndex.get(stepIndex)!, options.screenshots)!);
      const size = meta ? scaledSize(meta.width, meta.height, options.maxImageSide) : { width: 1024, height: 768 };
      return estimateImageTokens(size.width, size.height, options.imageDetail);
    };
    const input = { intent: detail.task.intent, finalAnswer: detail.trajectory.finalAnswer, steps };
    for (const { v, k } of todo) {
      const cost = isStagedVersion(config.promptVersion)
        ? stagedCallCost(input, k, config.promptVersion, options, imageTokens, { variant: v, trajectoryId: id, samples })
        : oneCallCost(buildVariantPrompt(input, k, v.variant, options, v.version, config.promptVersion, id), imageTokens, samples);
      const kText = formatK(k);
      const perK = estimate.perK.find((p) => p.k === kText)!;
      perK.calls += cost.calls;
      perK.images += cost.images;
      const perVariant = estimate.perVariant.find((p) => p.variant === v.text)!;
      perVariant.calls += cost.calls;
      perVariant.images += cost.images;
      estimate.calls += cost.calls;
      estimate.images += cost.images;
      estimate.inputTokens += cost.inputTokens;
      estimate.outputTokens += Math.min(EXPECTED_OUTPUT_TOKENS, config.maxOutputTokens) * cost.calls;
      estimate.plan.push({ trajectoryId: id, k: kText, variant: v.text });
    }
  }
  if (config.priceInputPerMTok != null && config.priceOutputPerMTok != null) {
    estimate.costUsd = (estimate.inputTokens * config.priceInputPerMTok + estimate.outputTokens * config.priceOutputPerMTok) / 1_000_000;
  }
  return estimate;
}

/** Creates the batch and its jobs. Nothing runs until `runJudgeBatch`. */
export async function createJudgeBatch(db: Db, req: BatchRequest): Promise<{ batch: JudgeBatchRow; estimate: BatchEstimate }> {
  const { plan, ...estimate } = await estimateJudgeBatch(db, req);
  const config = await requireJudgeConfig(db, req.config);
  // The batch and its jobs appear together: no worker ever sees a batch without its jobs, or jobs without their batch.
  const batchId = await withTransaction(db, async () => {
    const id = await insertJudgeBatch(db, {
      judgeConfigId: config.id,
      selectionLabel: req.selectionLabel ?? null,
      trajectoryIds: [...new Set(req.trajectoryIds)],
      kValues: req.kValues.map(formatK),
      concurrency: req.concurrency,
      force: !!req.force,
      samples: req.samples ?? 1,
      variants: req.variants && !(req.variants.length === 1 && req.variants[0] === "") ? req.variants : null,
      alignmentId: req.alignmentId ?? null,
      status: plan.length === 0 ? "succeeded" : "pending",
      totalPairs: estimate.pairs,
      skippedExisting: estimate.existing,
      estimatedCalls: estimate.calls,
      estimatedCostUsd: estimate.costUsd,
      ...(plan.length === 0 ? { finishedAt: new Date() } : {}),
    });
    await enqueueJobs(
      db,
      plan.map((p) => ({
        type: JUDGE_JOB_TYPE,
        groupKey: batchGroupKey(id),
        dedupeKey: `${batchGroupKey(id)}:${p.trajectoryId}:${p.k}${p.variant ? `:${p.variant}` : ""}`,
        payload: {
          batchId: id,
          configId: config.id,
          trajectoryId: p.trajectoryId,
          k: p.k,
          samples: req.samples ?? 1,
          groupConcurrency: req.concurrency,
          ...(p.variant ? { variant: p.variant } : {}),
        } satisfies JudgeJobPayload,
        maxAttempts: 3,
      })),
    );
    return id;
  });
  return { batch: (await getJudgeBatch(db, batchId))!, estimate };
}

export async function requireBatch(db: Db, id: number): Promise<JudgeBatchRow> {
  const b = await getJudgeBatch(db, id);
  if (!b) throw new NotFoundError("judge batch", id);
  return b;
}

export interface BatchProgress {
  batch: JudgeBatchRow;
  jobs: GroupProgress;
  verdicts: Awaited<ReturnType<typeof verdictTotals>>;
}

export async function judgeBatchProgress(db: Db, batchId: number): Promise<BatchProgress> {
  const batch = await requireBatch(db, batchId);
  return { batch, jobs: await groupProgress(db, batchGroupKey(batchId)), verdicts: await verdictTotals(db, { batchId }) };
}

/** One (trajectory, k) call of a batch that failed, with the queue's (already shortened, key-scrubbed) reason. */
export interface BatchFailure {
  trajectoryId: number;
  k: string;
  /** The variant asked with ("" = the configuration's own prompt). */
  variant: string;
  error: string;
  attempts: number;
  finishedAt: Date | null;
}

/** The batch's failed calls in the order they were planned: which trajectories and k values a resume would send again. */
export async function judgeBatchFailures(db: Db, batchId: number, limit = 100): Promise<BatchFailure[]> {
  await requireBatch(db, batchId);
  const failed = await jobsOfGroup(db, batchGroupKey(batchId), { status: "failed", limit });
  return failed.map((job) => {
    const p = job.payload as JudgeJobPayload;
    return { trajectoryId: p.trajectoryId, k: p.k, variant: p.variant ?? "", error: job.error ?? "", attempts: job.attempts, finishedAt: job.finishedAt };
  });
}

export async function listBatches(db: Db, limit = 50) {
  return await listJudgeBatches(db, limit);
}

export interface RunBatchOptions {
  /** Stops this process's work; jobs interrupted this way go back to the queue (use cancelJudgeBatch to cancel). */
  signal?: AbortSignal;
  owner?: string;
  leaseMs?: number;
  heartbeatMs?: number;
  pollMs?: number;
  /** Overrides the batch's stored concurrency for this run. */
  concurrency?: number;
  /** May return a promise; the run waits for it before reporting again. */
  onProgress?: (p: BatchProgress, last?: { outcome: JobOutcome; error?: string }) => unknown;
}

/** Status a batch ends in once nothing of it is queued or running. */
function finalStatus(p: GroupProgress): JudgeBatchRow["status"] {
  if (p.remaining > 0) return "running";
  if (p.counts.cancelled > 0) return "cancelled";
  if (p.counts.failed > 0) return "failed";
  return "succeeded";
}

async function refreshBatchCounts(db: Db, batchId: number): Promise<GroupProgress> {
  const p = await groupProgress(db, batchGroupKey(batchId));
  const status = finalStatus(p);
  await updateJudgeBatch(db, batchId, {
    succeeded: p.counts.succeeded,
    failed: p.counts.failed,
    cancelled: p.counts.cancelled,
    status: p.remaining > 0 ? undefined : status,
    ...(p.remaining === 0 ? { finishedAt: new Date() } : {}),
  });
  return p;
}

/** One (trajectory, k) call of a batch, for whichever worker holds its job. */
async function judgeJob(runDeps: JudgeDeps, job: JobRow, signal: AbortSignal, batch: JudgeBatchRow, config: Awaited<ReturnType<typeof requireJudgeConfig>>) {
  const { db } = runDeps;
  const p = job.payload as JudgeJobPayload;
  const owner = job.leaseOwner!;
  try {
    return await judgeTrajectory(runDeps, {
      configId: p.configId,
      trajectoryId: p.trajectoryId,
      k: parseK(p.k),
      batchId: p.batchId,
      force: batch.force,
      signal,
      config,
      samples: p.samples ?? 1,
      variant: p.variant,
      // A worker whose lease was taken over (it hung past its lease) must not store what the new holder stores.
      mayStore: () => isJobHeld(db, job.id, owner),
    });
  } catch (e) {
    // Transient trouble that outlasted the call's own retries: let the queue try again later.
    if (e instanceof JudgeCallError && e.retryable) {
      throw new RetryableJobError(e.message, Math.max(1_000, (runDeps.retryPolicy?.baseDelayMs ?? 1_000) * 8));
    }
    throw e;
  }
}

/**
 * Runs a batch's queued jobs until none is left (or `signal` stops this process). Safe to call from several
 * processes at once: the queue hands each job to one worker.
 */
export async function runJudgeBatch(deps: JudgeDeps, batchId: number, opts: RunBatchOptions = {}): Promise<BatchProgress & { worker: WorkerSummary }> {
  const { db } = deps;
  const batch = await requireBatch(db, batchId);
  const config = await requireJudgeConfig(db, batch.judgeConfigId);
  await updateJudgeBatch(db, batchId, { status: "running", startedAt: batch.startedAt ?? new Date(), finishedAt: null, error: null });
  let lastReport = 0;
  // Reports go out one after another, in the order jobs ended; a failing report does not stop the batch.
  let reporting: Promise<void> = Promise.resolve();
  const report = (last?: { outcome: JobOutcome; error?: string }) => {
    const onProgress = opts.onProgress;
    if (!onProgress) return;
    const now = Date.now();
    if (!last || now - lastReport > 100 || last.outcome !== "succeeded") {
      lastReport = now;
      reporting = reporting
        .then(async () => {
          await onProgress(await judgeBatchProgress(db, batchId), last);
        })
        .catch(() => {});
    }
  };
  report();
  const runDeps: JudgeDeps = { ...deps, trajectoryCache: deps.trajectoryCache ?? new TrajectoryCache(), variantCache: deps.variantCache ?? new VariantCache() };
  const worker = await runWorker({
    db,
    groupKey: batchGroupKey(batchId),
    concurrency: opts.concurrency ?? batch.concurrency,
    owner: opts.owner,
    leaseMs: opts.leaseMs,
    heartbeatMs: opts.heartbeatMs,
    pollMs: opts.pollMs,
    untilIdle: true,
    signal: opts.signal,
    handlers: {
      [JUDGE_JOB_TYPE]: async ({ job, signal }) => judgeJob(runDeps, job, signal, batch, config),
    },
    onJobEnd: (_job, outcome, error) => report({ outcome, error }),
  });
  await reporting;
  const jobs = await refreshBatchCounts(db, batchId);
  if (jobs.remaining > 0 && opts.signal?.aborted) {
    // This process stopped; the rest stays queued for a later run or another worker.
    await updateJudgeBatch(db, batchId, { status: "pending" });
  }
  const progress = await judgeBatchProgress(db, batchId);
  await opts.onProgress?.(progress);
  return { ...progress, worker };
}

export interface JudgeWorkerOptions {
  /** Stops the worker; its running calls go back to the queue. */
  signal?: AbortSignal;
  owner?: string;
  concurrency: number;
  leaseMs?: number;
  /** Return once no judge call is queued or running anywhere (tests, a one-off drain); otherwise run until `signal`. */
  untilIdle?: boolean;
  onJobEnd?: (job: JobRow, outcome: JobOutcome, error?: string) => void;
  onQueueTrouble?: (event: { recovered: boolean; error?: string }) => void;
}

/**
 * Judge calls of every batch, for a worker process (`npm run worker`): a batch started from the dashboard is only
 * queued by the web server and shared out between the workers, up to the batch's own concurrency across all of them
 * (the jobs' `groupConcurrency`). Each job's batch and configuration are read when the job starts; the batch's counts
 * are brought up to date as its jobs end, so the batch page shows the same numbers wherever the work ran.
 */
export async function runJudgeWorker(deps: JudgeDeps, opts: JudgeWorkerOptions): Promise<WorkerSummary> {
  const { db } = deps;
  const runDeps: JudgeDeps = { ...deps, trajectoryCache: deps.trajectoryCache ?? new TrajectoryCache(), variantCache: deps.variantCache ?? new VariantCache() };
  // Each batch's counts are brought up to date one refresh after another, so the last job's refresh is the last
  // write; the worker returns once they are written.
  const refreshes = new Map<number, Promise<void>>();
  const refresh = (batchId: number) => {
    const next = (refreshes.get(batchId) ?? Promise.resolve())
      .then(() => refreshBatchCounts(db, batchId))
      .then(
        () => {},
        () => {
          // A busy database: the next job's end brings the counts up to date.
        },
      );
    refreshes.set(batchId, next);
    void next.finally(() => {
      if (refreshes.get(batchId) === next) refreshes.delete(batchId);
    });
  };
  const summary = await runWorker({
    db,
    concurrency: opts.concurrency,
    owner: opts.owner,
    leaseMs: opts.leaseMs,
    signal: opts.signal,
    untilIdle: opts.untilIdle,
    onQueueTrouble: opts.onQueueTrouble,
    handlers: {
      [JUDGE_JOB_TYPE]: async ({ job, signal }) => {
        const p = job.payload as JudgeJobPayload;
        const batch = await requireBatch(db, p.batchId);
        // The first call a worker takes marks the batch as running (the web server only created it).
        if (batch.status === "pending")
          await updateJudgeBatch(db, batch.id, { status: "running", startedAt: batch.startedAt ?? new Date(), finishedAt: null, error: null });
        const config = await requireJudgeConfig(db, batch.judgeConfigId);
        return judgeJob(runDeps, job, signal, batch, config);
      },
    },
    onJobEnd: (job, outcome, error) => {
      opts.onJobEnd?.(job, outcome, error);
      refresh((job.payload as JudgeJobPayload).batchId);
    },
  });
  await Promise.all([...refreshes.values()]);
  return summary;
}

/** Cancels a batch from any process: queued jobs at once, running calls at their worker's next heartbeat. */
export async function cancelJudgeBatch(db: Db, batchId: number): Promise<{ cancelled: number; signalled: number }> {
  await requireBatch(db, batchId);
  const r = await cancelGroup(db, batchGroupKey(batchId));
  const p = await refreshBatchCounts(db, batchId);
  if (p.remaining === 0) await updateJudgeBatch(db, batchId, { status: "cancelled" });
  return r;
}

/** Puts cancelled and failed jobs back in the queue; the workers (or `runJudgeBatch` in the CLI) then finish the batch. */
export async function resumeJudgeBatch(db: Db, batchId: number): Promise<{ requeued: number }> {
  await requireBatch(db, batchId);
  const requeued = await resumeGroup(db, batchGroupKey(batchId), { includeFailed: true });
  if (requeued > 0) await updateJudgeBatch(db, batchId, { status: "pending", finishedAt: null });
  return { requeued };
}
