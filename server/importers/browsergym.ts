/**
 * BrowserGym / AgentLab experiment folders:
 *   <study>/<YYYY-MM-DD_HH-MM-SS>_<agent>_on_<task>_<seed>[_<n>]/
 *     summary_info.json, screenshot_step_<k>.png|jpg, screenshot_som_step_<k>.png (only with save_som),
 *     step_<k>.pkl.gz, exp_args.pkl, goal_object.pkl.gz, steps_info.json (only with save_json: the last step)
 *
 * Everything BrowserGym knows about a step's element boxes lives in the pickles, and Verdict never unpickles (a
 * pickle can run arbitrary code). The plain-text `experiment.log` says the rest: the goal (in the prompt the agent
 * logged), each chosen action (`action:` records, parsed with the BrowserGym grammar) with the active tab's URL from
 * the prompt before it, and the exception that ended a failed run. Steps stay unknown only when no log says what
 * happened. The run's reward (`cum_reward`) becomes a rule verdict. Exporting to JSON first (AgentRewardBench's converter) and importing that with the
 * `agentrewardbench` format gives the element boxes too.
 *
 * Experiment folders are found at any depth below the input; a folder a user renamed (anything after the seed) is
 * still an experiment, and the log's "Running experiment <name>" line names it when the folder name does not.
 * Summaries and reports kept beside the experiments (CSV, Markdown) are not experiments and are passed over.
 *
 * Task names join Verdict's task sets: `visualwebarena.<g>` is the VisualWebArena task with global id g (the set is
 * chosen from g's site range), `webarena.<n>` the WebArena task n, anything else `BrowserGym <benchmark>` (one task
 * per seed where the benchmark draws its goal from the seed, see experimentTaskId).
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { actionCalls, browserGymAnswer, parseBrowserGymAction } from "../domain/actions/browsergym";
import type { Outcome, ParsedAction } from "../domain/types";
import { fileImage, isDir, readJsonFile } from "./fs-helpers";
import { ImportError, type ImportItem, type ImportStep, type ImportTask, type ImportVerdict, type Importer } from "./types";
import { VWA_SITE_OFFSETS, vwaTaskSetName, WEBARENA_TASK_SET } from "./vwa-tasks";

const EXP_DIR = /^(\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2})_(.+?)_on_(.+?)_(\d+)(?:_([0-9A-Za-z]+))?$/;
/** A folder renamed after the fact: anything after the seed, set off by a separator (`_14 (good)`, `_3-rerun`). */
const RENAMED_EXP_DIR = /^(\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2})_(.+?)_on_(.+?)_(\d+)(?:[_\-. (].*)?$/;
/** The experiment name BrowserGym logs first: `<agent>_on_<task>_<seed>`. */
const LOGGED_EXP_NAME = /^(.+?)_on_(.+)_(\d+)$/;
const SHOT = /^screenshot_(som_)?step_(\d+)\.(png|jpe?g)$/i;
const STEP_PICKLE = /^step_(\d+)\.pkl\.gz$/;

export const PICKLED_ACTION_ERROR = "BrowserGym keeps actions in step_<k>.pkl.gz pickles, which Verdict never opens";

/** Without the goal pickle the task text is unknown; this stands in until the task file is imported. */
export function placeholderIntent(taskName: string): string {
  return `Goal of BrowserGym task ${taskName} (not recorded outside BrowserGym's pickles; import the task file for the text)`;
}

/** Drops AgentRewardBench's variant markers so `visualwebarena.resized.398` joins `visualwebarena.398`. */
export function normaliseTaskName(name: string): string {
  return name.replace(/\.(resized|improved)(?=\.)/g, "");
}

/** The Verdict task a BrowserGym task name refers to. */
export function browserGymTask(taskName: string, intent: string | null, extra: Record<string, unknown> | null = null): ImportTask {
  const name = normaliseTaskName(taskName);
  const base = {
    intent: intent?.trim() || placeholderIntent(name),
    startUrl: null,
    inputImages: [],
    referenceAnswers: [],
    evaluatorConfig: null,
    difficulty: null,
    tags: [],
    extra: name !== taskName ? { ...extra, sourceTaskName: taskName } : extra,
  };
  const vwa = /^visualwebarena\.(\d+)$/.exec(name);
  if (vwa) {
    const g = Number(vwa[1]);
    const site = Object.entries(VWA_SITE_OFFSETS)
      .sort((a, b) => b[1] - a[1])
      .find(([, offset]) => g >= offset)![0];
    return { ...base, taskSet: { name: vwaTaskSetName(site), benchmark: "visualwebarena" }, externalId: name, site };
  }
  if (/^webarena\.\d+$/.test(name)) return { ...base, taskSet: WEBARENA_TASK_SET, externalId: name, site: null };
  const benchmark = name.split(".")[0] || "browsergym";
  return { ...base, taskSet: { name: `BrowserGym ${benchmark}`, benchmark }, externalId: name, site: null };
}

export interface SummaryInfo {
  n_steps?: unknown;
  cum_reward?: unknown;
  cum_raw_reward?: unknown;
  err_msg?: unknown;
  terminated?: unknown;
  truncated?: unknown;
  [key: string]: unknown;
}

/** Checks the fields Verdict relies on; names the file and field on failure. */
export function checkSummary(summary: unknown, file: string): SummaryInfo {
  if (!summary || typeof summary !== "object" || Array.isArray(summary)) throw new ImportError(file, "summary_info is not a JSON object");
  const s = summary as SummaryInfo;
  if (s.n_steps !== undefined && (typeof s.n_steps !== "number" || !Number.isInteger(s.n_steps) || s.n_steps < 0)) {
    throw new ImportError(file, `"n_steps" is not a non-negative integer`);
  }
  if (s.cum_reward !== undefined && s.cum_reward !== null && (typeof s.cum_reward !== "number" || !Number.isFinite(s.cum_reward))) {
    throw new ImportError(file, `"cum_reward" is not a number`);
  }
  return s;
}

/** The benchmark's own reward as a rule verdict: success above 0.5 (rewards are 0/1; AgentRewardBench's rule). */
export function cumRewardVerdict(s: SummaryInfo | null): ImportVerdict | null {
  if (!s || typeof s.cum_reward !== "number") return null;
  return {
    evaluator: "browsergym:cum_reward",
    evaluatorKind: "rule",
    verdict: s.cum_reward > 0.5 ? "success" : "failure",
    score: s.cum_reward,
    rationale: null,
    raw: {
      cum_reward: s.cum_reward,
      cum_raw_reward: s.cum_raw_reward ?? null,
      terminated: s.terminated ?? null,
      truncated: s.truncated ?? null,
      err_msg: s.err_msg ?? null,
    },
  };
}

export function outcomeFromSummary(s: SummaryInfo | null): { outcome: Outcome; detail: string | null } {
  if (!s) return { outcome: "unknown", detail: "no summary_info.json (the experiment did not finish)" };
  if (typeof s.err_msg === "string" && s.err_msg.trim()) return { outcome: "error", detail: s.err_msg.trim() };
  if (s.truncated === true) return { outcome: "step_limit", detail: "truncated: the step limit was reached" };
  if (s.terminated === true) return { outcome: "answered", detail: null };
  return { outcome: "unknown", detail: "neither terminated nor truncated" };
}

/** `GenericAgent-gpt-4o-2024-11-20` → `gpt-4o-2024-11-20`: AgentLab names agents after their model. */
export function modelFromAgentName(agent: string): string | null {
  const m = /^[A-Za-z]*Agent-(.+)$/.exec(agent);
  return m ? m[1]!.replace(/^(openai|anthropic|meta-llama|Qwen)_/, "$1/") : null;
}

export interface ExpDirName {
  date: string;
  agent: string;
  task: string;
  seed: number;
}

export function parseExpDirName(name: string, allowRenamed = true): ExpDirName | null {
  const m = EXP_DIR.exec(name) ?? (allowRenamed ? RENAMED_EXP_DIR.exec(name) : null);
  return m ? { date: m[1]!, agent: m[2]!, task: m[3]!, seed: Number(m[4]) } : null;
}

const EXP_MARKERS = ["summary_info.json", "exp_args.pkl", "experiment.log", "screenshot_step_0.png", "screenshot_step_0.jpg", "step_0.pkl.gz"];

function isExpDir(dir: string): boolean {
  const base = path.basename(dir);
  if (base.startsWith("_") || base.startsWith(".")) return false;
  return EXP_MARKERS.some((f) => fs.existsSync(path.join(dir, f)));
}

// ---------------------------------------------------------------------------------------------------------------
// experiment.log

export interface ExperimentLog {
  /** `<agent>_on_<task>_<seed>` from the "Running experiment" line. */
  expName: string | null;
  goal: string | null;
  /** The text of each `action:` record, in order: step k's action is the k-th. */
  actions: string[];
  /** The active tab's URL in the prompt the agent saw before each action (null where the prompt did not say). */
  urls: (string | null)[];
  /** "Exception uncaught by agent or environment…" with its traceback, and how many actions came before it. */
  crash: { message: string; afterActions: number } | null;
}

const LOG_RECORD = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3} - \d+ - [^ ]+ - (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) - /;
const MAX_CRASH_CHARS = 4000;

