/**
 * Browser Use histories (../shared/docs/trajectory-formats.md §8.2): the `AgentHistoryList` JSON that
 * `history.save_to_file(…)` writes, `{"history": [ … ]}` with one entry per step (`model_output` with the reasoning
 * and a list of actions, `result` per action, `state` with the URL, the interacted elements and the screenshot,
 * `metadata` with timing). One file is one trajectory; the input is one file or a folder of them at any depth.
 *
 * Screenshots: older releases embed them (`state.screenshot`, base64); newer ones name a file
 * (`state.screenshot_path`) on the machine that ran the agent. Such paths are never followed: the file name is
 * looked up in `--screenshots DIR` and in folders beside the history (`screenshots/`, `<name>/`, `<name>_screenshots/`,
 * `images/`, `trajectory/`, the history's own folder), then by the step number the name carries. What is not found
 * is listed in a warning.
 *
 * The history does not record the task. Its text comes from a wrapper's `task` field or the `<user_request>` of a
 * step's state message; its id from a wrapper's `task_id`, else the file's name (or its folder's, for generic names
 * such as `history.json`), which also joins a task list given with `--tasks` or found beside the histories
 * (Online-Mind2Web's, WebVoyager's). The final `done` gives the answer; its `success` is the agent's own claim, kept
 * in the outcome's detail, never as a verdict. Browser Use's own trace judge (`result[].judgement`) is a verdict.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type { Outcome } from "../domain/types";
import { browserUseStepParts, browserUseViewport } from "./browser-use-steps";
import { folderName, subfolders } from "./find-folders";
import { headText, isDir, readJsonFile } from "./fs-helpers";
import { IMAGE_FILE, base64Image, isLfsPointer, numberedImages, probeImageFile, screenshotNumber } from "./image-files";
import { ImportError, type ImageRef, type ImportItem, type ImportStep, type ImportTask, type ImportVerdict, type Importer } from "./types";
import { importTask } from "./import-task";
import { looksLikeTaskList, readTaskLists } from "./online-mind2web";

export const BROWSER_USE_FORMAT = "browser-use";
export const BROWSER_USE_TASK_SET = { name: "Browser Use tasks", benchmark: "browser-use" } as const;
const GENERIC_NAME = /^(?:agent[_-]?)?(?:history|conversation|result|results|trajectory|output|run|agent|agent_history_list)(?:[_-]?\d+)?$/i;
const SHOT_FOLDERS = ["screenshots", "images", "trajectory", "imgs"];
const MAX_DEPTH = 8;

function record(v: unknown): Record<string, unknown> | null {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function str(v: unknown): string | null {
  return typeof v === "string" && v.trim() ? v.trim() : typeof v === "number" ? String(v) : null;
}

const head = (file: string, bytes = 16384) => headText(file, bytes);

/** A history's head: a `history` list whose entries hold Browser Use's step keys. */
function headLooksLikeHistory(h: string): boolean {
  return /"history"\s*:\s*\[/.test(h) && /"(model_output|interacted_element|state_message|screenshot_path)"\s*:/.test(h);
}

async function findHistories(input: string, limit = Infinity): Promise<{ histories: string[]; taskLists: string[] }> {
  const out = { histories: [] as string[], taskLists: [] as string[] };
  if (!(await isDir(input))) {
    if (/\.json$/i.test(input)) out.histories.push(path.resolve(input));
    return out;
  }
  async function visit(dir: string, depth: number): Promise<void> {
    if (out.histories.length >= limit) return;
    const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (!e.isFile() || !/\.jsonl?$/i.test(e.name)) continue;
      const file = path.join(dir, e.name);
      const h = await head(file);
      if (headLooksLikeHistory(h)) out.histories.push(file);
      else if (isLfsPointer(Buffer.from(h)) && /history/i.test(e.name)) out.histories.push(file);
      else if (await looksLikeTaskList(file)) out.taskLists.push(file);
      if (out.histories.length >= limit) return;
    }
    if (depth >= MAX_DEPTH) return;
    for (const sub of await subfolders(dir)) await visit(path.join(dir, sub), depth + 1);
  }
  await visit(path.resolve(input), 0);
  out.histories.sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  return out;
}

