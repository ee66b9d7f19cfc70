/**
 * One task of a live run, as a job handler: open a browser context, record the policy's trajectory step by step into
 * the database (so it streams into the player), run the task's rule evaluator on the live page, write the native
 * bundle, close the context. Every exit path closes the context. With a bucket configured, the finished bundle is
 * then moved from this worker's data folder into the bucket (see storage/live-bundles.ts), so that no bundle is
 * stranded on whichever host ran the task.
 *
 * How a run ends is the trajectory's outcome, not the job's: a run that hits its step limit, times out, crashes its
 * page or whose policy fails is a finished job with outcome step_limit / error and the reason. The job itself fails
 * only when the runner could not do its work (no browser, the database refused a write).
 */
import fsp from "node:fs/promises";
import path from "node:path";
import type { Browser } from "playwright";
import type { Db } from "../../../db/database";
import { getRun, getTask } from "../../../db/repositories/catalog";
import { upsertVerdict } from "../../../db/repositories/evaluation/verdicts";
import {
  appendLiveStep,
  finishLiveTrajectory,
  LeaseLostError,
  setLiveBundleLocation,
  setRunningDetail,
  startLiveTrajectory,
  type LeaseRef,
} from "../../../db/repositories/live/runs";
import type { StepValues } from "../../../db/repositories/trajectories";
import type { Policy } from "../../browser/policy";
import { bundleStepSink, recordTrajectory, type RecordedStep, type RecordedTrajectory } from "../../browser/recorder";
import { createScriptedPolicy } from "../../browser/scripted-policy";
import { BrowserSession } from "../../browser/session";
import type { BundleTrajectory } from "../../domain/imports/bundle";
import { identityStep, trajectoryContentHash } from "../../domain/imports/identity";
import { looksLikeVwaEvalConfig } from "../../domain/evaluation/vwa/config";
import type { PortRange } from "../../config";
import { buildVwaEvaluator, VWA_RULES_VERSION } from "../../domain/evaluation/vwa/evaluate";
import { parseLiveAction } from "../../domain/live/action-text";
import { RUNNER_PROMPT_VERSION } from "../../domain/live/policy-prompt";
import { defaultAllowlist, parseHostList } from "../../domain/live/safety";
import { LIVE_RULES_EVALUATOR_KEY, LIVE_RULES_EVALUATOR_NAME, type LiveTaskPayload } from "../../domain/live/settings";
import { stepContent, type ReferenceAnswer, type TaskDifficulty } from "../../domain/types";
import { BundleWriter } from "../bundle-io";
import { JobInterrupted, type JobContext } from "../jobs";
import type { RetryPolicy, JudgeClient, JudgeEndpoint } from "../evaluation/judge-client";
import type { Env } from "../evaluation/judge-configs";
import { describeEvaluation } from "../evaluation";
import { sha256, type ScreenshotStore } from "../../storage/screenshot-store";
import type { LiveBundleBucket } from "../../storage/live-bundles";
import { EgressProxy } from "./egress-proxy";
import { livePageCapabilities } from "./live-page";
import { RunSafety, type HostResolver } from "./safety-guard";
import { vlmPolicyFromConfig, type VlmPolicyUsage } from "./vlm-policy";
import { clearTrajectoryEvidence, saveInputImage, saveStepEvidence, saveTrajectoryHar, storedInputImage } from "../../../db/repositories/live/evidence";
import { blockingSnapshot } from "../../browser/page-snapshot";
import { describeBlocking, detectBlocking } from "../../domain/live/blocking";
import { redactHar } from "../../domain/live/har-redaction";
import { inputImageUrl, loginSitesOfStorageState, sitesOfTask, substituteSites, substituteSitesDeep } from "../../domain/live/deployment";
import { effectiveLimits, taskLimitsOf } from "../../domain/live/task-limits";
import { deploymentRuntime, type SiteRuntime } from "./deployment-profiles";
import { fetchInputImage, InfraFailure, LoginCache, resetSite, storageStateFor } from "./deployment-runtime";
import type { HostSlots } from "./host-slots";

export { LIVE_RULES_EVALUATOR_KEY, LIVE_RULES_EVALUATOR_NAME };

