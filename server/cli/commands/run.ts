/**
 * `run`: a live run from the command line. Queues the tasks like the dashboard's "New run" form, then works on them
 * in this process (a runner worker limited to this run) with a progress bar, unless --detach leaves them to the
 * running workers. Ctrl-C cancels the run: every browser stops within a second.
 */
import fs from "node:fs";
import { getAppContext } from "../../context";
import { parseTextList } from "../../domain/live/safety";
import {
  LIVE_RUN_DEFAULTS,
  liveRunRequestSchema,
  parseActionLines,
  PRIVATE_NETWORK_REFUSAL,
  type LiveRunRequestInput,
  type PolicySpecInput,
  type TaskSelection,
} from "../../domain/live/settings";
import { describeZodIssues } from "../../domain/imports/bundle";
import { detectImporter, runImport } from "../../services/imports";
import { requireJudgeConfig } from "../../services/evaluation";
import {
  cancelLiveRun,
  liveGroupKey,
  liveRunDetail,
  startLiveRun,
  storedTask,
  taskSetNamed,
  findDeploymentProfile,
  ensureDemoTaskSet,
} from "../../services/live";
import { DEMO_SITES_DEFAULT_PORT, demoSitesPort } from "../../config";
import { runRunnerWorker } from "../../services/live/worker";
import { UsageError, flagBool, flagString, parseArgs, userPath, type ParsedArgs } from "../args";
import { formatTable } from "../table";
import { createProgressBar } from "../progress";
import type { CliCommand, CliIO } from "../types";
import type { AppContext } from "../../context";

const USAGE = `npm run cli -- run --tasks <demo|set|file> --policy <scripted|configuration> [options] [--json]
  --tasks demo            the bundled demo tasks (sites served by the worker on VERDICT_DEMO_PORT, default 4517)
  --tasks <set>           a task set, by name or id
  --tasks <file>          a task file any importer reads (WebVoyager_data.jsonl, VisualWebArena configs …), imported first
  --policy scripted       replay actions: --script FILE (one per line, on every task), else the demo scripts
  --policy <name|id>      a VLM through a judge configuration's endpoint (see judge-config)
  --limit N               only the first N tasks       --name NAME         name of the run
  --max-steps N (${LIVE_RUN_DEFAULTS.maxSteps})         --concurrency N (${LIVE_RUN_DEFAULTS.concurrency})    --history N (${LIVE_RUN_DEFAULTS.historyScreenshots} screenshots per call)
  --step-timeout SECONDS (${LIVE_RUN_DEFAULTS.stepTimeoutMs / 1000})  --run-timeout SECONDS (${LIVE_RUN_DEFAULTS.runTimeoutMs / 1000})  --viewport WxH (${LIVE_RUN_DEFAULTS.viewport.width}x${LIVE_RUN_DEFAULTS.viewport.height})
  --allow-hosts a.com,b.org  (default: each task's start host)   --allow-downloads
  --block-texts "Place order|Delete|Sign in"
  --profile <name|id>     a deployment profile (deployment-profile list): its sites replace the tasks' placeholders,
                          it signs in and resets per task, and its hosts are the only private ones reachable
  --infra-retries N (${LIVE_RUN_DEFAULTS.infraRetries})   --host-concurrency N (tasks per host at once)   --no-har   --no-blocking-check
  --detach                queue only; running workers (npm run worker) do the work`;