function stemOf(file: string): string {
  return path.basename(file).replace(/\.json$/i, "");
}

/** A folder or file name that names a task: a benchmark task id (Online-Mind2Web's hex ids, WebVoyager's `Site--3`). */
const TASK_LIKE = /^[0-9a-f]{32}(?:_\w+)?$|^.+--\d+$/i;

/**
 * Where a history sits: the name that may identify its task (the file's own name, or for a generic name such as
 * `history.json` its folder's when that folder is a task's), and the folder that is its run.
 */
function placement(file: string, tasks: Map<string, ImportTask>): { name: string | null; runDir: string } {
  const stem = stemOf(file);
  if (!GENERIC_NAME.test(stem)) return { name: stem, runDir: path.dirname(file) };
  const folder = path.basename(path.dirname(file));
  if (tasks.has(folder) || TASK_LIKE.test(folder)) return { name: folder, runDir: path.dirname(path.dirname(file)) };
  return { name: null, runDir: path.dirname(file) };
}

function userRequest(entries: unknown[]): string | null {
  for (const e of entries) {
    const msg = str(record(e)?.state_message);
    if (!msg) continue;
    const m = /<(?:initial_)?user_request>\s*([\s\S]*?)\s*<\/(?:initial_)?user_request>/.exec(msg);
    if (m && m[1]!.trim()) return m[1]!.trim();
  }
  return null;
}

interface Located {
  image: ImageRef | null;
  width: number | null;
  lfs: boolean;
}

/** Screenshot lookup for one history: by file name, then by the number a name carries, in the folders it may be in. */
class ShotFinder {
  private folders: string[];
  private numbered: Map<number, string> | null = null;

  constructor(file: string, screenshotsDir: string | undefined) {
    const dir = path.dirname(file);
    const stem = stemOf(file);
    const given = screenshotsDir ? [path.join(screenshotsDir, stem), screenshotsDir] : [];
    const beside = [path.join(dir, `${stem}_screenshots`), path.join(dir, stem), ...SHOT_FOLDERS.map((f) => path.join(dir, f)), dir];
    this.folders = [...given, ...beside].filter((d, i, all) => all.indexOf(d) === i && fs.existsSync(d));
  }

  private async byNumber(): Promise<Map<number, string>> {
    if (!this.numbered) {
      this.numbered = new Map();
      for (const dir of this.folders) {
        for (const im of await numberedImages(dir)) if (!this.numbered.has(im.n)) this.numbered.set(im.n, im.file);
        if (this.numbered.size) break;
      }
    }
    return this.numbered;
  }

  async find(ref: string | null, fallbackNumber: number): Promise<string | null> {
    if (ref) {
      const base = path.basename(ref.replace(/\\/g, "/"));
      if (IMAGE_FILE.test(base)) {
        for (const dir of this.folders) {
          const f = path.join(dir, base);
          if (fs.existsSync(f)) return f;
        }
      }
      const n = screenshotNumber(base);
      if (n !== null) return (await this.byNumber()).get(n) ?? null;
      return null;
    }
    return (await this.byNumber()).get(fallbackNumber) ?? null;
  }

  async hasNumbered(): Promise<{ any: boolean; zeroBased: boolean }> {
    const m = await this.byNumber();
    return { any: m.size > 0, zeroBased: m.has(0) };
  }

  describe(): string {
    return this.folders.length ? this.folders.map((f) => path.basename(f) || f).join(", ") : "no screenshot folder beside it";
  }
}

