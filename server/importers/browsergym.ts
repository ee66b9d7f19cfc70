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
import { AGENTLAB_STEPS_FILE, agentLabStepsSchema, type AgentLabStep, type AgentLabSteps } from "../domain/imports/agentlab-steps";
import type { Outcome, ParsedAction, SomElement } from "../domain/types";
import { fileImage, isDir, readJsonFile, withinBoundary } from "./fs-helpers";
import { folderName, runNameFromPath } from "./find-folders";
import { ImportError, type ImportItem, type ImportStep, type ImportTask, type ImportVerdict, type Importer } from "./types";
import { importTask } from "./import-task";
import { VWA_SITE_OFFSETS, vwaTaskSetName, WEBARENA_TASK_SET } from "./vwa-tasks";

/** `<YYYY-MM-DD_HH-MM-SS>_<rest>`: AgentLab's folder name starts with the experiment's date. */
const DATED = /^(\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2})_(.+)$/;
/** The experiment name BrowserGym logs first: `<agent>_on_<task>_<seed>` (the task may end in digits of its own). */
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
  const task = (taskSet: ImportTask["taskSet"], site: string | null) =>
    importTask({
      taskSet,
      externalId: name,
      site,
      intent: intent?.trim() || placeholderIntent(name),
      startUrl: null,
      extra: name !== taskName ? { ...extra, sourceTaskName: taskName } : extra,
    });
  const vwa = /^visualwebarena\.(\d+)$/.exec(name);
  if (vwa) {
    const g = Number(vwa[1]);
    const site = Object.entries(VWA_SITE_OFFSETS)
      .sort((a, b) => b[1] - a[1])
      .find(([, offset]) => g >= offset)![0];
    return task({ name: vwaTaskSetName(site), benchmark: "visualwebarena" }, site);
  }
  if (/^webarena\.\d+$/.test(name)) return task(WEBARENA_TASK_SET, null);
  const benchmark = name.split(".")[0] || "browsergym";
  return task({ name: `BrowserGym ${benchmark}`, benchmark }, null);
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

/** BrowserGym's 2024 runner ended folder names with 6 hex digits of a random id (`…_on_<task>_<seed>_e6d2d5`). */
const HEX_ID = /^(.+)_(\d+)_([0-9a-f]{6})$/;

/**
 * Agent, task and seed from an experiment folder's name, read the way AgentLab writes it (ExpArgs._make_dir):
 * `<date>_<agent>_on_<task>_<seed>`, the name's characters `/ \\ : * ? < > |` turned into `_`, and `_<i>` (i ≥ 1)
 * appended only when a folder of that name already existed; BrowserGym's 2024 runner appended `_<6 hex digits>`
 * instead. The seed is the last number: a task may end in digits of its own (`…DL_01_0` is task `…DL_01`, seed 0).
 * A trailing `_<i>`, or six digits that could be a hex id, is taken for a suffix only when the study's other folders
 * show that naming (`siblings`: the folder without it exists; hex ids with letters beside it). With `allowRenamed`,
 * text a user added after the seed (`_14 (good)`, `_3-rerun`) is passed over.
 */
