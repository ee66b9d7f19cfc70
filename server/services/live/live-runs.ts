/**
 * Live runs as the dashboard and the CLI see them: start one (an agent run plus one queued job per task), list them,
 * show one with per-task progress, cancel a run or one of its tasks. The work itself happens in runner workers
 * (./worker.ts); nothing here touches a browser.
 */
import crypto from "node:crypto";
import { withTransaction, type Db } from "../../../db/database";
import { upsertRun } from "../../../db/repositories/catalog";
import { cancelGroup, cancelJob, enqueueJobs } from "../jobs";
import {
  getLiveRun,
  listLiveRunRows,
  liveRunTaskRows,
  liveTaskJob,
  reconcileLiveTrajectories,
  findTaskSetByName,
  liveTrajectoryRef,
  taskIdsOfTrajectories,
  trajectoryPulse,
  tasksByIds,
  tasksOfSet,
  type TaskRef,
} from "../../../db/repositories/live/runs";
import { findTask, getTaskSet, listTaskSets } from "../../../db/repositories/catalog";
import { LIVE_JOB_TYPE, liveGroupKey } from "../../domain/live/live-jobs";
import { RUNNER_PROMPT_VERSION } from "../../domain/live/policy-prompt";
import { LIVE_RULES_EVALUATOR_KEY, LIVE_RULES_EVALUATOR_NAME } from "../../domain/live/settings";
import { parseHostList, parseTextList } from "../../domain/live/safety";
import { effectiveLimits, taskLimitsOf, liveTaskProgress } from "../../domain/live/task-limits";
import {
  LIVE_RUN_DEFAULTS,
  MAX_TASKS_PER_RUN,
  type JobPolicy,
  type LiveRunRequest,
  type LiveRunSettings,
  type LiveTaskPayload,
  type TaskSelection,
} from "../../domain/live/settings";
import { NotFoundError, ValidationError } from "../../errors";
import { listJudgeConfigViews, requireJudgeConfig, resolveApiKey, type Env } from "../evaluation";
import { DEMO_SITES_DEFAULT_PORT, demoSitesPort, judgeSettings } from "../../config";
import { DEMO_TASK_SET_NAME, demoScriptFor } from "./demo-scripts";
import { placeholdersIn, substituteSites, type DeploymentPlan } from "../../domain/live/deployment";
import { deploymentPlanOf, listDeploymentProfiles } from "./deployment-profiles";

export interface LiveRunDeps {
  db: Db;
  env: Env;
}

/** What a live run's `agent_runs.config` holds (no secrets: the key stays with the judge configuration). */
export interface LiveRunConfig {
  live: true;
  policy:
    | { kind: "scripted"; source: "demo" | "actions"; label: string }
    | { kind: "vlm"; judgeConfigId: number; judgeConfigName: string; model: string; promptVersion: string };
  selection: string;
  settings: LiveRunSettings;
  /** The deployment profile the run used (its sites' URLs, no secrets). */
  deployment?: DeploymentPlan | null;
  taskCount: number;
  startedBy: string | null;
}

/** Where the workers serve the demo sites (the web server never serves them itself). */
function demoBaseUrl(env: Env): string {
  let port: number | null;
  try {
    port = demoSitesPort(env);
  } catch {
    port = null;
  }
  return `http://127.0.0.1:${port ?? DEMO_SITES_DEFAULT_PORT}`;
}