export interface RunnerDeps {
  db: Db;
  store: ScreenshotStore;
  env: Env;
  dataDir: string;
  /** The worker's shared browser (launched on first use, relaunched if it died). */
  browser(): Promise<Browser>;
  /**
   * host:port destinations reachable although private: the bundled demo sites this worker serves and the ones an
   * admin allowed (VERDICT_RUNNER_ALLOWED_DESTINATIONS).
   */
  privateOriginExceptions: string[];
  /** Ports the run's egress proxy may listen on (VERDICT_RUNNER_PROXY_PORTS). */
  proxyPorts?: PortRange;
  retryPolicy?: RetryPolicy;
  clientFactory?: (e: JudgeEndpoint, p?: RetryPolicy) => JudgeClient;
  resolveHost?: HostResolver;
  /**
   * Where the runs' egress proxies listen when the browser is on another machine (VERDICT_RUNNER_PROXY_HOST); they
   * then ask for credentials. Unset: 127.0.0.1, no credentials (a browser this worker launched).
   */
  remoteProxyHost?: string;
  log?: (line: string) => void;
  /** Deployment logins made once per run in this worker and reused by its later tasks. */
  logins?: LoginCache;
  /** Per-host concurrency across this worker's tasks (a run's `hostConcurrency`). */
  hostSlots?: HostSlots;
  /**
   * The installation's bucket for finished bundles (VERDICT_S3_BUCKET); unset or null: they stay in
   * `<dataDir>/live-runs/`.
   */
  bundles?: LiveBundleBucket | null;
}

export interface LiveTaskResult {
  trajectoryId: number;
  outcome: string;
  outcomeDetail: string | null;
  finalAnswer: string | null;
  steps: number;
  /** Where the trajectory's bundle is: the worker's folder, or its s3:// location once it was moved to the bucket. */
  bundleDir: string;
  /** Why the bundle could not be moved to the bucket (it then stays in the worker's folder); null otherwise. */
  bundleUploadError?: string | null;
  ruleVerdict: string | null;
  /** Calls and tokens of the VLM policy; null for scripted runs. */
  policyUsage?: VlmPolicyUsage | null;
}

export function liveBundleDir(dataDir: string, runId: number, trajectoryId: number): string {
  return path.join(dataDir, "live-runs", `run-${runId}`, `trajectory-${trajectoryId}`);
}

/** The same content hash an import of the trajectory's bundle computes, so re-importing it changes nothing. */
function contentHashOf(t: BundleTrajectory, steps: StepValues[]): string {
  return trajectoryContentHash({
    runKey: t.run.runKey,
    taskSet: t.task.taskSet.name,
    externalTaskId: t.task.externalId,
    attempt: t.attempt,
    finalAnswer: t.finalAnswer,
    outcome: t.outcome,
    outcomeDetail: t.outcomeDetail,
    steps: steps.map(identityStep),
  });
}

/** Playwright's words for a browser or context that went away under the runner. */
function browserGone(e: unknown): boolean {
  return /Target crashed|Browser has been closed|browser has disconnected|Target page, context or browser has been closed/i.test(String(e));
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function stepValues(step: RecordedStep, screenshotHash: string, rawScreenshotHash: string): StepValues {
  return {
    index: step.index,
    screenshotHash,
    rawScreenshotHash,
    marksBurnedIn: true,
    ...stepContent(step),
    durationMs: step.durationMs,
  };
}

function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split("\n")[0]!;
}

type TaskRow = NonNullable<Awaited<ReturnType<typeof getTask>>>["task"];
type TaskSetRow = NonNullable<Awaited<ReturnType<typeof getTask>>>["taskSet"];
type AgentRunRow = NonNullable<Awaited<ReturnType<typeof getRun>>>;
type Plan = NonNullable<LiveTaskPayload["deployment"]>;

/** The task and run as the bundle and the recorder name them. */
function bundleHeads(task: TaskRow, taskSet: TaskSetRow, agentRun: AgentRunRow): { task: RecordedTrajectory["task"]; run: RecordedTrajectory["run"] } {
  return {
    task: {
      taskSet: { name: taskSet.name, benchmark: taskSet.benchmark, description: taskSet.description },
      externalId: task.externalId,
      site: task.site,
      intent: task.intent,
      startUrl: task.startUrl,
      inputImages: task.inputImages,
      referenceAnswers: task.referenceAnswers as ReferenceAnswer[],
      evaluatorConfig: task.evaluatorConfig ?? null,
      difficulty: (task.difficulty as TaskDifficulty | null) ?? null,
      tags: task.tags,
      extra: task.extra ?? null,
    },
    run: {
      runKey: agentRun.runKey,
      name: agentRun.name,
      agentName: agentRun.agentName,
      model: agentRun.model,
      sourceSystem: agentRun.sourceSystem,
      config: agentRun.config ?? null,
    },
  };
}

