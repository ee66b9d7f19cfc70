/**
 * Automatic evaluation from the command line:
 *   judge          run an LMM-judge batch over a selection and several k values (progress bar, cancel with Ctrl-C)
 *   judge-batch    list batches, show one, cancel one
 *   judge-config   create / list judge configurations, store a key server-side
 *   evaluate-rules VisualWebArena rule verdicts for stored trajectories
 *   judge-stress   stress-test a judge on a labelled campaign (shuffled, subset, answer or history removed)
 *   judge-align    the alignment loop: calibration/held-out split, prompt versions from disagreements, κ per version
 */
import fs from "node:fs";
import path from "node:path";
import { matchingTrajectoryIds, trajectoryIdsOf } from "../../services/trajectory-views";
import { listFilterFromText } from "../../domain/trajectory-list-query";
import { judgeSettings } from "../../config";
import { getAppContext, type AppContext } from "../../context";
import { parseKList } from "../../domain/evaluation/verdicts";
import { JUDGE_PROTOCOLS } from "../../domain/evaluation/judge-protocol";
import {
  cancelJudgeBatch,
  createJudgeBatch,
  estimateJudgeBatch,
  judgeBatchProgress,
  listBatches,
  requireBatch,
  resumeJudgeBatch,
  runJudgeBatch,
  type BatchProgress,
  createJudgeConfig,
  deleteJudgeConfig,
  listJudgeConfigViews,
  requireJudgeConfig,
  setStoredApiKey,
  toView,
  type JudgeConfigInput,
  evaluateRuleVerdicts,
  MAX_JUDGE_SAMPLES,
  createStressTest,
  listStressTests,
  planStressTest,
  requireStressTest,
  stressTestReport,
  type StressTestReport,
  alignmentVersions,
  calibrationDisagreements,
  createAlignment,
  createPromptVersion,
  estimateAlignmentRun,
  listAlignments,
  requireAlignment,
  startAlignmentRun,
  suggestRubric,
  type AlignmentView,
} from "../../services/evaluation";
import { PERTURBATION_KINDS, type PerturbationKind } from "../../domain/evaluation/prompt-variants";
import { parseK } from "../../domain/evaluation/verdicts";
import { UsageError, flagBool, flagString, parseArgs, requiredFlag, type ParsedArgs } from "../args";
import { answer, answerList, actionAndSubject } from "../answer";
import { createProgressBar } from "../progress";
import type { CliCommand, CliIO } from "../types";

const CONFIG_REQUIRED = "--config <name> is required (see `npm run cli -- judge-config list`)";

