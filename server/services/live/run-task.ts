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
import type { ReferenceAnswer, TaskDifficulty } from "../../domain/types";
import { BundleWriter } from "../bundle-io";
import { JobInterrupted, type JobContext } from "../jobs/worker";
import type { RetryPolicy, JudgeClient, JudgeEndpoint } from "../evaluation/judge-client";
import type { Env } from "../evaluation/judge-configs";
import { describeEvaluation } from "../evaluation/rules";
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
    url: step.url,
    thought: step.thought,
    actionRaw: step.actionRaw,
    action: step.action,
    elements: step.elements,
    error: step.error,
    durationMs: step.durationMs,
  };
}

function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split("\n")[0]!;
}

export async function runLiveTask(deps: RunnerDeps, job: JobContext): Promise<LiveTaskResult> {
  const { db } = deps;
  const payload = job.job.payload as LiveTaskPayload;
  const lease: LeaseRef = { jobId: job.job.id, owner: job.job.leaseOwner ?? "" };
  const settings = payload.settings;
  const found = await getTask(db, payload.taskId);
  if (!found) throw new Error(`task ${payload.taskId} no longer exists`);
  const agentRun = await getRun(db, payload.runId);
  if (!agentRun) throw new Error(`live run ${payload.runId} no longer exists`);
  const { task, taskSet } = found;
  // With a deployment profile the task's site placeholders become the lab's URLs, in the start URL and the rules.
  const plan = payload.deployment ?? null;
  const startUrl = plan && task.startUrl ? substituteSites(task.startUrl, plan.siteUrls).text : task.startUrl;
  const evaluatorConfig = plan ? substituteSitesDeep(task.evaluatorConfig ?? null, plan.siteUrls) : task.evaluatorConfig;
  // A task file's own step and time limits win over the run's.
  const limits = effectiveLimits(taskLimitsOf(task.extra), settings);

  // Kept on the finished trajectory too: a reviewer should know the run they see is a second try.
  const restartNote =
    job.job.attempts > 1 ? `attempt ${job.job.attempts} of ${job.job.maxAttempts}: started again after the previous attempt was interrupted` : null;
  const { id: trajectoryId } = await startLiveTrajectory(db, lease, { runId: payload.runId, taskId: task.id, outcomeDetail: restartNote });
  const bundleDir = liveBundleDir(deps.dataDir, payload.runId, trajectoryId);
  await fsp.rm(bundleDir, { recursive: true, force: true });
  // Where the bundle ends up: this folder, or the bucket once finish() moved it there.
  let bundleLocation = bundleDir;
  let bundleUploadError: string | null = null;
  await clearTrajectoryEvidence(db, trajectoryId);
  const harPath = settings.recordHar ? path.join(bundleDir, "network.har") : null;
  const writer = new BundleWriter(bundleDir);
  const sink = bundleStepSink(writer);
  const stored: StepValues[] = [];

  const bundleTask = {
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
  };
  const bundleRun = {
    runKey: agentRun.runKey,
    name: agentRun.name,
    agentName: agentRun.agentName,
    model: agentRun.model,
    sourceSystem: agentRun.sourceSystem,
    config: agentRun.config ?? null,
  };

  // One signal stops the recorder: the job's (cancel, lease lost, worker stopping) or a crashed page. An attempt
  // the infrastructure spoiled (a crash before step 0) starts over with a signal of its own.
  let stop = new AbortController();
  let crash: string | null = null;
  const onJobAbort = () => stop.abort(job.signal.reason);
  if (job.signal.aborted) onJobAbort();
  else job.signal.addEventListener("abort", onJobAbort, { once: true });

  // A deployment profile is the admin's allowance: its hosts, and only them, are the private destinations.
  const privateOriginExceptions = plan ? plan.destinations : deps.privateOriginExceptions;
  const allowedHosts = settings.allowedHosts.length ? parseHostList(settings.allowedHosts).hosts : plan ? plan.hosts : defaultAllowlist(startUrl);
  const egressRules = { allowedDestinations: privateOriginExceptions };
  const makeSafety = () =>
    new RunSafety({
      allowedHosts,
      privateOriginExceptions,
      // Reset hooks are the runner's to call (resetSite), never the page's, even on a site's own host and port.
      blockedUrls: plan?.resetUrls ?? [],
      blockedTexts: settings.blockedTexts,
      allowDownloads: settings.allowDownloads,
      downloadsDir: path.join(bundleDir, "downloads"),
      resolveHost: deps.resolveHost,
      onCrash: (reason) => {
        crash ??= reason;
        stop.abort(new Error(reason));
      },
    });
  let safety = makeSafety();

  let leaseLost = false;
  async function persist(step: RecordedStep): Promise<void> {
    const images = [step.screenshot, step.rawScreenshot].map((img) => ({
      hash: sha256(img.bytes),
      mime: "image/png",
      width: img.width,
      height: img.height,
      bytes: img.bytes.byteLength,
      data: img.bytes,
    }));
    const batch = deps.store.beginBatch();
    for (const img of images) await batch.put(img.hash, img.data);
    await batch.publish();
    const values = stepValues(step, images[0]!.hash, images[1]!.hash);
    try {
      await appendLiveStep(
        db,
        lease,
        trajectoryId,
        values,
        images.map(({ data: _data, ...row }) => row),
      );
    } catch (e) {
      if (e instanceof LeaseLostError) leaseLost = true;
      throw e;
    }
    await saveStepEvidence(db, trajectoryId, { index: step.index, startedAt: step.startedAt, tabs: step.tabs, prompt: step.prompt ?? null });
    stored.push(values);
    job.reportProgress({ step: step.index + 1, maxSteps: limits.maxSteps, url: step.url });
  }

  const refusedRun = (detail: string, outcome: "error" | "infra_error" = "error"): RecordedTrajectory => ({
    task: bundleTask,
    run: bundleRun,
    attempt: 0,
    finalAnswer: null,
    outcome,
    outcomeDetail: detail,
    steps: [],
  });

  let recorded: RecordedTrajectory;
  let ruleVerdict: string | null = null;
  let session: BrowserSession | null = null;
  let egress: EgressProxy | null = null;
  let policyUsage: (() => VlmPolicyUsage) | null = null;
  let releaseHost: (() => void) | null = null;
  try {
    let startRefusal: string | null = null;
    if (!startUrl) startRefusal = "the task has no start URL";
    else {
      try {
        startRefusal = await safety.navigationRefusal(new URL(startUrl));
      } catch {
        startRefusal = `the start URL ${JSON.stringify(startUrl)} is not a URL`;
      }
      if (startRefusal) startRefusal = `refused to open the start URL ${startUrl}: ${startRefusal}`;
    }

    if (startRefusal) {
      recorded = refusedRun(startRefusal);
    } else {
      let policy: Policy;
      if (payload.policy.kind === "scripted") {
        policy = createScriptedPolicy(payload.policy.script, `scripted:${payload.policy.label}`);
      } else {
        const vlm = await vlmPolicyFromConfig(
          { db, env: deps.env, retryPolicy: deps.retryPolicy, clientFactory: deps.clientFactory },
          payload.policy.judgeConfigId,
          settings.historyScreenshots,
        );
        policy = vlm;
        policyUsage = vlm.usage;
      }
      if (settings.hostConcurrency) {
        releaseHost = (await deps.hostSlots?.acquire(new URL(startUrl!).hostname, settings.hostConcurrency, job.signal)) ?? null;
      }
      // This run's own egress proxy: its rules are the run's (the private destinations an admin declared).
      egress = await EgressProxy.start({
        rules: egressRules,
        ports: deps.proxyPorts,
        resolveHost: deps.resolveHost,
        host: deps.remoteProxyHost,
        requireCredentials: deps.remoteProxyHost !== undefined,
        onRefusal: (r) => {
          safety.noteRefusal(r.message);
          deps.log?.(`trajectory ${trajectoryId}: ${r.message}`);
        },
      });
      const proxy = egress;
      const extra = (task.extra ?? {}) as Record<string, unknown>;
      const loginNames = new Set(loginSitesOfStorageState(extra.storage_state));
      const touched = plan ? sitesOfTask({ startUrl: task.startUrl, evaluatorConfig: task.evaluatorConfig, extra }) : [];
      const requestRules = { rules: egressRules, resolveHost: deps.resolveHost };

      // An input image is fetched once (under the run's address rules) and kept content-addressed in the store; later
      // tasks and runs send the stored bytes.
      const inputImageData = async (source: string): Promise<string> => {
        const known = await storedInputImage(db, task.id, source);
        if (known && (await deps.store.has(known.imageHash))) {
          return `data:${known.mime};base64,${(await deps.store.read(known.imageHash)).toString("base64")}`;
        }
        const { bytes, mime } = await fetchInputImage(source, task.externalId, requestRules);
        const imageHash = sha256(bytes);
        const batch = deps.store.beginBatch();
        await batch.put(imageHash, bytes);
        await batch.publish();
        await saveInputImage(db, { taskId: task.id, source, imageHash, mime, bytes: bytes.byteLength });
        return `data:${mime};base64,${bytes.toString("base64")}`;
      };

      // Everything before the agent's first step is the deployment's business: its failures are retried, then
      // recorded as an infrastructure error rather than the agent's failure.
      const prepare = async (): Promise<{ session: BrowserSession; inputImages: { dataUrl: string; source: string }[] }> => {
        // Asked for on every attempt: a browser that died during the last one is launched again, not reused.
        const browser = await deps.browser();
        let runtime: Map<string, SiteRuntime> | null = null;
        if (plan) {
          try {
            runtime = await deploymentRuntime(db, plan.profileId);
          } catch (e) {
            throw new InfraFailure(`deployment profile "${plan.profileName}": ${firstLine(e)}`);
          }
        }
        for (const name of touched) {
          const site = runtime?.get(name);
          if (site?.reset) await resetSite(site, { resolveHost: deps.resolveHost });
        }
        const loginSites = [...loginNames].map((n) => runtime?.get(n)).filter((x): x is SiteRuntime => !!x?.login);
        let storageState;
        if (loginSites.length) {
          // The login's own context gets a proxy of its own, with the run's rules: what it refuses (the browser's
          // background requests on a login page) is not the agent's doing and stays out of the steps.
          const loginProxy = await EgressProxy.start({
            rules: egressRules,
            resolveHost: deps.resolveHost,
            host: deps.remoteProxyHost,
            requireCredentials: deps.remoteProxyHost !== undefined,
            onRefusal: (r) => deps.log?.(`login for trajectory ${trajectoryId}: ${r.message}`),
          });
          try {
            storageState = await storageStateFor(loginSites, {
              runId: payload.runId,
              profileId: plan!.profileId,
              cache: deps.logins ?? new LoginCache(),
              browser,
              proxy: loginProxy.settings,
            });
          } finally {
            await loginProxy.close();
          }
        }
        const inputImages: { dataUrl: string; source: string }[] = [];
        for (const image of task.inputImages) {
          const where = inputImageUrl(image, plan?.siteUrls ?? {});
          if ("error" in where) throw new InfraFailure(`task ${task.externalId}: ${where.error}`);
          inputImages.push({ dataUrl: await inputImageData(where.url), source: where.url });
        }
        const opened = await BrowserSession.open(browser, {
          viewport: settings.viewport,
          acceptDownloads: settings.allowDownloads,
          proxyServer: proxy.url,
          proxyCredentials: proxy.settings.username ? { username: proxy.settings.username, password: proxy.settings.password! } : undefined,
          storageState,
          harPath: harPath ?? undefined,
        });
        return { session: opened, inputImages };
      };

      for (let attempt = 1; ; attempt++) {
        let prepared;
        try {
          prepared = await prepare();
        } catch (e) {
          if (!(e instanceof InfraFailure) && !browserGone(e)) throw e;
          const why = firstLine(e);
          if (attempt <= settings.infraRetries && !job.signal.aborted) {
            deps.log?.(`trajectory ${trajectoryId}: infrastructure failure (attempt ${attempt}): ${why}; trying again`);
            await sleep(300 * attempt);
            continue;
          }
          recorded = refusedRun(`${why} (${attempt} attempt${attempt === 1 ? "" : "s"})`, "infra_error");
          break;
        }
        session = prepared.session;
        const s = session;
        await safety.install(s.context);
        recorded = await recordTrajectory({
          session: s,
          task: bundleTask,
          startUrl,
          run: bundleRun,
          policy,
          maxSteps: limits.maxSteps,
          stepTimeoutMs: settings.stepTimeoutMs,
          runTimeoutMs: limits.timeLimitMs,
          signal: stop.signal,
          parseAction: parseLiveAction,
          guard: safety.actionGuard(() => s.page),
          inputImages: prepared.inputImages,
          blockedCheck: settings.detectBlocking
            ? async (page, index) => {
                const snap = await blockingSnapshot(page);
                const found = snap ? detectBlocking(snap) : null;
                return found ? describeBlocking(found, index) : null;
              }
            : undefined,
          onStep: async (step) => {
            await sink.onStep(step);
            await persist(step);
          },
        });
        if (leaseLost) throw new LeaseLostError(lease.jobId);
        // The browser died before the agent did anything: the infrastructure's failure, tried again.
        if (crash && recorded.steps.length === 0 && !job.signal.aborted) {
          const why = `the browser crashed before the first step: ${crash}`;
          await s.close();
          if (attempt <= settings.infraRetries) {
            deps.log?.(`trajectory ${trajectoryId}: ${why} (attempt ${attempt}); trying again`);
            crash = null;
            stop = new AbortController();
            safety = makeSafety();
            continue;
          }
          recorded = refusedRun(`${why} (${attempt} attempt${attempt === 1 ? "" : "s"})`, "infra_error");
          crash = null;
        }
        break;
      }
      if (crash) recorded = { ...recorded, outcome: "error", outcomeDetail: crash, finalAnswer: null };
      const interrupted = job.signal.reason instanceof JobInterrupted ? job.signal.reason.why : null;
      if (interrupted === "cancel") recorded = { ...recorded, outcome: "cancelled", outcomeDetail: `cancelled after ${recorded.steps.length} step(s)` };

      // The rule evaluator needs the page as the agent left it: run it before the context closes. Infrastructure
      // errors and blocked pages say nothing about the agent: no verdict.
      const s = session;
      const agentsOwn = recorded.outcome !== "infra_error" && recorded.outcome !== "blocked";
      if (s && agentsOwn && !stop.signal.aborted && looksLikeVwaEvalConfig(evaluatorConfig)) {
        ruleVerdict = await evaluateOnLivePage(db, trajectoryId, { ...task, evaluatorConfig }, recorded, s).catch((e) => {
          deps.log?.(`rule evaluation of trajectory ${trajectoryId} failed: ${firstLine(e)}`);
          return null;
        });
      }
    }
  } catch (e) {
    if (e instanceof LeaseLostError || leaseLost) throw new LeaseLostError(lease.jobId);
    // The runner itself failed (no browser, a write refused): the trajectory says so, and the job fails.
    const detail = `the runner failed: ${firstLine(e)}`;
    await finish(refusedRun(detail)).catch(() => {});
    throw e;
  } finally {
    job.signal.removeEventListener("abort", onJobAbort);
    // Ends whatever the run left in flight (a policy call past its step timeout).
    if (!stop.signal.aborted) stop.abort(new Error("the run is over"));
    await session?.close();
    await egress?.close();
    releaseHost?.();
  }
  // The HAR is complete once its context closed.
  if (harPath) await storeHar(harPath).catch((e) => deps.log?.(`the HAR of trajectory ${trajectoryId} was not kept: ${firstLine(e)}`));

  const interruptedBy = job.signal.reason instanceof JobInterrupted ? job.signal.reason.why : null;
  if (interruptedBy === "stop") {
    // The worker is shutting down: the job goes back to the queue and its next attempt starts over.
    await setRunningDetail(db, trajectoryId, "interrupted: the worker stopped; queued to start again");
    return {
      trajectoryId,
      outcome: "running",
      outcomeDetail: null,
      finalAnswer: null,
      steps: stored.length,
      bundleDir,
      ruleVerdict,
      policyUsage: policyUsage?.() ?? null,
    };
  }
  if (interruptedBy === "lost") throw new LeaseLostError(lease.jobId);

  await finish(recorded);
  return {
    trajectoryId,
    outcome: recorded.outcome,
    outcomeDetail: [recorded.outcomeDetail, restartNote].filter(Boolean).join("; ") || null,
    finalAnswer: recorded.finalAnswer,
    steps: stored.length,
    bundleDir: bundleLocation,
    bundleUploadError,
    ruleVerdict,
    policyUsage: policyUsage?.() ?? null,
  };

  async function storeHar(file: string): Promise<void> {
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
    await saveTrajectoryHar(db, trajectoryId, { harHash: hash, bytes: bytes.byteLength, entries });
    await fsp.rm(file, { force: true });
  }

  async function finish(rec: RecordedTrajectory): Promise<void> {
    // Steps the sink and the database both hold; a failure between the two leaves the shorter list.
    const n = Math.min(sink.steps.length, stored.length);
    const bundleSteps = sink.steps.slice(0, n);
    const outcomeDetail = [rec.outcomeDetail, restartNote].filter(Boolean).join("; ") || null;
    const head = { task: rec.task, run: rec.run, attempt: 0, finalAnswer: rec.finalAnswer, outcome: rec.outcome, outcomeDetail };
    const trajectory: BundleTrajectory = { ...head, steps: bundleSteps, verdicts: [] };
    await writer.finish([trajectory], `verdict live runner (${RUNNER_PROMPT_VERSION})`);
    // The outcome is recorded before the bundle moves: a slow or unreachable bucket never holds up or changes it.
    const held = await finishLiveTrajectory(db, lease, trajectoryId, {
      outcome: rec.outcome,
      outcomeDetail,
      finalAnswer: rec.finalAnswer,
      contentHash: contentHashOf(trajectory, stored.slice(0, n)),
      sourcePath: bundleDir,
    });
    // A worker that lost the job leaves the bundle alone: the task's next attempt owns the trajectory now.
    if (held && deps.bundles) await moveBundleToBucket(deps.bundles);
  }

  /**
   * Uploads the finished bundle, points the trajectory at it and removes the local folder. Any failure keeps the
   * folder (the bundle is never lost) and says so, naming the folder and the bucket's error.
   */
  async function moveBundleToBucket(bucket: LiveBundleBucket): Promise<void> {
    const log = deps.log ?? console.error;
    const target = bucket.location(payload.runId, trajectoryId);
    try {
      await bucket.upload(bundleDir, payload.runId, trajectoryId);
    } catch (e) {
      bundleUploadError = firstLine(e);
      log(`trajectory ${trajectoryId}: the bundle stays in ${bundleDir}: uploading it to ${target} failed: ${bundleUploadError}`);
      return;
    }
    let pointed: boolean;
    try {
      pointed = await setLiveBundleLocation(db, lease, trajectoryId, target);
    } catch (e) {
      // The trajectory still names the folder: keep it, so the bundle is where the trajectory says.
      bundleUploadError = `the bundle was uploaded, but recording its place failed: ${firstLine(e)}`;
      log(`trajectory ${trajectoryId}: the bundle stays in ${bundleDir}: it was uploaded to ${target}, but recording that failed: ${firstLine(e)}`);
      return;
    }
    if (!pointed) {
      log(
        `trajectory ${trajectoryId}: its bundle was uploaded to ${target}, but the job was taken back meanwhile; the folder ${bundleDir} is left to the task's next attempt`,
      );
      return;
    }
    bundleLocation = target;
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