export function parseExpDirName(name: string, allowRenamed = true, siblings: ReadonlySet<string> = new Set()): ExpDirName | null {
  const dated = DATED.exec(name);
  if (!dated) return null;
  const [, date, rest] = dated as unknown as [string, string, string];
  const on = rest.indexOf("_on_");
  if (on <= 0) return null;
  const agent = rest.slice(0, on);
  const tail = rest.slice(on + "_on_".length);
  const hex = HEX_ID.exec(tail);
  if (hex && (/[a-f]/.test(hex[3]!) || [...siblings].some((n) => /_[0-9a-f]{6}$/.test(n) && /[a-f]/.test(n.slice(-6))))) {
    return { date, agent, task: hex[1]!, seed: Number(hex[2]) };
  }
  const exact = /^(.+)_(\d+)$/.exec(tail);
  if (exact) {
    const tagged = /^(.+)_(\d+)$/.exec(exact[1]!);
    if (tagged && /^[1-9]\d{0,2}$/.test(exact[2]!) && siblings.has(name.slice(0, name.length - exact[2]!.length - 1))) {
      return { date, agent, task: tagged[1]!, seed: Number(tagged[2]) };
    }
    return { date, agent, task: exact[1]!, seed: Number(exact[2]) };
  }
  if (!allowRenamed) return null;
  const renamed = /^(.+)_(\d+)[-_. (]\D.*$/.exec(tail);
  return renamed ? { date, agent, task: renamed[1]!, seed: Number(renamed[2]) } : null;
}

const EXP_MARKERS = [
  "summary_info.json",
  "exp_args.pkl",
  "experiment.log",
  "screenshot_step_0.png",
  "screenshot_step_0.jpg",
  "step_0.pkl.gz",
  AGENTLAB_STEPS_FILE,
];

function hasExpMarkers(dir: string): boolean {
  return EXP_MARKERS.some((f) => fs.existsSync(path.join(dir, f)));
}

/** An experiment folder in a study; AgentLab's set-aside earlier runs (`_<name>`) and hidden folders are not. */
function isExpDir(dir: string): boolean {
  const base = path.basename(dir);
  if (base.startsWith("_") || base.startsWith(".")) return false;
  return hasExpMarkers(dir);
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

interface Study {
  study: string;
  exps: string[];
  /** Folders of the study that look like experiments but are not read, with why (listed in the report). */
  passedOver: { dir: string; reason: string }[];
  /** Names of the study's folders, to read AgentLab's name suffixes against (parseExpDirName). */
  siblings: Set<string>;
}

/** Why a folder beside experiments that is not read as one looks like an experiment, or null when it does not. */
async function passedOverReason(dir: string): Promise<string | null> {
  const base = path.basename(dir);
  if (base.startsWith("_") && parseExpDirName(base.replace(/^_+/, ""))) {
    return 'an earlier run of this experiment, set aside by AgentLab when the experiment was run again (the folder name starts with "_"); import the folder on its own to review it';
  }
  if (!base.startsWith("_") && !base.startsWith(".") && parseExpDirName(base) && !hasExpMarkers(dir)) {
    return `is named like a BrowserGym experiment but holds none of its files (${EXP_MARKERS.slice(0, 3).join(", ")}, screenshots or step pickles)`;
  }
  return null;
}

/**
 * Experiment folders at any depth below the input, grouped by the folder holding them (the study). An experiment
 * folder is never searched further; symbolic links are not followed. The input itself may be one experiment,
 * also one AgentLab set aside.
 */
async function findStudies(input: string, limit = Infinity): Promise<Study[]> {
  if (!(await isDir(input))) return [];
  const allNames = async (dir: string) => (await fsp.readdir(dir, { withFileTypes: true }).catch(() => [])).filter((e) => e.isDirectory()).map((e) => e.name);
  if (hasExpMarkers(input)) {
    const study = path.dirname(path.resolve(input));
    return [{ study, exps: [input], passedOver: [], siblings: new Set(await allNames(study)) }];
  }
  const out: Study[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (out.length >= limit) return;
    const children = await childDirs(dir);
    const exps = children.filter(isExpDir);
    if (exps.length) {
      const names = await allNames(dir);
      const passedOver: Study["passedOver"] = [];
      for (const name of names.sort((a, b) => a.localeCompare(b, "en", { numeric: true }))) {
        const child = path.join(dir, name);
        if (exps.includes(child)) continue;
        const reason = await passedOverReason(child);
        if (reason) passedOver.push({ dir: child, reason });
      }
      out.push({ study: dir, exps, passedOver, siblings: new Set(names) });
    }
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
 * Agent, task and seed, from the most exact record first: the converted pickles (`verdict_steps.json`), the name
 * BrowserGym logged ("Running experiment <agent>_on_<task>_<seed>"), the folder name as AgentLab writes it, and
 * for a renamed folder the folder name up to the seed.
 */
function experimentIdentity(
  dir: string,
  log: ExperimentLog | null,
  converted: AgentLabSteps | null,
  siblings: ReadonlySet<string>,
): ExpDirName & { warning?: string } {
  const asWritten = parseExpDirName(path.basename(dir), false, siblings);
  const renamed = asWritten ?? parseExpDirName(path.basename(dir), true, siblings);
  const date = renamed?.date ?? "";
  if (converted?.task_name && typeof converted.task_seed === "number") {
    const agent = converted.agent_name ?? (converted.exp_name ? LOGGED_EXP_NAME.exec(converted.exp_name)?.[1] : undefined) ?? renamed?.agent;
    if (agent) return { date, agent, task: converted.task_name, seed: converted.task_seed };
  }
  const logged = (converted?.exp_name ? LOGGED_EXP_NAME.exec(converted.exp_name) : null) ?? (log?.expName ? LOGGED_EXP_NAME.exec(log.expName) : null);
  if (logged) {
    const fromLog = { date, agent: logged[1]!, task: logged[2]!, seed: Number(logged[3]) };
    if (renamed) return fromLog;
    const warning = `${dir}: folder name is not BrowserGym's; the experiment is named from ${converted?.exp_name ? AGENTLAB_STEPS_FILE : "experiment.log"} ("${logged[0]}")`;
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

const MAX_STEPS_JSON_BYTES = 512 * 1024 * 1024;

/**
 * `verdict_steps.json`, written beside the experiment by scripts/agentlab_to_json.py from its pickles: null when
 * absent; a file Verdict cannot use is named in a warning and the experiment is read without it.
 */
async function readConvertedSteps(dir: string): Promise<{ steps: AgentLabSteps | null; warning?: string }> {
  const file = path.join(dir, AGENTLAB_STEPS_FILE);
  const stat = await fsp.lstat(file).catch(() => null);
  if (!stat) return { steps: null };
  const fallback = "the experiment is read from its other files";
  if (!stat.isFile()) return { steps: null, warning: `${file}: is not a file; ${fallback}` };
  if (stat.size > MAX_STEPS_JSON_BYTES) return { steps: null, warning: `${file}: is larger than ${MAX_STEPS_JSON_BYTES / 1024 / 1024} MB; ${fallback}` };
  let data: unknown;
  try {
    data = JSON.parse(await fsp.readFile(file, "utf8"));
  } catch (e) {
    return { steps: null, warning: `${file}: is not valid JSON (${(e as Error).message}); ${fallback}` };
  }
  const parsed = agentLabStepsSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { steps: null, warning: `${file}: ${issue.path.join(".") || "the file"}: ${issue.message}; ${fallback}` };
  }
  return { steps: parsed.data };
}

/** A converted step's element boxes: the ones BrowserGym marks on the screenshot, else every one with a box. */
function convertedElements(step: AgentLabStep | undefined): SomElement[] | null {
  const all = (step?.elements ?? []).filter((e) => e.bbox);
  const marked = all.some((e) => e.set_of_marks) ? all.filter((e) => e.set_of_marks) : all;
  return marked.length ? marked.map((e) => ({ label: e.bid, bbox: e.bbox, tag: null, text: null })) : null;
}

async function readExperiment(dir: string, study: { key: string; name: string }, attempt: number, siblings: ReadonlySet<string>): Promise<ImportItem> {
  const log = await readExperimentLog(dir);
  const { steps: converted, warning: convertedWarning } = await readConvertedSteps(dir);
  const name = experimentIdentity(dir, log, converted, siblings);
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
  const byStep = new Map((converted?.steps ?? []).map((s) => [s.step, s]));
  for (const k of byStep.keys()) maxStep = Math.max(maxStep, k);
  // A log that recorded no action and no crash (other agents log at other levels) says nothing about the steps.
  const actionLog = log && (log.actions.length > 0 || log.crash) ? log : null;
  // Each logged action was chosen at an observation, so that step existed.
  if (actionLog) maxStep = Math.max(maxStep, actionLog.actions.length - 1);
  if (maxStep < 0) {
    throw new ImportError(dir, "was set up but never ran: no screenshot, step, summary or logged action to import");
  }

  const steps: ImportStep[] = [];
  for (let k = 0; k <= maxStep; k++) {
    const plain = raw.get(k);
    const marked = som.get(k);
    const fromPickle = byStep.get(k);
    const logged = !fromPickle && actionLog && k < actionLog.actions.length ? loggedStep(actionLog.actions[k]!) : null;
    let action: ParsedAction;
    let actionRaw: string | null = logged?.actionRaw ?? null;
    if (fromPickle?.action) {
      action = parseBrowserGymAction(fromPickle.action);
      actionRaw = fromPickle.action;
    } else if (logged) action = logged.action;
    // The record ran to the end and chose nothing here: the episode ended at this observation.
    else if ((converted || actionLog) && k === maxStep) action = { type: "noop" };
    else {
      const why = converted
        ? `${AGENTLAB_STEPS_FILE} records no action for this step`
        : actionLog
          ? "experiment.log records no action for this step"
          : PICKLED_ACTION_ERROR;
      action = { type: "unparsed", value: null, parseError: why };
    }
    steps.push({
      index: k,
      screenshot: marked ? fileImage(path.join(dir, marked)) : plain ? fileImage(path.join(dir, plain)) : null,
      rawScreenshot: marked && plain ? fileImage(path.join(dir, plain)) : null,
      marksBurnedIn: !!marked,
      url: fromPickle?.url ?? actionLog?.urls[k] ?? null,
      thought: fromPickle?.think?.trim() || logged?.thought || null,
      actionRaw,
      action,
      elements: convertedElements(fromPickle),
      // BrowserGym reports an action's failure in the next observation (last_action_error).
      error: byStep.get(k + 1)?.last_action_error?.trim() || null,
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
  } else if (outcome === "unknown" && converted) {
    // Without a summary (the run was stopped), the converted steps still tell a run that reached its limit.
    const acted = converted.steps.filter((s) => s.action).length;
    if (converted.steps.at(-1)?.truncated) {
      outcome = "step_limit";
      detail = "truncated: the step limit was reached";
    } else if (converted.max_steps && acted >= converted.max_steps) {
      outcome = "step_limit";
      detail = `stopped after ${acted} actions: the experiment's max_steps (${converted.max_steps})`;
    }
  }
  const verdict = cumRewardVerdict(summary);
  const goal = converted?.goal?.trim() || (await goalFromStepsInfo(dir)) || log?.goal || null;
  const warnings = [name.warning, convertedWarning, ...(converted?.errors ?? []).map((e) => `${AGENTLAB_STEPS_FILE}: ${e}`)].filter((w): w is string => !!w);
  return {
    kind: "trajectory",
    trajectory: {
      task: browserGymTask(experimentTaskId(name.task, name.seed), goal, { taskName: name.task, seed: name.seed }),
      run: {
        runKey: `browsergym:${study.key}#${name.agent}`,
        name: `${study.name} · ${name.agent}`,
        agentName: name.agent,
        model: converted?.model_name || modelFromAgentName(name.agent),
        sourceSystem: "browsergym",
        config: null,
      },
      attempt,
      finalAnswer,
      outcome,
      outcomeDetail: detail,
      sourcePath: dir,
      sourceFiles: ["summary_info.json", "experiment.log", AGENTLAB_STEPS_FILE].map((f) => path.join(dir, f)).filter((f) => fs.existsSync(f)),
      steps,
      verdicts: verdict ? [verdict] : [],
      ...(warnings.length ? { warnings } : {}),
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
function attemptNumbers(exps: string[], siblings: ReadonlySet<string>): Map<string, number> {
  const seen = new Map<string, number>();
  const out = new Map<string, number>();
  for (const dir of exps) {
    const n = parseExpDirName(path.basename(dir), true, siblings);
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
  description: `BrowserGym / AgentLab experiment folders at any depth (summary_info.json, screenshot_step_<k>.png, experiment.log, ${AGENTLAB_STEPS_FILE}; pickles are never opened)`,
  async sniff(input) {
    const studies = await findStudies(input, 1);
    return studies.length ? 0.85 : 0;
  },
  async *read(input, options) {
    const studies = await findStudies(input);
    if (!studies.length)
      throw new ImportError(input, "no BrowserGym experiment folders found (folders with summary_info.json, experiment.log or screenshot_step_0.png)");
    options.onTotal?.(studies.reduce((n, s) => n + s.exps.length + s.passedOver.length, 0));
    for (const { study, exps, passedOver, siblings } of studies) {
      // The study as its folder is named (from the imported folder down), never where it sits.
      const studyRun = { key: runNameFromPath(input, study, options.renamed), name: folderName(study, options.renamed) };
      // Counted over the whole study so one experiment imported alone keeps its attempt number (an upload's
      // importer looks no higher than its own unpacked folder).
      const wholeStudy = exps.length === 1 && withinBoundary(study, options.boundary);
      const attempts = attemptNumbers(wholeStudy ? (await childDirs(study)).filter(isExpDir) : exps, siblings);
      for (const dir of exps) {
        try {
          yield await readExperiment(dir, studyRun, attempts.get(path.resolve(dir)) ?? 0, siblings);
        } catch (e) {
          if (!(e instanceof ImportError)) throw e;
          yield { kind: "skipped", path: dir, reason: e.message };
        }
      }
      for (const p of passedOver) yield { kind: "skipped", path: p.dir, reason: p.reason };
    }
  },
};