export async function runLiveTask(deps: RunnerDeps, job: JobContext): Promise<LiveTaskResult> {
  return (await LiveTask.begin(deps, job)).carryOut();
}

/**
 * One live task from its trajectory's start to its end: the state the recording, the safety rules, the bundle and
 * the job's signal share. `carryOut` is the whole of it; each step of the way is a method of its own.
 */
class LiveTask {
  private readonly db: Db;
  private readonly payload: LiveTaskPayload;
  private readonly settings: LiveTaskPayload["settings"];
  private readonly lease: LeaseRef;
  private readonly plan: Plan | null;
  private readonly startUrl: string | null;
  private readonly evaluatorConfig: unknown;
  private readonly limits: ReturnType<typeof effectiveLimits>;
  /** Kept on the finished trajectory too: a reviewer should know the run they see is a second try. */
  private readonly restartNote: string | null;
  private readonly bundleDir: string;
  private readonly harPath: string | null;
  private readonly writer: BundleWriter;
  private readonly sink: ReturnType<typeof bundleStepSink>;
  private readonly heads: ReturnType<typeof bundleHeads>;
  /** A deployment profile is the admin's allowance: its hosts, and only them, are the private destinations. */
  private readonly privateOriginExceptions: string[];
  private readonly allowedHosts: string[];
  /** Steps stored in the database, in order. */
  private readonly stored: StepValues[] = [];
  /** Where the bundle ends up: its folder, or the bucket once finish() moved it there. */
  private bundleLocation: string;
  private bundleUploadError: string | null = null;
  /**
   * One signal stops the recorder: the job's (cancel, lease lost, worker stopping) or a crashed page. An attempt
   * the infrastructure spoiled (a crash before step 0) starts over with a signal of its own.
   */
  private stop = new AbortController();
  private crash: string | null = null;
  private safety: RunSafety;
  private leaseLost = false;
  private session: BrowserSession | null = null;
  private egress: EgressProxy | null = null;
  private policyUsage: (() => VlmPolicyUsage) | null = null;
  private releaseHost: (() => void) | null = null;
  private ruleVerdict: string | null = null;
  private readonly onJobAbort = () => this.stop.abort(this.job.signal.reason);

  private constructor(
    private readonly deps: RunnerDeps,
    private readonly job: JobContext,
    private readonly task: TaskRow,
    heads: ReturnType<typeof bundleHeads>,
    private readonly trajectoryId: number,
    restartNote: string | null,
  ) {
    this.db = deps.db;
    this.payload = job.job.payload as LiveTaskPayload;
    this.settings = this.payload.settings;
    this.lease = { jobId: job.job.id, owner: job.job.leaseOwner ?? "" };
    this.heads = heads;
    this.restartNote = restartNote;
    // With a deployment profile the task's site placeholders become the lab's URLs, in the start URL and the rules.
    this.plan = this.payload.deployment ?? null;
    this.startUrl = this.plan && task.startUrl ? substituteSites(task.startUrl, this.plan.siteUrls).text : task.startUrl;
    this.evaluatorConfig = this.plan ? substituteSitesDeep(task.evaluatorConfig ?? null, this.plan.siteUrls) : task.evaluatorConfig;
    // A task file's own step and time limits win over the run's.
    this.limits = effectiveLimits(taskLimitsOf(task.extra), this.settings);
    this.bundleDir = liveBundleDir(deps.dataDir, this.payload.runId, trajectoryId);
    this.bundleLocation = this.bundleDir;
    this.harPath = this.settings.recordHar ? path.join(this.bundleDir, "network.har") : null;
    this.writer = new BundleWriter(this.bundleDir);
    this.sink = bundleStepSink(this.writer);
    this.privateOriginExceptions = this.plan ? this.plan.destinations : deps.privateOriginExceptions;
    this.allowedHosts = this.settings.allowedHosts.length
      ? parseHostList(this.settings.allowedHosts).hosts
      : this.plan
        ? this.plan.hosts
        : defaultAllowlist(this.startUrl);
    this.safety = this.makeSafety();
  }

