/**
 * SeeAct output, from either of its two runners.
 *
 * Research tool (`src/seeact.py`): `<save_file_dir>/<task_id>/result.json` with the action history,
 * `image_inputs/<t>_<batch>_crop.jpg` (full-page clips around each batch of candidates; t is the 1-based time
 * step, several batches per step), `config.toml`, and `<task_id>.log` holding the model's reasoning. History entry i
 * is time step i+1. A step that ends the run (TERMINATE, step limit, repeated no-ops, supervisor exit) is never
 * appended to the history, so images of time step len+1 form a last step whose action is known only for TERMINATE.
 * No boxes are saved. `success_or_not` is "" (to be labelled by hand), "0" written by SeeAct when no valid
 * operation ran, or a label someone added.
 *
 * pip package (`seeact/agent.py`): `<save_file_dir>/<YYYYmmdd_HHMMSS>/all_predictions.json` (one prediction per
 * step with the chosen element and its box), `screenshots/screen_<t>.png` (candidate marks burned in with the
 * default text_choice_som grounding), `result.json` with the task list and history. The chosen element's box is
 * the only box on disk: it becomes one Set-of-Marks element labelled with its option letter.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { parseSeeActHistory, parseSeeActPrediction, seeActPredictionLabel, type SeeActPrediction } from "../domain/actions/seeact";
import type { Outcome, ParsedAction, SomElement } from "../domain/types";
import { fileImage, isDir, readJsonFile, withinBoundary } from "./fs-helpers";
import { findFolders, groupByParent, runKeyFromPath, runNameFromPath, subfolders, unreadableTrajectory } from "./find-folders";
import { ImportError, type ImportItem, type ImportStep, type ImportVerdict, type Importer } from "./types";
import { importTask } from "./import-task";

export const SEEACT_TASK_SET = { name: "SeeAct online tasks", benchmark: "seeact" } as const;
const CROP = /^(\d+)_(\d+)_crop\.jpe?g$/i;
const SCREEN = /^screen_(\d+)\.(png|jpe?g)$/i;
const LOG_PREFIX = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3} - /;

type Kind = "research" | "package";

function kindOf(dir: string): Kind | null {
  if (fs.existsSync(path.join(dir, "all_predictions.json"))) return "package";
  if (fs.existsSync(path.join(dir, "result.json"))) {
    // The research tool's folder also has image_inputs/ or its log; result.json alone is checked when read.
    return "research";
  }
  return null;
}

interface SaveFolder {
  /** SeeAct's `save_file_dir`: the run. */
  saveDir: string;
  dirs: { dir: string; kind: Kind }[];
}

/**
 * SeeAct output under the input at any depth (`<save_file_dir>/<task_id or timestamp>/`), grouped by save folder.
 * The input may be one task folder.
 */
async function findSaveFolders(input: string, limit?: number): Promise<SaveFolder[]> {
  if (!(await isDir(input))) return [];
  const dirs = await findFolders(input, (d) => kindOf(d) !== null, limit ? { limit, maxFolders: 5000 } : {});
  return groupByParent(dirs.map((d) => path.resolve(d))).map((g) => ({ saveDir: g.parent, dirs: g.dirs.map((dir) => ({ dir, kind: kindOf(dir)! })) }));
}

/** Reads the few settings Verdict shows from a config.toml, by line (never the whole file: it may hold keys). */
function readTomlSettings(file: string): Record<string, unknown> | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const wanted = new Set([
    "model",
    "temperature",
    "grounding_strategy",
    "max_op",
    "max_auto_op",
    "max_continuous_no_op",
    "top_k",
    "fixed_choice_batch_size",
    "highlight",
  ]);
  const out: Record<string, unknown> = {};
  for (const line of text.split("\n")) {
    const m = /^\s*([A-Za-z_]+)\s*=\s*(.+?)\s*(?:#.*)?$/.exec(line);
    if (!m || !wanted.has(m[1]!)) continue;
    const raw = m[2]!;
    const str = /^"((?:[^"\\]|\\.)*)"$|^'([^']*)'$/.exec(raw);
    if (str) out[m[1]!] = str[1] ?? str[2];
    else if (/^-?\d+(\.\d+)?$/.test(raw)) out[m[1]!] = Number(raw);
    else if (raw === "true" || raw === "false") out[m[1]!] = raw === "true";
  }
  return Object.keys(out).length ? out : null;
}