function intFlag(args: ParsedArgs, name: string, min: number, max: number): number | undefined {
  const v = flagString(args, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  return Number(v);
}

/** A judge configuration named on the command line: its id when the text is a number, else its name. */
function configRefOf(text: string): string | number {
  return /^\d+$/.test(text) ? Number(text) : text;
}

/** The k values or k a flag gives, its parser's complaint as a usage error. */
function parsedK<T>(parse: (text: string) => T, text: string): T {
  try {
    return parse(text);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** `--resume <id>`: the id of what to resume (a batch, a stress test), or undefined without the flag. */
function resumeIdFlag(args: ParsedArgs, what: string): number | undefined {
  const resume = flagString(args, "resume");
  if (resume === undefined) return undefined;
  if (!/^\d+$/.test(resume)) throw new UsageError(`--resume takes a ${what} id`);
  return Number(resume);
}

function numFlag(args: ParsedArgs, name: string): number | undefined {
  const v = flagString(args, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`--${name} must be a non-negative number`);
  return n;
}

/** Trajectory ids from --run ID, --ids 1,2,3 or --all (exactly one). */
export async function selection(args: ParsedArgs, db: Parameters<typeof trajectoryIdsOf>[0]): Promise<{ ids: number[]; label: string }> {
  const run = flagString(args, "run");
  const ids = flagString(args, "ids");
  const all = flagBool(args, "all");
  if ([run !== undefined, ids !== undefined, all].filter(Boolean).length !== 1) {
    throw new UsageError("choose the trajectories with exactly one of --run ID, --ids 1,2,3 or --all");
  }
  if (run !== undefined) {
    if (!/^\d+$/.test(run)) throw new UsageError("--run takes a run id (see `npm run cli -- stats`)");
    return { ids: await trajectoryIdsOf(db, { runId: Number(run) }), label: `run ${run}` };
  }
  if (ids !== undefined) {
    const list = ids
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (!list.length || list.some((s) => !/^\d+$/.test(s))) throw new UsageError("--ids takes trajectory ids separated by commas");
    return { ids: list.map(Number), label: `ids ${list.length}` };
  }
  return { ids: await trajectoryIdsOf(db), label: "all" };
}

function money(v: number | null): string {
  return v === null ? "unknown (no prices set)" : `$${v.toFixed(v < 1 ? 4 : 2)}`;
}

function summaryJson(p: BatchProgress, extra: Record<string, unknown> = {}) {
  return {
    batchId: p.batch.id,
    status: p.batch.status,
    kValues: p.batch.kValues,
    totalPairs: p.batch.totalPairs,
    skippedExisting: p.batch.skippedExisting,
    jobs: { succeeded: p.jobs.counts.succeeded, failed: p.jobs.counts.failed, cancelled: p.jobs.counts.cancelled, remaining: p.jobs.remaining },
    verdicts: p.verdicts.byVerdict,
    inputTokens: p.verdicts.inputTokens,
    outputTokens: p.verdicts.outputTokens,
    costUsd: p.verdicts.costUsd,
    errors: p.jobs.errors,
    ...extra,
  };
}

async function runWithProgress(
  io: CliIO,
  batchId: number,
  json: boolean,
  { resumeHint = `npm run cli -- judge --resume ${batchId}`, summary = true }: { resumeHint?: string; summary?: boolean } = {},
): Promise<number> {
  const ctx = getAppContext(io.env);
  const bar = createProgressBar(io, `Batch ${batchId}`);
  const started = Date.now();
  const onSigint = () => {
    io.stderr(`\nCancelling batch ${batchId}: running calls stop now; resume with \`${resumeHint}\`\n`);
    Promise.resolve(cancelJudgeBatch(ctx.db, batchId)).catch((e: unknown) => io.stderr(`Could not cancel batch ${batchId}: ${(e as Error).message}\n`));
  };
  process.once("SIGINT", onSigint);
  let result;
  try {
    result = await runJudgeBatch({ db: ctx.db, store: ctx.store, env: io.env }, batchId, {
      onProgress: (p) => {
        const total = p.jobs.counts.total;
        const failed = p.jobs.counts.failed;
        bar.update(p.jobs.done, total, failed ? `${failed} failed` : "");
      },
    });
  } finally {
    process.removeListener("SIGINT", onSigint);
    bar.finish();
  }
  const seconds = (Date.now() - started) / 1000;
  const calls = result.worker.succeeded;
  if (!summary) {
    if (result.batch.status !== "succeeded") io.stderr(`Batch ${batchId} ${result.batch.status}: resume with ${resumeHint}\n`);
  } else if (json) {
    io.stdout(
      JSON.stringify(
        summaryJson(result, { seconds: Number(seconds.toFixed(2)), verdictsPerSecond: seconds > 0 ? Number((calls / seconds).toFixed(2)) : null }),
      ) + "\n",
    );
  } else {
    const v = result.verdicts.byVerdict;
    io.stderr(
      [
        `Batch ${batchId} ${result.batch.status} in ${seconds.toFixed(1)}s`,
        `  jobs: ${result.jobs.counts.succeeded} done, ${result.jobs.counts.failed} failed, ${result.jobs.counts.cancelled} cancelled`,
        `  verdicts: ${v.success} success, ${v.failure} failure, ${v.unparseable} unparseable`,
        `  tokens: ${result.verdicts.inputTokens} in, ${result.verdicts.outputTokens} out; cost ${money(result.verdicts.costUsd)}`,
        ...result.jobs.errors.map((e) => `  error ×${e.n}: ${e.error}`),
        ...(result.batch.status === "failed" || result.batch.status === "cancelled" ? [`  Resume with: ${resumeHint}`] : []),
      ].join("\n") + "\n",
    );
  }
  return result.batch.status === "succeeded" ? 0 : 1;
}

export const judgeCommand: CliCommand = {
  name: "judge",
  summary: "run an LMM judge over trajectories for several k values (with its configuration's protocol)",
  usage:
    "npm run cli -- judge --config <name> --k 1,3,full (--run ID | --ids 1,2 | --all) [--concurrency 4] [--samples 1] [--force] [--dry-run] [--json]\n" +
    "       npm run cli -- judge --resume <batch id> [--json]",
  async run(argv, io) {
    const args = parseArgs(argv, {
      valueFlags: ["config", "k", "run", "ids", "concurrency", "samples", "resume"],
      boolFlags: ["all", "force", "dry-run", "json"],
      noPositionals: true,
    });
    const json = flagBool(args, "json");
    const ctx = getAppContext(io.env);
    const resume = resumeIdFlag(args, "batch");
    if (resume !== undefined) {
      const batch = await requireBatch(ctx.db, resume);
      const { requeued } = await resumeJudgeBatch(ctx.db, batch.id);
      if (!json) io.stderr(`Resuming batch ${batch.id}: ${requeued} job(s) back in the queue\n`);
      return runWithProgress(io, batch.id, json);
    }
    const configRef = requiredFlag(args, "config", CONFIG_REQUIRED);
    const kValues = parsedK(parseKList, requiredFlag(args, "k", "--k is required, e.g. --k 1,3,full"));
    const { ids, label } = await selection(args, ctx.db);
    const config = await requireJudgeConfig(ctx.db, configRefOf(configRef));
    const request = {
      config: config.id,
      trajectoryIds: ids,
      kValues,
      concurrency: intFlag(args, "concurrency", 1, 64) ?? 4,
      samples: intFlag(args, "samples", 1, MAX_JUDGE_SAMPLES) ?? 1,
      force: flagBool(args, "force"),
      selectionLabel: label,
    };
    if (flagBool(args, "dry-run")) {
      const { plan: _plan, ...estimate } = await estimateJudgeBatch(ctx.db, request);
      void _plan;
      if (json) io.stdout(JSON.stringify({ dryRun: true, config: config.name, estimate }) + "\n");
      else {
        io.stderr(
          `Judge ${config.name} (${config.model}) on ${estimate.trajectories} trajectories × k ${kValues.join(",")}:\n` +
            `  ${estimate.calls} call(s) (${estimate.existing} verdict(s) already stored), ${estimate.images} image(s)\n` +
            `  about ${estimate.inputTokens} input + ${estimate.outputTokens} output tokens; estimated cost ${money(estimate.costUsd)}\n`,
        );
      }
      return 0;
    }
    const { batch, estimate } = await createJudgeBatch(ctx.db, request);
    if (!json) {
      io.stderr(
        `Batch ${batch.id}: judge ${config.name} (${config.model}), ${estimate.trajectories} trajectories × k ${kValues.join(",")}, ` +
          `${estimate.calls} call(s) (${estimate.existing} already stored), estimated cost ${money(estimate.costUsd)}\n`,
      );
    }
    return runWithProgress(io, batch.id, json);
  },
};

export const judgeBatchCommand: CliCommand = {
  name: "judge-batch",
  summary: "list judge batches, show one's progress, or cancel one",
  usage: "npm run cli -- judge-batch list [--json] | status <id> [--json] | cancel <id> [--json]",
  async run(argv, io) {
    const args = parseArgs(argv, { boolFlags: ["json"] });
    const [action, id] = actionAndSubject(args);
    const json = flagBool(args, "json");
    const ctx = getAppContext(io.env);
    if (action === "list") {
      return answerList(io, json, "batches", await listBatches(ctx.db), {
        empty: "No judge batches yet.\n",
        line: (b) =>
          `#${b.id} ${b.status.padEnd(9)} ${b.configName} k=${b.kValues.join(",")} ${b.trajectoryCount} traj. ` +
          `${b.succeeded} done ${b.failed} failed ${b.cancelled} cancelled (${b.selectionLabel ?? ""})\n`,
      });
    }
    if (action !== "status" && action !== "cancel") throw new UsageError(`unknown action ${JSON.stringify(action ?? "")}`);
    if (!id || !/^\d+$/.test(id)) throw new UsageError(`${action} needs a batch id`);
    if (action === "cancel") {
      const r = await cancelJudgeBatch(ctx.db, Number(id));
      return answer(
        io,
        json,
        { batchId: Number(id), ...r },
        `Batch ${id}: ${r.cancelled} queued job(s) cancelled, ${r.signalled} running job(s) asked to stop\n`,
      );
    }
    const p = await judgeBatchProgress(ctx.db, Number(id));
    if (json) io.stdout(JSON.stringify(summaryJson(p, { etaSeconds: p.jobs.etaSeconds })) + "\n");
    else {
      io.stderr(
        `Batch ${id} ${p.batch.status}: ${p.jobs.done}/${p.jobs.counts.total} done (${p.jobs.counts.failed} failed, ` +
          `${p.jobs.counts.cancelled} cancelled), ${p.jobs.remaining} remaining` +
          (p.jobs.etaSeconds ? `, ETA ${p.jobs.etaSeconds}s` : "") +
          "\n",
      );
    }
    return 0;
  },
};

const CONFIG_VALUE_FLAGS = [
  "name",
  "base-url",
  "model",
  "api-key-env",
  "store-key-from-env",
  "temperature",
  "seed",
  "max-tokens",
  "timeout-ms",
  "retries",
  "screenshots",
  "detail",
  "max-image-side",
  "price-in",
  "price-out",
  "from-env",
  "protocol",
  "threshold",
];

export const judgeConfigCommand: CliCommand = {
  name: "judge-config",
  summary: "create and list LMM judge configurations (endpoint, model, options, prices)",
  usage:
    "npm run cli -- judge-config add --name N [--base-url URL] [--model M] [--api-key-env VAR | --store-key-from-env VAR]\n" +
    "         [--temperature 0] [--seed 42|none] [--max-tokens 1024] [--timeout-ms 120000] [--retries 5] [--history] [--thoughts]\n" +
    "         [--screenshots marked|raw] [--detail auto|low|high] [--max-image-side PX] [--price-in USD/1M] [--price-out USD/1M] [--json]\n" +
    "         [--protocol webvoyager|key-points|rubric] [--threshold 1-5 (key points; default 3)] [--cite (webvoyager: ask for cited steps)]\n" +
    "       npm run cli -- judge-config list [--json]\n" +
    "       npm run cli -- judge-config set-key <name> --from-env VAR\n" +
    "       npm run cli -- judge-config remove <name>\n" +
    "  Defaults: --base-url from VERDICT_JUDGE_BASE_URL, --model from VERDICT_JUDGE_MODEL; the key is read at call time from\n" +
    "  --api-key-env, else VERDICT_JUDGE_API_KEY, else OPENAI_API_KEY, unless one is stored with --store-key-from-env.\n" +
    "  --api-key-env names VERDICT_JUDGE_API_KEY, OPENAI_API_KEY or a VERDICT_JUDGE_KEY_<SUFFIX> variable; each key goes only\n" +
    "  where an admin bound it: OPENAI_API_KEY to https://api.openai.com, VERDICT_JUDGE_API_KEY to VERDICT_JUDGE_BASE_URL,\n" +
    "  VERDICT_JUDGE_KEY_<SUFFIX> to VERDICT_JUDGE_KEY_<SUFFIX>_URL. The endpoint's host must be api.openai.com (https), the\n" +
    "  VERDICT_JUDGE_BASE_URL host or one in VERDICT_JUDGE_ALLOWED_HOSTS; servers on this machine need their ports in\n" +
    "  VERDICT_JUDGE_ALLOW_LOOPBACK (e.g. 8000,11434).",
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: CONFIG_VALUE_FLAGS, boolFlags: ["json", "history", "thoughts", "cite"] });
    const [action, name] = actionAndSubject(args);
    const json = flagBool(args, "json");
    const ctx = getAppContext(io.env);
    if (action === "list") {
      return answerList(io, json, "configs", await listJudgeConfigViews(ctx.db), {
        empty: "No judge configurations yet: add one with `npm run cli -- judge-config add --name …`\n",
        line: (c) =>
          `${c.name}: ${c.model} at ${c.baseUrl ?? "OpenAI"} (key ${c.apiKeySource}), protocol ${c.protocol} (prompt ${c.promptVersion}), ` +
          `screenshots ${c.options.screenshots}${c.options.includeActionHistory ? ", +history" : ""}` +
          `${c.options.includeThoughts ? ", +thoughts" : ""}${c.options.maxImageSide ? `, ≤${c.options.maxImageSide}px` : ""}\n`,
      });
    }
    if (action === "set-key") {
      if (!name) throw new UsageError("set-key needs a configuration name");
      const from = flagString(args, "from-env");
      if (!from) throw new UsageError("set-key needs --from-env VAR (the key is never taken from the command line)");
      // The variable the user names on the command line (never a Verdict setting): looked up by that name.
      const key = io.env[from];
      if (!key) throw new UsageError(`environment variable ${from} is empty`);
      const c = await requireJudgeConfig(ctx.db, name);
      await setStoredApiKey(ctx.db, c.id, key);
      return answer(io, json, { name: c.name, apiKeySource: "stored" }, `Stored an API key for ${c.name} (server-side only).\n`);
    }
    if (action === "remove") {
      if (!name) throw new UsageError("remove needs a configuration name");
      const c = await requireJudgeConfig(ctx.db, name);
      await deleteJudgeConfig(ctx.db, c.id);
      return answer(io, json, { removed: c.name }, `Removed judge configuration ${c.name}.\n`);
    }
    if (action !== "add") throw new UsageError(`unknown action ${JSON.stringify(action ?? "")} (add, list, set-key, remove)`);
    if (name) throw new UsageError("add takes --name, not a positional name");
    const seedText = flagString(args, "seed");
    const screenshots = flagString(args, "screenshots");
    if (screenshots !== undefined && screenshots !== "marked" && screenshots !== "raw") throw new UsageError("--screenshots is marked or raw");
    const detail = flagString(args, "detail");
    if (detail !== undefined && !["auto", "low", "high"].includes(detail)) throw new UsageError("--detail is auto, low or high");
    if (seedText !== undefined && seedText !== "none" && !/^-?\d+$/.test(seedText)) throw new UsageError("--seed is a whole number or none");
    const protocol = flagString(args, "protocol");
    if (protocol !== undefined && !JUDGE_PROTOCOLS.some((p) => p.id === protocol))
      throw new UsageError(`--protocol is one of ${JUDGE_PROTOCOLS.map((p) => p.id).join(", ")}`);
    if (flagString(args, "threshold") !== undefined && protocol !== "key-points") throw new UsageError("--threshold applies to --protocol key-points only");
    const input: JudgeConfigInput = {
      name: flagString(args, "name") ?? "",
      ...(protocol ? { promptVersion: protocol } : {}),
      baseUrl: flagString(args, "base-url"),
      model: flagString(args, "model"),
      apiKeyEnv: flagString(args, "api-key-env"),
      temperature: numFlag(args, "temperature"),
      seed: seedText === undefined ? undefined : seedText === "none" ? null : Number(seedText),
      maxOutputTokens: intFlag(args, "max-tokens", 16, 1_000_000),
      timeoutMs: intFlag(args, "timeout-ms", 100, 3_600_000),
      maxRetries: intFlag(args, "retries", 0, 20),
      priceInputPerMTok: numFlag(args, "price-in"),
      priceOutputPerMTok: numFlag(args, "price-out"),
      options: {
        ...(flagBool(args, "history") ? { includeActionHistory: true } : {}),
        ...(flagBool(args, "thoughts") ? { includeThoughts: true, includeActionHistory: true } : {}),
        ...(screenshots ? { screenshots: screenshots as "marked" | "raw" } : {}),
        ...(detail ? { imageDetail: detail as "auto" | "low" | "high" } : {}),
        ...(flagString(args, "max-image-side") !== undefined ? { maxImageSide: intFlag(args, "max-image-side", 16, 10_000)! } : {}),
        ...(flagString(args, "threshold") !== undefined ? { relevanceThreshold: intFlag(args, "threshold", 1, 5)! } : {}),
        ...(flagBool(args, "cite") ? { askCitations: true } : {}),
      },
    };
    // Like set-key's --from-env: a variable the user names, looked up by that name.
    const storeFrom = flagString(args, "store-key-from-env");
    if (storeFrom !== undefined && !io.env[storeFrom]) throw new UsageError(`environment variable ${storeFrom} is empty`);
    const view = await createJudgeConfig(ctx.db, input, judgeSettings(io.env));
    if (storeFrom !== undefined) await setStoredApiKey(ctx.db, view.id, io.env[storeFrom]!);
    const out = toView(await requireJudgeConfig(ctx.db, view.id));
    if (json) io.stdout(JSON.stringify({ config: out }) + "\n");
    else io.stderr(`Created judge configuration ${out.name}: ${out.model} at ${out.baseUrl ?? "OpenAI"} (key ${out.apiKeySource}), protocol ${out.protocol}\n`);
    return 0;
  },
};

