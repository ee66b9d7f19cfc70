/**
 * WebVoyager result folders: `task<id>/interact_messages.json` + `screenshot<N>.png` (+ `screenshot<N>_no_box.png`
 * raw variants in some examples), found at any depth under the input, and WebVoyager-style task files
 * (`WebVoyager_data.jsonl`, or a fork's own `*.jsonl` with the same fields) with `reference_answer.json`.
 *
 * Forks change the transcript: they add user messages that are not observations (reflections, reminders), rename
 * task ids (`taskamazon_3`, no `--<n>`), and spell the failure message "exected" or "executed". Steps are the
 * assistant replies; each takes the observation (a user message with the screenshot, or its clipped
 * "Observation: A screenshot…" string) that came before it. Which `screenshot<N>.png` an observation goes with is
 * decided against the files that exist (see `alignScreenshots`), so extra messages never shift the images, and a
 * missing file leaves one step without an image and a warning instead of rejecting the trajectory.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import readline from "node:readline";
import { parseWebVoyagerElementList, parseWebVoyagerReply } from "../domain/actions/webvoyager";
import type { Outcome, ReferenceAnswer, SomElement } from "../domain/types";
import { fileImage, foldersUpFrom, isDir, readJsonFile, withinBoundary } from "./fs-helpers";
import { findFolders, groupByParent, runKeyFromPath, runNameFromPath, subfolders, unreadableTrajectory } from "./find-folders";
import { chooseTranscripts, isTranscriptName, numberedImages, PLAIN_TRANSCRIPT, taskIdFromTag, type TranscriptChoice } from "./webvoyager-files";
import { findStepLimit, type StepLimitSetting } from "./webvoyager-settings";
import { readTaskLimits, TASK_MAX_STEPS_FIELD, TASK_TIME_LIMIT_FIELD, taskLimitFields, type TaskLimits } from "../domain/live/task-limits";
import { splitTaskFields, type SplitTaskFields } from "../domain/catalog/task-attributes";
import {
  ImportError,
  type EvaluatorLogReport,
  type ImportItem,
  type ImportOptions,
  type ImportStep,
  type ImportTask,
  type ImportTrajectory,
  type ImportVerdict,
  type Importer,
  type RenamedFolder,
} from "./types";
import { importTask, mind2webLevel } from "./import-task";
import {
  assignAutoEvalBlocks,
  looksLikeAutoEvalLog,
  nameAutoEvalLogs,
  parseWebVoyagerAutoEvalBlocks,
  type AutoEvalEntry,
  type AutoEvalIncomplete,
} from "./webvoyager-auto-eval";

const TASK_DIR = /^task(.+)$/i;
const TASK_ID = /^(.+)--(\d+)$/;
export const WEBVOYAGER_TASK_SET = { name: "WebVoyager", benchmark: "webvoyager" } as const;

interface WvTaskRow {
  web_name: string | null;
  id: string;
  /** May be empty in a fork's task file: the transcript's task text is used then. */
  ques: string;
  web: string | null;
  line: number;
  /** The task's own step and time limits, when its row gives them (server/domain/live/task-limits.ts). */
  limits: TaskLimits;
  /** The row's other fields (a fork's `ques_group`, `lang`…): split keys, and what cannot be one. */
  fields: SplitTaskFields;
}

/** Fields of a task row the importer reads itself; any other field is kept as a task attribute. */
const WEBVOYAGER_TASK_FIELDS = new Set(["id", "ques", "web_name", "web", TASK_MAX_STEPS_FIELD, TASK_TIME_LIMIT_FIELD]);

type ReferenceFile = Record<string, { notice?: string; answers?: { id: number; type: string; ans: string }[] }>;

/** File names in a folder (none when it cannot be listed). */
async function fileNames(dir: string): Promise<string[]> {
  const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => e.name);
}

/** A folder holding a transcript, whatever the fork named it or the folder (`interact_messages_task1.json`). */
async function isReadableTaskDir(dir: string): Promise<boolean> {
  return (await fileNames(dir)).some(isTranscriptName);
}

/**
 * A folder WebVoyager started: a transcript, or, for a `task<id>` folder, at least its log or a screenshot (a task
 * that crashed before its transcript was written, reported as skipped).
 */
async function isTaskDir(dir: string): Promise<boolean> {
  const names = await fileNames(dir);
  if (names.some(isTranscriptName)) return true;
  if (!TASK_DIR.test(path.basename(dir))) return false;
  return names.includes("agent.log") || numberedImages(names).marked.size > 0;
}

interface RunFolder {
  runDir: string;
  taskDirs: string[];
  /** Sibling `task<id>` folders with none of WebVoyager's files: reported, never passed over in silence. */
  emptyTaskDirs: string[];
}

/**
 * Run folders under the input at any depth: the parents of task folders. The input may be one task folder. A run
 * whose every task crashed is kept too, so that its task folders are reported as skipped rather than ignored.
 */