async function readObject(file: string): Promise<Record<string, unknown>> {
  const v = await readJsonFile(file);
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new ImportError(file, "expected a JSON object");
  return v as Record<string, unknown>;
}

function requireString(obj: Record<string, unknown>, key: string, file: string): string {
  const v = obj[key];
  if (typeof v !== "string" || !v.trim()) throw new ImportError(file, `"${key}" is missing or not a non-empty string`);
  return v;
}

function historyOf(obj: Record<string, unknown>, file: string): string[] {
  const h = obj.action_history;
  if (h === undefined) return [];
  if (!Array.isArray(h)) throw new ImportError(file, `"action_history" is not a list`);
  return h.map((e, i) => {
    if (typeof e !== "string") throw new ImportError(file, `"action_history"[${i}] is not a string`);
    return e;
  });
}

/** The model's reasoning per time step from the research tool's log (the last batch's generation wins). */
export function seeActLogThoughts(text: string): Map<number, string> {
  const out = new Map<number, string>();
  let step: number | null = null;
  let collecting: string[] | null = null;
  for (const rawLine of text.split("\n")) {
    const line = rawLine.replace(LOG_PREFIX, "").replace(/\r$/, "");
    const ts = /^Time step: (\d+)$/.exec(line.trim());
    if (ts) {
      step = Number(ts[1]);
      collecting = null;
      continue;
    }
    if (line.includes("🤖Action Generation Output🤖")) {
      collecting = [];
      continue;
    }
    if (collecting) {
      if (/^-{10,}$/.test(line.trim())) {
        if (step !== null && collecting.join("\n").trim()) out.set(step, collecting.join("\n").trim());
        collecting = null;
      } else collecting.push(line);
    }
  }
  return out;
}

function outcomeOfExit(exitBy: string | null): { outcome: Outcome; detail: string | null } {
  if (exitBy === null) return { outcome: "unknown", detail: "result.json has no exit_by" };
  const e = exitBy.trim();
  if (/^The model determined a completion/i.test(e)) return { outcome: "answered", detail: null };
  if (/step limit/i.test(e)) return { outcome: "step_limit", detail: e };
  if (/human supervisor manually made it exit/i.test(e)) return { outcome: "cancelled", detail: e };
  return { outcome: "error", detail: e };
}

function seeActVerdict(successOrNot: unknown, steps: ImportStep[]): ImportVerdict | null {
  if (typeof successOrNot !== "string" && typeof successOrNot !== "number") return null;
  const v = String(successOrNot).trim();
  if (v !== "0" && v !== "1") return null;
  const ranSomething = steps.some((s) => s.error === null && !["noop", "unparsed", "answer"].includes(s.action.type));
  // SeeAct itself writes "0" only when no valid operation ran; any other label was added by a person.
  const automatic = v === "0" && !ranSomething;
  return {
    evaluator: "seeact:success_or_not",
    evaluatorKind: automatic ? "rule" : "human",
    verdict: v === "1" ? "success" : "failure",
    score: Number(v),
    rationale: automatic ? "SeeAct marks a task failed when no valid operation was executed" : null,
    raw: { success_or_not: successOrNot },
  };
}

async function listImages(dir: string, re: RegExp): Promise<RegExpExecArray[]> {
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  return names.map((n) => re.exec(n)).filter((m): m is RegExpExecArray => m !== null);
}

interface RunContext {
  key: string;
  name: string;
}

