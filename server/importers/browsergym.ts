/**
 * BrowserGym / AgentLab experiment folders:
 *   <study>/<YYYY-MM-DD_HH-MM-SS>_<agent>_on_<task>_<seed>[_<n>]/
 *     summary_info.json, screenshot_step_<k>.png|jpg, screenshot_som_step_<k>.png (only with save_som),
 *     step_<k>.pkl.gz, exp_args.pkl, goal_object.pkl.gz, steps_info.json (only with save_json: the last step)
 *
 * Everything BrowserGym knows about a step's action, thought and element boxes lives in the pickles, and Verdict
 * never unpickles (a pickle can run arbitrary code). So steps carry screenshots only, with actions recorded as
 * unknown; the run's reward (`cum_reward`) becomes a rule verdict. Exporting to JSON first (AgentRewardBench's
 * converter) and importing that with the `agentrewardbench` format gives the full trajectory.
 *
 * Task names join Verdict's task sets: `visualwebarena.<g>` is the VisualWebArena task with global id g (the set is
 * chosen from g's site range), `webarena.<n>` the WebArena task n, anything else `BrowserGym <benchmark>`.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type { Outcome } from "../domain/types";
import { fileImage, isDir, readJsonFile } from "./fs-helpers";
import { ImportError, type ImportItem, type ImportStep, type ImportTask, type ImportVerdict, type Importer } from "./types";
import { VWA_SITE_OFFSETS, vwaTaskSetName, WEBARENA_TASK_SET } from "./vwa-tasks";

const EXP_DIR = /^(\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2})_(.+?)_on_(.+?)_(\d+)(?:_([0-9A-Za-z]+))?$/;
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

export function parseExpDirName(name: string): ExpDirName | null {
  const m = EXP_DIR.exec(name);
  return m ? { date: m[1]!, agent: m[2]!, task: m[3]!, seed: Number(m[4]) } : null;
}

function isExpDir(dir: string): boolean {
  const base = path.basename(dir);
  if (base.startsWith("_") || base.startsWith(".")) return false;
  if (fs.existsSync(path.join(dir, "summary_info.json")) || fs.existsSync(path.join(dir, "exp_args.pkl"))) return true;
  return fs.existsSync(path.join(dir, "screenshot_step_0.png")) || fs.existsSync(path.join(dir, "screenshot_step_0.jpg"));
}

async function childDirs(dir: string): Promise<string[]> {
  const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith("_") && !e.name.startsWith("."))
    .map((e) => e.name)
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
    .map((n) => path.join(dir, n));
}

/** Experiment folders, grouped by study: the input itself, its children (a study), or grandchildren (a results root). */
async function findStudies(input: string): Promise<{ study: string; exps: string[] }[]> {
  if (!(await isDir(input))) return [];
  if (isExpDir(input)) return [{ study: path.dirname(path.resolve(input)), exps: [input] }];
  const children = await childDirs(input);
  const direct = children.filter(isExpDir);
  if (direct.length) return [{ study: input, exps: direct }];
  const out: { study: string; exps: string[] }[] = [];
  for (const child of children) {
    const exps = (await childDirs(child)).filter(isExpDir);
    if (exps.length) out.push({ study: child, exps });
  }
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

async function readExperiment(dir: string, studyReal: string, attempt: number): Promise<ImportItem | null> {
  const name = parseExpDirName(path.basename(dir));
  if (!name) {
    throw new ImportError(dir, "folder name does not follow BrowserGym's <YYYY-MM-DD_HH-MM-SS>_<agent>_on_<task>_<seed> pattern");
  }
  const summaryFile = path.join(dir, "summary_info.json");
  const summary = fs.existsSync(summaryFile) ? checkSummary(await readJsonFile(summaryFile), summaryFile) : null;

  const raw = new Map<number, string>();
  const som = new Map<number, string>();
  let maxStep = typeof summary?.n_steps === "number" ? summary.n_steps : -1;
  for (const f of await fsp.readdir(dir)) {
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
  // An experiment that was prepared but never ran has nothing to review.
  if (maxStep < 0) return null;

  const steps: ImportStep[] = [];
  for (let k = 0; k <= maxStep; k++) {
    const plain = raw.get(k);
    const marked = som.get(k);
    steps.push({
      index: k,
      screenshot: marked ? fileImage(path.join(dir, marked)) : plain ? fileImage(path.join(dir, plain)) : null,
      rawScreenshot: marked && plain ? fileImage(path.join(dir, plain)) : null,
      marksBurnedIn: !!marked,
      url: null,
      thought: null,
      actionRaw: null,
      action: { type: "unparsed", value: null, parseError: PICKLED_ACTION_ERROR },
      elements: null,
      error: null,
    });
  }
  const { outcome, detail } = outcomeFromSummary(summary);
  const verdict = cumRewardVerdict(summary);
  const goal = await goalFromStepsInfo(dir);
  return {
    kind: "trajectory",
    trajectory: {
      task: browserGymTask(name.task, goal),
      run: {
        runKey: `browsergym:${studyReal}#${name.agent}`,
        name: `${path.basename(studyReal)} · ${name.agent}`,
        agentName: name.agent,
        model: modelFromAgentName(name.agent),
        sourceSystem: "browsergym",
        config: null,
      },
      attempt,
      finalAnswer: null,
      outcome,
      outcomeDetail: detail,
      sourcePath: dir,
      steps,
      verdicts: verdict ? [verdict] : [],
    },
  };
}

/** Seeds (and re-runs) of one agent on one task are attempts 0, 1, … in folder order over the whole study. */
function attemptNumbers(exps: string[]): Map<string, number> {
  const seen = new Map<string, number>();
  const out = new Map<string, number>();
  for (const dir of exps) {
    const n = parseExpDirName(path.basename(dir));
    if (!n) continue;
    const key = `${n.agent}\u0000${normaliseTaskName(n.task)}`;
    const i = seen.get(key) ?? 0;
    seen.set(key, i + 1);
    out.set(path.resolve(dir), i);
  }
  return out;
}

export const browserGymImporter: Importer = {
  format: "browsergym",
  description: "BrowserGym / AgentLab experiment folders (summary_info.json + screenshot_step_<k>.png; pickles are never opened)",
  async sniff(input) {
    const studies = await findStudies(input);
    return studies.length ? 0.85 : 0;
  },
  async *read(input, options) {
    const studies = await findStudies(input);
    if (!studies.length) throw new ImportError(input, "no BrowserGym experiment folders found (folders with summary_info.json or screenshot_step_0.png)");
    options.onTotal?.(studies.reduce((n, s) => n + s.exps.length, 0));
    let yielded = 0;
    for (const { study, exps } of studies) {
      const studyReal = fs.realpathSync(study);
      // Counted over the whole study so one experiment imported alone keeps its attempt number.
      const attempts = attemptNumbers(exps.length === 1 ? (await childDirs(study)).filter(isExpDir) : exps);
      for (const dir of exps) {
        const item = await readExperiment(dir, studyReal, attempts.get(path.resolve(dir)) ?? 0);
        if (item) {
          yielded++;
          yield item;
        }
      }
    }
    if (!yielded) throw new ImportError(input, "the experiment folders hold no steps yet (no screenshots, no step pickles, no summary)");
  },
};