  /** Finds the task and its run, and starts (or starts again) the task's trajectory with an empty bundle folder. */
  static async begin(deps: RunnerDeps, job: JobContext): Promise<LiveTask> {
    const payload = job.job.payload as LiveTaskPayload;
    const lease: LeaseRef = { jobId: job.job.id, owner: job.job.leaseOwner ?? "" };
    const found = await getTask(deps.db, payload.taskId);
    if (!found) throw new Error(`task ${payload.taskId} no longer exists`);
    const agentRun = await getRun(deps.db, payload.runId);
    if (!agentRun) throw new Error(`live run ${payload.runId} no longer exists`);
    const restartNote =
      job.job.attempts > 1 ? `attempt ${job.job.attempts} of ${job.job.maxAttempts}: started again after the previous attempt was interrupted` : null;
    const { id: trajectoryId } = await startLiveTrajectory(deps.db, lease, { runId: payload.runId, taskId: found.task.id, outcomeDetail: restartNote });
    await fsp.rm(liveBundleDir(deps.dataDir, payload.runId, trajectoryId), { recursive: true, force: true });
    await clearTrajectoryEvidence(deps.db, trajectoryId);
    return new LiveTask(deps, job, found.task, bundleHeads(found.task, found.taskSet, agentRun), trajectoryId, restartNote);
  }

  private get egressRules() {
    return { allowedDestinations: this.privateOriginExceptions };
  }

  private makeSafety(): RunSafety {
    return new RunSafety({
      allowedHosts: this.allowedHosts,
      privateOriginExceptions: this.privateOriginExceptions,
      // Reset hooks are the runner's to call (resetSite), never the page's, even on a site's own host and port.
      blockedUrls: this.plan?.resetUrls ?? [],
      blockedTexts: this.settings.blockedTexts,
      allowDownloads: this.settings.allowDownloads,
      downloadsDir: path.join(this.bundleDir, "downloads"),
      resolveHost: this.deps.resolveHost,
      onCrash: (reason) => {
        this.crash ??= reason;
        this.stop.abort(new Error(reason));
      },
    });
  }

  private refusedRun(detail: string, outcome: "error" | "infra_error" = "error"): RecordedTrajectory {
    return { task: this.heads.task, run: this.heads.run, attempt: 0, finalAnswer: null, outcome, outcomeDetail: detail, steps: [] };
  }

  async carryOut(): Promise<LiveTaskResult> {
    const { job } = this;
    if (job.signal.aborted) this.onJobAbort();
    else job.signal.addEventListener("abort", this.onJobAbort, { once: true });
    let recorded: RecordedTrajectory;
    try {
      recorded = await this.recordOrRefuse();
    } catch (e) {
      if (e instanceof LeaseLostError || this.leaseLost) throw new LeaseLostError(this.lease.jobId);
      // The runner itself failed (no browser, a write refused): the trajectory says so, and the job fails.
      await this.finish(this.refusedRun(`the runner failed: ${firstLine(e)}`)).catch(() => {});
      throw e;
    } finally {
      job.signal.removeEventListener("abort", this.onJobAbort);
      // Ends whatever the run left in flight (a policy call past its step timeout).
      if (!this.stop.signal.aborted) this.stop.abort(new Error("the run is over"));
      await this.session?.close();
      await this.egress?.close();
      this.releaseHost?.();
    }
    // The HAR is complete once its context closed.
    if (this.harPath)
      await this.storeHar(this.harPath).catch((e) => this.deps.log?.(`the HAR of trajectory ${this.trajectoryId} was not kept: ${firstLine(e)}`));

    const interruptedBy = job.signal.reason instanceof JobInterrupted ? job.signal.reason.why : null;
    if (interruptedBy === "stop") {
      // The worker is shutting down: the job goes back to the queue and its next attempt starts over.
      await setRunningDetail(this.db, this.trajectoryId, "interrupted: the worker stopped; queued to start again");
      return this.result({ outcome: "running", outcomeDetail: null, finalAnswer: null }, this.bundleDir, false);
    }
    if (interruptedBy === "lost") throw new LeaseLostError(this.lease.jobId);
    await this.finish(recorded);
    const outcomeDetail = [recorded.outcomeDetail, this.restartNote].filter(Boolean).join("; ") || null;
    return this.result({ outcome: recorded.outcome, outcomeDetail, finalAnswer: recorded.finalAnswer }, this.bundleLocation, true);
  }