export const evaluateRulesCommand: CliCommand = {
  name: "evaluate-rules",
  summary: "VisualWebArena rule verdicts (string_match, url_match, …) for stored trajectories",
  usage:
    "npm run cli -- evaluate-rules (--run ID | --ids 1,2 | --all) [--fuzzy-config NAME] [--site-urls REDDIT=http://host:9999,SHOPPING=…] [--force] [--json]",
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["run", "ids", "fuzzy-config", "site-urls"], boolFlags: ["all", "force", "json"], noPositionals: true });
    const ctx = getAppContext(io.env);
    const { ids } = await selection(args, ctx.db);
    const siteUrls: Record<string, string> = {};
    for (const pair of (flagString(args, "site-urls") ?? "").split(",").filter((s) => s.trim())) {
      const eq = pair.indexOf("=");
      if (eq < 1) throw new UsageError(`--site-urls entries look like REDDIT=http://host:9999, got ${JSON.stringify(pair)}`);
      siteUrls[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
    }
    const bar = createProgressBar(io, "Rules");
    let report;
    try {
      report = await evaluateRuleVerdicts(
        { db: ctx.db, env: io.env },
        {
          trajectoryIds: ids,
          force: flagBool(args, "force"),
          fuzzyConfig: flagString(args, "fuzzy-config") ?? null,
          siteUrls,
          onProgress: (d, t) => bar.update(d, t),
        },
      );
    } finally {
      bar.finish();
    }
    if (flagBool(args, "json")) io.stdout(JSON.stringify(report) + "\n");
    else {
      io.stderr(
        `Rule verdicts: ${report.evaluated} evaluated (${report.byVerdict.success} success, ${report.byVerdict.failure} failure, ` +
          `${report.byVerdict.not_evaluable} not evaluable), ${report.skippedExisting} already stored, ${report.noRuleConfig} without a rule config\n` +
          report.errors.map((e) => `  trajectory ${e.trajectoryId}: ${e.error}\n`).join(""),
      );
    }
    return report.errors.length ? 1 : 0;
  },
};

