/**
 * WebVoyager result folders: `<run>/task<Site>--<n>/interact_messages.json` + `screenshot<N>.png`
 * (+ `screenshot<N>_no_box.png` raw variants in some examples), and WebVoyager's task file
 * `WebVoyager_data.jsonl` with `reference_answer.json`.
 *
 * Step alignment: WebVoyager counts iterations; each iteration starts with a user message. Observation messages
 * (image content, or the clipped "Observation: A screenshot…" string) go with `screenshot<iteration>.png`;
 * failure messages (format error, action not executable) carry no screenshot, which leaves gaps in N. The
 * assistant reply that follows a user message is that iteration's step.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import readline from "node:readline";
import { parseWebVoyagerElementList, parseWebVoyagerReply } from "../domain/actions/webvoyager";
import type { ReferenceAnswer, SomElement } from "../domain/types";
import { fileImage, isDir, listDirs, readJsonFile } from "./fs-helpers";
import { ImportError, type ImportItem, type ImportOptions, type ImportStep, type ImportTask, type ImportVerdict, type Importer } from "./types";
import { parseWebVoyagerAutoEvalLog } from "./webvoyager-auto-eval";

const TASK_DIR = /^task(.+--\d+)$/;
const TASK_ID = /^(.+)--(\d+)$/;
export const WEBVOYAGER_TASK_SET = { name: "WebVoyager", benchmark: "webvoyager" } as const;

interface WvTaskRow {
  web_name: string;
  id: string;
  ques: string;
  web: string;
}

type ReferenceFile = Record<string, { notice?: string; answers?: { id: number; type: string; ans: string }[] }>;

function isTaskDir(dir: string): boolean {
  return TASK_DIR.test(path.basename(dir)) && fs.existsSync(path.join(dir, "interact_messages.json"));
}

/** Run folders under the input: the input itself if it holds task folders, else its children that do. */
async function findRuns(input: string): Promise<{ runDir: string; taskDirs: string[] }[]> {
  if (isTaskDir(input)) return [{ runDir: path.dirname(input), taskDirs: [input] }];
  const children = await listDirs(input);
  const direct = children.filter(isTaskDir);
  if (direct.length) return [{ runDir: input, taskDirs: direct }];
  const runs: { runDir: string; taskDirs: string[] }[] = [];
  for (const child of children) {
    const taskDirs = (await listDirs(child)).filter(isTaskDir);
    if (taskDirs.length) runs.push({ runDir: child, taskDirs });
  }
  return runs;
}