async function findRuns(input: string): Promise<RunFolder[]> {
  const taskDirs = await findFolders(input, isTaskDir);
  const runs: RunFolder[] = [];
  for (const g of groupByParent(taskDirs)) {
    const found = new Set(g.dirs.map((d) => path.resolve(d)));
    const emptyTaskDirs =
      path.resolve(input) === path.resolve(g.dirs[0]!)
        ? []
        : (await subfolders(g.parent)).map((n) => path.join(g.parent, n)).filter((d) => TASK_DIR.test(path.basename(d)) && !found.has(path.resolve(d)));
    runs.push({ runDir: g.parent, taskDirs: g.dirs, emptyTaskDirs });
  }
  return runs;
}

/**
 * Looks for `name` in `dir`, `dir/data` and up to four parents (results/<run>/ sits two below data/), never above
 * `boundary` (an upload's unpacked folder).
 */
function findNearby(start: string, name: string, boundary?: string): string | null {
  for (const dir of foldersUpFrom(start, 5, boundary)) {
    for (const candidate of [path.join(dir, name), path.join(dir, "data", name)]) {
      if (fs.existsSync(candidate) && withinBoundary(candidate, boundary)) return candidate;
    }
  }
  return null;
}

async function fileHead(file: string, bytes: number): Promise<string> {
  const fh = await fsp.open(file, "r").catch(() => null);
  if (!fh) return "";
  try {
    const { bytesRead, buffer } = await fh.read(Buffer.alloc(bytes), 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await fh.close();
  }
}

/** A JSON Lines file whose rows look like WebVoyager tasks (`id` and `ques`). */
async function isTaskFile(file: string): Promise<boolean> {
  if (!file.endsWith(".jsonl")) return false;
  const head = await fileHead(file, 4096);
  return /"ques"\s*:/.test(head) && /"id"\s*:/.test(head);
}

/**
 * Task files beside the results when none was given: the nearest folder (the input, `data/` in it, or up to four
 * parents) holding WebVoyager-style `*.jsonl` files. `WebVoyager_data.jsonl` is read first; a fork's own files
 * (`data/mouse.jsonl`…) add their tasks.
 */
async function findTaskFiles(input: string, boundary?: string): Promise<string[]> {
  let start = path.resolve(input);
  if (!(await isDir(start))) start = path.dirname(start);
  for (const dir of foldersUpFrom(start, 5, boundary)) {
    const found: string[] = [];
    for (const folder of [dir, path.join(dir, "data")]) {
      const names = await fsp.readdir(folder).catch(() => [] as string[]);
      for (const name of names.sort()) {
        const file = path.join(folder, name);
        if (withinBoundary(file, boundary) && (await isTaskFile(file))) found.push(file);
      }
    }
    if (found.length) {
      return found.sort((a, b) => Number(path.basename(b) === "WebVoyager_data.jsonl") - Number(path.basename(a) === "WebVoyager_data.jsonl"));
    }
  }
  return [];
}

function optionalString(row: Record<string, unknown>, key: string, file: string, lineNo: number): string | null {
  const v = row[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") throw new ImportError(file, `line ${lineNo}: field "${key}" is not a string`);
  return v;
}

export async function readWebVoyagerTaskFile(file: string): Promise<Map<string, WvTaskRow>> {
  const out = new Map<string, WvTaskRow>();
  const rl = readline.createInterface({ input: fs.createReadStream(file, "utf8"), crlfDelay: Infinity });
  let lineNo = 0;
  for await (const line of rl) {
    lineNo++;
    if (!line.trim()) continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (e) {
      throw new ImportError(file, `line ${lineNo} is not valid JSON (${(e as Error).message})`);
    }
    if (!row || typeof row !== "object" || Array.isArray(row)) throw new ImportError(file, `line ${lineNo} is not a JSON object`);
    const r = row as Record<string, unknown>;
    const id = typeof r.id === "number" ? String(r.id) : r.id;
    if (typeof id !== "string" || !id.trim()) throw new ImportError(file, `line ${lineNo}: field "id" is missing or not a string`);
    const limits = readTaskLimits(r);
    if ("error" in limits) throw new ImportError(file, `line ${lineNo} (task ${id.trim()}): ${limits.error}`);
    out.set(id.trim(), {
      id: id.trim(),
      ques: optionalString(r, "ques", file, lineNo) ?? "",
      web_name: optionalString(r, "web_name", file, lineNo),
      web: optionalString(r, "web", file, lineNo),
      line: lineNo,
      limits: limits.limits,
      fields: splitTaskFields(r, WEBVOYAGER_TASK_FIELDS),
    });
  }
  return out;
}

/** Rows of several task files; a later file adds tasks and fills a task text an earlier one left empty. */
async function readTaskFiles(files: string[]): Promise<Map<string, WvTaskRow>> {
  const out = new Map<string, WvTaskRow>();
  for (const file of files) {
    for (const [id, row] of await readWebVoyagerTaskFile(file)) {
      const had = out.get(id);
      if (!had || (!had.ques.trim() && row.ques.trim())) out.set(id, row);
    }
  }
  return out;
}

async function readReferenceFile(file: string | null): Promise<ReferenceFile> {
  if (!file) return {};
  const data = await readJsonFile(file);
  if (!data || typeof data !== "object" || Array.isArray(data)) throw new ImportError(file, "expected an object keyed by site name");
  return data as ReferenceFile;
}

function extraOf(...parts: Record<string, unknown>[]): Record<string, unknown> | null {
  const merged = Object.assign({}, ...parts) as Record<string, unknown>;
  return Object.keys(merged).length ? merged : null;
}

function taskFrom(
  id: string,
  row: WvTaskRow | undefined,
  refs: ReferenceFile,
  fallback: { intent: string | null; url: string | null },
  origin: string,
): ImportTask {
  const m = TASK_ID.exec(id);
  const site = row?.web_name || m?.[1] || null;
  const n = m ? Number(m[2]) : NaN;
  const siteRefs = site ? refs[site] : undefined;
  const referenceAnswers: ReferenceAnswer[] = (siteRefs?.answers ?? []).filter((a) => a.id === n).map((a) => ({ kind: a.type, text: a.ans }));
  // A fork's task file may leave "ques" empty; the transcript then says what the agent was asked.
  const intent = row?.ques.trim() || fallback.intent;
  if (!intent) {
    throw new ImportError(origin, `cannot find the task text for ${id}: no task file entry with a "ques" and no "Now given a task:" message`);
  }
  return importTask({
    taskSet: WEBVOYAGER_TASK_SET,
    externalId: id,
    site,
    intent: intent.trim(),
    startUrl: row?.web || fallback.url,
    referenceAnswers,
    extra: extraOf(
      siteRefs?.notice ? { referenceNotice: siteRefs.notice.trim() } : {},
      row ? taskLimitFields(row.limits) : {},
      row && Object.keys(row.fields.rest).length ? { taskFields: row.fields.rest } : {},
    ),
    attributes: row?.fields.attributes ?? null,
    fromTaskFile: !!row,
  });
}

interface Message {
  role: string;
  content: unknown;
}

function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p) => (p && typeof p === "object" && (p as { type?: string }).type === "text" ? String((p as { text?: unknown }).text ?? "") : ""))
      .join("\n");
  }
  return "";
}