async function readResearchTask(dir: string, run: RunContext): Promise<ImportItem> {
  const file = path.join(dir, "result.json");
  const result = await readObject(file);
  const intent = requireString(result, "confirmed_task", file);
  const taskId = typeof result.task_id === "string" && result.task_id.trim() ? result.task_id.trim() : path.basename(dir);
  const website = typeof result.website === "string" ? result.website : null;
  const history = historyOf(result, file);
  const exitBy = typeof result.exit_by === "string" ? result.exit_by : null;

  // Screenshot per time step: the last batch's crop (the batch where the model found its element).
  const crops = new Map<number, { batch: number; name: string }>();
  for (const m of await listImages(path.join(dir, "image_inputs"), CROP)) {
    const t = Number(m[1]);
    const batch = Number(m[2]);
    const prev = crops.get(t);
    if (!prev || batch > prev.batch) crops.set(t, { batch, name: m[0] });
  }
  const logFile = path.join(dir, `${taskId}.log`);
  const thoughts = fs.existsSync(logFile) ? seeActLogThoughts(await fsp.readFile(logFile, "utf8")) : new Map<number, string>();
  const shot = (t: number) => {
    const c = crops.get(t);
    return c ? fileImage(path.join(dir, "image_inputs", c.name)) : null;
  };

  const steps: ImportStep[] = history.map((entry, i) => {
    const parsed = parseSeeActHistory(entry);
    return {
      index: i,
      screenshot: shot(i + 1),
      rawScreenshot: null,
      marksBurnedIn: false,
      url: null,
      thought: thoughts.get(i + 1) ?? null,
      actionRaw: entry,
      action: parsed.action,
      elements: null,
      error: parsed.failure,
    };
  });
  const ended = outcomeOfExit(exitBy);
  const lastIsTerminate = history.length > 0 && history[history.length - 1]!.trim() === "TERMINATE";
  const finalT = history.length + 1;
  if (!lastIsTerminate && (crops.has(finalT) || ended.outcome === "answered")) {
    const action: ParsedAction =
      ended.outcome === "answered"
        ? { type: "answer", value: null }
        : { type: "unparsed", value: null, parseError: `SeeAct does not record the action of the step that ended the run (${exitBy ?? "no exit_by"})` };
    steps.push({
      index: steps.length,
      screenshot: shot(finalT),
      rawScreenshot: null,
      marksBurnedIn: false,
      url: null,
      thought: thoughts.get(finalT) ?? null,
      actionRaw: ended.outcome === "answered" ? "TERMINATE" : null,
      action,
      elements: null,
      error: null,
    });
  }
  // No steps is a real outcome ("No elements" on the first page, an exception before the first action): the
  // trajectory is kept with its exit reason and SeeAct's verdict.
  const verdict = seeActVerdict(result.success_or_not, steps);
  const settings = readTomlSettings(path.join(dir, "config.toml"));
  const task = importTask({
    taskSet: SEEACT_TASK_SET,
    externalId: taskId,
    site: website && !/^https?:/i.test(website) ? website : website ? hostOf(website) : null,
    intent: intent.trim(),
    startUrl: website && /^https?:/i.test(website) ? website : null,
    extra: website && !/^https?:/i.test(website) ? { website } : null,
  });
  return {
    kind: "trajectory",
    trajectory: {
      task,
      run: {
        runKey: run.key,
        name: run.name,
        agentName: "SeeAct",
        model: typeof settings?.model === "string" ? settings.model : null,
        sourceSystem: "seeact",
        config: settings,
      },
      attempt: 0,
      finalAnswer: null,
      outcome: ended.outcome,
      outcomeDetail: ended.outcome === "answered" ? exitBy : ended.detail,
      sourcePath: dir,
      sourceFiles: [path.join(dir, "result.json")],
      steps,
      verdicts: verdict ? [verdict] : [],
    },
  };
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname || null;
  } catch {
    return null;
  }
}

function numberList(v: unknown, length: number): number[] | null {
  return Array.isArray(v) && v.length === length && v.every((x) => typeof x === "number" && Number.isFinite(x)) ? (v as number[]) : null;
}

/** The chosen element's box as [x, y, w, h]: `box_raw` as is, else `box` [x1, y1, x2, y2] converted. */
export function seeActElementBox(element: Record<string, unknown>): [number, number, number, number] | null {
  const raw = numberList(element.box_raw, 4);
  if (raw) return [raw[0]!, raw[1]!, raw[2]!, raw[3]!];
  const box = numberList(element.box, 4);
  if (box) return [box[0]!, box[1]!, box[2]! - box[0]!, box[3]! - box[1]!];
  return null;
}

/** Folder names are `YYYYmmdd_HHMMSS`; an id from the task text keeps re-runs of one task together. */
function packageTaskId(intent: string, website: string | null): string {
  return `seeact.${crypto
    .createHash("sha256")
    .update(`${website ?? ""}\n${intent}`)
    .digest("hex")
    .slice(0, 12)}`;
}

/** The task id a pip session folder will get, or null when its result.json cannot be read (reported later). */
async function packageTaskKey(dir: string): Promise<string | null> {
  try {
    const result = JSON.parse(await fsp.readFile(path.join(dir, "result.json"), "utf8")) as Record<string, unknown>;
    const tasks = Array.isArray(result.task) ? result.task : [result.task];
    const first = tasks.find((t): t is string => typeof t === "string" && !!t.trim());
    return first ? packageTaskId(first.trim(), typeof result.website === "string" ? result.website : null) : null;
  } catch {
    return null;
  }
}