  private result(end: Pick<LiveTaskResult, "outcome" | "outcomeDetail" | "finalAnswer">, bundleDir: string, withUpload: boolean): LiveTaskResult {
    return {
      trajectoryId: this.trajectoryId,
      ...end,
      steps: this.stored.length,
      bundleDir,
      ...(withUpload ? { bundleUploadError: this.bundleUploadError } : {}),
      ruleVerdict: this.ruleVerdict,
      policyUsage: this.policyUsage?.() ?? null,
    };
  }

  /** Why the start URL may not be opened, or null. */
  private async startRefusal(): Promise<string | null> {
    const { startUrl } = this;
    if (!startUrl) return "the task has no start URL";
    let refusal: string | null;
    try {
      refusal = await this.safety.navigationRefusal(new URL(startUrl));
    } catch {
      refusal = `the start URL ${JSON.stringify(startUrl)} is not a URL`;
    }
    return refusal ? `refused to open the start URL ${startUrl}: ${refusal}` : null;
  }

  /** The recorded trajectory, or the refusal that kept it from starting; the rule verdict when the task has rules. */
  private async recordOrRefuse(): Promise<RecordedTrajectory> {
    const refusal = await this.startRefusal();
    if (refusal) return this.refusedRun(refusal);
    const policy = await this.policy();
    if (this.settings.hostConcurrency) {
      this.releaseHost = (await this.deps.hostSlots?.acquire(new URL(this.startUrl!).hostname, this.settings.hostConcurrency, this.job.signal)) ?? null;
    }
    // This run's own egress proxy: its rules are the run's (the private destinations an admin declared).
    this.egress = await EgressProxy.start({
      rules: this.egressRules,
      ports: this.deps.proxyPorts,
      resolveHost: this.deps.resolveHost,
      host: this.deps.remoteProxyHost,
      requireCredentials: this.deps.remoteProxyHost !== undefined,
      onRefusal: (r) => {
        this.safety.noteRefusal(r.message);
        this.deps.log?.(`trajectory ${this.trajectoryId}: ${r.message}`);
      },
    });
    let recorded = await this.recordAttempts(policy, this.egress);
    if (this.crash) recorded = { ...recorded, outcome: "error", outcomeDetail: this.crash, finalAnswer: null };
    const interrupted = this.job.signal.reason instanceof JobInterrupted ? this.job.signal.reason.why : null;
    if (interrupted === "cancel") recorded = { ...recorded, outcome: "cancelled", outcomeDetail: `cancelled after ${recorded.steps.length} step(s)` };

    // The rule evaluator needs the page as the agent left it: run it before the context closes. Infrastructure
    // errors and blocked pages say nothing about the agent: no verdict.
    const s = this.session;
    const agentsOwn = recorded.outcome !== "infra_error" && recorded.outcome !== "blocked";
    if (s && agentsOwn && !this.stop.signal.aborted && looksLikeVwaEvalConfig(this.evaluatorConfig)) {
      this.ruleVerdict = await evaluateOnLivePage(this.db, this.trajectoryId, { ...this.task, evaluatorConfig: this.evaluatorConfig }, recorded, s).catch(
        (e) => {
          this.deps.log?.(`rule evaluation of trajectory ${this.trajectoryId} failed: ${firstLine(e)}`);
          return null;
        },
      );
    }
    return recorded;
  }

  private async policy(): Promise<Policy> {
    const { payload, deps } = this;
    if (payload.policy.kind === "scripted") return createScriptedPolicy(payload.policy.script, `scripted:${payload.policy.label}`);
    const vlm = await vlmPolicyFromConfig(
      { db: this.db, env: deps.env, retryPolicy: deps.retryPolicy, clientFactory: deps.clientFactory },
      payload.policy.judgeConfigId,
      this.settings.historyScreenshots,
    );
    this.policyUsage = vlm.usage;
    return vlm;
  }