function judgementVerdict(entries: unknown[]): ImportVerdict | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const results = Array.isArray(record(entries[i])?.result) ? (record(entries[i])!.result as unknown[]) : [];
    for (const r of results) {
      const j = record(record(r)?.judgement);
      if (!j) continue;
      const reasons = [
        str(j.reasoning),
        str(j.failure_reason) ? `Failure: ${str(j.failure_reason)}` : null,
        j.impossible_task === true ? "The judge found the task impossible." : null,
        j.reached_captcha === true ? "The agent met a CAPTCHA." : null,
      ].filter(Boolean);
      return {
        evaluator: "Browser Use judge",
        key: "import:browser-use:judge",
        evaluatorKind: "judge",
        verdict: typeof j.verdict === "boolean" ? (j.verdict ? "success" : "failure") : "unparseable",
        score: typeof j.verdict === "boolean" ? (j.verdict ? 1 : 0) : null,
        rationale: reasons.length ? reasons.join("\n") : null,
        raw: j,
      };
    }
  }
  return null;
}

interface RunInfo {
  key: string;
  name: string;
}

async function readHistory(file: string, run: RunInfo, tasks: Map<string, ImportTask>, screenshotsDir: string | undefined): Promise<ImportItem> {
  const h = await head(file, 200);
  if (isLfsPointer(Buffer.from(h))) throw new ImportError(file, "is a Git LFS pointer file, not the history (the clone was made without `git lfs pull`)");
  const data = await readJsonFile(file);
  const top = record(data);
  const entries = Array.isArray(data) ? data : Array.isArray(top?.history) ? (top!.history as unknown[]) : null;
  if (!entries) throw new ImportError(file, `expected Browser Use's {"history": [ … ]}`);
  const warnings: string[] = [];

  // ---- the task
  const named = str(top?.task_id) ?? str(top?.id) ?? placement(file, tasks).name;
  const listed = named !== null ? (tasks.get(named) ?? null) : null;
  const text = str(top?.task) ?? str(top?.task_text) ?? str(top?.instruction) ?? str(top?.confirmed_task) ?? userRequest(entries) ?? listed?.intent ?? null;
  let task: ImportTask;
  if (listed) task = listed;
  else {
    const externalId = named ?? (text ? `browser-use.${crypto.createHash("sha256").update(text).digest("hex").slice(0, 12)}` : stemOf(file));
    if (!text) warnings.push(`the history does not record its task: task "${externalId}" is named after the file; give the task list with --tasks to join it`);
    const startUrl = str(record(record(entries[0])?.state)?.url);
    task = importTask({
      taskSet: BROWSER_USE_TASK_SET,
      externalId,
      site: null,
      intent: text ?? `Task ${externalId} (its text is not recorded in the Browser Use history)`,
      startUrl: startUrl && !/^about:/.test(startUrl) ? startUrl : null,
    });
  }

  // ---- steps and their screenshots
  const finder = new ShotFinder(file, screenshotsDir);
  const numbered = await finder.hasNumbered();
  const notFound: string[] = [];
  let lfs = 0;
  let shots = 0;
  const steps: ImportStep[] = [];
  let done: { text: string | null; success: boolean | null } | null = null;
  let lastError: string | null = null;
  for (const [i, entry] of entries.entries()) {
    const state = record(record(entry)?.state);
    let located: Located | null = null;
    const inline = str(state?.screenshot);
    const ref = str(state?.screenshot_path);
    if (inline) {
      const img = base64Image(inline, `${file}: step ${i + 1}'s screenshot`);
      if (img) located = { image: img.ref, width: img.info?.width ?? null, lfs: false };
    } else if (ref || numbered.any) {
      const found = await finder.find(ref, numbered.zeroBased ? i : i + 1);
      if (found) {
        const probe = await probeImageFile(found);
        if (probe.kind === "lfs-pointer") located = { image: null, width: null, lfs: true };
        else if (probe.kind === "image") located = { image: probe.ref, width: probe.info?.width ?? null, lfs: false };
      } else if (ref) notFound.push(path.basename(ref.replace(/\\/g, "/")));
    }
    if (located) {
      shots++;
      if (located.lfs) lfs++;
    }
    const viewport = browserUseViewport(entry);
    const scale = viewport && located?.width && Math.abs(located.width / viewport.width - 1) > 0.01 ? located.width / viewport.width : 1;
    const parts = browserUseStepParts(entry, scale);
    if (parts.done) done = parts.done;
    lastError = parts.error;
    steps.push({
      index: i,
      screenshot: located?.image ?? null,
      rawScreenshot: null,
      marksBurnedIn: false,
      url: parts.url,
      thought: parts.thought,
      actionRaw: parts.actionRaw,
      action: parts.action,
      elements: parts.elements,
      error: parts.error,
      durationMs: parts.durationMs,
    });
  }
  if (notFound.length) {
    warnings.push(
      `${notFound.length} of ${entries.length} screenshots named in the history were not found (looked in ${finder.describe()}): ${notFound.slice(0, 3).join(", ")}${notFound.length > 3 ? ", …" : ""}; give their folder with --screenshots DIR`,
    );
  }
  if (lfs)
    warnings.push(
      `${lfs} of ${shots} screenshots are Git LFS pointer files, not images (the clone was made without \`git lfs pull\`): the steps are imported without them`,
    );

  // ---- how it ended
  let outcome: Outcome;
  let detail: string | null;
  if (done) {
    outcome = "answered";
    detail = done.success === null ? null : `the agent reported ${done.success ? "success" : "failure"} (its own claim, not a verdict)`;
  } else if (lastError) {
    outcome = "error";
    detail = lastError;
  } else {
    outcome = "unknown";
    detail = entries.length ? "the history ends without done (step limit or interruption)" : "the history has no steps";
  }
  const judged = judgementVerdict(entries);
  return {
    kind: "trajectory",
    trajectory: {
      task,
      run: {
        runKey: run.key,
        name: run.name,
        agentName: "Browser Use",
        model: str(top?.model) ?? str(top?.model_name),
        sourceSystem: BROWSER_USE_FORMAT,
        config: null,
      },
      attempt: 0,
      finalAnswer: done?.text ?? null,
      outcome,
      outcomeDetail: detail,
      sourcePath: file,
      sourceFiles: [file],
      steps,
      verdicts: judged ? [judged] : [],
      warnings,
    },
  };
}

