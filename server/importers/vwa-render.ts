/**
 * VisualWebArena / WebArena result folders: `render_<task_id>.html` (one per task, written by RenderHelper),
 * optional `config.json` (the run's arguments), and the runner's `log_files/log_*.log` with
 * `[Result] (PASS|FAIL) <config file>` lines, which become the benchmark's own verdicts.
 *
 * The render file is neither escaped nor well-formed (observations, model output and Python reprs are pasted in
 * verbatim; the observation `<div>` is never closed), so it is read with string searches keyed on the class
 * markers RenderHelper writes, never with an HTML parser, and no entity is decoded. Layout of one step:
 *   <h2>New Page</h2> <h3 class='url'>… <div class='state_obv'><pre>OBS</pre><div> <img src='data:image/png;base64,…'>
 *   <div class='prev_action'>…</div> <div class='predict_action'> raw_parsed_prediction / action_object / parsed_action
 * The config `<pre>` before the first step is `key: str(value)` lines (strings bare, containers as Python reprs).
 *
 * Task ids: the config's `task_id` is per site. VisualWebArena tasks join the task configs under
 * `visualwebarena.<global id>` (see vwa-tasks.ts), WebArena tasks under `webarena.<id>`.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { parsePythonLiteral, type PyValue } from "../domain/actions/python-literal";
import { parseVwaAction, splitVwaPrediction, vwaEarlyStop, withModelTypeSubmit } from "../domain/actions/vwa";
import type { Outcome, ParsedAction, SomElement } from "../domain/types";
import { isDir, readTextFile, withinBoundary } from "./fs-helpers";
import { folderName } from "./find-folders";
import { ImportError, type ImageRef, type ImportItem, type ImportOptions, type ImportStep, type ImportTask, type ImportVerdict, type Importer } from "./types";
import {
  customExternalId,
  customTaskSet,
  referenceAnswersFromEval,
  VWA_SITE_OFFSETS,
  vwaExternalId,
  vwaTaskSetName,
  WEBARENA_SITES,
  WEBARENA_TASK_SET,
} from "./vwa-tasks";

const RENDER_FILE = /^render_(\d+)\.html$/;
const NEW_PAGE = "<h2>New Page</h2>";

// ---------------------------------------------------------------------------------------------------------------
// Pure extraction from the render HTML

export interface RenderStep {
  url: string | null;
  observation: string | null;
  /** base64 payload of the observation image, undecoded. */
  imageBase64: string | null;
  imageMime: string | null;
  prevAction: string | null;
  rawPrediction: string | null;
  actionObject: string | null;
  parsedAction: string | null;
}

export interface RenderFile {
  config: Record<string, string>;
  steps: RenderStep[];
}

/** Start offsets of `class='name'` / `class="name"` / `class=name` attributes. */
function classAt(block: string, name: string, from = 0): number {
  const re = new RegExp(`class=(['"]?)${name}\\1[\\s>/]`, "g");
  re.lastIndex = from;
  const m = re.exec(block);
  if (!m) return -1;
  // Back up to the opening "<" of the tag that carries the class.
  const lt = block.lastIndexOf("<", m.index);
  return lt >= 0 ? lt : m.index;
}

const SECTION_ORDER = ["url", "state_obv", "__img__", "prev_action", "predict_action", "raw_parsed_prediction", "action_object", "parsed_action"] as const;
type Section = (typeof SECTION_ORDER)[number];