/** The tasks a selection names, with a label saying where they came from. */
export async function resolveTaskSelection(deps: LiveRunDeps, sel: TaskSelection): Promise<{ tasks: TaskRef[]; label: string }> {
  const { db } = deps;
  switch (sel.from) {
    case "demo": {
      const set = await findTaskSetByName(db, DEMO_TASK_SET_NAME);
      if (!set) {
        throw new ValidationError(
          `the demo task set "${DEMO_TASK_SET_NAME}" is not there yet: a runner worker creates it when it starts (npm run worker; the quick start runs one)`,
        );
      }
      const all = await tasksOfSet(db, set.id);
      return { tasks: all.slice(0, sel.limit ?? all.length), label: `demo task set${sel.limit && sel.limit < all.length ? ` (first ${sel.limit})` : ""}` };
    }
    case "taskSet": {
      const set = await getTaskSet(db, sel.taskSetId);
      if (!set) throw new NotFoundError("task set", sel.taskSetId);
      const all = await tasksOfSet(db, sel.taskSetId);
      const limit = sel.limit ?? MAX_TASKS_PER_RUN;
      return { tasks: all.slice(0, limit), label: `task set ${set.name}${all.length > limit ? ` (first ${limit} of ${all.length})` : ""}` };
    }
    case "trajectories": {
      const ids = await taskIdsOfTrajectories(db, sel.filter, sel.limit ?? MAX_TASKS_PER_RUN);
      const parts = Object.entries(sel.filter)
        .filter(([, v]) => v !== undefined && v !== "")
        .map(([k, v]) => `${k}=${String(v)}`);
      return { tasks: await tasksByIds(db, ids), label: `tasks of trajectories${parts.length ? ` where ${parts.join(", ")}` : ""}` };
    }
    case "tasks": {
      const unique = [...new Set(sel.taskIds)];
      const found = await tasksByIds(db, unique);
      const missing = unique.filter((id) => !found.some((t) => t.id === id));
      if (missing.length) throw new ValidationError(`tasks ${missing.slice(0, 10).join(", ")} do not exist`);
      return { tasks: found, label: `${found.length} chosen task${found.length === 1 ? "" : "s"}` };
    }
  }
}

/**
 * A task's start URL as the run opens it: with a deployment profile its site placeholders become the profile's URLs;
 * a placeholder the profile lacks, or one left without a profile, is the problem named.
 */
export function startUrlFor(t: TaskRef, plan: DeploymentPlan | null): { url: string | null; problem: string | null } {
  if (!t.startUrl) return { url: null, problem: null };
  if (!plan) {
    const found = placeholdersIn(t.startUrl);
    return found.length ? { url: t.startUrl, problem: `${found.join(", ")} in its start URL needs a deployment profile` } : { url: t.startUrl, problem: null };
  }
  const r = substituteSites(t.startUrl, plan.siteUrls);
  return r.unresolved.length
    ? { url: r.text, problem: `deployment profile "${plan.profileName}" has no ${r.unresolved.join(", ")}` }
    : { url: r.text, problem: null };
}

function usableStartUrl(url: string | null): boolean {
  if (!url) return false;
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}

/** Checks a request's tasks and policy without creating anything: what the "New run" form previews. */
export async function previewLiveRun(deps: LiveRunDeps, req: Pick<LiveRunRequest, "tasks" | "policy"> & { deploymentProfileId?: number | null }) {
  const { tasks, label } = await resolveTaskSelection(deps, req.tasks);
  const plan = req.deploymentProfileId ? await deploymentPlanOf(deps.db, req.deploymentProfileId) : null;
  const starts = tasks.map((t) => ({ t, ...startUrlFor(t, plan) }));
  const noStart = starts.filter((s) => !s.problem && !usableStartUrl(s.url)).map((s) => s.t);
  const placeholderProblems = starts.filter((s) => s.problem).map((s) => `${s.t.externalId}: ${s.problem}`);
  const noScript = req.policy.kind === "scripted" && req.policy.source === "demo" ? tasks.filter((t) => !demoScriptFor(t.externalId)) : [];
  return {
    label,
    count: tasks.length,
    sample: starts.slice(0, 8).map((s) => ({ id: s.t.id, externalId: s.t.externalId, startUrl: s.url })),
    withoutStartUrl: noStart.map((t) => t.externalId),
    placeholderProblems: placeholderProblems.slice(0, 20),
    withoutScript: noScript.map((t) => t.externalId),
  };
}

function normaliseSettings(s: LiveRunSettings): LiveRunSettings {
  const hosts = parseHostList(s.allowedHosts);
  if (hosts.invalid.length) {
    throw new ValidationError(
      `settings.allowedHosts: ${hosts.invalid.map((h) => JSON.stringify(h)).join(", ")} ${hosts.invalid.length === 1 ? "is not a host name" : "are not host names"}`,
    );
  }
  return { ...s, allowedHosts: hosts.hosts, blockedTexts: parseTextList(s.blockedTexts) };
}