export const browserUseImporter: Importer = {
  format: BROWSER_USE_FORMAT,
  description:
    "Browser Use AgentHistoryList JSON (history.save_to_file): one file or a folder of them; screenshots embedded, beside the file or from --screenshots DIR",
  async sniff(input) {
    const { histories } = await findHistories(input, 3);
    for (const f of histories) if (headLooksLikeHistory(await head(f))) return 0.9;
    return 0;
  },
  async *read(input, options) {
    const found = await findHistories(input);
    if (!found.histories.length) throw new ImportError(input, `no Browser Use history found (JSON files holding {"history": [ … ]} with model_output entries)`);
    options.onTotal?.(found.histories.length);
    let tasks = new Map<string, ImportTask>();
    try {
      tasks = await readTaskLists([...found.taskLists, ...(options.tasksFile ? [options.tasksFile] : [])]);
    } catch (e) {
      if (!(e instanceof ImportError)) throw e;
      yield { kind: "skipped", path: e.file, reason: `task list not used: ${e.problem}` };
    }
    if (options.screenshotsDir && !(await isDir(options.screenshotsDir))) throw new ImportError(options.screenshotsDir, "--screenshots: no such folder");
    const attempts = new Map<string, number>();
    for (const file of found.histories) {
      const runDir = placement(file, tasks).runDir;
      const name = folderName(runDir, options.renamed);
      let item: ImportItem;
      try {
        item = await readHistory(file, { key: `${BROWSER_USE_FORMAT}:${name}`, name }, tasks, options.screenshotsDir);
      } catch (e) {
        item =
          e instanceof ImportError
            ? { kind: "skipped", path: e.file, reason: e.problem }
            : { kind: "skipped", path: file, reason: `cannot be read (${(e as Error).message})` };
      }
      if (item.kind === "trajectory") {
        const k = `${item.trajectory.run.runKey}\n${item.trajectory.task.taskSet.name}\n${item.trajectory.task.externalId}`;
        const n = attempts.get(k) ?? 0;
        attempts.set(k, n + 1);
        item.trajectory.attempt = n;
      }
      yield item;
    }
  },
};