/** The goal section of a prompt the agent logged: `# Goal` (or `## Goal:`) up to the next heading. */
function goalInPrompt(message: string): string | null {
  const lines = message.split("\n");
  const at = lines.findIndex((l) => /^#{1,3} ?Goal:?\s*$/.test(l.trim()));
  if (at < 0) return null;
  const body: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (/^#{1,3} \S/.test(line)) break;
    body.push(line);
  }
  const goal = body.join("\n").trim();
  return goal || null;
}

/** The active tab's URL in a logged prompt ("Tab 0 (active tab)\n  Title: …\n  URL: https://…"). */
function activeTabUrl(message: string): string | null {
  const at = message.indexOf("(active tab)");
  if (at < 0) return null;
  return /^\s*URL: (\S+)/m.exec(message.slice(at, at + 2000))?.[1] ?? null;
}

/**
 * Reads BrowserGym's plain-text experiment log (`%(asctime)s - %(process)d - %(name)s - %(levelname)s - %(message)s`,
 * messages running on over the following lines). Never throws: a log it cannot follow gives nothing.
 */
export function parseExperimentLog(text: string): ExperimentLog {
  const records: string[] = [];
  for (const line of text.split("\n")) {
    const head = LOG_RECORD.exec(line);
    if (head) records.push(line.slice(head[0].length));
    else if (records.length) records[records.length - 1] += `\n${line}`;
  }
  const out: ExperimentLog = { expName: null, goal: null, actions: [], urls: [], crash: null };
  let seenUrl: string | null = null;
  for (const message of records) {
    const running = /^Running experiment (\S+) in:/.exec(message);
    if (running) {
      // A log appended to by a re-run in the same folder: the files beside it are the last run's, so is the record.
      out.expName = running[1]!;
      out.goal = null;
      out.actions = [];
      out.urls = [];
      out.crash = null;
      seenUrl = null;
      continue;
    }
    const action = /^(?:Agent chose )?action:[ \t]*\n?/.exec(message);
    if (action) {
      out.actions.push(message.slice(action[0].length).trimEnd());
      out.urls.push(seenUrl);
      seenUrl = null;
      continue;
    }
    if (/^Exception uncaught by agent or environment/.test(message)) {
      const m = message.trim();
      out.crash = { message: m.length > MAX_CRASH_CHARS ? `${m.slice(0, MAX_CRASH_CHARS)}…` : m, afterActions: out.actions.length };
      continue;
    }
    if (out.goal === null) out.goal = goalInPrompt(message);
    seenUrl = activeTabUrl(message) ?? seenUrl;
  }
  return out;
}

/**
 * The action in a logged `action:` record. Agents that answer in prose (BrowserGym's demo agent) put the calls in
 * ``` fences, and BrowserGym runs the fenced code; otherwise the record is the call itself.
 */
export function splitLoggedAction(text: string): { thought: string | null; code: string } {
  const fences = [...text.matchAll(/```[ \t]*(?:python|py)?[ \t]*\n?([\s\S]*?)```/g)];
  if (!fences.length) return { thought: null, code: text.trim() };
  const thought = text.slice(0, fences[0]!.index).trim();
  return { thought: thought || null, code: fences.map((f) => f[1]!.trim()).join("\n") };
}

async function childDirs(dir: string): Promise<string[]> {
  const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith("_") && !e.name.startsWith("."))
    .map((e) => e.name)
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
    .map((n) => path.join(dir, n));
}