/** Creates the run and queues one job per task. Workers pick them up; returns the run's id. */
export async function startLiveRun(deps: LiveRunDeps, req: LiveRunRequest, startedBy: string | null = null): Promise<{ runId: number; tasks: number }> {
  const { db } = deps;
  const settings = normaliseSettings(req.settings);
  const { tasks, label } = await resolveTaskSelection(deps, req.tasks);
  if (tasks.length === 0) throw new ValidationError(`the selection (${label}) holds no tasks`);
  const deployment = settings.deploymentProfileId ? await deploymentPlanOf(db, settings.deploymentProfileId) : null;
  const starts = tasks.map((t) => ({ t, ...startUrlFor(t, deployment) }));
  const placeholderProblems = starts.filter((s) => s.problem);
  if (placeholderProblems.length) {
    const eg = placeholderProblems
      .slice(0, 3)
      .map((s) => `${s.t.externalId}: ${s.problem}`)
      .join("; ");
    throw new ValidationError(`${placeholderProblems.length} of the ${tasks.length} selected tasks name sites the run cannot reach (${eg})`);
  }
  const noStart = starts.filter((s) => !usableStartUrl(s.url)).map((s) => s.t);
  if (noStart.length) {
    const eg = noStart
      .slice(0, 3)
      .map((t) => `${t.externalId}: ${JSON.stringify(t.startUrl)}`)
      .join("; ");
    throw new ValidationError(`${noStart.length} of the ${tasks.length} selected tasks have no usable http(s) start URL (${eg})`);
  }

  let config: LiveRunConfig["policy"];
  let policyFor: (t: TaskRef) => JobPolicy;
  let model: string | null = null;
  let agentName: string;
  if (req.policy.kind === "scripted") {
    const p = req.policy;
    agentName = "scripted-policy";
    if (p.source === "demo") {
      const missing = tasks.filter((t) => !demoScriptFor(t.externalId));
      if (missing.length) {
        throw new ValidationError(
          `no demo script for ${missing.length} task(s) (${missing
            .slice(0, 3)
            .map((t) => t.externalId)
            .join(", ")}): demo scripts exist only for the demo tasks; give an action list or use a VLM policy`,
        );
      }
      config = { kind: "scripted", source: "demo", label: "demo scripts" };
      policyFor = (t) => ({ kind: "scripted", label: "demo", script: demoScriptFor(t.externalId)! });
    } else {
      if (!p.actions.length) throw new ValidationError("policy.actions: a scripted run needs at least one action");
      config = { kind: "scripted", source: "actions", label: `${p.actions.length} scripted action${p.actions.length === 1 ? "" : "s"}` };
      policyFor = () => ({ kind: "scripted", label: "actions", script: p.actions.map((action) => ({ action })) });
    }
  } else {
    const judge = await requireJudgeConfig(db, req.policy.judgeConfigId);
    // Fails early when the key cannot be found here; workers resolve it again in their own environment.
    await resolveApiKey(db, judge, judgeSettings(deps.env));
    model = judge.model;
    agentName = "verdict-som-agent";
    config = { kind: "vlm", judgeConfigId: judge.id, judgeConfigName: judge.name, model: judge.model, promptVersion: RUNNER_PROMPT_VERSION };
    const judgeConfigId = judge.id;
    policyFor = () => ({ kind: "vlm", judgeConfigId });
  }

  const stamp = new Date();
  const runKey = `live:${stamp.getTime().toString(36)}-${crypto.randomBytes(4).toString("hex")}`;
  const policyName = config.kind === "vlm" ? `VLM ${config.judgeConfigName}` : `Scripted (${config.label})`;
  const name = req.name?.trim() || `${policyName} · ${label}`;
  const runConfig: LiveRunConfig = { live: true, policy: config, selection: label, settings, deployment, taskCount: tasks.length, startedBy };

  // The run and its jobs appear together: a worker never sees a run with half its tasks queued.
  return withTransaction(db, async () => {
    const runId = await upsertRun(db, {
      runKey,
      name,
      agentName,
      model,
      sourceSystem: "verdict-runner",
      config: runConfig as unknown as Record<string, unknown>,
    });
    const groupKey = liveGroupKey(runId);
    await enqueueJobs(
      db,
      tasks.map((t) => {
        const payload: LiveTaskPayload = { runId, taskId: t.id, groupConcurrency: settings.concurrency, policy: policyFor(t), settings, deployment };
        // Two attempts: a task whose worker died starts over once, then fails with the reason.
        return { type: LIVE_JOB_TYPE, groupKey, dedupeKey: `${groupKey}:task:${t.id}`, payload, maxAttempts: 2 };
      }),
    );
    return { runId, tasks: tasks.length };
  });
}

// ---- views ----

export type LiveRunStatus = "queued" | "running" | "finished" | "cancelled" | "failed";