async function readPackageTask(dir: string, run: RunContext): Promise<ImportItem> {
  const predFile = path.join(dir, "all_predictions.json");
  const predictions = await readJsonFile(predFile);
  if (!Array.isArray(predictions)) throw new ImportError(predFile, "expected a JSON list of predictions");
  const resultFile = path.join(dir, "result.json");
  if (!fs.existsSync(resultFile)) throw new ImportError(resultFile, "is missing; the task text is only recorded there");
  const result = await readObject(resultFile);
  const tasks = Array.isArray(result.task)
    ? result.task.filter((t): t is string => typeof t === "string" && !!t.trim())
    : typeof result.task === "string"
      ? [result.task]
      : [];
  if (!tasks.length) throw new ImportError(resultFile, `"task" is missing or holds no task text`);
  const history = historyOf(result, resultFile);
  const website = typeof result.website === "string" ? result.website : null;
  const settings = readTomlSettings(path.join(dir, "config.toml"));
  const som = settings?.grounding_strategy === undefined || settings.grounding_strategy === "text_choice_som";

  const screens = new Map<number, string>();
  for (const m of await listImages(path.join(dir, "screenshots"), SCREEN)) screens.set(Number(m[1]), m[0]);

  const steps: ImportStep[] = predictions.map((p, i) => {
    if (!p || typeof p !== "object" || Array.isArray(p)) throw new ImportError(predFile, `prediction ${i} is not an object`);
    const pred = p as SeeActPrediction & Record<string, unknown>;
    let action = parseSeeActPrediction(pred);
    let elements: SomElement[] | null = null;
    const el = pred.element && typeof pred.element === "object" ? (pred.element as Record<string, unknown>) : null;
    if (el) {
      const label = seeActPredictionLabel(pred) ?? "chosen";
      if (action.type !== "unparsed" && "target" in action && !action.target) action = { ...action, target: label };
      elements = [
        {
          label,
          bbox: seeActElementBox(el),
          tag: typeof el.tag === "string" ? el.tag : null,
          text: typeof el.description === "string" ? el.description : null,
        },
      ];
    }
    const entry = history[i];
    const parsedEntry = entry !== undefined ? parseSeeActHistory(entry) : null;
    const screen = screens.get(i + 1);
    const value = typeof pred.value === "string" && pred.value !== "None" ? pred.value : null;
    return {
      index: i,
      screenshot: screen ? fileImage(path.join(dir, "screenshots", screen)) : null,
      rawScreenshot: null,
      marksBurnedIn: !!screen && som,
      url: null,
      thought: typeof pred.action_generation === "string" ? pred.action_generation : null,
      actionRaw: entry ?? (typeof pred.action === "string" ? `${pred.action}${value ? `: ${value}` : ""}` : null),
      action,
      elements,
      error: parsedEntry?.failure ?? null,
    };
  });
  const answers = steps.filter((s) => s.action.type === "answer");
  const terminated = steps.length > 0 && steps[steps.length - 1]!.action.type === "answer";
  const exitBy = typeof result.exit_by === "string" ? result.exit_by : null;
  const verdict = seeActVerdict(result.success_or_not, steps);
  const lastSaid = [...answers].reverse().find((s) => s.action.value)?.action.value ?? null;
  const intent = tasks[0]!.trim();
  return {
    kind: "trajectory",
    trajectory: {
      task: importTask({
        taskSet: SEEACT_TASK_SET,
        externalId: packageTaskId(intent, website),
        site: website ? hostOf(website) : null,
        intent,
        startUrl: website,
        extra: tasks.length > 1 ? { tasks } : null,
      }),
      run: {
        runKey: run.key,
        name: run.name,
        agentName: "SeeAct (pip package)",
        model: typeof settings?.model === "string" ? settings.model : null,
        sourceSystem: "seeact",
        config: settings,
      },
      // Each session folder is one attempt; its timestamp name orders re-runs of the same task.
      attempt: 0,
      finalAnswer: lastSaid,
      ...packageOutcome(terminated, steps.length, exitBy),
      sourcePath: dir,
      sourceFiles: [path.join(dir, "all_predictions.json")],
      steps,
      verdicts: verdict ? [verdict] : [],
    },
  };
}