/** How deep experiment folders are looked for below the input (`results/<study>/<group>/<experiment>`). */
const MAX_STUDY_DEPTH = 6;

/**
 * Experiment folders at any depth below the input, grouped by the folder holding them (the study). An experiment
 * folder is never searched further; symbolic links are not followed.
 */
async function findStudies(input: string, limit = Infinity): Promise<{ study: string; exps: string[] }[]> {
  if (!(await isDir(input))) return [];
  if (isExpDir(input)) return [{ study: path.dirname(path.resolve(input)), exps: [input] }];
  const out: { study: string; exps: string[] }[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (out.length >= limit) return;
    const children = await childDirs(dir);
    const exps = children.filter(isExpDir);
    if (exps.length) out.push({ study: dir, exps });
    if (depth >= MAX_STUDY_DEPTH) return;
    for (const child of children) if (!exps.includes(child)) await walk(child, depth + 1);
  };
  await walk(input, 0);
  return out;
}

/** The goal text from steps_info.json (written only with save_json), if it is there and not huge. */
async function goalFromStepsInfo(dir: string): Promise<string | null> {
  const file = path.join(dir, "steps_info.json");
  const stat = await fsp.stat(file).catch(() => null);
  if (!stat || stat.size > 64 * 1024 * 1024) return null;
  try {
    const info = JSON.parse(await fsp.readFile(file, "utf8")) as { obs?: { goal?: unknown; goal_object?: unknown } };
    if (typeof info.obs?.goal === "string" && info.obs.goal.trim()) return info.obs.goal;
    if (Array.isArray(info.obs?.goal_object)) {
      const text = info.obs.goal_object
        .map((p) => (p && typeof p === "object" && (p as { type?: unknown }).type === "text" ? String((p as { text?: unknown }).text ?? "") : ""))
        .filter(Boolean)
        .join("\n");
      return text || null;
    }
  } catch {
    // steps_info.json is a convenience copy; a broken one is ignored, not fatal.
  }
  return null;
}