function runStatus(c: { queued: number; running: number; succeeded: number; failed: number; cancelled: number }): LiveRunStatus {
  if (c.running > 0) return "running";
  if (c.queued > 0) return "queued";
  if (c.cancelled > 0 && c.succeeded === 0 && c.failed === 0) return "cancelled";
  if (c.failed > 0 && c.succeeded === 0) return "failed";
  return "finished";
}

function policyLabel(config: LiveRunConfig | null): { kind: "scripted" | "vlm" | "unknown"; label: string } {
  const p = config?.policy;
  if (!p) return { kind: "unknown", label: "unknown policy" };
  if (p.kind === "scripted") return { kind: "scripted", label: `Scripted · ${p.label}` };
  return { kind: "vlm", label: `VLM · ${p.judgeConfigName} (${p.model}) · prompt ${p.promptVersion}` };
}

export async function listLiveRuns(deps: LiveRunDeps) {
  await reconcileLiveTrajectories(deps.db);
  return (await listLiveRunRows(deps.db)).map((r) => {
    const config = (r.config ?? null) as LiveRunConfig | null;
    const done = r.succeeded + r.failed + r.cancelled;
    return {
      id: r.id,
      name: r.name,
      createdAt: r.createdAt,
      policy: policyLabel(config),
      selection: config?.selection ?? "",
      maxSteps: config?.settings.maxSteps ?? null,
      counts: { total: r.total, queued: r.queued, running: r.running, succeeded: r.succeeded, failed: r.failed, cancelled: r.cancelled },
      done,
      answered: r.answered,
      steps: r.steps,
      status: runStatus(r),
    };
  });
}

export interface LiveTaskView {
  jobId: number;
  jobStatus: string;
  attempts: number;
  maxAttempts: number;
  cancelRequested: boolean;
  jobError: string | null;
  taskId: number;
  externalId: string;
  site: string | null;
  intent: string;
  startUrl: string | null;
  trajectoryId: number | null;
  outcome: string | null;
  outcomeDetail: string | null;
  steps: number;
  /** The task's step and time limits (its own from the task file, else the run's). */
  maxSteps: number;
  timeLimitMs: number;
  finalAnswer: string | null;
  lastScreenshot: string | null;
  /**
   * The rules' verdict on the live page, when the task has rules. Shown apart from the job status: a job that
   * finished says nothing about whether the agent succeeded.
   */
  verdict: { evaluatorName: string; verdict: string; rationale: string | null } | null;
  /** 0–1: finished tasks are 1, running ones count their steps against the step limit. */
  progress: number;
  finished: boolean;
}

export async function liveRunDetail(deps: LiveRunDeps, runId: number) {
  const { db } = deps;
  const run = await getLiveRun(db, runId);
  if (!run) throw new NotFoundError("live run", runId);
  await reconcileLiveTrajectories(db);
  const config = (run.config ?? null) as LiveRunConfig | null;
  const runLimits = {
    maxSteps: config?.settings.maxSteps ?? LIVE_RUN_DEFAULTS.maxSteps,
    runTimeoutMs: config?.settings.runTimeoutMs ?? LIVE_RUN_DEFAULTS.runTimeoutMs,
  };
  const tasks: LiveTaskView[] = (await liveRunTaskRows(db, runId, LIVE_RULES_EVALUATOR_KEY)).map((r) => {
    const finished = r.status === "succeeded" || r.status === "failed" || r.status === "cancelled";
    const steps = r.stepCount ?? 0;
    // A task file's own limits win over the run's, as the runner applies them.
    const { maxSteps, timeLimitMs } = effectiveLimits(taskLimitsOf(r.taskExtra), runLimits);
    return {
      jobId: r.jobId,
      jobStatus: r.status,
      attempts: r.attempts,
      maxAttempts: r.maxAttempts,
      cancelRequested: r.cancelRequested,
      jobError: r.error,
      taskId: r.taskId,
      externalId: r.externalId,
      site: r.site,
      intent: r.intent,
      startUrl: r.startUrl,
      trajectoryId: r.trajectoryId,
      outcome: r.outcome,
      outcomeDetail: r.outcomeDetail,
      steps,
      maxSteps,
      timeLimitMs,
      finalAnswer: r.finalAnswer,
      lastScreenshot: r.lastScreenshot,
      verdict: r.verdict ? { evaluatorName: LIVE_RULES_EVALUATOR_NAME, verdict: r.verdict, rationale: r.verdictRationale } : null,
      progress: liveTaskProgress(r.status, steps, maxSteps),
      finished,
    };
  });
  const counts = { total: tasks.length, queued: 0, running: 0, succeeded: 0, failed: 0, cancelled: 0 };
  for (const t of tasks) counts[t.jobStatus as keyof typeof counts]++;
  // The run's bar counts each ended task as done, cancelled or not.
  const progress = tasks.length ? tasks.reduce((s, t) => s + (t.finished ? 1 : t.progress), 0) / tasks.length : 0;
  // The agent's success rate counts only trajectories the agent could attempt: infrastructure errors and pages that
  // blocked it are shown apart.
  const infraErrors = tasks.filter((t) => t.outcome === "infra_error").length;
  const blocked = tasks.filter((t) => t.outcome === "blocked").length;
  const judged = tasks.filter((t) => t.outcome !== "infra_error" && t.outcome !== "blocked" && t.verdict && t.verdict.verdict !== "not_evaluable");
  const successRate = { successes: judged.filter((t) => t.verdict!.verdict === "success").length, n: judged.length, infraErrors, blocked };
  return {
    run: { id: run.id, name: run.name, model: run.model, createdAt: run.createdAt, runKey: run.runKey },
    policy: policyLabel(config),
    selection: config?.selection ?? "",
    settings: config?.settings ?? null,
    counts,
    status: runStatus(counts),
    progress,
    steps: tasks.reduce((s, t) => s + t.steps, 0),
    answered: tasks.filter((t) => t.outcome === "answered").length,
    successRate,
    deployment: config?.deployment
      ? {
          id: config.deployment.profileId,
          name: config.deployment.profileName,
          // What the run may reach through its profile: the sites' hosts (navigation) and host:port (network).
          hosts: config.deployment.hosts,
          destinations: config.deployment.destinations,
        }
      : null,
    tasks,
  };
}