  /**
   * Prepares the browser and records, trying again (up to the run's infraRetries) when the infrastructure fails
   * before the agent's first step: such a failure ends as infra_error, never as the agent's.
   */
  private async recordAttempts(policy: Policy, proxy: EgressProxy): Promise<RecordedTrajectory> {
    const { settings, trajectoryId, deps } = this;
    for (let attempt = 1; ; attempt++) {
      let prepared;
      try {
        prepared = await this.prepare(proxy);
      } catch (e) {
        if (!(e instanceof InfraFailure) && !browserGone(e)) throw e;
        const why = firstLine(e);
        if (attempt <= settings.infraRetries && !this.job.signal.aborted) {
          deps.log?.(`trajectory ${trajectoryId}: infrastructure failure (attempt ${attempt}): ${why}; trying again`);
          await sleep(300 * attempt);
          continue;
        }
        return this.refusedRun(`${why} (${attempt} attempt${attempt === 1 ? "" : "s"})`, "infra_error");
      }
      this.session = prepared.session;
      const recorded = await this.record(policy, prepared.session, prepared.inputImages);
      if (this.leaseLost) throw new LeaseLostError(this.lease.jobId);
      // The browser died before the agent did anything: the infrastructure's failure, tried again.
      if (this.crash && recorded.steps.length === 0 && !this.job.signal.aborted) {
        const why = `the browser crashed before the first step: ${this.crash}`;
        await prepared.session.close();
        if (attempt <= settings.infraRetries) {
          deps.log?.(`trajectory ${trajectoryId}: ${why} (attempt ${attempt}); trying again`);
          this.crash = null;
          this.stop = new AbortController();
          this.safety = this.makeSafety();
          continue;
        }
        this.crash = null;
        return this.refusedRun(`${why} (${attempt} attempt${attempt === 1 ? "" : "s"})`, "infra_error");
      }
      return recorded;
    }
  }

  private async record(policy: Policy, session: BrowserSession, inputImages: { dataUrl: string; source: string }[]): Promise<RecordedTrajectory> {
    const { settings } = this;
    await this.safety.install(session.context);
    return recordTrajectory({
      session,
      task: this.heads.task,
      startUrl: this.startUrl,
      run: this.heads.run,
      policy,
      maxSteps: this.limits.maxSteps,
      stepTimeoutMs: settings.stepTimeoutMs,
      runTimeoutMs: this.limits.timeLimitMs,
      signal: this.stop.signal,
      parseAction: parseLiveAction,
      guard: this.safety.actionGuard(() => session.page),
      inputImages,
      blockedCheck: settings.detectBlocking
        ? async (page, index) => {
            const snap = await blockingSnapshot(page);
            const found = snap ? detectBlocking(snap) : null;
            return found ? describeBlocking(found, index) : null;
          }
        : undefined,
      onStep: async (step) => {
        await this.sink.onStep(step);
        await this.persist(step);
      },
    });
  }

  /** A recorded step into the store and the database, so it streams into the player. */
  private async persist(step: RecordedStep): Promise<void> {
    const images = [step.screenshot, step.rawScreenshot].map((img) => ({
      hash: sha256(img.bytes),
      mime: "image/png",
      width: img.width,
      height: img.height,
      bytes: img.bytes.byteLength,
      data: img.bytes,
    }));
    const batch = this.deps.store.beginBatch();
    for (const img of images) await batch.put(img.hash, img.data);
    await batch.publish();
    const values = stepValues(step, images[0]!.hash, images[1]!.hash);
    try {
      await appendLiveStep(
        this.db,
        this.lease,
        this.trajectoryId,
        values,
        images.map(({ data: _data, ...row }) => row),
      );
    } catch (e) {
      if (e instanceof LeaseLostError) this.leaseLost = true;
      throw e;
    }
    await saveStepEvidence(this.db, this.trajectoryId, { index: step.index, startedAt: step.startedAt, tabs: step.tabs, prompt: step.prompt ?? null });
    this.stored.push(values);
    this.job.reportProgress({ step: step.index + 1, maxSteps: this.limits.maxSteps, url: step.url });
  }

  /**
   * An input image is fetched once (under the run's address rules) and kept content-addressed in the store; later
   * tasks and runs send the stored bytes.
   */
  private async inputImageData(source: string): Promise<string> {
    const { deps, task } = this;
    const known = await storedInputImage(this.db, task.id, source);
    if (known && (await deps.store.has(known.imageHash))) {
      return `data:${known.mime};base64,${(await deps.store.read(known.imageHash)).toString("base64")}`;
    }
    const { bytes, mime } = await fetchInputImage(source, task.externalId, { rules: this.egressRules, resolveHost: deps.resolveHost });
    const imageHash = sha256(bytes);
    const batch = deps.store.beginBatch();
    await batch.put(imageHash, bytes);
    await batch.publish();
    await saveInputImage(this.db, { taskId: task.id, source, imageHash, mime, bytes: bytes.byteLength });
    return `data:${mime};base64,${bytes.toString("base64")}`;
  }