function pct(v: number | null): string {
  return v === null ? "–" : `${(v * 100).toFixed(1)}%`;
}

function kappaText(k: { kappa: number | null; reason: string | null; interval: { low: number | null; high: number | null; note: string | null } }): string {
  if (k.kappa === null) return `undefined (${k.reason})`;
  return k.kappa.toFixed(3) + intervalText(k.interval);
}

/** An interval's text after its estimate: ` [low, high]`, its note in brackets when there is none, or nothing. */
function intervalText(i: { low: number | null; high: number | null; note: string | null }): string {
  if (i.low !== null && i.high !== null) return ` [${i.low.toFixed(3)}, ${i.high.toFixed(3)}]`;
  return i.note ? ` (${i.note})` : "";
}

/** A change of κ between two runs or versions: signed, with its interval. */
function kappaChangeText(c: { estimate: number | null; low: number | null; high: number | null; note: string | null }): string {
  const change = c.estimate === null ? "–" : `${c.estimate >= 0 ? "+" : ""}${c.estimate.toFixed(3)}`;
  return change + intervalText(c);
}

function rateText(r: { estimate: number | null; low: number | null; high: number | null }, count?: string): string {
  const ci = r.low !== null && r.high !== null ? ` [${pct(r.low)}, ${pct(r.high)}]` : "";
  return `${pct(r.estimate)}${ci}${count ? ` · ${count}` : ""}`;
}