function sectionStarts(block: string): Map<Section, number> {
  const starts = new Map<Section, number>();
  for (const s of SECTION_ORDER) {
    const at = s === "__img__" ? block.search(/<img\s+src=['"]?data:image\//) : classAt(block, s);
    if (at >= 0) starts.set(s, at);
  }
  return starts;
}

/** Text of one section: after its opening tag (and an optional <pre>) up to the next section, closers trimmed. */
function sectionText(block: string, starts: Map<Section, number>, section: Section): string | null {
  const start = starts.get(section);
  if (start === undefined) return null;
  const tagEnd = block.indexOf(">", start);
  if (tagEnd < 0) return null;
  let end = block.length;
  for (const at of starts.values()) if (at > start && at < end) end = at;
  let text = block.slice(tagEnd + 1, end);
  text = text.replace(/^\s*<pre>/, "");
  return trimTrailingClosers(text);
}

const TRAILING_CLOSER = /<\/?(?:pre|div|body|html)>$/i;
const LONGEST_CLOSER = "</html>".length;

function isSpace(ch: string | undefined): boolean {
  return ch === " " || ch === "\n" || ch === "\t" || ch === "\r" || ch === "\f" || ch === "\v";
}

/**
 * Drops the closers RenderHelper writes after a section (</pre></div>, the buggy <div> after the observation,
 * </div></div>, </body>…) with the whitespace around them. A scan from the end, so a section padded with
 * hundreds of thousands of spaces costs one pass (a regex anchored at `$` retried from every space).
 */
export function trimTrailingClosers(text: string): string {
  let keep = text.length;
  let end = text.length;
  for (;;) {
    while (end > 0 && isSpace(text[end - 1])) end--;
    const closer = TRAILING_CLOSER.exec(text.slice(Math.max(0, end - LONGEST_CLOSER), end));
    if (!closer) break;
    end -= closer[0].length;
    while (end > 0 && isSpace(text[end - 1])) end--;
    keep = end;
  }
  return text.slice(0, keep);
}

function urlOf(block: string, starts: Map<Section, number>): string | null {
  const text = sectionText(block, starts, "url");
  if (text === null) return null;
  const at = text.indexOf("URL:");
  if (at < 0) return null;
  const rest = text.slice(at + "URL:".length);
  const ends = [rest.indexOf("</a>"), rest.indexOf("</h3>")].filter((i) => i >= 0);
  const url = rest.slice(0, ends.length ? Math.min(...ends) : rest.length).trim();
  return url ? url : null;
}

export function parseRenderHtml(html: string): RenderFile {
  const firstStep = html.indexOf(NEW_PAGE);
  const head = firstStep >= 0 ? html.slice(0, firstStep) : html;
  const config: Record<string, string> = {};
  const pre = /<pre>([\s\S]*?)<\/pre>/.exec(head.slice(Math.max(0, head.indexOf("<body>"))));
  if (pre) {
    let key: string | null = null;
    for (const line of pre[1]!.split("\n")) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*): ?([\s\S]*)$/.exec(line);
      if (m) {
        key = m[1]!;
        config[key] = m[2]!;
      } else if (key !== null && line !== "") {
        // A string value with newlines continues on the following lines.
        config[key] += `\n${line}`;
      }
    }
  }
  const steps: RenderStep[] = [];
  if (firstStep >= 0) {
    for (const block of html.slice(firstStep + NEW_PAGE.length).split(NEW_PAGE)) {
      const starts = sectionStarts(block);
      const img = /<img\s+src=['"]?data:(image\/[a-z]+);base64,([A-Za-z0-9+/=\s]*)/.exec(block);
      steps.push({
        url: urlOf(block, starts),
        observation: sectionText(block, starts, "state_obv"),
        imageMime: img ? img[1]! : null,
        imageBase64: img ? img[2]!.replace(/\s+/g, "") : null,
        prevAction: sectionText(block, starts, "prev_action"),
        rawPrediction: sectionText(block, starts, "raw_parsed_prediction"),
        actionObject: sectionText(block, starts, "action_object"),
        parsedAction: sectionText(block, starts, "parsed_action"),
      });
    }
  }
  return { config, steps };
}

/** A config value as RenderHelper wrote it with `str()`: containers and constants are reprs, strings are bare. */
export function configValue(text: string | undefined): PyValue | undefined {
  if (text === undefined) return undefined;
  const t = text.trim();
  if (/^[[{(]/.test(t) || /^(None|True|False|-?\d+(\.\d+)?)$/.test(t)) {
    try {
      return parsePythonLiteral(t);
    } catch {
      return t;
    }
  }
  return t;
}

/** `[id] [TAG] [text]` lines of a Set-of-Marks observation (`[] [StaticText] [...]` lines carry no mark). */
export function parseSomObservation(text: string | null): SomElement[] {
  if (!text) return [];
  const out: SomElement[] = [];
  for (const line of text.split("\n")) {
    const m = /^\[(\d+)\] \[([^\]]*)\] \[([\s\S]*)\]\s*$/.exec(line.trim());
    if (m) out.push({ label: m[1]!, bbox: null, tag: m[2]!.toLowerCase() || null, text: m[3]!.trim() || null });
  }
  return out;
}

/** Fallback when `parsed_action` is missing: the action_object repr's `<ActionTypes.X: n>` and fields. */
export function actionFromRepr(repr: string): ParsedAction | null {
  const kind = /'action_type': <ActionTypes\.(\w+): \d+>/.exec(repr)?.[1];
  if (!kind) return null;
  const field = (name: string) => new RegExp(`'${name}': (?:'((?:[^'\\\\]|\\\\.)*)'|"((?:[^"\\\\]|\\\\.)*)")`).exec(repr);
  const str = (name: string) => {
    const m = field(name);
    return m ? (m[1] ?? m[2] ?? "") : "";
  };
  const id = str("element_id");
  switch (kind) {
    case "CLICK":
      return { type: "click", target: id };
    case "HOVER":
      return { type: "hover", target: id };
    case "CLEAR":
      return { type: "clear", target: id };
    case "TYPE":
      return { type: "type", target: id, value: null, submit: false };
    case "SCROLL":
      return { type: "scroll", direction: str("direction") === "up" ? "up" : "down" };
    case "KEY_PRESS":
      return { type: "press", value: str("key_comb") };
    case "GOTO_URL":
      return { type: "goto", value: str("url") };
    case "NEW_TAB":
      return { type: "new_tab" };
    case "PAGE_CLOSE":
      return { type: "close_tab" };
    case "GO_BACK":
      return { type: "go_back" };
    case "GO_FORWARD":
      return { type: "go_forward" };
    case "PAGE_FOCUS":
      return { type: "tab_focus", value: /'page_number': (\d+)/.exec(repr)?.[1] ?? null };
    case "STOP":
      return { type: "answer", value: str("answer") };
    case "NONE":
      return { type: "noop" };
    default:
      return null;
  }
}

/** Hints VWA writes into the next step's "previous action" when an action could not run or was malformed. */
const FAILED_PREVIOUS = /^(Attempt to perfom|Attempt to perform|The previous prediction you issued was)/;

// ---------------------------------------------------------------------------------------------------------------
// Logs

export interface VwaLogResult {
  configFile: string;
  intent: string | null;
  pass: boolean;
  logFile: string;
  line: number;
}

/** `[Config file]: p`, `[Intent]: t`, `[Result] (PASS|FAIL) p` lines of one runner log, in order. */
export function parseVwaLog(text: string, logFile: string): VwaLogResult[] {
  const out: VwaLogResult[] = [];
  let config: string | null = null;
  let intent: string | null = null;
  text.split("\n").forEach((untrimmed, i) => {
    // Trimmed first so the patterns end in a plain `$` (a lazy group before `\s*$` is quadratic on long lines).
    const line = untrimmed.trimEnd();
    const c = /\[Config file\]: (.+)$/.exec(line);
    if (c) {
      config = c[1]!;
      intent = null;
      return;
    }
    const it = /\[Intent\]: (.*)$/.exec(line);
    if (it) {
      intent = it[1]!;
      return;
    }
    const r = /\[Result\] \((PASS|FAIL)\) (.+)$/.exec(line);
    if (r) {
      out.push({ configFile: r[2]!, intent: config === r[2] ? intent : null, pass: r[1] === "PASS", logFile, line: i + 1 });
    }
  });
  return out;
}

export interface VwaRunnerError {
  configFile: string;
  /** The `[Unhandled Error] …` text: the exception repr, on one line. */
  error: string;
  line: number;
}

const MAX_ERROR_CHARS = 2000;

/**
 * `[Config file]: p` followed by `[Unhandled Error] e` blocks of a result folder's `error.txt` (every run of the
 * folder appends to it; the traceback lines that follow are not kept).
 */
export function parseVwaErrorFile(text: string): VwaRunnerError[] {
  const out: VwaRunnerError[] = [];
  let config: string | null = null;
  text.split("\n").forEach((untrimmed, i) => {
    const line = untrimmed.trimEnd();
    const c = /^\[Config file\]: (.+)$/.exec(line);
    if (c) {
      config = c[1]!;
      return;
    }
    const e = /^\[Unhandled Error\] (.+)$/.exec(line);
    if (e && config !== null) {
      const error = e[1]!.length > MAX_ERROR_CHARS ? `${e[1]!.slice(0, MAX_ERROR_CHARS)}…` : e[1]!;
      out.push({ configFile: config, error, line: i + 1 });
      config = null;
    }
  });
  return out;
}

/**
 * Whether a config path the runner logged (`config_files/12.json`, `config_files/vwa/test_reddit/12.json`, or the
 * temporary copy `/tmp/tmpab12/12.json`) is this task's: same `<task_id>.json`, and no other VWA site's folder.
 */
function namesTaskConfig(configFile: string, taskId: number, vwaSite: string | null): boolean {
  const base = configFile.split(/[\\/]/).pop();
  if (base !== `${taskId}.json`) return false;
  const dirSite = /test_(classifieds|reddit|shopping)[\\/]/.exec(configFile)?.[1];
  return dirSite === undefined || dirSite === vwaSite;
}

async function logFilesFor(resultDir: string, boundary?: string): Promise<string[]> {
  const found = new Set<string>();
  const addDir = async (dir: string) => {
    if (!withinBoundary(dir, boundary)) return;
    const entries = await fsp.readdir(dir).catch(() => [] as string[]);
    for (const name of entries) if (/^log_.*\.log$/.test(name)) found.add(path.join(dir, name));
  };
  await addDir(path.join(resultDir, "log_files"));
  await addDir(path.join(path.dirname(resultDir), "log_files"));
  // log_files.txt lists the logs the run wrote, relative to the runner's working directory. Only such relative
  // `log_*.log` names are followed: a result folder must not make the import read other files of this machine.
  const listed = await fsp.readFile(path.join(resultDir, "log_files.txt"), "utf8").catch(() => "");
  for (const line of listed
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)) {
    if (path.isAbsolute(line) || line.split(/[\\/]/).includes("..") || !/^log_.*\.log$/.test(path.basename(line))) continue;
    const candidates = [resultDir, path.dirname(resultDir), path.dirname(path.dirname(resultDir))].map((d) => path.join(d, line));
    const hit = candidates.find((c) => fs.existsSync(c) && withinBoundary(c, boundary));
    if (hit) found.add(path.resolve(hit));
  }
  // Log names embed their start time, so name order is time order; later results win.
  return [...found].sort();
}

// ---------------------------------------------------------------------------------------------------------------
// Task, run and trajectory assembly

interface RunInfo {
  dir: string;
  key: string;
  /** What the run is called in the dashboard: the folder path below the imported folder when it is nested. */
  name: string;
  config: Record<string, unknown> | null;
  logs: VwaLogResult[];
  /** Log results a trajectory took ("used") or that a later line for the same task replaced, by log file and line. */
  used: Map<string, "used" | "superseded">;
  /** Names of the evaluators the run's logs gave verdicts as. */
  evaluators: Set<string>;
  errors: VwaRunnerError[];
  errorFile: string;
  /** Repairs that concern every trajectory of the run (an unreadable config.json). */
  warnings: string[];
}

const VWA_SITES = Object.keys(VWA_SITE_OFFSETS);

function stringList(v: PyValue | undefined): string[] {
  if (typeof v === "string") return v === "None" ? [] : [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === "string");
  return [];
}

function configBaseDir(run: RunInfo): string | null {
  const base = run.config?.test_config_base_dir;
  return typeof base === "string" ? base : null;
}

/** Which VWA site file a task comes from: the run's config dir, then the login state file, then the first site. */
function vwaSiteOf(sites: string[], storageState: string | null, run: RunInfo): string | null {
  const vwaSites = sites.filter((s) => VWA_SITES.includes(s));
  if (!vwaSites.length) return null;
  const fromDir = /test_(classifieds|reddit|shopping)\b/.exec(configBaseDir(run) ?? "")?.[1];
  if (fromDir && vwaSites.includes(fromDir)) return fromDir;
  const fromState = storageState ? /([a-z]+)_state\.json$/.exec(storageState)?.[1] : undefined;
  if (fromState && vwaSites.includes(fromState)) return fromState;
  return vwaSites[0]!;
}

/** The site naming a custom deployment's task set: the run's `test_<site>` config dir, else its first unknown site. */
function customSiteOf(sites: string[], run: RunInfo): string {
  const fromDir = /test_([A-Za-z0-9_-]+?)(?:\.raw)?(?:[\\/]|$)/.exec(configBaseDir(run) ?? "")?.[1];
  if (fromDir && sites.includes(fromDir)) return fromDir;
  return sites.find((s) => !VWA_SITES.includes(s) && !WEBARENA_SITES.includes(s)) ?? sites[0] ?? "custom";
}

function isVwaConfig(config: Record<string, string>, sites: string[], run: RunInfo): boolean {
  if (sites.includes("classifieds")) return true;
  if (["reasoning_difficulty", "visual_difficulty", "overall_difficulty", "image"].some((k) => k in config)) return true;
  return /(^|[\\/])vwa([\\/]|$)/.test(configBaseDir(run) ?? "");
}

interface RenderTask {
  task: ImportTask;
  taskId: number;
  benchmark: string;
  /** The VisualWebArena site file the task comes from; null for WebArena and custom deployments. */
  vwaSite: string | null;
}

function taskFromConfig(config: Record<string, string>, file: string, run: RunInfo): RenderTask {
  const taskIdText = config.task_id?.trim();
  if (taskIdText === undefined || !/^\d+$/.test(taskIdText)) {
    throw new ImportError(file, 'the task config block (<pre> before the first "New Page") has no integer task_id');
  }
  const taskId = Number(taskIdText);
  const intent = config.intent?.trim();
  if (!intent) throw new ImportError(file, "the task config block has no intent");
  const sites = stringList(configValue(config.sites));
  const storage = configValue(config.storage_state);
  const ev = configValue(config.eval);
  const evalObj = ev && typeof ev === "object" && !Array.isArray(ev) ? (ev as Record<string, PyValue>) : null;
  const vwa = isVwaConfig(config, sites, run);
  const vwaSite = vwa ? vwaSiteOf(sites, typeof storage === "string" ? storage : null, run) : null;
  // A site outside the published deployments is someone's own: its tasks get their own set instead of being refused.
  const custom = vwa ? vwaSite === null : sites.some((s) => !WEBARENA_SITES.includes(s));
  const customSite = custom ? customSiteOf(sites, run) : null;
  const difficulty = {
    overall: config.overall_difficulty?.trim() || null,
    reasoning: config.reasoning_difficulty?.trim() || null,
    visual: config.visual_difficulty?.trim() || null,
  };
  const known = new Set(["task_id", "intent", "sites", "start_url", "image", "eval", "reasoning_difficulty", "visual_difficulty", "overall_difficulty"]);
  const extra: Record<string, unknown> = { task_id: taskId };
  for (const [k, v] of Object.entries(config)) if (!known.has(k)) extra[k] = configValue(v) ?? null;
  const evalTypes = evalObj ? stringList(evalObj.eval_types) : [];
  const task: ImportTask = {
    taskSet: vwaSite ? { name: vwaTaskSetName(vwaSite), benchmark: "visualwebarena" } : customSite ? customTaskSet(customSite) : WEBARENA_TASK_SET,
    externalId: vwaSite ? vwaExternalId(vwaSite, taskId) : customSite ? customExternalId(customSite, taskId) : `webarena.${taskId}`,
    site: vwaSite ?? (sites.join("+") || null),
    intent,
    startUrl: config.start_url?.trim() || null,
    inputImages: stringList(configValue(config.image)),
    referenceAnswers: evalObj ? referenceAnswersFromEval(evalObj as Parameters<typeof referenceAnswersFromEval>[0]) : [],
    evaluatorConfig: evalObj,
    difficulty: difficulty.overall || difficulty.reasoning || difficulty.visual ? difficulty : null,
    tags: [...sites.map((s) => `site:${s}`), ...evalTypes.map((e) => `eval:${e}`)],
    extra,
  };
  return { task, taskId, benchmark: vwa ? "visualwebarena" : "webarena", vwaSite };
}

function base64Image(b64: string, origin: string): ImageRef {
  return { origin, read: async () => Buffer.from(b64, "base64") };
}

/** The runner's own verdict for this task: the last [Result] line whose config file is `<task_id>.json` of this task. */
function verdictFor(run: RunInfo, t: RenderTask): ImportVerdict | null {
  const candidates = run.logs.filter(
    (r) => namesTaskConfig(r.configFile, t.taskId, t.vwaSite) && (r.intent === null || r.intent.trim() === t.task.intent.trim()),
  );
  const hit = candidates[candidates.length - 1];
  if (!hit) return null;
  run.evaluators.add(`${t.benchmark}:result-log`);
  for (const c of candidates) {
    const key = `${c.logFile}\u0000${c.line}`;
    if (run.used.get(key) !== "used") run.used.set(key, c === hit ? "used" : "superseded");
  }
  return {
    evaluator: `${t.benchmark}:result-log`,
    evaluatorKind: "rule",
    verdict: hit.pass ? "success" : "failure",
    // PASS means the evaluators' product score was exactly 1; a FAIL line does not say how far below 1 it was.
    score: hit.pass ? 1 : null,
    rationale: null,
    raw: { line: `[Result] (${hit.pass ? "PASS" : "FAIL"}) ${hit.configFile}`, logFile: hit.logFile, lineNumber: hit.line },
  };
}

/** The last unhandled error error.txt records for this task, in words for the outcome. */
function runnerErrorFor(run: RunInfo, t: RenderTask): string | null {
  const hits = run.errors.filter((e) => namesTaskConfig(e.configFile, t.taskId, t.vwaSite));
  const hit = hits[hits.length - 1];
  return hit ? `${hit.error} (${path.basename(run.errorFile)} line ${hit.line})` : null;
}

async function readRenderTrajectory(file: string, run: RunInfo): Promise<ImportItem> {
  const html = await readTextFile(file);
  const parsed = parseRenderHtml(html);
  if (!Object.keys(parsed.config).length) throw new ImportError(file, "has no task config block (<pre> with task_id) before the first step");
  const rt = taskFromConfig(parsed.config, file, run);
  const fileId = RENDER_FILE.exec(path.basename(file))?.[1];
  if (fileId !== undefined && Number(fileId) !== rt.taskId) {
    throw new ImportError(file, `file name says task ${fileId} but its config block says task_id ${rt.taskId}`);
  }

  const somRun = run.config?.observation_type === "image_som" || run.config?.action_set_tag === "som";
  const steps: ImportStep[] = parsed.steps.map((s, i) => {
    const elements = parseSomObservation(s.observation);
    const split = s.rawPrediction ? splitVwaPrediction(s.rawPrediction) : null;
    const fromRendered =
      s.parsedAction !== null && s.parsedAction.trim() !== "" ? withModelTypeSubmit(parseVwaAction(s.parsedAction), split?.action ?? null) : null;
    const fromRepr = fromRendered === null && s.actionObject ? actionFromRepr(s.actionObject) : null;
    const action: ParsedAction = fromRendered ??
      fromRepr ?? { type: "unparsed", value: null, parseError: "the step has no parsed_action and no readable action_object" };
    return {
      index: i,
      screenshot: s.imageBase64 ? base64Image(s.imageBase64, `${file} (step ${i + 1} screenshot)`) : null,
      rawScreenshot: null,
      // With a Set-of-Marks observation the image RenderHelper saved is the annotated one.
      marksBurnedIn: !!s.imageBase64 && (elements.length > 0 || somRun),
      url: s.url,
      thought: split?.thought ?? null,
      actionRaw: s.parsedAction?.trim() || (split?.action ?? null),
      action,
      elements: elements.length ? elements : null,
      error: null,
    };
  });
  // A failure is reported in the *next* step's "previous action" box.
  parsed.steps.forEach((s, i) => {
    if (i > 0 && s.prevAction && FAILED_PREVIOUS.test(s.prevAction.trim())) steps[i - 1]!.error = s.prevAction.trim();
  });

  const runnerError = runnerErrorFor(run, rt);
  let finalAnswer: string | null = null;
  let outcome: Outcome;
  let outcomeDetail: string | null;
  const last = steps[steps.length - 1];
  if (!last) {
    // The environment crashed before the first observation was rendered: nothing to replay, but the attempt counts.
    outcome = "error";
    outcomeDetail = runnerError
      ? `the run failed before the first step: ${runnerError}`
      : "the render has no step: the run stopped before the first observation (error.txt names no error for this task)";
  } else if (last.action.type === "answer" && vwaEarlyStop(last.action.value ?? "")) {
    // The runner, not the model, wrote this stop: keep it out of the answer.
    const early = vwaEarlyStop(last.action.value ?? "")!;
    outcome = early.outcome;
    outcomeDetail = early.detail;
    last.error = early.detail;
    last.action = { type: "noop", value: null };
  } else if (last.action.type === "answer") {
    finalAnswer = last.action.value ?? "";
    outcome = "answered";
    outcomeDetail = null;
  } else if (runnerError) {
    outcome = "error";
    outcomeDetail = `the run failed: ${runnerError}`;
  } else {
    outcome = "unknown";
    outcomeDetail = "the render has no final stop action (interrupted, or the environment ended the episode)";
  }
  // A task that stopped and then failed (most often while being evaluated) keeps its outcome; the error is told.
  if (last && runnerError && !outcomeDetail?.includes(runnerError)) {
    outcomeDetail = [outcomeDetail, `then the run failed: ${runnerError}`].filter(Boolean).join("; ");
  }

  const verdict = verdictFor(run, rt);
  const model = typeof run.config?.model === "string" ? run.config.model : null;
  const agentType = typeof run.config?.agent_type === "string" ? run.config.agent_type : null;
  return {
    kind: "trajectory",
    trajectory: {
      task: rt.task,
      run: {
        runKey: run.key,
        name: run.name,
        agentName: agentType ? `VisualWebArena ${agentType} agent` : "VisualWebArena agent",
        model,
        sourceSystem: rt.benchmark,
        config: run.config,
      },
      attempt: 0,
      finalAnswer,
      outcome,
      outcomeDetail,
      sourcePath: file,
      sourceFiles: [file],
      steps,
      verdicts: verdict ? [verdict] : [],
      ...(run.warnings.length ? { warnings: [...run.warnings] } : {}),
    },
  };
}

async function renderFilesIn(dir: string): Promise<string[]> {
  const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile() && RENDER_FILE.test(e.name))
    .map((e) => e.name)
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
    .map((n) => path.join(dir, n));
}

/** How deep result folders are looked for below the input (`retrieval/<method>/<model>/<timestamp>/…`). */
const MAX_RESULT_DEPTH = 8;
/** Folders the runner writes beside the renders; never result folders themselves. */
const NOT_RESULT_DIRS = new Set(["log_files", "traces", "node_modules"]);

interface ResultDir {
  dir: string;
  /** Path below the imported folder ("" for the folder itself). */
  rel: string;
  files: string[];
}

/**
 * Result folders under the input at any depth: every folder holding render files is one run (a leaf), wherever it
 * sits (`results/<run>/<timestamp>/`, `baseline/<model>/`). Symbolic links are not followed.
 */
async function findResultDirs(input: string, limit = Infinity): Promise<ResultDir[]> {
  if (!(await isDir(input))) {
    return RENDER_FILE.test(path.basename(input)) && fs.existsSync(input) ? [{ dir: path.dirname(input), rel: "", files: [input] }] : [];
  }
  const out: ResultDir[] = [];
  const walk = async (dir: string, rel: string, depth: number): Promise<void> => {
    if (out.length >= limit) return;
    const files = await renderFilesIn(dir);
    if (files.length) out.push({ dir, rel, files });
    if (depth >= MAX_RESULT_DEPTH) return;
    const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
    const subdirs = entries
      .filter((e) => e.isDirectory() && !e.name.startsWith(".") && !NOT_RESULT_DIRS.has(e.name))
      .map((e) => e.name)
      .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
    for (const name of subdirs) await walk(path.join(dir, name), rel ? `${rel}/${name}` : name, depth + 1);
  };
  await walk(input, "", 0);
  return out;
}

async function runInfo(d: ResultDir, input: string, options: ImportOptions): Promise<RunInfo> {
  const warnings: string[] = [];
  let config: Record<string, unknown> | null = null;
  const configFile = path.join(d.dir, "config.json");
  if (fs.existsSync(configFile)) {
    // The run's arguments only describe the run; a broken file costs those, not the trajectories.
    try {
      const v = JSON.parse(await readTextFile(configFile)) as unknown;
      if (v && typeof v === "object" && !Array.isArray(v)) config = v as Record<string, unknown>;
      else warnings.push(`${configFile}: expected a JSON object of run arguments; the run's settings were not imported`);
    } catch (e) {
      const problem = e instanceof ImportError ? e.problem : `is not valid JSON (${(e as Error).message})`;
      warnings.push(`${configFile}: ${problem}; the run's settings were not imported`);
    }
  }
  const logs: VwaLogResult[] = [];
  for (const f of await logFilesFor(d.dir, options.boundary)) logs.push(...parseVwaLog(await readTextFile(f), f));
  const errorFile = path.join(d.dir, "error.txt");
  const errors = fs.existsSync(errorFile) ? parseVwaErrorFile(await readTextFile(errorFile)) : [];
  // A nested leaf is named by its path from the imported folder, since its own name is often just a timestamp.
  const own = folderName(input, options.renamed);
  const name = d.rel ? `${own}/${d.rel}` : path.resolve(d.dir) === path.resolve(input) ? own : folderName(d.dir, options.renamed);
  return { dir: d.dir, key: `visualwebarena:${name}`, name, config, logs, used: new Map(), evaluators: new Set(), errors, errorFile, warnings };
}

export const vwaRenderImporter: Importer = {
  format: "vwa-render",
  description: "VisualWebArena / WebArena results: render_<task_id>.html at any depth (+ config.json, error.txt, log_files/log_*.log verdicts)",
  async sniff(input) {
    const dirs = await findResultDirs(input, 1);
    if (!dirs.length) return 0;
    return (await isDir(input)) ? 0.9 : 0.95;
  },
  async *read(input, options) {
    const dirs = await findResultDirs(input);
    if (!dirs.length) throw new ImportError(input, "no render_<task_id>.html files found");
    options.onTotal?.(dirs.reduce((n, d) => n + d.files.length, 0));
    // Every [Result] line of every log read, and what became of it, for the report.
    const logResults = new Map<string, { results: Map<number, VwaLogResult>; runs: RunInfo[] }>();
    for (const d of dirs) {
      let run: RunInfo;
      try {
        run = await runInfo(d, input, options);
        for (const r of run.logs) {
          const entry = logResults.get(r.logFile) ?? { results: new Map<number, VwaLogResult>(), runs: [] as RunInfo[] };
          if (!entry.runs.includes(run)) entry.runs.push(run);
          entry.results.set(r.line, r);
          logResults.set(r.logFile, entry);
        }
      } catch (e) {
        // A log or error.txt that cannot be read costs this result folder, not the others.
        if (!(e instanceof ImportError)) throw e;
        for (const f of d.files) yield { kind: "skipped", path: f, reason: e.message };
        continue;
      }
      for (const f of d.files) {
        try {
          yield await readRenderTrajectory(f, run);
        } catch (e) {
          if (!(e instanceof ImportError)) throw e;
          yield { kind: "skipped", path: f, reason: e.message };
        }
      }
    }
    // Each runner log: how many of its [Result] lines gave a trajectory its verdict, and why the others did not.
    for (const [logFile, { results, runs }] of logResults) {
      const unmatched: { block: string; reason: string }[] = [];
      const counts: Record<string, number> = {};
      let matched = 0;
      for (const r of results.values()) {
        const key = `${logFile}\u0000${r.line}`;
        const states = runs.map((run) => run.used.get(key));
        const block = `line ${r.line}: [Result] (${r.pass ? "PASS" : "FAIL"}) ${r.configFile}`;
        if (states.includes("used")) {
          matched++;
          const v = r.pass ? "success" : "failure";
          counts[v] = (counts[v] ?? 0) + 1;
        } else if (states.includes("superseded")) unmatched.push({ block, reason: "a later [Result] line for the same task is kept" });
        else unmatched.push({ block, reason: "no render file of this task (with this intent) in this import" });
      }
      const evaluator = [...new Set(runs.flatMap((run) => [...run.evaluators]))].sort().join(", ") || "visualwebarena:result-log";
      yield { kind: "evaluatorLog", log: { file: logFile, evaluator, run: "", blocks: results.size, matched, unmatched, verdicts: counts } };
    }
  },
};