function intFlag(args: ParsedArgs, name: string, min: number, max: number): number | undefined {
  const v = flagString(args, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  return Number(v);
}

/** The task selection a --tasks value names; task files are imported first. */
async function taskSelection(ctx: AppContext, value: string, limit: number | undefined, io: CliIO): Promise<TaskSelection> {
  if (value === "demo") {
    // This command serves the demo sites itself (or finds a worker serving them) on VERDICT_DEMO_PORT.
    await ensureDemoTaskSet(ctx.db, `http://127.0.0.1:${demoSitesPort(io.env) ?? DEMO_SITES_DEFAULT_PORT}`);
    return { from: "demo", ...(limit ? { limit } : {}) };
  }
  const file = userPath(io, value);
  if (fs.existsSync(file) && fs.statSync(file).isFile()) {
    const importer = await detectImporter(file);
    const refs: { set: string; externalId: string }[] = [];
    for await (const item of importer.read(file, {})) {
      if (item.kind === "task") refs.push({ set: item.task.taskSet.name, externalId: item.task.externalId });
    }
    if (refs.length === 0) throw new UsageError(`${value} holds no task definitions (read as ${importer.format})`);
    const report = await runImport({ db: ctx.db, store: ctx.store }, { path: file, format: importer.format });
    io.stderr(`Tasks from ${value}: ${refs.length} (${report.tasks.created} new, ${report.tasks.updated} updated)\n`);
    const ids: number[] = [];
    for (const r of refs.slice(0, limit ?? refs.length)) {
      const task = await storedTask(ctx.db, r.set, r.externalId);
      if (!task) throw new Error(`task ${r.externalId} of ${value} was not stored`);
      ids.push(task.id);
    }
    return { from: "tasks", taskIds: ids };
  }
  const byName = await taskSetNamed(ctx.db, value);
  if (byName) return { from: "taskSet", taskSetId: byName.id, ...(limit ? { limit } : {}) };
  if (/^\d+$/.test(value)) return { from: "taskSet", taskSetId: Number(value), ...(limit ? { limit } : {}) };
  throw new UsageError(`--tasks ${JSON.stringify(value)} is neither "demo", a task set name or id, nor a file`);
}

async function policySpec(ctx: AppContext, value: string, scriptFile: string | undefined, io: CliIO): Promise<PolicySpecInput> {
  if (value === "scripted") {
    if (!scriptFile) return { kind: "scripted", source: "demo" };
    if (!fs.existsSync(userPath(io, scriptFile))) throw new UsageError(`--script ${scriptFile}: no such file`);
    const actions = parseActionLines(fs.readFileSync(userPath(io, scriptFile), "utf8"));
    if (!actions.length) throw new UsageError(`--script ${scriptFile} holds no actions (one per line; # starts a comment)`);
    return { kind: "scripted", source: "actions", actions };
  }
  if (scriptFile) throw new UsageError("--script goes with --policy scripted");
  const config = await requireJudgeConfig(ctx.db, /^\d+$/.test(value) ? Number(value) : value);
  return { kind: "vlm", judgeConfigId: config.id };
}

type RunArgs = ReturnType<typeof parseArgs>;

/** The live run the flags ask for, before the schema checks it. */
async function liveRunRequestOf(args: RunArgs, ctx: AppContext, io: CliIO, tasksFlag: string, policyFlag: string): Promise<LiveRunRequestInput> {
  const limit = intFlag(args, "limit", 1, 100_000);
  const stepTimeout = intFlag(args, "step-timeout", 1, 600);
  const runTimeout = intFlag(args, "run-timeout", 5, 6 * 3600);
  const viewportFlag = flagString(args, "viewport");
  const viewport = viewportFlag === undefined ? undefined : /^(\d{3,4})x(\d{3,4})$/.exec(viewportFlag);
  if (viewport === null) throw new UsageError(`--viewport must look like 1280x800, got ${JSON.stringify(viewportFlag)}`);

  // Gone: where runs may go inside the network is the admins' (VERDICT_RUNNER_ALLOWED_DESTINATIONS, profiles).
  if (flagBool(args, "allow-private")) throw new UsageError(`--allow-private: ${PRIVATE_NETWORK_REFUSAL.replace(/^allowPrivateNetwork: /, "")}`);
  const profileFlag = flagString(args, "profile");
  return {
    name: flagString(args, "name"),
    tasks: await taskSelection(ctx, tasksFlag, limit, io),
    policy: await policySpec(ctx, policyFlag, flagString(args, "script"), io),
    settings: {
      maxSteps: intFlag(args, "max-steps", 1, 100),
      concurrency: intFlag(args, "concurrency", 1, 16),
      historyScreenshots: intFlag(args, "history", 1, 10),
      stepTimeoutMs: stepTimeout === undefined ? undefined : stepTimeout * 1000,
      runTimeoutMs: runTimeout === undefined ? undefined : runTimeout * 1000,
      viewport: viewport ? { width: Number(viewport[1]), height: Number(viewport[2]) } : undefined,
      allowedHosts: (flagString(args, "allow-hosts") ?? "")
        .split(",")
        .map((h) => h.trim())
        .filter(Boolean),
      blockedTexts: parseTextList((flagString(args, "block-texts") ?? "").split("|")),
      allowDownloads: flagBool(args, "allow-downloads"),
      deploymentProfileId: profileFlag === undefined ? null : (await findDeploymentProfile(ctx.db, profileFlag)).id,
      infraRetries: intFlag(args, "infra-retries", 0, 5),
      hostConcurrency: intFlag(args, "host-concurrency", 1, 16) ?? null,
      recordHar: !flagBool(args, "no-har"),
      detectBlocking: !flagBool(args, "no-blocking-check"),
    },
  };
}

/** Carries the run out in this process with a progress bar; Ctrl+C cancels it. */
async function followRun(ctx: AppContext, io: CliIO, runId: number, concurrency: number): Promise<void> {
  const deps = { db: ctx.db, env: io.env };
  const bar = createProgressBar(io, `Run ${runId}`);
  const stop = new AbortController();
  const onSigint = () => {
    io.stderr(`\nCancelling run ${runId}…\n`);
    Promise.resolve(cancelLiveRun(deps, runId)).catch((e: unknown) => io.stderr(`Could not cancel run ${runId}: ${(e as Error).message}\n`));
  };
  process.once("SIGINT", onSigint);
  let drawing = false;
  const draw = async () => {
    // A slow read (a busy database) must not pile up redraws behind it.
    if (drawing) return;
    drawing = true;
    try {
      const d = await liveRunDetail(deps, runId);
      const done = d.counts.succeeded + d.counts.failed + d.counts.cancelled;
      bar.update(done, d.counts.total, `${d.counts.running} running · ${d.steps} steps`);
    } finally {
      drawing = false;
    }
  };
  // The progress bar is only a view: a failed redraw is skipped, the next one tries again.
  const timer = setInterval(() => void draw().catch(() => undefined), 500);
  try {
    await runRunnerWorker({
      ctx,
      env: io.env,
      concurrency,
      groupKey: liveGroupKey(runId),
      untilIdle: true,
      signal: stop.signal,
    });
  } finally {
    clearInterval(timer);
    process.removeListener("SIGINT", onSigint);
    bar.finish();
  }
}

/** What the run did, as JSON or as a table. */
async function printRunSummary(ctx: AppContext, io: CliIO, runId: number, json: boolean, started: number): Promise<Awaited<ReturnType<typeof liveRunDetail>>> {
  const deps = { db: ctx.db, env: io.env };
  const d = await liveRunDetail(deps, runId);
  const seconds = (Date.now() - started) / 1000;
  const rows = d.tasks.map((t) => ({
    taskId: t.taskId,
    externalId: t.externalId,
    trajectoryId: t.trajectoryId,
    job: t.jobStatus,
    outcome: t.outcome,
    outcomeDetail: t.outcomeDetail ?? (t.jobStatus === "failed" ? t.jobError : null),
    steps: t.steps,
    finalAnswer: t.finalAnswer,
  }));
  if (json) {
    io.stdout(
      JSON.stringify({
        runId,
        status: d.status,
        policy: d.policy.label,
        counts: d.counts,
        answered: d.answered,
        successRate: d.successRate,
        steps: d.steps,
        seconds: Number(seconds.toFixed(2)),
        trajectories: rows,
      }) + "\n",
    );
  } else {
    io.stderr(
      [
        `Run ${runId} ${d.status} in ${seconds.toFixed(1)}s: ${d.answered} of ${d.counts.total} answered, ${d.steps} steps (${d.policy.label})`,
        ...(d.successRate.n || d.successRate.infraErrors || d.successRate.blocked
          ? [
              `  rules: ${d.successRate.successes} of ${d.successRate.n} succeeded; apart: ${d.successRate.infraErrors} infrastructure error(s), ${d.successRate.blocked} blocked`,
            ]
          : []),
        ...formatTable(
          [{ header: "task" }, { header: "outcome" }, { header: "steps", align: "right" }, { header: "answer" }],
          rows.map((r) => [r.externalId, String(r.outcome ?? r.job), String(r.steps), r.finalAnswer ? JSON.stringify(r.finalAnswer) : (r.outcomeDetail ?? "")]),
          { header: false },
        ),
        `  trajectories: /trajectories?run=${runId}`,
      ].join("\n") + "\n",
    );
  }
  return d;
}

export const runCommand: CliCommand = {
  name: "run",
  summary: "start a live run (real Chromium) of a policy over tasks, with a progress bar",
  usage: USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, {
      valueFlags: [
        "tasks",
        "policy",
        "script",
        "limit",
        "name",
        "max-steps",
        "concurrency",
        "history",
        "step-timeout",
        "run-timeout",
        "viewport",
        "allow-hosts",
        "block-texts",
        "profile",
        "infra-retries",
        "host-concurrency",
      ],
      boolFlags: ["json", "allow-private", "allow-downloads", "detach", "no-har", "no-blocking-check"],
      noPositionals: true,
    });
    const tasksFlag = flagString(args, "tasks");
    const policyFlag = flagString(args, "policy");
    if (!tasksFlag) throw new UsageError("--tasks is required");
    if (!policyFlag) throw new UsageError("--policy is required");
    const json = flagBool(args, "json");
    const ctx = getAppContext(io.env);
    const request = await liveRunRequestOf(args, ctx, io, tasksFlag, policyFlag);
    const parsed = liveRunRequestSchema.safeParse(request);
    if (!parsed.success) throw new UsageError(describeZodIssues(parsed.error));

    const { runId, tasks } = await startLiveRun({ db: ctx.db, env: io.env }, parsed.data, null);
    io.stderr(`Live run ${runId}: ${tasks} task${tasks === 1 ? "" : "s"} queued (watch it at /live/${runId})\n`);

    if (flagBool(args, "detach")) {
      if (json) io.stdout(JSON.stringify({ runId, tasks, detached: true }) + "\n");
      else io.stderr("Queued; a running worker (npm run worker) carries it out.\n");
      return 0;
    }
    const started = Date.now();
    await followRun(ctx, io, runId, parsed.data.settings.concurrency);
    const d = await printRunSummary(ctx, io, runId, json, started);
    return d.counts.failed > 0 || d.counts.cancelled > 0 ? 1 : 0;
  },
};