function hasImage(content: unknown): boolean {
  return Array.isArray(content) && content.some((p) => p && typeof p === "object" && (p as { type?: string }).type === "image_url");
}

/** WebVoyager's text-only replies to a bad turn; "exected" is the original's spelling, forks fixed it. */
const FAILURE_MESSAGE = /Format ERROR|The action you have chosen cannot be exe(?:cu|c)ted/;
/** A clipped observation: the screenshot was sent but replaced by this text when the transcript was saved. */
const CLIPPED_OBSERVATION = /A screenshot(,| and)/;

/** The task text and start URL from the first user message ("Now given a task: … Please interact with <url> …"). */
function taskFromTranscript(firstText: string): { intent: string | null; url: string | null } {
  const intent =
    /Now given a task:([\s\S]+?)Please interact with/.exec(firstText)?.[1] ??
    /Now given a task:([\s\S]+?)(?:\n\s*\n|Observation:|$)/.exec(firstText)?.[1] ??
    // A fork that reworded the opening: what comes before the first observation is the task as the agent saw it.
    /^([\s\S]{1,2000}?)(?:Please interact with|\n?\s*Observation:)/.exec(firstText.trim())?.[1] ??
    null;
  const url = /Please interact with (\S+?) and get the answer/.exec(firstText)?.[1] ?? null;
  return { intent: intent?.trim() || null, url };
}

/** One observation message, with the screenshot number each way of counting gives it. */
export interface ObservationTurn {
  /** Counting every user message, as WebVoyager's own loop does (one user message per iteration). */
  everyMessage: number;
  /** Counting only observations and failure replies: extra messages a fork adds do not advance the count. */
  knownMessages: number;
  /** Position among the observations (1-based). */
  rank: number;
}

/**
 * Which screenshot number each observation shows. WebVoyager numbers screenshots by iteration; forks that add user
 * messages break the "one user message per iteration" rule in one of two ways, some number screenshots from 0, and a
 * missing file (crash, deleted image) leaves a gap. Each way of counting is tried against the files that exist and
 * the one that explains most observations wins (ties keep WebVoyager's own counting). When no counting fits better,
 * observations take the existing files in order. Per observation: the screenshot number it shows (null when that
 * file is missing) and the number the chosen counting expected (null when it ran out of files).
 */
export function alignScreenshots(observations: ObservationTurn[], files: number[]): { shot: number | null; expected: number | null }[] {
  const sorted = [...files].sort((a, b) => a - b);
  const have = new Set(sorted);
  const ways: ((o: ObservationTurn) => number | undefined)[] = [
    (o) => o.everyMessage,
    (o) => o.knownMessages,
    (o) => o.everyMessage - 1,
    (o) => o.knownMessages - 1,
    (o) => sorted[o.rank - 1],
  ];
  let best = ways[0]!;
  let bestHits = -1;
  for (const way of ways) {
    const hits = observations.filter((o) => {
      const n = way(o);
      return n !== undefined && have.has(n);
    }).length;
    if (hits > bestHits) {
      best = way;
      bestHits = hits;
    }
  }
  return observations.map((o) => {
    const n = best(o);
    return { shot: n !== undefined && have.has(n) ? n : null, expected: n ?? null };
  });
}