/** Looks for `name` in `dir`, `dir/data` and up to four parents (results/<run>/ sits two below data/). */
function findNearby(start: string, name: string): string | null {
  let dir = path.resolve(start);
  for (let i = 0; i < 5; i++) {
    for (const candidate of [path.join(dir, name), path.join(dir, "data", name)]) {
      if (fs.existsSync(candidate)) return candidate;
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

/**
 * Auto-evaluation logs (`auto_eval.py` output redirected to a file) in the run folder or up to two folders above,
 * keyed by the task folder's path suffix "<run>/task<id>" and by "task<id>" alone.
 */
async function readAutoEvalVerdicts(runDir: string): Promise<Map<string, ImportVerdict[]>> {
  const byKey = new Map<string, ImportVerdict[]>();
  const dirs = [runDir, path.dirname(runDir), path.dirname(path.dirname(runDir))];
  for (const dir of [...new Set(dirs)]) {
    const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (!e.isFile() || !e.name.endsWith(".log")) continue;
      const file = path.join(dir, e.name);
      if ((await fsp.stat(file)).size > 200 * 1024 * 1024) continue;
      const text = await fsp.readFile(file, "utf8");
      if (!text.includes("Auto_eval_res") && !text.includes("Not find answer for")) continue;
      for (const entry of parseWebVoyagerAutoEvalLog(text)) {
        const parts = entry.dir.replace(/\\/g, "/").replace(/\/+$/, "").split("/");
        for (const key of [parts.slice(-2).join("/"), parts.at(-1)!]) {
          const list = byKey.get(key) ?? [];
          if (!list.some((v) => v.evaluator === entry.verdict.evaluator)) list.push(entry.verdict);
          byKey.set(key, list);
        }
      }
    }
  }
  return byKey;
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
    const r = row as Partial<WvTaskRow>;
    for (const key of ["web_name", "id", "ques", "web"] as const) {
      if (typeof r[key] !== "string") throw new ImportError(file, `line ${lineNo}: field "${key}" is missing or not a string`);
    }
    out.set(r.id!, r as WvTaskRow);
  }
  return out;
}

async function readReferenceFile(file: string | null): Promise<ReferenceFile> {
  if (!file) return {};
  const data = await readJsonFile(file);
  if (!data || typeof data !== "object" || Array.isArray(data)) throw new ImportError(file, "expected an object keyed by site name");
  return data as ReferenceFile;
}

function taskFrom(id: string, row: WvTaskRow | undefined, refs: ReferenceFile, fallback: { intent: string | null; url: string | null }, origin: string): ImportTask {
  const m = TASK_ID.exec(id);
  const site = row?.web_name ?? m?.[1] ?? null;
  const n = m ? Number(m[2]) : NaN;
  const siteRefs = site ? refs[site] : undefined;
  const referenceAnswers: ReferenceAnswer[] = (siteRefs?.answers ?? [])
    .filter((a) => a.id === n)
    .map((a) => ({ kind: a.type, text: a.ans }));
  const intent = row?.ques ?? fallback.intent;
  if (!intent) {
    throw new ImportError(origin, `cannot find the task text for ${id}: no task file entry and no "Now given a task:" message`);
  }
  return {
    taskSet: WEBVOYAGER_TASK_SET,
    externalId: id,
    site,
    intent: intent.trim(),
    startUrl: row?.web ?? fallback.url,
    inputImages: [],
    referenceAnswers,
    evaluatorConfig: null,
    difficulty: null,
    tags: [],
    extra: siteRefs?.notice ? { referenceNotice: siteRefs.notice.trim() } : null,
    fromTaskFile: !!row,
  };
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

const FAILURE_MESSAGE = /^(Format ERROR|The action you have chosen cannot be exe[c]?ted)/;

async function readTrajectory(
  taskDir: string,
  runDir: string,
  tasks: Map<string, WvTaskRow>,
  refs: ReferenceFile,
  autoEval: Map<string, ImportVerdict[]>,
): Promise<ImportItem> {
  const id = TASK_DIR.exec(path.basename(taskDir))![1]!;
  const file = path.join(taskDir, "interact_messages.json");
  const messages = await readJsonFile(file);
  if (!Array.isArray(messages)) throw new ImportError(file, "expected a JSON array of chat messages");
  messages.forEach((m, i) => {
    if (!m || typeof m !== "object" || typeof (m as Message).role !== "string") {
      throw new ImportError(file, `message ${i} has no "role"`);
    }
  });

  const firstUser = (messages as Message[]).find((m) => m.role === "user");
  const firstText = firstUser ? messageText(firstUser.content) : "";
  const intent = /Now given a task:([\s\S]+?)Please interact with/.exec(firstText)?.[1]?.trim() ?? null;
  const url = /Please interact with (\S+?) and get the answer/.exec(firstText)?.[1] ?? null;
  const task = taskFrom(id, tasks.get(id), refs, { intent, url }, file);

  const steps: ImportStep[] = [];
  let iteration = 0;
  let pendingShot: number | null = null;
  let pendingElements: SomElement[] | null = null;
  for (const m of messages as Message[]) {
    if (m.role === "user") {
      iteration++;
      const text = messageText(m.content);
      const observed = hasImage(m.content) || /A screenshot(,| and)/.test(text);
      if (FAILURE_MESSAGE.test(text.trim()) && steps.length) {
        steps[steps.length - 1]!.error = text.trim();
      }
      pendingShot = observed ? iteration : null;
      const elements = parseWebVoyagerElementList(text);
      pendingElements = elements.length ? elements : null;
    } else if (m.role === "assistant") {
      if (typeof m.content !== "string") throw new ImportError(file, `assistant message ${steps.length + 1} has no text content`);
      const reply = parseWebVoyagerReply(m.content);
      const shotFile = pendingShot !== null ? path.join(taskDir, `screenshot${pendingShot}.png`) : null;
      if (shotFile && !fs.existsSync(shotFile)) {
        throw new ImportError(shotFile, `screenshot for step ${steps.length + 1} is missing`);
      }
      const rawFile = pendingShot !== null ? path.join(taskDir, `screenshot${pendingShot}_no_box.png`) : null;
      steps.push({
        index: steps.length,
        screenshot: shotFile ? fileImage(shotFile) : null,
        rawScreenshot: rawFile && fs.existsSync(rawFile) ? fileImage(rawFile) : null,
        marksBurnedIn: !!shotFile,
        url: null,
        thought: reply.thought,
        actionRaw: reply.actionRaw ?? (reply.thought === null ? m.content : null),
        action: reply.action,
        elements: pendingElements,
        error: null,
      });
      pendingShot = null;
      pendingElements = null;
    }
  }
  if (!steps.length) throw new ImportError(file, "has no assistant replies, so no steps");
  const last = steps[steps.length - 1]!;
  const answered = last.action.type === "answer";
  const realRunDir = fs.realpathSync(runDir);
  return {
    kind: "trajectory",
    trajectory: {
      task,
      run: {
        runKey: `webvoyager:${realRunDir}`,
        name: path.basename(realRunDir),
        agentName: "WebVoyager",
        model: null,
        sourceSystem: "webvoyager",
        config: null,
      },
      attempt: 0,
      finalAnswer: answered ? (last.action.value ?? "") : null,
      outcome: answered ? "answered" : "unknown",
      outcomeDetail: answered ? null : "no ANSWER action (step limit, error or interruption)",
      sourcePath: taskDir,
      steps,
      verdicts:
        autoEval.get(`${path.basename(runDir)}/${path.basename(taskDir)}`) ?? autoEval.get(path.basename(taskDir)) ?? [],
    },
  };
}

export const webVoyagerImporter: Importer = {
  format: "webvoyager",
  description: "WebVoyager results: task<Site>--<n>/interact_messages.json + screenshot<N>.png",
  async sniff(input) {
    if (!(await isDir(input))) return 0;
    return (await findRuns(input)).length ? 0.9 : 0;
  },
  async *read(input: string, options: ImportOptions) {
    const runs = await findRuns(input);
    if (!runs.length) throw new ImportError(input, "no task<Site>--<n> folders with interact_messages.json found");
    const tasksFile = options.tasksFile ?? findNearby(input, "WebVoyager_data.jsonl");
    const refFile = options.tasksFile
      ? findNearby(path.dirname(options.tasksFile), "reference_answer.json")
      : findNearby(input, "reference_answer.json");
    const tasks = tasksFile ? await readWebVoyagerTaskFile(tasksFile) : new Map<string, WvTaskRow>();
    const refs = await readReferenceFile(refFile);
    options.onTotal?.(runs.reduce((n, r) => n + r.taskDirs.length, 0));
    for (const run of runs) {
      const autoEval = await readAutoEvalVerdicts(run.runDir);
      for (const taskDir of run.taskDirs) yield await readTrajectory(taskDir, run.runDir, tasks, refs, autoEval);
    }
  },
};

/** `WebVoyager_data.jsonl` itself (with `reference_answer.json` beside it): imports the task set. */
export const webVoyagerTasksImporter: Importer = {
  format: "webvoyager-tasks",
  description: "WebVoyager task file WebVoyager_data.jsonl (+ reference_answer.json beside it)",
  async sniff(input) {
    if (!input.endsWith(".jsonl") || (await isDir(input))) return 0;
    const fh = await fsp.open(input, "r").catch(() => null);
    if (!fh) return 0;
    try {
      const { bytesRead, buffer } = await fh.read(Buffer.alloc(2048), 0, 2048, 0);
      const head = buffer.subarray(0, bytesRead).toString("utf8");
      return /"web_name"/.test(head) && /"ques"/.test(head) ? 0.9 : 0;
    } finally {
      await fh.close();
    }
  },
  async *read(input: string) {
    const rows = await readWebVoyagerTaskFile(input);
    const refs = await readReferenceFile(findNearby(path.dirname(input), "reference_answer.json"));
    for (const row of rows.values()) {
      yield { kind: "task", task: taskFrom(row.id, row, refs, { intent: null, url: null }, input) };
    }
  },
};