function stressReportText(r: StressTestReport): string {
  const st = r.stressTest;
  const lines = [
    `Stress test ${st.id}: judge ${r.configName} on campaign ${r.campaignName}, k=${st.k}, seed ${st.seed}` +
      (r.progress ? ` (batch ${r.progress.batch.id} ${r.progress.batch.status}: ${r.progress.jobs.done}/${r.progress.jobs.counts.total} calls done)` : ""),
    `  ${r.items} labelled item(s)${r.labelsGone.length ? `; ${r.labelsGone.length} no longer have a success or failure label and are left out` : ""}; unparseable replies count as ${r.policy === "failure" ? "failures" : "left out"}`,
    `  unperturbed: κ ${kappaText(r.base.measures.kappa)}, FPR ${rateText(r.base.measures.errors.falsePositive)}, FNR ${rateText(r.base.measures.errors.falseNegative)}` +
      (r.base.measures.missing ? `, ${r.base.measures.missing} not judged yet` : ""),
  ];
  for (const p of r.perturbations) {
    const c = p.comparison;
    lines.push(
      "",
      `  ${p.label} (${p.perturbation}):`,
      `    flip rate ${rateText(c.flipRate, `${c.flipRate.successes}/${c.n}`)}: ${c.nowRight} now right, ${c.nowWrong} now wrong` +
        (c.leftOut ? `; ${c.leftOut} item(s) without both verdicts left out` : ""),
      `    κ ${kappaText(c.kappaA)} → ${kappaText(c.kappaB)}, change ${kappaChangeText(c.kappaChange)}`,
      `    FPR ${rateText(p.measures.errors.falsePositive)}, FNR ${rateText(p.measures.errors.falseNegative)}`,
      ...p.flipped.map(
        (f) => `    flipped: trajectory ${f.trajectoryId} (task ${f.taskExternalId}) ${f.before} → ${f.after}, people said ${f.human}: ${f.direction}`,
      ),
    );
  }
  for (const s of st.skipped) lines.push("", `  not run: ${s.perturbation}: ${s.reason}`);
  return lines.join("\n") + "\n";
}

export const judgeStressCommand: CliCommand = {
  name: "judge-stress",
  summary: "stress-test a judge on a labelled campaign: shuffled screenshots, a random subset, answer or history removed",
  usage:
    "npm run cli -- judge-stress --config <name> --campaign <name|id> --k <k> [--perturb shuffle,subset,no-answer,no-history] [--subset-k 2] [--seed 1] [--prompt-version ID] [--concurrency 4] [--filter <list address or ?query>] [--dry-run] [--json]\n" +
    "       npm run cli -- judge-stress --resume <stress test id> [--json]\n" +
    "       npm run cli -- judge-stress report <id> [--exclude-unparseable] [--json] | list [--json]",
  async run(argv, io) {
    const args = parseArgs(argv, {
      valueFlags: ["config", "campaign", "k", "perturb", "subset-k", "seed", "prompt-version", "concurrency", "resume", "filter"],
      boolFlags: ["dry-run", "json", "exclude-unparseable"],
    });
    const json = flagBool(args, "json");
    const ctx = getAppContext(io.env);
    const [action, id] = actionAndSubject(args);
    if (action === "list") {
      return answerList(io, json, "stressTests", await listStressTests(ctx.db), {
        empty: "No stress tests yet.\n",
        to: "stdout",
        line: (r) =>
          `#${r.id} ${r.configName} on ${r.campaignName} k=${r.k} seed ${r.seed}: ${r.perturbations.join(", ")}; ${r.trajectories} trajectories; batch ${r.batchId ?? "–"} ${r.batchStatus ?? ""}\n`,
      });
    }
    if (action === "report") {
      if (!id || !/^\d+$/.test(id)) throw new UsageError("report needs a stress test id (see `judge-stress list`)");
      const report = await stressTestReport(ctx.db, Number(id), { policy: flagBool(args, "exclude-unparseable") ? "exclude" : "failure" });
      io.stdout(json ? JSON.stringify(report) + "\n" : stressReportText(report));
      return 0;
    }
    if (action !== undefined) throw new UsageError(`unknown action ${JSON.stringify(action)} (report, list, or flags to start a stress test)`);
    const resume = resumeIdFlag(args, "stress test");
    if (resume !== undefined) {
      const st = await requireStressTest(ctx.db, resume);
      if (st.batchId == null) throw new UsageError(`stress test ${st.id} has no judge batch left to resume`);
      const { requeued } = await resumeJudgeBatch(ctx.db, st.batchId);
      if (!json) io.stderr(`Resuming stress test ${st.id} (batch ${st.batchId}): ${requeued} call(s) back in the queue\n`);
      return finishStress(io, st.id, st.batchId, json);
    }
    const configRef = requiredFlag(args, "config", CONFIG_REQUIRED);
    const campaign = requiredFlag(args, "campaign", "--campaign <name or id> is required: its consolidated labels are what the judge is compared with");
    const k = parsedK(parseK, requiredFlag(args, "k", "--k is required, e.g. --k 3 or --k full"));
    const perturbText = flagString(args, "perturb");
    const perturbations = perturbText
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean) as PerturbationKind[] | undefined;
    for (const p of perturbations ?? [])
      if (!PERTURBATION_KINDS.includes(p))
        throw new UsageError(`--perturb: unknown perturbation ${JSON.stringify(p)}; choose from ${PERTURBATION_KINDS.join(", ")}`);
    const request = {
      config: configRefOf(configRef),
      campaign,
      k,
      perturbations,
      subsetK: intFlag(args, "subset-k", 1, 1000),
      seed: intFlag(args, "seed", 0, 4_294_967_295),
      promptVersionId: intFlag(args, "prompt-version", 1, Number.MAX_SAFE_INTEGER) ?? null,
      concurrency: intFlag(args, "concurrency", 1, 64) ?? 4,
      ...(await stressSelection(ctx.db, flagString(args, "filter"))),
    };
    if (flagBool(args, "dry-run")) {
      const plan = await planStressTest(ctx.db, request);
      if (json) io.stdout(JSON.stringify({ dryRun: true, ...plan }) + "\n");
      else io.stdout(stressPlanText(plan));
      return 0;
    }
    const { stressTest, batch, plan } = await createStressTest(ctx.db, request);
    if (!json) io.stderr(`Stress test ${stressTest.id} (batch ${batch.id}):\n${stressPlanText(plan)}`);
    return finishStress(io, stressTest.id, batch.id, json);
  },
};