interface ReadContext {
  input: string;
  /** A folder known by another name (ImportOptions.renamed). */
  renamed?: RenamedFolder;
  tasks: Map<string, WvTaskRow>;
  refs: ReferenceFile;
  /** Verdicts the evaluator logs give each task folder (absolute path). */
  verdicts: Map<string, ImportVerdict[]>;
  /** The step limit the current run's settings give (--max_iter), if any. */
  stepLimit?: StepLimitSetting | null;
}

async function anyReadable(runs: RunFolder[]): Promise<boolean> {
  for (const run of runs) for (const dir of run.taskDirs) if (await isReadableTaskDir(dir)) return true;
  return false;
}

const NO_ANSWER = "no ANSWER action (step limit, error or interruption)";

/**
 * Without settings, a run's step counts can still show its limit: when several trajectories of the run stopped
 * without an answer at the same number of steps and none of the run went further, that number is the limit.
 */
export function inferStepLimit(trajectories: ImportTrajectory[]): void {
  const longest = Math.max(0, ...trajectories.map((t) => t.steps.length));
  const atLimit = trajectories.filter((t) => t.outcomeDetail === NO_ANSWER && t.steps.length === longest);
  if (atLimit.length < 2 || longest < 2) return;
  for (const t of atLimit) {
    t.outcome = "step_limit";
    t.outcomeDetail = `stopped after ${longest} steps without an ANSWER, as ${atLimit.length} trajectories of this run did and none went further: the run's step limit (no --max_iter setting found beside the results)`;
  }
}

/**
 * The task id a folder names: WebVoyager writes "task" + id; a fork that wrote "task_" + id is recognised when its
 * task file knows the id without the separator. A folder named otherwise is the task its transcript's name gives
 * (`interact_messages_task1.json`), else the folder's own name.
 */
function taskIdOf(taskDir: string, tasks: Map<string, WvTaskRow>, transcript: TranscriptChoice, several: boolean): string {
  const named = several ? undefined : TASK_DIR.exec(path.basename(taskDir))?.[1];
  const id = named ?? (transcript.tag ? taskIdFromTag(transcript.tag) : path.basename(taskDir));
  const bare = id.replace(/^[_-]/, "");
  return !tasks.has(id) && bare !== id && tasks.has(bare) ? bare : id;
}

/** Folders beside a transcript where forks keep its images when they are not beside it. */
const IMAGE_FOLDER = /screen|shot|image|img|pic/i;

/** The folder holding a task's screenshots and their names: the task folder, else an image folder inside it. */
async function screenshotFolder(taskDir: string, names: string[]): Promise<{ dir: string; names: string[] }> {
  const here = numberedImages(names);
  if (here.marked.size || here.raw.size) return { dir: taskDir, names };
  for (const sub of await subfolders(taskDir)) {
    if (!IMAGE_FOLDER.test(sub)) continue;
    const inner = await fileNames(path.join(taskDir, sub));
    if (numberedImages(inner).marked.size) return { dir: path.join(taskDir, sub), names: inner };
  }
  return { dir: taskDir, names };
}

/**
 * One task folder: its trajectory, or one per transcript when a fork wrote several tasks' transcripts into one
 * folder. A folder without a transcript (the task crashed before WebVoyager wrote it) is an error naming the file.
 */
async function readTaskFolder(taskDir: string, runDir: string, ctx: ReadContext): Promise<ImportItem[]> {
  const names = await fileNames(taskDir);
  const { transcripts, notRead } = chooseTranscripts(names, path.basename(taskDir));
  if (!transcripts.length) {
    throw new ImportError(path.join(taskDir, PLAIN_TRANSCRIPT), "is missing (the task was interrupted before WebVoyager saved its transcript)");
  }
  const shots = await screenshotFolder(taskDir, names);
  const several = transcripts.length > 1;
  const out: ImportItem[] = [];
  for (const transcript of transcripts) {
    try {
      out.push(await readTrajectory(taskDir, runDir, ctx, { transcript, several, shots, notRead }));
    } catch (e) {
      out.push(unreadableTrajectory(path.join(taskDir, transcript.file), e));
    }
  }
  return out;
}

interface TranscriptFiles {
  transcript: TranscriptChoice;
  /** The folder holds one transcript per task: each takes the images whose names carry its tag. */
  several: boolean;
  shots: { dir: string; names: string[] };
  /** Other transcripts in the folder that were passed over (copies a pipeline wrote beside the original). */
  notRead: string[];
}

/** The transcript's chat messages, each with a role; refused with the reason otherwise. */
async function readMessages(file: string): Promise<Message[]> {
  const saved = await readJsonFile(file);
  // Some forks wrap the transcript in an object ({"messages": [...]}).
  const messages = saved && typeof saved === "object" && !Array.isArray(saved) ? (saved as { messages?: unknown }).messages : saved;
  if (!Array.isArray(messages)) throw new ImportError(file, 'expected a JSON array of chat messages (or an object with a "messages" array)');
  messages.forEach((m, i) => {
    if (!m || typeof m !== "object" || typeof (m as Message).role !== "string") {
      throw new ImportError(file, `message ${i} has no "role"`);
    }
  });
  return messages as Message[];
}