const MAX_LOG_BYTES = 256 * 1024 * 1024;

/** experiment.log, read when present and of a sane size; null otherwise (the log is a help, never required). */
async function readExperimentLog(dir: string): Promise<ExperimentLog | null> {
  const file = path.join(dir, "experiment.log");
  const stat = await fsp.lstat(file).catch(() => null);
  if (!stat || !stat.isFile() || stat.size > MAX_LOG_BYTES) return null;
  const text = await fsp.readFile(file, "utf8").catch(() => null);
  return text === null ? null : parseExperimentLog(text);
}

/**
 * Agent, task and seed: from BrowserGym's folder name; for a renamed folder, from the name the log gives the
 * experiment (exact), else from the folder name up to the seed.
 */
function experimentIdentity(dir: string, log: ExperimentLog | null): ExpDirName & { warning?: string } {
  const asWritten = parseExpDirName(path.basename(dir), false);
  if (asWritten) return asWritten;
  const logged = log?.expName ? LOGGED_EXP_NAME.exec(log.expName) : null;
  const renamed = parseExpDirName(path.basename(dir));
  if (logged) {
    const fromLog = { date: renamed?.date ?? "", agent: logged[1]!, task: logged[2]!, seed: Number(logged[3]) };
    if (renamed) return fromLog;
    const warning = `${dir}: folder name is not BrowserGym's; the experiment is named from experiment.log ("${log!.expName}")`;
    return { ...fromLog, warning };
  }
  if (renamed) return renamed;
  throw new ImportError(
    dir,
    "folder name does not follow BrowserGym's <YYYY-MM-DD_HH-MM-SS>_<agent>_on_<task>_<seed> pattern and experiment.log does not name the experiment",
  );
}