/** How a pip session ended: TERMINATE, or cut short; a fork's `exit_by` says why when present. */
function packageOutcome(terminated: boolean, steps: number, exitBy: string | null): { outcome: Outcome; outcomeDetail: string | null } {
  if (terminated) return { outcome: "answered", outcomeDetail: null };
  if (exitBy) {
    const ended = outcomeOfExit(exitBy);
    return { outcome: ended.outcome, outcomeDetail: ended.detail ?? exitBy };
  }
  return {
    outcome: "unknown",
    outcomeDetail: steps
      ? "the last prediction is not TERMINATE (step limit, no-op limit or interruption)"
      : "no predictions were recorded (the session ended before its first step)",
  };
}

export const seeActImporter: Importer = {
  format: "seeact",
  description: "SeeAct results: research tool <task_id>/result.json + image_inputs/, or pip package all_predictions.json + screenshots/",
  async sniff(input) {
    const found = (await findSaveFolders(input, 5)).flatMap((f) => f.dirs);
    for (const { dir, kind } of found) {
      if (kind === "package") return 0.9;
      const head = await fsp.readFile(path.join(dir, "result.json"), "utf8").catch(() => "");
      if (head.includes('"confirmed_task"') || fs.existsSync(path.join(dir, "image_inputs"))) return 0.85;
    }
    return 0;
  },
  async *read(input, options) {
    const saveFolders = await findSaveFolders(input);
    if (!saveFolders.length) throw new ImportError(input, "no SeeAct output found (a folder with result.json, or all_predictions.json for the pip package)");
    options.onTotal?.(saveFolders.reduce((n, f) => n + f.dirs.length, 0));
    for (const found of saveFolders) {
      // Each save folder is its own run, whatever folder the import started from.
      const run: RunContext = {
        key: runKeyFromPath("seeact", input, found.saveDir, options.renamed),
        name: runNameFromPath(input, found.saveDir, options.renamed),
      };
      // pip sessions of one task are attempts 0, 1, … in folder (time) order, counted over the whole save folder
      // so that importing one session folder on its own gives it the same attempt number (an upload's importer
      // looks no higher than its own unpacked folder).
      const all =
        found.dirs.length === 1 && path.resolve(found.dirs[0]!.dir) === path.resolve(input) && withinBoundary(found.saveDir, options.boundary)
          ? ((await findSaveFolders(found.saveDir)).find((f) => f.saveDir === found.saveDir)?.dirs ?? found.dirs)
          : found.dirs;
      const attemptOf = new Map<string, number>();
      const seen = new Map<string, number>();
      for (const { dir, kind } of all) {
        if (kind !== "package") continue;
        const key = await packageTaskKey(dir);
        if (key === null) continue;
        const n = seen.get(key) ?? 0;
        seen.set(key, n + 1);
        attemptOf.set(path.resolve(dir), n);
      }
      for (const { dir, kind } of found.dirs) {
        let item: ImportItem;
        try {
          item = kind === "package" ? await readPackageTask(dir, run) : await readResearchTask(dir, run);
        } catch (e) {
          item = unreadableTrajectory(dir, e);
        }
        if (item.kind === "trajectory" && kind === "package") item.trajectory.attempt = attemptOf.get(path.resolve(dir)) ?? 0;
        yield item;
      }
      // Task folders beside these that SeeAct started but never finished: listed, never passed over in silence.
      if (path.resolve(found.saveDir) !== path.dirname(path.resolve(input)) || found.dirs.length > 1) {
        const known = new Set(all.map((d) => path.resolve(d.dir)));
        for (const name of await subfolders(found.saveDir)) {
          const dir = path.join(found.saveDir, name);
          if (known.has(path.resolve(dir))) continue;
          const why = await unfinishedReason(dir);
          if (why) yield { kind: "skipped", path: dir, reason: why };
        }
      }
    }
  },
};

/**
 * Why a folder beside SeeAct task folders is one SeeAct started but did not finish, or null when it is no task
 * folder: the research tool writes result.json last (its crops, config and log come first), the pip package writes
 * all_predictions.json at the end of the session (its screenshots and log come first).
 */
async function unfinishedReason(dir: string): Promise<string | null> {
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  if (names.includes("image_inputs") || (names.includes("config.toml") && names.some((n) => n.endsWith(".log")))) {
    return "has no result.json (the task stopped before SeeAct wrote its result)";
  }
  if (names.includes("screenshots") || names.includes("agent.log")) {
    return "has no all_predictions.json or result.json (the session stopped before SeeAct saved them)";
  }
  return null;
}