/** The steps of a transcript (one per agent reply), the observations they acted on, and whether the run died first. */
interface TranscriptSteps {
  steps: ImportStep[];
  turns: ObservationTurn[];
  /** For each step, the index into `turns` of the observation it acted on (or null). */
  stepTurn: (number | null)[];
  diedBeforeReply: boolean;
}

function stepsOfMessages(messages: Message[]): TranscriptSteps {
  const steps: ImportStep[] = [];
  const turns: ObservationTurn[] = [];
  const stepTurn: (number | null)[] = [];
  let everyMessage = 0;
  let knownMessages = 0;
  let pending: { turn: number; elements: SomElement[] | null } | null = null;
  for (const m of messages) {
    if (m.role === "user") {
      everyMessage++;
      const text = messageText(m.content);
      const observed = hasImage(m.content) || CLIPPED_OBSERVATION.test(text);
      const failed = !observed && FAILURE_MESSAGE.test(text);
      if (observed || failed) knownMessages++;
      if (failed && steps.length) steps[steps.length - 1]!.error = text.trim();
      if (observed) {
        turns.push({ everyMessage, knownMessages, rank: turns.length + 1 });
        const elements = parseWebVoyagerElementList(text);
        pending = { turn: turns.length - 1, elements: elements.length ? elements : null };
      } else if (failed) {
        pending = null;
      }
      // Any other user message (a fork's reflection or reminder) leaves the pending observation in place.
    } else if (m.role === "assistant") {
      const content = typeof m.content === "string" ? m.content : messageText(m.content);
      const reply = parseWebVoyagerReply(content);
      stepTurn.push(pending?.turn ?? null);
      steps.push({
        index: steps.length,
        screenshot: null,
        rawScreenshot: null,
        marksBurnedIn: false,
        url: null,
        thought: reply.thought,
        actionRaw: reply.actionRaw ?? (reply.thought === null ? content : null),
        action: reply.action,
        elements: pending?.elements ?? null,
        error: null,
      });
      pending = null;
    }
  }
  // The run died before the agent's first reply (an API error ends WebVoyager's loop): the page it was shown is
  // still a step to look at.
  const diedBeforeReply = steps.length === 0 && turns.length > 0;
  if (diedBeforeReply) {
    stepTurn.push(0);
    steps.push({
      index: 0,
      screenshot: null,
      rawScreenshot: null,
      marksBurnedIn: false,
      url: null,
      thought: null,
      actionRaw: null,
      action: { type: "noop" },
      elements: pending?.elements ?? null,
      error: "the run stopped before the agent replied to this observation",
    });
  }
  return { steps, turns, stepTurn, diedBeforeReply };
}

/** Gives each step the screenshot of its observation; returns what could not be placed or was passed over. */
function placeScreenshots(read: TranscriptSteps, files: TranscriptFiles): string[] {
  const { transcript, several } = files;
  const { steps, turns, stepTurn } = read;
  const images = numberedImages(files.shots.names, several ? transcript.tag : null);
  const standardNames = [...images.marked.values()].every((n) => /^screenshot\d+\./i.test(n));
  const shotName = (n: number) => (standardNames ? `screenshot${n}.png` : `the screenshot numbered ${n}`);
  const shotNumbers = images.marked.size ? [...images.marked.keys()] : [...images.raw.keys()];
  const shots = alignScreenshots(turns, shotNumbers);
  const warnings: string[] = [];
  steps.forEach((step, i) => {
    const turn = stepTurn[i];
    if (turn === null || turn === undefined) return;
    const { shot: n, expected } = shots[turn]!;
    if (n === null) {
      warnings.push(
        expected === null
          ? `step ${i + 1}: no ${standardNames ? "screenshot<N>.png" : "numbered screenshot"} is left for its observation, so the step has no image`
          : `step ${i + 1}: ${shotName(expected)} is missing, so the step has no image`,
      );
      return;
    }
    const marked = images.marked.get(n);
    const raw = images.raw.get(n);
    // Only an unmarked image of this step: shown as it is, without claiming marks are drawn on it.
    step.screenshot = fileImage(path.join(files.shots.dir, (marked ?? raw)!));
    step.marksBurnedIn = !!marked;
    if (marked && raw) step.rawScreenshot = fileImage(path.join(files.shots.dir, raw));
  });
  if (images.duplicates.length)
    warnings.push(
      `${images.duplicates.join(", ")}: another image has the same screenshot number, so ${images.duplicates.length === 1 ? "it was" : "they were"} not used`,
    );
  if (files.notRead.length)
    warnings.push(
      `${files.notRead.join(", ")} beside ${transcript.file} ${files.notRead.length === 1 ? "was" : "were"} not read (one transcript per task folder)`,
    );
  if (several && steps.length && !steps.some((s) => s.screenshot)) {
    warnings.push(`no image in ${path.basename(files.shots.dir)} carries "${transcript.tag}" in its name, so the steps have no images`);
  }
  return warnings;
}