function loggedStep(text: string): { action: ParsedAction; actionRaw: string; thought: string | null } {
  const { thought, code } = splitLoggedAction(text);
  return { action: parseBrowserGymAction(code), actionRaw: code, thought };
}

async function readExperiment(dir: string, studyReal: string, attempt: number): Promise<ImportItem | null> {
  const log = await readExperimentLog(dir);
  const name = experimentIdentity(dir, log);
  const summaryFile = path.join(dir, "summary_info.json");
  const summary = fs.existsSync(summaryFile) ? checkSummary(await readJsonFile(summaryFile), summaryFile) : null;

  const raw = new Map<number, string>();
  const som = new Map<number, string>();
  let maxStep = typeof summary?.n_steps === "number" ? summary.n_steps : -1;
  const files = await fsp.readdir(dir).catch((e: Error) => {
    throw new ImportError(dir, `cannot be listed (${e.message})`);
  });
  for (const f of files) {
    const shot = SHOT.exec(f);
    if (shot) {
      const k = Number(shot[2]);
      const target = shot[1] ? som : raw;
      // A PNG wins over a JPEG of the same step (BrowserGym's own loader tries .png first).
      if (!target.has(k) || /\.png$/i.test(f)) target.set(k, f);
      maxStep = Math.max(maxStep, k);
      continue;
    }
    const pickle = STEP_PICKLE.exec(f);
    if (pickle) maxStep = Math.max(maxStep, Number(pickle[1]));
  }
  // A log that recorded no action and no crash (other agents log at other levels) says nothing about the steps.
  const actionLog = log && (log.actions.length > 0 || log.crash) ? log : null;
  // Each logged action was chosen at an observation, so that step existed.
  if (actionLog) maxStep = Math.max(maxStep, actionLog.actions.length - 1);
  // An experiment that was prepared but never ran has nothing to review.
  if (maxStep < 0) return null;

  const steps: ImportStep[] = [];
  for (let k = 0; k <= maxStep; k++) {
    const plain = raw.get(k);
    const marked = som.get(k);
    const logged = actionLog && k < actionLog.actions.length ? loggedStep(actionLog.actions[k]!) : null;
    let action: ParsedAction;
    if (logged) action = logged.action;
    // The log ran to the end and chose nothing here: the episode ended at this observation.
    else if (actionLog && k === maxStep) action = { type: "noop" };
    else action = { type: "unparsed", value: null, parseError: actionLog ? "experiment.log records no action for this step" : PICKLED_ACTION_ERROR };
    steps.push({
      index: k,
      screenshot: marked ? fileImage(path.join(dir, marked)) : plain ? fileImage(path.join(dir, plain)) : null,
      rawScreenshot: marked && plain ? fileImage(path.join(dir, plain)) : null,
      marksBurnedIn: !!marked,
      url: actionLog?.urls[k] ?? null,
      thought: logged?.thought ?? null,
      actionRaw: logged?.actionRaw ?? null,
      action,
      elements: null,
      error: null,
    });
  }
  if (actionLog?.crash) steps[Math.min(actionLog.crash.afterActions, steps.length - 1)]!.error = actionLog.crash.message;

  let { outcome, detail } = outcomeFromSummary(summary);
  let finalAnswer: string | null = null;
  let infeasible: string | null = null;
  for (const s of steps) {
    finalAnswer = browserGymAnswer(s.action) ?? finalAnswer;
    const inf = actionCalls(s.action).find((c) => c.type === "report_infeasible");
    if (inf) infeasible = inf.value ?? "";
  }
  if (outcome !== "error" && (finalAnswer !== null || infeasible !== null)) {
    outcome = "answered";
    detail = finalAnswer === null ? "reported the task infeasible" : null;
    finalAnswer ??= infeasible;
  } else if (outcome === "unknown" && actionLog?.crash) {
    outcome = "error";
    detail = actionLog.crash.message;
  }
  const verdict = cumRewardVerdict(summary);
  const goal = (await goalFromStepsInfo(dir)) ?? log?.goal ?? null;
  return {
    kind: "trajectory",
    trajectory: {
      task: browserGymTask(experimentTaskId(name.task, name.seed), goal, { taskName: name.task, seed: name.seed }),
      run: {
        runKey: `browsergym:${studyReal}#${name.agent}`,
        name: `${path.basename(studyReal)} · ${name.agent}`,
        agentName: name.agent,
        model: modelFromAgentName(name.agent),
        sourceSystem: "browsergym",
        config: null,
      },
      attempt,
      finalAnswer,
      outcome,
      outcomeDetail: detail,
      sourcePath: dir,
      steps,
      verdicts: verdict ? [verdict] : [],
      ...(name.warning ? { warnings: [name.warning] } : {}),
    },
  };
}