/** `--filter`: only the campaign's items the trajectory list's filter selects, as the stress-test form does. */
async function stressSelection(db: AppContext["db"], text: string | undefined): Promise<{ onlyTrajectoryIds?: number[]; selectionLabel?: string }> {
  if (text === undefined) return {};
  const list = listFilterFromText(text);
  if (!list)
    throw new UsageError(
      `--filter ${JSON.stringify(text)} selects nothing in particular: give the trajectory list's address or its query, e.g. "?site=shop&human=failure"`,
    );
  return { onlyTrajectoryIds: await matchingTrajectoryIds(db, list.filter), selectionLabel: `list filter ${list.search}` };
}

function stressPlanText(plan: Awaited<ReturnType<typeof planStressTest>>): string {
  const e = plan.estimate;
  return (
    [
      `Judge ${plan.configName} on ${plan.trajectoryIds.length} labelled item(s) of campaign ${plan.campaignName}, k=${plan.k}, seed ${plan.seed}` +
        (plan.leftOut.length ? ` (${plan.leftOut.length} item(s) without a success or failure label left out)` : "") +
        (plan.outsideSelection ? `; ${plan.outsideSelection} item(s) outside the list filter left out` : ""),
      ...e.perVariant.map(
        (v) => `  ${v.variant || "unperturbed"}: ${v.calls} call(s), ${v.images} image(s)${v.existing ? `, ${v.existing} verdict(s) already stored` : ""}`,
      ),
      ...plan.skipped.map((s) => `  not run: ${s.perturbation}: ${s.reason}`),
      `  in all ${e.calls} call(s), about ${e.inputTokens} input + ${e.outputTokens} output tokens; estimated cost ${money(e.costUsd)}`,
    ].join("\n") + "\n"
  );
}

async function finishStress(io: CliIO, stressTestId: number, batchId: number, json: boolean): Promise<number> {
  const ctx = getAppContext(io.env);
  await runWithProgress(io, batchId, json, { resumeHint: `npm run cli -- judge-stress --resume ${stressTestId}`, summary: false });
  const report = await stressTestReport(ctx.db, stressTestId);
  io.stdout(json ? JSON.stringify(report) + "\n" : stressReportText(report));
  return report.progress?.batch.status === "succeeded" ? 0 : 1;
}

function versionsText(view: AlignmentView, withDiff: boolean): string {
  const a = view.alignment;
  const lines = [
    `Alignment study ${a.name} (#${a.id}): judge ${view.configName}, k=${a.k}; ${view.calibration} calibration item(s), ${view.heldOut} held out (seed ${a.seed})`,
    `  measured on the held-out part; unparseable replies count as ${view.policy === "failure" ? "failures" : "left out"}`,
  ];
  for (const r of view.versions) {
    const v = r.version;
    const m = r.measures;
    const what = [v.rubric !== null ? `rubric (${v.rubricSource})` : "protocol's criteria", `${v.examples.length} example(s)`].join(", ");
    lines.push(
      "",
      `  v${v.number}: ${what}${v.note ? ` — ${v.note}` : ""}`,
      `    κ ${kappaText(m.kappa)}, FPR ${rateText(m.errors.falsePositive)}, FNR ${rateText(m.errors.falseNegative)}, gap ${m.errors.gap.estimate === null ? "–" : m.errors.gap.estimate.toFixed(3)}; n ${m.n}` +
        (m.missing ? `, ${m.missing} not judged yet (run it: judge-align run ${a.id} --version ${v.number})` : ""),
    );
    const c = r.comparedWithParent;
    if (c) {
      lines.push(
        `    against v${c.parentNumber}: κ change ${kappaChangeText(c.kappaChange)}; ${c.flipRate.successes} of ${c.n} flipped (${c.nowRight} now right, ${c.nowWrong} now wrong)`,
      );
      for (const f of c.flipped)
        lines.push(`      flipped: trajectory ${f.trajectoryId} (task ${f.taskExternalId}) ${f.before} → ${f.after}, people said ${f.human}: ${f.direction}`);
    }
    if (withDiff && r.diff) for (const d of r.diff) if (d.op !== "same") lines.push(`    ${d.op === "added" ? "+" : "-"} ${d.text}`);
  }
  return lines.join("\n") + "\n";
}