/** How the run ended: answered, stopped at its step limit, or unknown with the reason. */
function endingOf(read: TranscriptSteps, maxSteps: number | null, stepLimit: ReadContext["stepLimit"]): { outcome: Outcome; outcomeDetail: string | null } {
  const { steps, diedBeforeReply } = read;
  if (steps.at(-1)?.action.type === "answer") return { outcome: "answered", outcomeDetail: null };
  if (diedBeforeReply) return { outcome: "unknown", outcomeDetail: "the transcript has no reply from the agent (the run stopped before its first step)" };
  if (!steps.length) return { outcome: "unknown", outcomeDetail: "the transcript has no observation and no reply (the run stopped before its first step)" };
  const limit = maxSteps !== null ? { limit: maxSteps, source: `max_steps ${maxSteps} in the task file` } : stepLimit;
  if (limit && steps.length >= limit.limit) {
    return { outcome: "step_limit", outcomeDetail: `stopped after ${steps.length} steps without an ANSWER: the step limit (${limit.source})` };
  }
  return { outcome: "unknown", outcomeDetail: NO_ANSWER };
}

async function readTrajectory(taskDir: string, runDir: string, ctx: ReadContext, files: TranscriptFiles): Promise<ImportItem> {
  const { transcript, several } = files;
  const id = taskIdOf(taskDir, ctx.tasks, transcript, several);
  const file = path.join(taskDir, transcript.file);
  const messages = await readMessages(file);
  // The task message is the first user message, unless a fork put something of its own before it.
  const userTexts = messages.filter((m) => m.role === "user").map((m) => messageText(m.content));
  const taskText = userTexts.find((t) => t.includes("Now given a task:")) ?? userTexts[0] ?? "";
  const task = taskFrom(id, ctx.tasks.get(id), ctx.refs, taskFromTranscript(taskText), file);
  const read = stepsOfMessages(messages);
  const warnings = placeScreenshots(read, files);
  const { steps } = read;
  const last = steps.at(-1);
  const answered = last?.action.type === "answer";
  const { outcome, outcomeDetail } = endingOf(read, ctx.tasks.get(id)?.limits.maxSteps ?? null, ctx.stepLimit);
  return {
    kind: "trajectory",
    trajectory: {
      task,
      run: {
        runKey: runKeyFromPath("webvoyager", ctx.input, runDir, ctx.renamed),
        name: runNameFromPath(ctx.input, runDir, ctx.renamed),
        agentName: "WebVoyager",
        model: null,
        sourceSystem: "webvoyager",
        config: null,
      },
      attempt: 0,
      finalAnswer: answered ? (last!.action.value ?? "") : null,
      outcome,
      outcomeDetail,
      sourcePath: several ? file : taskDir,
      sourceFiles: [file],
      steps,
      verdicts: ctx.verdicts.get(path.resolve(taskDir)) ?? [],
      ...(warnings.length ? { warnings } : {}),
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Auto-evaluator logs

/** One auto_eval log as read: its blocks, and the run folder it sits in when it was found inside one. */
interface AutoEvalLog {
  file: string;
  /** Found inside this run folder (not named with --eval-log): it judged that run only. */
  scope: string | null;
  entries: AutoEvalEntry[];
  incomplete: AutoEvalIncomplete[];
}

/** Extensions that are never a log, so the search beside the results does not open images or archives. */
const NOT_A_LOG =
  /\.(png|jpe?g|gif|webp|bmp|pdf|zip|gz|tgz|tar|7z|pkl|pickle|npy|npz|pt|bin|safetensors|sqlite3?|db|docx?|xlsx?|pptx?|json|jsonl|py|ipynb|js|ts|mp4|webm|mov|html?)$/i;
const MAX_LOG_BYTES = 200 * 1024 * 1024;

/**
 * Files that may be auto_eval logs near a run folder: in the run folder and up to four folders above it (never above
 * `boundary`), and in evaluation folders beside any of those (`evaluation/`, `eval_results/`, `auto_eval/`…),
 * whatever their extension.
 */
async function logCandidates(runDir: string, listed: Map<string, string[]>, boundary?: string): Promise<string[]> {
  const out: string[] = [];
  for (const dir of foldersUpFrom(runDir, 5, boundary)) {
    // Runs share their parents: each folder is listed once per import.
    let files = listed.get(dir);
    if (!files) {
      files = [];
      const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        if (e.isFile()) files.push(path.join(dir, e.name));
        else if (e.isDirectory() && /eval/i.test(e.name)) {
          const inner = await fsp.readdir(path.join(dir, e.name), { withFileTypes: true }).catch(() => []);
          for (const f of inner) if (f.isFile()) files.push(path.join(dir, e.name, f.name));
        }
      }
      files = files.filter((f) => !NOT_A_LOG.test(f) && !path.basename(f).startsWith("."));
      listed.set(dir, files);
    }
    out.push(...files);
  }
  return out;
}

async function readLog(file: string, named: boolean): Promise<{ entries: AutoEvalEntry[]; incomplete: AutoEvalIncomplete[] } | null> {
  const stat = await fsp.stat(file).catch(() => null);
  if (!stat?.isFile()) {
    if (named) throw new ImportError(file, "auto_eval log given with --eval-log does not exist or is not a file");
    return null;
  }
  if (!named && (stat.size > MAX_LOG_BYTES || !looksLikeAutoEvalLog(await fileHead(file, 512 * 1024)))) return null;
  let text: string;
  try {
    text = await fsp.readFile(file, "utf8");
  } catch (e) {
    throw new ImportError(file, `cannot be read (${(e as Error).message})`);
  }
  if (!looksLikeAutoEvalLog(text)) {
    if (named)
      throw new ImportError(file, `is not a WebVoyager auto_eval log: no "----- <folder> -----" block ends with "Auto_eval_res:" or "Not find answer for"`);
    return null;
  }
  return parseWebVoyagerAutoEvalBlocks(text);
}

/** The logs for this import: those named with --eval-log and those found beside each run, each read once. */
async function readAutoEvalLogs(runs: RunFolder[], named: string[], boundary?: string): Promise<AutoEvalLog[]> {
  const found: AutoEvalLog[] = [];
  const seen = new Set<string>();
  const add = async (file: string, isNamed: boolean) => {
    const abs = path.resolve(file);
    const real = await fsp.realpath(abs).catch(() => abs);
    if (seen.has(real)) return;
    seen.add(real);
    const read = await readLog(file, isNamed);
    if (!read) return;
    // A log inside a run folder is that run's (auto_eval.py run in it prints bare task folders).
    const scope = isNamed ? null : (runs.find((r) => abs.startsWith(path.resolve(r.runDir) + path.sep))?.runDir ?? null);
    found.push({ file: abs, scope, ...read });
  };
  for (const file of named) await add(file, true);
  const listed = new Map<string, string[]>();
  for (const run of runs) for (const file of await logCandidates(run.runDir, listed, boundary)) await add(file, false);
  return found;
}

/**
 * Matches every log's blocks to the import's task folders, names each log's evaluator from its file name, and gives
 * each task folder its verdicts; each log's report says how many blocks matched and why the others did not.
 */
function matchAutoEvalLogs(logs: AutoEvalLog[], runs: RunFolder[]): { verdicts: Map<string, ImportVerdict[]>; reports: EvaluatorLogReport[] } {
  const folders = runs.flatMap((r) => r.taskDirs.map((d) => ({ dir: path.resolve(d), runDir: path.resolve(r.runDir) })));
  const matched = logs.map((log) => {
    const inScope = log.scope ? folders.filter((f) => f.runDir === path.resolve(log.scope!)) : folders;
    return assignAutoEvalBlocks(log.entries, inScope);
  });
  const names = nameAutoEvalLogs(
    logs.map((log, i) => ({ fileName: path.basename(log.file), k: log.entries[0]?.verdict.k ?? "", folders: new Set(matched[i]!.assigned.values()) })),
  );
  const verdicts = new Map<string, ImportVerdict[]>();
  const reports: EvaluatorLogReport[] = [];
  logs.forEach((log, i) => {
    const { evaluator, run } = names[i]!;
    const counts: Record<string, number> = {};
    for (const [block, dir] of matched[i]!.assigned) {
      const v: ImportVerdict = { ...log.entries[block]!.verdict, evaluator, ...(run ? { promptVersion: run } : {}) };
      verdicts.set(dir, [...(verdicts.get(dir) ?? []), v]);
      counts[v.verdict] = (counts[v.verdict] ?? 0) + 1;
    }
    reports.push({
      file: log.file,
      evaluator,
      run,
      blocks: log.entries.length + log.incomplete.length,
      matched: matched[i]!.assigned.size,
      unmatched: [...matched[i]!.unmatched, ...log.incomplete.map((b) => ({ block: b.dir, reason: b.problem }))],
      verdicts: counts,
    });
  });
  return { verdicts, reports };
}

export const webVoyagerImporter: Importer = {
  format: "webvoyager",
  description: "WebVoyager results at any depth: task<id>/interact_messages.json + screenshot<N>.png",
  async sniff(input) {
    if (!(await isDir(input))) return 0;
    return (await findFolders(input, isReadableTaskDir, { limit: 1, maxFolders: 5000 })).length ? 0.9 : 0;
  },
  async *read(input: string, options: ImportOptions) {
    const boundary = options.boundary;
    const runs = await findRuns(input);
    if (!(await anyReadable(runs))) throw new ImportError(input, "no task<id> folders with interact_messages.json found");
    const taskFiles = options.tasksFile ? [options.tasksFile] : await findTaskFiles(input, boundary);
    const refFile = options.tasksFile
      ? findNearby(path.dirname(options.tasksFile), "reference_answer.json", boundary)
      : findNearby(input, "reference_answer.json", boundary);
    for (const file of taskFiles) yield { kind: "source", file, role: "task file" };
    if (refFile) yield { kind: "source", file: refFile, role: "reference answers" };
    const logs = await readAutoEvalLogs(runs, options.evalLogs ?? [], boundary);
    const { verdicts, reports } = matchAutoEvalLogs(logs, runs);
    const ctx: ReadContext = {
      input,
      renamed: options.renamed,
      tasks: await readTaskFiles(taskFiles),
      refs: await readReferenceFile(refFile),
      verdicts,
    };
    options.onTotal?.(runs.reduce((n, r) => n + r.taskDirs.length + r.emptyTaskDirs.length, 0));
    const settings = new Map<string, Promise<StepLimitSetting | null>>();
    for (const run of runs) {
      ctx.stepLimit = await findStepLimit(run.runDir, settings, boundary);
      // A run's trajectories are read before any is given out: without settings, the run's step counts together
      // may show its step limit (see inferStepLimit).
      const items: ImportItem[] = [];
      for (const taskDir of run.taskDirs) {
        try {
          items.push(...(await readTaskFolder(taskDir, run.runDir, ctx)));
        } catch (e) {
          items.push(unreadableTrajectory(taskDir, e));
        }
      }
      if (!ctx.stepLimit) inferStepLimit(items.flatMap((i) => (i.kind === "trajectory" ? [i.trajectory] : [])));
      yield* items;
      for (const dir of run.emptyTaskDirs) {
        yield { kind: "skipped", path: dir, reason: "holds no transcript (interact_messages*.json), agent.log or screenshot: nothing to import" };
      }
    }
    for (const log of reports) yield { kind: "evaluatorLog", log };
  },
};

export const ONLINE_MIND2WEB_TASK_SET = { name: "Online-Mind2Web", benchmark: "online-mind2web" } as const;

/** An Online-Mind2Web task file: a JSON array of `{task_id, confirmed_task, website, reference_length?, level?}`. */
export async function looksLikeMind2WebTaskFile(file: string): Promise<boolean> {
  if (!file.endsWith(".json")) return false;
  const head = await fileHead(file, 4096);
  // human_label.json has the same task columns, plus the agents' labels: it is a label file, not a task file.
  return /^\s*\[/.test(head) && /"confirmed_task"\s*:/.test(head) && /"website"\s*:/.test(head) && !/_human_label"/.test(head);
}

const MIND2WEB_LEVELS = new Set(["easy", "medium", "hard"]);

export function* mind2webTasks(file: string, data: unknown): Generator<ImportTask> {
  if (!Array.isArray(data)) throw new ImportError(file, "expected a JSON array of tasks");
  for (let i = 0; i < data.length; i++) {
    const r = data[i] as Record<string, unknown> | null;
    const where = `task at index ${i}`;
    if (!r || typeof r !== "object" || Array.isArray(r)) throw new ImportError(file, `${where} is not an object`);
    const id = typeof r.task_id === "number" ? String(r.task_id) : r.task_id;
    if (typeof id !== "string" || !id.trim()) throw new ImportError(file, `${where}: field "task_id" is missing or not a string`);
    const what = `${where} (task ${id})`;
    if (typeof r.confirmed_task !== "string" || !r.confirmed_task.trim()) throw new ImportError(file, `${what}: field "confirmed_task" is missing`);
    if (r.website !== undefined && r.website !== null && typeof r.website !== "string") throw new ImportError(file, `${what}: field "website" is not a string`);
    const limits = readTaskLimits(r);
    if ("error" in limits) throw new ImportError(file, `${what}: ${limits.error}`);
    const level = typeof r.level === "string" && MIND2WEB_LEVELS.has(r.level) ? r.level : null;
    const website = typeof r.website === "string" ? r.website.trim() : null;
    let site: string | null = null;
    try {
      site = website ? new URL(website).hostname.replace(/^www\./, "") : null;
    } catch {
      throw new ImportError(file, `${what}: field "website" is not a URL: ${JSON.stringify(website)}`);
    }
    yield importTask({
      taskSet: ONLINE_MIND2WEB_TASK_SET,
      externalId: id.trim(),
      site,
      intent: r.confirmed_task.trim(),
      startUrl: website,
      ...mind2webLevel(level),
      extra: extraOf(typeof r.reference_length === "number" ? { reference_length: r.reference_length } : {}, taskLimitFields(limits.limits)),
      fromTaskFile: true,
    });
  }
}

/**
 * An open-web task file itself, the task set: WebVoyager's `WebVoyager_data.jsonl` (with `reference_answer.json`
 * beside it) or Online-Mind2Web's JSON array of tasks.
 */
export const webVoyagerTasksImporter: Importer = {
  format: "webvoyager-tasks",
  description: "open-web task file: WebVoyager_data.jsonl (+ reference_answer.json beside it) or Online-Mind2Web's JSON array of tasks",
  async sniff(input) {
    if (await isDir(input)) return 0;
    if (await looksLikeMind2WebTaskFile(input)) return 0.9;
    if (!input.endsWith(".jsonl")) return 0;
    const head = await fileHead(input, 2048);
    return /"web_name"/.test(head) && /"ques"/.test(head) ? 0.9 : 0;
  },
  async *read(input: string, options: ImportOptions) {
    if (input.endsWith(".json")) {
      for (const task of mind2webTasks(input, await readJsonFile(input))) yield { kind: "task", task };
      return;
    }
    const rows = await readWebVoyagerTaskFile(input);
    const refs = await readReferenceFile(findNearby(path.dirname(input), "reference_answer.json", options.boundary));
    for (const row of rows.values()) {
      if (!row.ques.trim()) {
        // Without a transcript there is nothing else to take the task text from.
        yield { kind: "skipped", path: input, reason: `line ${row.line} (task ${row.id}): "ques" is empty` };
        continue;
      }
      yield { kind: "task", task: taskFrom(row.id, row, refs, { intent: null, url: null }, input) };
    }
  },
};