  /**
   * Everything before the agent's first step is the deployment's business (sites reset, logins, input images, the
   * browser context): its failures are retried, then recorded as an infrastructure error rather than the agent's.
   */
  private async prepare(proxy: EgressProxy): Promise<{ session: BrowserSession; inputImages: { dataUrl: string; source: string }[] }> {
    const { deps, plan, task, settings } = this;
    // Asked for on every attempt: a browser that died during the last one is launched again, not reused.
    const browser = await deps.browser();
    let runtime: Map<string, SiteRuntime> | null = null;
    if (plan) {
      try {
        runtime = await deploymentRuntime(this.db, plan.profileId);
      } catch (e) {
        throw new InfraFailure(`deployment profile "${plan.profileName}": ${firstLine(e)}`);
      }
    }
    const extra = (task.extra ?? {}) as Record<string, unknown>;
    const touched = plan ? sitesOfTask({ startUrl: task.startUrl, evaluatorConfig: task.evaluatorConfig, extra }) : [];
    for (const name of touched) {
      const site = runtime?.get(name);
      if (site?.reset) await resetSite(site, { resolveHost: deps.resolveHost });
    }
    const loginSites = [...new Set(loginSitesOfStorageState(extra.storage_state))].map((n) => runtime?.get(n)).filter((x): x is SiteRuntime => !!x?.login);
    const storageState = loginSites.length ? await this.logIn(browser, loginSites, plan!) : undefined;
    const inputImages: { dataUrl: string; source: string }[] = [];
    for (const image of task.inputImages) {
      const where = inputImageUrl(image, plan?.siteUrls ?? {});
      if ("error" in where) throw new InfraFailure(`task ${task.externalId}: ${where.error}`);
      inputImages.push({ dataUrl: await this.inputImageData(where.url), source: where.url });
    }
    const opened = await BrowserSession.open(browser, {
      viewport: settings.viewport,
      acceptDownloads: settings.allowDownloads,
      proxyServer: proxy.url,
      proxyCredentials: proxy.settings.username ? { username: proxy.settings.username, password: proxy.settings.password! } : undefined,
      storageState,
      harPath: this.harPath ?? undefined,
    });
    return { session: opened, inputImages };
  }

  /**
   * The login's own context gets a proxy of its own, with the run's rules: what it refuses (the browser's background
   * requests on a login page) is not the agent's doing and stays out of the steps.
   */
  private async logIn(browser: Browser, loginSites: SiteRuntime[], plan: Plan): Promise<Awaited<ReturnType<typeof storageStateFor>>> {
    const { deps } = this;
    const loginProxy = await EgressProxy.start({
      rules: this.egressRules,
      resolveHost: deps.resolveHost,
      host: deps.remoteProxyHost,
      requireCredentials: deps.remoteProxyHost !== undefined,
      onRefusal: (r) => deps.log?.(`login for trajectory ${this.trajectoryId}: ${r.message}`),
    });
    try {
      return await storageStateFor(loginSites, {
        runId: this.payload.runId,
        profileId: plan.profileId,
        cache: deps.logins ?? new LoginCache(),
        browser,
        proxy: loginProxy.settings,
      });
    } finally {
      await loginProxy.close();
    }
  }

  private async storeHar(file: string): Promise<void> {
    const { deps } = this;
    let bytes: Buffer;
    try {
      bytes = await fsp.readFile(file);
    } catch {
      return; // no context was opened (refused start, infrastructure error before the browser)
    }
    // Cookies and credentials (a profile's sealed login among them) leave the log before it is stored anywhere; the
    // redacted log is written back first, so one that fails to be stored and stays in the bundle is redacted too.
    const har = JSON.parse(bytes.toString("utf8")) as { log?: { entries?: unknown[] } };
    redactHar(har);
    bytes = Buffer.from(JSON.stringify(har));
    await fsp.writeFile(file, bytes);
    const entries = har.log?.entries?.length ?? 0;
    const hash = sha256(bytes);
    const batch = deps.store.beginBatch();
    await batch.put(hash, bytes);
    await batch.publish();
    await saveTrajectoryHar(this.db, this.trajectoryId, { harHash: hash, bytes: bytes.byteLength, entries });
    await fsp.rm(file, { force: true });
  }