/** What each judge-align action is handed: the parsed arguments, the app, and how to print. */
interface AlignCall {
  args: ReturnType<typeof parseArgs>;
  io: Parameters<CliCommand["run"]>[1];
  ctx: ReturnType<typeof getAppContext>;
  json: boolean;
  /** The study named on the command line (every action but list and create needs one). */
  study: string;
  out: (value: unknown, text: string) => void;
}

async function alignList({ ctx, out }: AlignCall): Promise<number> {
  const rows = await listAlignments(ctx.db);
  out(
    { studies: rows },
    rows.length
      ? rows
          .map(
            (r) =>
              `#${r.id} ${r.name}: ${r.configName} on ${r.campaignName}, k=${r.k}; ${r.calibration} calibration, ${r.heldOut} held out; ${r.versions} version(s)\n`,
          )
          .join("")
      : "No alignment studies yet.\n",
  );
  return 0;
}

async function alignCreate({ args, ctx, out }: AlignCall): Promise<number> {
  const name = flagString(args, "name");
  const config = flagString(args, "config");
  const campaign = flagString(args, "campaign");
  const kText = flagString(args, "k");
  if (!name || !config || !campaign || !kText) throw new UsageError("create needs --name, --config, --campaign and --k");
  const share = flagString(args, "held-out");
  if (share !== undefined && !(Number(share) > 0 && Number(share) < 1))
    throw new UsageError("--held-out is the share of items held out, between 0 and 1 (e.g. 0.5)");
  const k = parsedK(parseK, kText);
  const { alignment: a } = await createAlignment(ctx.db, {
    name,
    config: configRefOf(config),
    campaign,
    k,
    heldOutShare: share === undefined ? undefined : Number(share),
    seed: intFlag(args, "seed", 0, 4_294_967_295),
  });
  out(
    a,
    [
      `Alignment study ${a.name} (#${a.id}): ${a.calibrationIds.length} calibration item(s), ${a.heldOutIds.length} held out (share ${a.heldOutShare}, seed ${a.seed}), stratified by human label and site:`,
      ...a.strata.map(
        (s) => `  ${s.human.padEnd(7)} ${(s.site ?? "(no site)").padEnd(20)} ${s.items} item(s): ${s.calibration} calibration, ${s.heldOut} held out`,
      ),
      ...(a.leftOut.length
        ? [`  left out: ${a.leftOut.length} item(s) without a success or failure label (${[...new Set(a.leftOut.map((l) => l.reason))].join(", ")})`]
        : []),
      `Next: npm run cli -- judge-align run ${a.id} --dry-run`,
    ].join("\n") + "\n",
  );
  return 0;
}

async function alignSplit({ ctx, study, out }: AlignCall): Promise<number> {
  const a = await requireAlignment(ctx.db, study);
  const rows = [
    ...a.calibrationIds.map((id) => ({ trajectoryId: id, part: "calibration" })),
    ...a.heldOutIds.map((id) => ({ trajectoryId: id, part: "held-out" })),
  ];
  out(
    { study: a.name, seed: a.seed, heldOutShare: a.heldOutShare, strata: a.strata, items: rows, leftOut: a.leftOut },
    ["trajectory_id,part", ...rows.map((r) => `${r.trajectoryId},${r.part}`)].join("\n") + "\n",
  );
  return 0;
}

async function alignRun({ args, io, ctx, json, study, out }: AlignCall): Promise<number> {
  const version = intFlag(args, "version", 1, 1_000_000) ?? 1;
  const concurrency = intFlag(args, "concurrency", 1, 64) ?? 4;
  if (flagBool(args, "dry-run")) {
    const e = await estimateAlignmentRun(ctx.db, study, version, concurrency);
    out(
      { dryRun: true, version, estimate: e },
      `Version ${version} on ${e.trajectories} item(s): ${e.calls} call(s) (${e.existing} verdict(s) already stored), ${e.images} image(s), about ${e.inputTokens} input + ${e.outputTokens} output tokens; estimated cost ${money(e.costUsd)}\n`,
    );
    return 0;
  }
  const { batch, estimate } = await startAlignmentRun(ctx.db, study, version, concurrency);
  if (!json)
    io.stderr(
      `Batch ${batch.id}: version ${version} on ${estimate.trajectories} item(s), ${estimate.calls} call(s) (${estimate.existing} already stored), estimated cost ${money(estimate.costUsd)}\n`,
    );
  return runWithProgress(io, batch.id, json);
}

async function alignDisagreements({ ctx, study, out }: AlignCall): Promise<number> {
  const d = await calibrationDisagreements(ctx.db, study);
  out(
    d,
    [
      `${d.disagreements.length} disagreement(s) among ${d.judged} judged calibration item(s)${d.missing ? `; ${d.missing} not judged yet (judge-align run ${study})` : ""}:`,
      ...d.disagreements.map(
        (x) =>
          `  trajectory ${x.trajectoryId} (task ${x.taskExternalId}): judge ${x.judge}, people ${x.human}${x.notes.length ? ` — ${x.notes.join(" / ")}` : ""}\n    ${x.intent}`,
      ),
    ].join("\n") + "\n",
  );
  return 0;
}