export type LiveRunDetail = Awaited<ReturnType<typeof liveRunDetail>>;

/** Cancels a whole run, or one of its tasks: queued jobs at once, running ones within a heartbeat. */
export async function cancelLiveRun(deps: LiveRunDeps, runId: number, taskId?: number): Promise<{ cancelled: number; signalled: number }> {
  const { db } = deps;
  if (!(await getLiveRun(db, runId))) throw new NotFoundError("live run", runId);
  let out: { cancelled: number; signalled: number };
  if (taskId === undefined) out = await cancelGroup(db, liveGroupKey(runId));
  else {
    const job = await liveTaskJob(db, runId, taskId);
    if (!job) throw new NotFoundError(`task of live run ${runId}`, taskId);
    const before = await cancelJob(db, job.id);
    out = { cancelled: before === "cancelled" ? 1 : 0, signalled: before === "running" ? 1 : 0 };
  }
  await reconcileLiveTrajectories(db);
  return out;
}

/** Choices for the "New run" form. */
export async function liveRunFormOptions(deps: LiveRunDeps) {
  const [taskSets, policies, profiles] = await Promise.all([listTaskSets(deps.db), listJudgeConfigViews(deps.db), listDeploymentProfiles(deps.db)]);
  return {
    taskSets: taskSets.map((s) => ({ id: s.id, name: s.name, benchmark: s.benchmark, taskCount: s.taskCount })),
    policies: policies.map((c) => ({ id: c.id, name: c.name, model: c.model, baseUrl: c.baseUrl, apiKeySource: c.apiKeySource })),
    demo: { taskSetName: DEMO_TASK_SET_NAME, baseUrl: demoBaseUrl(deps.env) },
    deploymentProfiles: profiles.map((p) => ({ id: p.id, name: p.name, placeholders: p.sites.map((s) => s.placeholder) })),
    promptVersion: RUNNER_PROMPT_VERSION,
  };
}

/**
 * How far a live trajectory has got (steps, outcome), for a viewer watching it; null when the trajectory does
 * not exist or is not one of a live run.
 */
export async function liveTrajectoryPulse(db: Db, trajectoryId: number) {
  if (!(await liveTrajectoryRef(db, trajectoryId))) return null;
  return (await trajectoryPulse(db, trajectoryId)) ?? null;
}

/** The stored task a task file's entry became (set name + external id), once imported. */
export async function storedTask(db: Db, taskSetName: string, externalId: string) {
  const set = await findTaskSetByName(db, taskSetName);
  return set ? ((await findTask(db, set.id, externalId)) ?? null) : null;
}

/** A task set by its name, for choosing one on the command line. */
export async function taskSetNamed(db: Db, name: string) {
  return (await findTaskSetByName(db, name)) ?? null;
}

export { liveGroupKey };