  private async finish(rec: RecordedTrajectory): Promise<void> {
    // Steps the sink and the database both hold; a failure between the two leaves the shorter list.
    const n = Math.min(this.sink.steps.length, this.stored.length);
    const bundleSteps = this.sink.steps.slice(0, n);
    const outcomeDetail = [rec.outcomeDetail, this.restartNote].filter(Boolean).join("; ") || null;
    const head = { task: rec.task, run: rec.run, attempt: 0, finalAnswer: rec.finalAnswer, outcome: rec.outcome, outcomeDetail };
    const trajectory: BundleTrajectory = { ...head, steps: bundleSteps, verdicts: [] };
    await this.writer.finish([trajectory], `verdict live runner (${RUNNER_PROMPT_VERSION})`);
    // The outcome is recorded before the bundle moves: a slow or unreachable bucket never holds up or changes it.
    const held = await finishLiveTrajectory(this.db, this.lease, this.trajectoryId, {
      outcome: rec.outcome,
      outcomeDetail,
      finalAnswer: rec.finalAnswer,
      contentHash: contentHashOf(trajectory, this.stored.slice(0, n)),
      sourcePath: this.bundleDir,
    });
    // A worker that lost the job leaves the bundle alone: the task's next attempt owns the trajectory now.
    if (held && this.deps.bundles) await this.moveBundleToBucket(this.deps.bundles);
  }

  /**
   * Uploads the finished bundle, points the trajectory at it and removes the local folder. Any failure keeps the
   * folder (the bundle is never lost) and says so, naming the folder and the bucket's error.
   */
  private async moveBundleToBucket(bucket: LiveBundleBucket): Promise<void> {
    const { trajectoryId, bundleDir } = this;
    const log = this.deps.log ?? console.error;
    const target = bucket.location(this.payload.runId, trajectoryId);
    try {
      await bucket.upload(bundleDir, this.payload.runId, trajectoryId);
    } catch (e) {
      this.bundleUploadError = firstLine(e);
      log(`trajectory ${trajectoryId}: the bundle stays in ${bundleDir}: uploading it to ${target} failed: ${this.bundleUploadError}`);
      return;
    }
    let pointed: boolean;
    try {
      pointed = await setLiveBundleLocation(this.db, this.lease, trajectoryId, target);
    } catch (e) {
      // The trajectory still names the folder: keep it, so the bundle is where the trajectory says.
      this.bundleUploadError = `the bundle was uploaded, but recording its place failed: ${firstLine(e)}`;
      log(`trajectory ${trajectoryId}: the bundle stays in ${bundleDir}: it was uploaded to ${target}, but recording that failed: ${firstLine(e)}`);
      return;
    }
    if (!pointed) {
      log(
        `trajectory ${trajectoryId}: its bundle was uploaded to ${target}, but the job was taken back meanwhile; the folder ${bundleDir} is left to the task's next attempt`,
      );
      return;
    }
    this.bundleLocation = target;
    await fsp
      .rm(bundleDir, { recursive: true, force: true })
      .catch((e: unknown) => log(`trajectory ${trajectoryId}: its bundle is in ${target}, but the folder ${bundleDir} could not be removed: ${firstLine(e)}`));
    // The run's folder goes too once its last trajectory has moved (it fails, harmlessly, while others are in it).
    await fsp.rmdir(path.dirname(bundleDir)).catch(() => {});
  }
}

async function evaluateOnLivePage(
  db: Db,
  trajectoryId: number,
  task: { externalId: string; intent: string; evaluatorConfig: unknown },
  recorded: RecordedTrajectory,
  session: BrowserSession,
): Promise<string> {
  const evaluator = buildVwaEvaluator(task.evaluatorConfig, `task ${task.externalId}`);
  const page = session.page;
  const evaluation = await evaluator.evaluate(
    { intent: task.intent, finalAnswer: recorded.finalAnswer, finalUrl: page.isClosed() ? (recorded.steps.at(-1)?.url ?? null) : page.url() },
    { live: livePageCapabilities(session.context, () => session.page) },
  );
  await upsertVerdict(db, {
    trajectoryId,
    evaluatorKey: LIVE_RULES_EVALUATOR_KEY,
    evaluatorName: LIVE_RULES_EVALUATOR_NAME,
    kind: "rule",
    origin: "verdict",
    k: "",
    promptVersion: VWA_RULES_VERSION,
    verdict: evaluation.verdict,
    score: evaluation.score,
    rationale: describeEvaluation(evaluation),
    details: { types: evaluation.types, live: true, ...(evaluation.reason ? { reason: evaluation.reason } : {}) },
  });
  return evaluation.verdict;
}