async function alignVersion({ args, io, ctx, study, out }: AlignCall): Promise<number> {
  const examplesText = flagString(args, "examples");
  if (examplesText !== undefined && !/^\d+(,\d+)*$/.test(examplesText)) throw new UsageError("--examples takes trajectory ids separated by commas");
  const rubricFile = flagString(args, "rubric-file");
  if (rubricFile && flagBool(args, "keep-criteria")) throw new UsageError("--rubric-file and --keep-criteria exclude each other");
  const file = rubricFile ? path.resolve(io.cwd ?? process.cwd(), rubricFile) : undefined;
  if (file && !fs.existsSync(file)) throw new UsageError(`--rubric-file: ${file} does not exist`);
  const v = await createPromptVersion(ctx.db, study, {
    examples: examplesText?.split(",").map(Number),
    rubric: file ? fs.readFileSync(file, "utf8") : flagBool(args, "keep-criteria") ? null : undefined,
    rubricSource: "researcher",
    note: flagString(args, "note") ?? null,
    parentNumber: intFlag(args, "parent", 1, 1_000_000),
  });
  out(
    v,
    `Version ${v.number} (#${v.id}): ${v.rubric !== null ? "its own criteria" : "the protocol's criteria"}, ${v.examples.length} example(s). Next: npm run cli -- judge-align run ${study} --version ${v.number}\n`,
  );
  return 0;
}

async function alignSuggest({ args, io, ctx, study, out }: AlignCall): Promise<number> {
  const save = flagString(args, "save");
  if (save && flagBool(args, "accept"))
    throw new UsageError("--save and --accept exclude each other: save to edit the criteria first, or accept them as they are");
  const s = await suggestRubric({ db: ctx.db, env: io.env }, study);
  const { cases, ...suggestion } = s;
  if (save) fs.writeFileSync(path.resolve(io.cwd ?? process.cwd(), save), suggestion.rubric + "\n");
  const version = flagBool(args, "accept")
    ? await createPromptVersion(ctx.db, study, {
        rubric: suggestion.rubric,
        rubricSource: "judge-model",
        suggestion,
        note: `criteria proposed by the judge model from ${cases} disagreement(s)`,
      })
    : null;
  out(
    { ...s, version },
    [
      `The judge model (${suggestion.model ?? "unknown model"}) proposes, from ${cases} calibration disagreement(s)` +
        (suggestion.inputTokens != null ? ` (${suggestion.inputTokens} + ${suggestion.outputTokens ?? "?"} tokens, cost ${money(suggestion.costUsd)})` : "") +
        ":",
      ...(suggestion.warning ? [`  warning: ${suggestion.warning}`] : []),
      suggestion.rubric,
      version
        ? `Saved as version ${version.number}. Next: npm run cli -- judge-align run ${study} --version ${version.number}`
        : save
          ? `Written to ${save}: edit it, then npm run cli -- judge-align version ${study} --rubric-file ${save}`
          : "Nothing saved: --accept makes it a version, --save FILE writes it out for editing.",
    ].join("\n") + "\n",
  );
  return 0;
}

async function alignVersions({ args, ctx, study, out }: AlignCall): Promise<number> {
  const view = await alignmentVersions(ctx.db, study, { policy: flagBool(args, "exclude-unparseable") ? "exclude" : "failure" });
  out(view, versionsText(view, flagBool(args, "diff")));
  return 0;
}

const ALIGN_ACTIONS: Record<string, (call: AlignCall) => Promise<number>> = {
  split: alignSplit,
  run: alignRun,
  disagreements: alignDisagreements,
  version: alignVersion,
  suggest: alignSuggest,
  versions: alignVersions,
};

export const judgeAlignCommand: CliCommand = {
  name: "judge-align",
  summary: "align a judge with people: split a labelled campaign, make prompt versions from disagreements, compare κ per version",
  usage:
    "npm run cli -- judge-align create --name <study> --config <name> --campaign <name|id> --k <k> [--held-out 0.5] [--seed 1] [--json]\n" +
    "       npm run cli -- judge-align split <study> [--json]\n" +
    "       npm run cli -- judge-align run <study> [--version 1] [--concurrency 4] [--dry-run] [--json]   (v1 on every item, later versions on the held-out part)\n" +
    "       npm run cli -- judge-align disagreements <study> [--json]\n" +
    "       npm run cli -- judge-align version <study> [--examples 12,15] [--rubric-file criteria.txt | --keep-criteria] [--parent N] [--note TEXT] [--json]\n" +
    "       npm run cli -- judge-align suggest <study> [--save criteria.txt | --accept] [--json]   (the judge model proposes criteria from the calibration disagreements)\n" +
    "       npm run cli -- judge-align versions <study> [--diff] [--exclude-unparseable] [--json] | list [--json]",
  async run(argv, io) {
    const args = parseArgs(argv, {
      valueFlags: ["name", "config", "campaign", "k", "held-out", "seed", "version", "concurrency", "examples", "rubric-file", "parent", "note", "save"],
      boolFlags: ["json", "dry-run", "diff", "exclude-unparseable", "keep-criteria", "accept"],
    });
    const json = flagBool(args, "json");
    const ctx = getAppContext(io.env);
    const [action, study] = actionAndSubject(args);
    const out = (value: unknown, text: string) => io.stdout(json ? JSON.stringify(value) + "\n" : text);
    const call: AlignCall = { args, io, ctx, json, study: study ?? "", out };
    if (action === "list") return alignList(call);
    if (action === "create") return alignCreate(call);
    if (!study)
      throw new UsageError(action ? `${action} needs a study (name or id)` : "choose an action: create, split, run, disagreements, version, versions, list");
    const handler = action && Object.hasOwn(ALIGN_ACTIONS, action) ? ALIGN_ACTIONS[action] : undefined;
    if (!handler) throw new UsageError(`unknown action ${JSON.stringify(action)}`);
    return handler(call);
  },
};

export const JUDGE_COMMANDS: CliCommand[] = [judgeCommand, judgeBatchCommand, judgeConfigCommand, evaluateRulesCommand, judgeStressCommand, judgeAlignCommand];