/**
 * The Verdict task id of one experiment. WebArena, VisualWebArena and AssistantBench tasks have one goal whatever the
 * seed; MiniWoB, WorkArena and the other generated benchmarks draw the goal from the seed ("order 2 iPad pro in
 * Space Grey" vs "order 4 in Silver"), so each seed is its own task: `<task>#seed<n>`.
 */
export function experimentTaskId(task: string, seed: number): string {
  const name = normaliseTaskName(task);
  return /^(webarena|visualwebarena)\.\d+$/.test(name) || name.startsWith("assistantbench.") ? name : `${name}#seed${seed}`;
}

/** Seeds (and re-runs) of one agent on one task are attempts 0, 1, … in folder order over the whole study. */
function attemptNumbers(exps: string[]): Map<string, number> {
  const seen = new Map<string, number>();
  const out = new Map<string, number>();
  for (const dir of exps) {
    const n = parseExpDirName(path.basename(dir));
    if (!n) continue;
    const key = `${n.agent}\u0000${experimentTaskId(n.task, n.seed)}`;
    const i = seen.get(key) ?? 0;
    seen.set(key, i + 1);
    out.set(path.resolve(dir), i);
  }
  return out;
}

export const browserGymImporter: Importer = {
  format: "browsergym",
  description: "BrowserGym / AgentLab experiment folders at any depth (summary_info.json, screenshot_step_<k>.png, experiment.log; pickles are never opened)",
  async sniff(input) {
    const studies = await findStudies(input, 1);
    return studies.length ? 0.85 : 0;
  },
  async *read(input, options) {
    const studies = await findStudies(input);
    if (!studies.length) throw new ImportError(input, "no BrowserGym experiment folders found (folders with summary_info.json, experiment.log or screenshot_step_0.png)");
    options.onTotal?.(studies.reduce((n, s) => n + s.exps.length, 0));
    let yielded = 0;
    for (const { study, exps } of studies) {
      const studyReal = fs.realpathSync(study);
      // Counted over the whole study so one experiment imported alone keeps its attempt number.
      const attempts = attemptNumbers(exps.length === 1 ? (await childDirs(study)).filter(isExpDir) : exps);
      for (const dir of exps) {
        let item: ImportItem | null;
        try {
          item = await readExperiment(dir, studyReal, attempts.get(path.resolve(dir)) ?? 0);
        } catch (e) {
          if (!(e instanceof ImportError)) throw e;
          item = { kind: "skipped", path: dir, reason: e.message };
        }
        if (item) {
          yielded++;
          yield item;
        }
      }
    }
    if (!yielded) throw new ImportError(input, "the experiment folders hold no steps yet (no screenshots, no step pickles, no summary)");
  },
};
