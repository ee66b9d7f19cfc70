/**
 * Online-Mind2Web results, the benchmark's submission format (../shared/docs/trajectory-formats.md §8.1).
 *
 * One folder per task, found at any depth: `<task_id>/result.json` with `task_id`, `task`, `final_result_response`,
 * `action_history` (one string per action; some runners write objects with the action, thought, URL and screenshot)
 * and `thoughts` (one per action), and `trajectory/<n>_full_screenshot.png`. The number in a screenshot's name counts
 * actions: screenshot n shows the page action n was taken on (0-based), so a run that starts by navigating has no
 * screenshot for its first action, and a screenshot numbered past the last action shows where the agent ended, with
 * its answer. Each folder holding task folders is one run.
 *
 * Variants read the same way: other screenshot folders and names (`trajectory_with_highlights/step_3.png`,
 * `0003.png`), `screenshot_paths` or per-action screenshots (file names or data URLs), `agent_final_answer`,
 * Browser Use's evaluation output (`complete_history`, `self_report_success`, `Online_Mind2Web_evaluation`), and
 * answer-only submissions (`task_id`, `task`, `final_result_response`, `judge {score, reasoning}`), which import as
 * 0-step trajectories with their answer. The task list (`Online_Mind2Web.json`: site, difficulty) is joined when it
 * lies inside the imported folder or is given with `--tasks`. Verdicts: a result's `judge` block, Browser Use's
 * evaluation, and WebJudge's `*_auto_eval_results.json` files, each file one evaluator.
 *
 * Git LFS pointer files in place of screenshots are detected: the steps import without them, with one warning per
 * trajectory. A folder that looks like a task but cannot be read is skipped with the file and the reason.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { parseMind2WebEntry } from "../domain/actions/online-mind2web";
import { stepContent, type Outcome, type ParsedAction } from "../domain/types";
import { browserUseStepParts } from "./browser-use-steps";
import { folderName, subfolders, unreadableTrajectory } from "./find-folders";
import { headText, readJsonFile, readTextFile } from "./fs-helpers";
import { IMAGE_FILE, dataUrlImage, isLfsPointer, numberedImages, probeImageFile, screenshotNumber } from "./image-files";
import { ImportError, type ImageRef, type ImportItem, type ImportStep, type ImportTask, type ImportVerdict, type Importer } from "./types";
import { importTask, mind2webLevel } from "./import-task";
import { keyPointList, looksLikeJudgeFileName, readJudgeFile, type JudgeFile, type JudgeRow } from "./webjudge";
import { ONLINE_MIND2WEB_TASK_SET, looksLikeMind2WebTaskFile, mind2webTasks, webVoyagerTasksImporter } from "./webvoyager";

export const ONLINE_MIND2WEB_FORMAT = "online-mind2web";
const RESULT = "result.json";
/** Folders a task folder keeps its screenshots in, most usual first. */
const SHOT_FOLDERS = ["trajectory", "trajectory_with_highlights", "screenshots", "screenshot", "images", "imgs"];
/** A benchmark task id (32 hex digits, optionally with an update suffix such as `_110325`). */
const TASK_ID_NAME = /^[0-9a-f]{32}(?:_\w+)?$/i;
const MAX_DEPTH = 8;

// ---------------------------------------------------------------- finding the pieces

interface Found {
  /** Folders holding a result.json, or named like a task and holding screenshots. */
  taskDirs: string[];
  judgeFiles: string[];
  taskLists: string[];
}

/** Whether a result.json's head reads like Online-Mind2Web (rather than SeeAct's research tool, which shares the name). */
function headLooksLikeResult(head: string): boolean {
  if (/"(exit_by|success_or_not|num_step)"\s*:/.test(head)) return false;
  return (
    /"(final_result_response|agent_final_answer|thoughts|complete_history|Online_Mind2Web_evaluation|judge)"\s*:/.test(head) ||
    (/"task"\s*:/.test(head) && /"task_id"\s*:/.test(head))
  );
}

const head = (file: string, bytes = 8192) => headText(file, bytes);

function hasScreenshotFolder(dir: string): boolean {
  return SHOT_FOLDERS.some((f) => fs.existsSync(path.join(dir, f)));
}

/**
 * Walks the input once: task folders (not searched further), judge result files and task lists anywhere else.
 * `limit` stops early for sniffing.
 */
async function walk(input: string, limit = Infinity): Promise<Found> {
  const found: Found = { taskDirs: [], judgeFiles: [], taskLists: [] };
  const stat = await fsp.stat(input).catch(() => null);
  if (!stat?.isDirectory()) return found;
  let looked = 0;
  async function visit(dir: string, depth: number): Promise<void> {
    if (found.taskDirs.length >= limit || ++looked > 100_000) return;
    const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
    const files = entries.filter((e) => e.isFile()).map((e) => e.name);
    if (files.includes(RESULT) || (TASK_ID_NAME.test(path.basename(dir)) && hasScreenshotFolder(dir))) {
      found.taskDirs.push(dir);
      return;
    }
    for (const name of files) {
      const file = path.join(dir, name);
      if (looksLikeJudgeFileName(file)) found.judgeFiles.push(file);
      else if (/\.jsonl?$/i.test(name) && (await looksLikeTaskList(file))) found.taskLists.push(file);
    }
    if (depth >= MAX_DEPTH) return;
    for (const sub of await subfolders(dir)) await visit(path.join(dir, sub), depth + 1);
  }
  await visit(path.resolve(input), 0);
  return found;
}

/** An Online-Mind2Web task list (JSON array, or its rows as JSON Lines) or a WebVoyager task file. */
export async function looksLikeTaskList(file: string): Promise<boolean> {
  if (file.endsWith(".json")) return looksLikeMind2WebTaskFile(file);
  if (!file.endsWith(".jsonl")) return false;
  const h = await head(file, 4096);
  return /^\s*\{/.test(h) && ((/"confirmed_task"\s*:/.test(h) && /"task_id"\s*:/.test(h)) || (/"ques"\s*:/.test(h) && /"id"\s*:/.test(h)));
}

/**
 * Tasks by id from task lists: Online-Mind2Web's (a JSON array, or the same rows as JSON Lines, as the dataset
 * exports them) and WebVoyager's task files (read as the webvoyager-tasks format reads them, reference answers
 * included). The first list naming a task wins.
 */
export async function readTaskLists(files: string[]): Promise<Map<string, ImportTask>> {
  const tasks = new Map<string, ImportTask>();
  const add = (t: ImportTask) => {
    if (!tasks.has(t.externalId)) tasks.set(t.externalId, t);
  };
  for (const file of files) {
    if (file.endsWith(".jsonl") && /"ques"\s*:/.test(await head(file, 4096))) {
      for await (const item of webVoyagerTasksImporter.read(file, {})) if (item.kind === "task") add(item.task);
      continue;
    }
    let data: unknown;
    if (file.endsWith(".jsonl")) {
      data = (await readTextFile(file))
        .split("\n")
        .map((l, i) => {
          if (!l.trim()) return null;
          try {
            return JSON.parse(l) as unknown;
          } catch (e) {
            throw new ImportError(file, `line ${i + 1}: not valid JSON (${(e as Error).message})`);
          }
        })
        .filter((x) => x !== null);
    } else data = await readJsonFile(file);
    for (const t of mind2webTasks(file, data)) add(t);
  }
  return tasks;
}

// ---------------------------------------------------------------- reading one task folder

function record(v: unknown): Record<string, unknown> | null {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function str(v: unknown): string | null {
  return typeof v === "string" && v.trim() ? v : typeof v === "number" ? String(v) : null;
}

/** The agent's answer: a string as written; an object or list (structured output) as JSON; Python's None as none. */
function answerOf(r: Record<string, unknown>): string | null {
  for (const key of ["final_result_response", "agent_final_answer", "final_answer", "final_result", "answer", "response"]) {
    const v = r[key];
    if (v === undefined || v === null) continue;
    if (typeof v === "string") {
      if (!v.trim() || v.trim() === "None") continue;
      return v;
    }
    return JSON.stringify(v);
  }
  return null;
}

function hostOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).hostname.replace(/^www\./, "") || null;
  } catch {
    return null;
  }
}

interface Shot {
  image: ImageRef | null;
  /** Name shown in messages (file name, or "action 3's screenshot" for inline ones). */
  name: string;
  lfs: boolean;
}

interface RunContext {
  key: string;
  name: string;
  agentName: string;
  tasks: Map<string, ImportTask>;
}

interface FolderShots {
  byNumber: Map<number, { name: string; file: string }>;
  /** Every numbered image in WebJudge's order (the order its per-screenshot records follow). */
  order: string[];
  duplicates: string[];
  /** Images whose names carry no number: they cannot be placed and are named in a warning. */
  unnumbered: string[];
}

/**
 * Screenshots of a task folder by their number, from the first screenshot folder that has any (the task folder
 * itself last); the first of several with one number wins, the others are named.
 */
async function folderShots(dir: string): Promise<FolderShots> {
  for (const sub of [...SHOT_FOLDERS, ""]) {
    const folder = path.join(dir, sub);
    const images = await numberedImages(folder);
    const unnumbered = (await fsp.readdir(folder).catch(() => [] as string[]))
      .filter((n) => IMAGE_FILE.test(n) && screenshotNumber(n) === null)
      .map((n) => path.join(sub, n));
    if (!images.length && !unnumbered.length) continue;
    const byNumber = new Map<number, { name: string; file: string }>();
    const duplicates: string[] = [];
    for (const im of images) {
      const name = path.join(sub, im.name);
      if (byNumber.has(im.n)) duplicates.push(name);
      else byNumber.set(im.n, { name, file: im.file });
    }
    return { byNumber, order: images.map((im) => path.join(sub, im.name)), duplicates, unnumbered };
  }
  return { byNumber: new Map(), order: [], duplicates: [], unnumbered: [] };
}

async function probeShot(file: string, name: string): Promise<Shot | "missing"> {
  const probe = await probeImageFile(file);
  if (probe.kind === "missing") return "missing";
  if (probe.kind === "lfs-pointer") return { image: null, name, lfs: true };
  return { image: probe.ref, name, lfs: false };
}

/** A screenshot named by a step object or listed in `screenshot_paths`: a data URL, or a file looked for by name. */
async function namedShot(ref: string, dir: string, origin: string): Promise<Shot | "missing"> {
  const inline = dataUrlImage(ref, origin);
  if (inline) {
    const bytes = await inline.ref.read();
    return isLfsPointer(bytes) ? { image: null, name: origin, lfs: true } : { image: inline.ref, name: origin, lfs: false };
  }
  // Paths are usually of the machine that ran the agent: only the file name is trusted, looked for in this folder.
  const base = path.basename(ref.replace(/\\/g, "/"));
  if (!IMAGE_FILE.test(base)) return "missing";
  for (const sub of ["", ...SHOT_FOLDERS]) {
    const file = path.join(dir, sub, base);
    if (fs.existsSync(file)) return probeShot(file, path.join(sub, base));
  }
  return "missing";
}

interface StepDraft {
  actionRaw: string | null;
  action: ParsedAction;
  thought: string | null;
  url: string | null;
  error: string | null;
  shot: Shot | null;
  durationMs?: number | null;
  elements?: ImportStep["elements"];
}

/** Outcome from what the result says: an answer, or a status some runners write (`result_status`, `status`). */
function outcomeOf(r: Record<string, unknown>, answered: boolean, steps: number): { outcome: Outcome; detail: string | null } {
  const status = str(r.result_status) ?? str(r.status) ?? str(r.exit_reason) ?? str(r.stop_reason);
  const s = status?.toLowerCase() ?? "";
  if (/step.?limit|max.?step|max_iter|too many steps/.test(s)) return { outcome: "step_limit", detail: status };
  if (/time.?out|time.?limit/.test(s)) return { outcome: "time_limit", detail: status };
  if (/error|exception|crash/.test(s)) return { outcome: "error", detail: status };
  if (/cancel|abort|interrupt/.test(s)) return { outcome: "cancelled", detail: status };
  if (answered) return { outcome: "answered", detail: status ? `result_status: ${status} (the agent's own status, not a verdict)` : null };
  if (/captcha|block/.test(s)) return { outcome: "blocked", detail: status };
  return { outcome: "unknown", detail: status ? `result_status: ${status}` : steps ? "no answer was recorded" : "no actions and no answer were recorded" };
}

/** A judge's score in any encoding ("100", 100, 0.85, true, "PASS") as a verdict; the score as written is kept. */
export function judgeScoreVerdict(judge: Record<string, unknown>): { verdict: ImportVerdict["verdict"]; score: number | null } {
  for (const key of ["success", "passed", "verdict", "is_success", "result"]) {
    const v = judge[key];
    if (typeof v === "boolean") return { verdict: v ? "success" : "failure", score: typeof judge.score === "number" ? judge.score : v ? 1 : 0 };
    if (typeof v === "string") {
      const t = v.trim().toLowerCase();
      if (/^(success|successful|pass|passed|yes|true|correct)$/.test(t)) return { verdict: "success", score: numberOf(judge.score) };
      if (/^(failure|fail|failed|no|false|incorrect|unsuccessful)$/.test(t)) return { verdict: "failure", score: numberOf(judge.score) };
    }
  }
  const raw = judge.score ?? judge.label ?? judge.rating;
  if (typeof raw === "boolean") return { verdict: raw ? "success" : "failure", score: raw ? 1 : 0 };
  if (typeof raw === "string" && /^(pass|passed|success|successful)$/i.test(raw.trim())) return { verdict: "success", score: null };
  if (typeof raw === "string" && /^(fail|failed|failure|unsuccessful)$/i.test(raw.trim())) return { verdict: "failure", score: null };
  const n = numberOf(raw);
  if (n === null) return { verdict: "unparseable", score: null };
  const max = numberOf(judge.max_score) ?? numberOf(judge.scale) ?? (n > 1 ? 100 : 1);
  return { verdict: n / max >= 0.5 ? "success" : "failure", score: n };
}

function numberOf(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string") {
    const m = /^\s*(-?\d+(?:\.\d+)?)\s*(%|\/\s*\d+)?\s*$/.exec(v);
    if (m) return Number(m[1]);
  }
  return null;
}

function resultJudgeVerdicts(r: Record<string, unknown>): ImportVerdict[] {
  const out: ImportVerdict[] = [];
  const judge = record(r.judge) ?? record(r.judgement) ?? record(r.evaluation);
  if (judge) {
    const { verdict, score } = judgeScoreVerdict(judge);
    out.push({
      evaluator: (str(judge.name) ?? str(judge.model)) ? `Judge in result.json (${str(judge.name) ?? str(judge.model)})` : "Judge in result.json",
      key: "import:online-mind2web:result-judge",
      evaluatorKind: "judge",
      verdict,
      score,
      rationale: str(judge.reasoning) ?? str(judge.reason) ?? str(judge.explanation) ?? str(judge.feedback) ?? str(judge.response),
      raw: judge,
      model: str(judge.model),
    });
  }
  const bu = record(r.Online_Mind2Web_evaluation);
  if (bu) {
    const error = str(bu.error);
    const success = typeof bu.success === "boolean" ? bu.success : null;
    out.push({
      evaluator: "Browser Use eval (WebJudge)",
      key: "import:online-mind2web:browser-use-eval",
      evaluatorKind: "judge",
      verdict: error ? "not_evaluable" : success === null ? "unparseable" : success ? "success" : "failure",
      score: numberOf(bu.score),
      rationale: error ? `The evaluation failed: ${error}` : str(bu.judgement),
      raw: bu,
    });
  }
  return out;
}

/** The verdict one WebJudge row gives a trajectory, with its key points and the steps its key screenshots show. */
function judgeFileVerdict(
  file: JudgeFile,
  row: JudgeRow,
  stepOfImage: (i: number) => number | null,
  imageCount: number,
  warn: (m: string) => void,
): ImportVerdict {
  const scores = row.imageScores ?? [];
  const aligned = scores.length > 0 && scores.length === imageCount;
  if (scores.length && !aligned) {
    warn(`${path.basename(file.file)} scored ${scores.length} screenshots but the task folder has ${imageCount}: its scores are kept without their steps`);
  }
  const screenshots = scores.map((s, i) => ({ step: aligned ? stepOfImage(i) : null, score: s.score, reasoning: s.response }));
  const key = aligned ? screenshots.filter((s) => s.score !== null && s.score >= file.threshold && s.step !== null).map((s) => s.step!) : [];
  const keyPoints = keyPointList(row.keyPoints);
  const details: Record<string, unknown> = { threshold: file.threshold, source: path.basename(file.file) };
  if (keyPoints.length) details.keyPoints = keyPoints;
  if (screenshots.length) details.screenshots = screenshots;
  return {
    evaluator: file.evaluator,
    key: file.key,
    evaluatorKind: "judge",
    verdict: row.label === 1 ? "success" : row.label === 0 ? "failure" : "unparseable",
    score: row.label,
    rationale: row.response,
    raw: row.raw,
    model: file.model,
    ...(aligned ? { stepIndices: [...new Set(key)].sort((a, b) => a - b) } : {}),
    details,
  };
}

/** The task's result file as a JSON object, refused with the reason when it is missing, an LFS pointer or not an object. */
async function readResult(dir: string): Promise<{ file: string; r: Record<string, unknown> }> {
  const file = path.join(dir, RESULT);
  if (!fs.existsSync(file))
    throw new ImportError(file, "is missing: the folder looks like an Online-Mind2Web task (its name and screenshots) but has no result");
  const rawHead = await head(file, 200);
  if (isLfsPointer(Buffer.from(rawHead))) throw new ImportError(file, "is a Git LFS pointer file, not the result (the clone was made without `git lfs pull`)");
  const r = record(await readJsonFile(file));
  if (!r) throw new ImportError(file, "expected a JSON object");
  return { file, r };
}

/** The steps the result records, without screenshots yet, and the length of its action history. */
function stepDrafts(r: Record<string, unknown>, file: string, warnings: string[]): { drafts: StepDraft[]; history: unknown[] } {
  const history = Array.isArray(r.action_history) ? r.action_history : r.action_history === undefined || r.action_history === null ? [] : null;
  if (history === null) throw new ImportError(file, `"action_history" is not a list`);
  const thoughts = Array.isArray(r.thoughts) ? r.thoughts : [];
  const complete = Array.isArray(r.complete_history) && r.complete_history.length ? r.complete_history : null;
  const drafts: StepDraft[] = [];
  if (complete) {
    // Browser Use's evaluation output: its full history is richer than the extracted-content action_history.
    for (const entry of complete) {
      const parts = browserUseStepParts(entry);
      drafts.push({
        actionRaw: parts.actionRaw,
        action: parts.action,
        thought: parts.thought,
        url: parts.url,
        error: parts.error,
        durationMs: parts.durationMs,
        elements: parts.elements,
        shot: null,
      });
    }
  } else {
    for (const [i, entry] of history.entries()) {
      const parsed = parseMind2WebEntry(entry);
      const o = record(entry);
      const thought = str(thoughts[i]) ?? (o ? (str(o.thought) ?? str(o.reasoning) ?? str(o.thoughts)) : null);
      drafts.push({
        actionRaw: typeof entry === "string" ? entry : JSON.stringify(entry),
        action: parsed.action,
        thought: thought?.trim() ? thought.trim() : null,
        url: o ? str(o.url) : null,
        error: parsed.failure ?? (o ? str(o.error) : null),
        shot: null,
      });
    }
  }
  if (thoughts.length > history.length && !complete)
    warnings.push(`"thoughts" has ${thoughts.length} entries for ${history.length} actions: the extra ones are not shown`);
  return { drafts, history };
}

/** Where the screenshots went: those past the last action, and each folder image's step (negative: an extra shot). */
interface PlacedShots {
  folder: Awaited<ReturnType<typeof folderShots>>;
  extraShots: Shot[];
  stepOfImage: Map<number, number>;
}

/**
 * Gives each step its screenshot: named per step, listed in the result, or numbered in the folder. Every image that
 * cannot be placed or read is named in a warning.
 */
async function placeShots(dir: string, r: Record<string, unknown>, history: unknown[], drafts: StepDraft[], warnings: string[]): Promise<PlacedShots> {
  const folder = await folderShots(dir);
  let lfs = 0;
  let images = 0;
  const missing: string[] = [];
  const take = (s: Shot | "missing", name: string): Shot | null => {
    if (s === "missing") {
      missing.push(name);
      return null;
    }
    images++;
    if (s.lfs) lfs++;
    return s;
  };
  const perStep = history.map((e) => {
    const o = record(e);
    return o ? (str(o.screenshot) ?? str(o.screenshot_path) ?? str(o.image)) : null;
  });
  const listedPaths = Array.isArray(r.screenshot_paths) ? r.screenshot_paths.map(str) : null;
  const extraShots: Shot[] = [];
  const stepOfImage = new Map<number, number>();
  if (perStep.some((p) => p !== null)) {
    for (const [i, ref] of perStep.entries())
      if (ref)
        drafts[i]!.shot = take(await namedShot(ref, dir, `action ${i + 1}'s screenshot`), ref.startsWith("data:") ? `action ${i + 1}'s screenshot` : ref);
  } else if (listedPaths && listedPaths.some((p) => p !== null) && !folder.byNumber.size) {
    for (const [i, ref] of listedPaths.entries()) {
      if (!ref) continue;
      const n = screenshotNumber(ref) ?? i;
      const shot = take(await namedShot(ref, dir, `screenshot ${i + 1}`), path.basename(ref));
      if (shot && n < drafts.length) drafts[n]!.shot = shot;
      else if (shot) extraShots.push(shot);
    }
  } else {
    const numbers = [...folder.byNumber.keys()].sort((a, b) => a - b);
    // Numbers normally count actions (at most one past the last). Numbers that cannot (timestamps, a counter of
    // screenshots taken every few seconds) are matched to the actions in order instead, and the report says so.
    const counting = !numbers.length || numbers[numbers.length - 1]! <= drafts.length;
    if (!counting) {
      warnings.push(
        `the screenshots' numbers (${numbers[0]}…${numbers[numbers.length - 1]}) do not count the ${drafts.length} actions: they are matched to the actions in order`,
      );
    }
    for (const [rank, number] of numbers.entries()) {
      const n = counting ? number : rank;
      const f = folder.byNumber.get(number)!;
      const shot = take(await probeShot(f.file, f.name), f.name);
      if (!shot) continue;
      if (n < drafts.length) {
        drafts[n]!.shot = shot;
        stepOfImage.set(folder.order.indexOf(f.name), n);
      } else {
        stepOfImage.set(folder.order.indexOf(f.name), -1 - extraShots.length);
        extraShots.push(shot);
      }
    }
    if (folder.unnumbered.length) {
      warnings.push(
        `${folder.unnumbered.length} image${folder.unnumbered.length === 1 ? " has" : "s have"} no step number in ${folder.unnumbered.length === 1 ? "its" : "their"} name and ${folder.unnumbered.length === 1 ? "is" : "are"} not shown: ${folder.unnumbered.slice(0, 5).join(", ")}`,
      );
    }
    if (folder.duplicates.length)
      warnings.push(
        `${folder.duplicates.length} screenshot${folder.duplicates.length === 1 ? "" : "s"} repeat a number already used and are not shown: ${folder.duplicates.slice(0, 5).join(", ")}`,
      );
  }
  if (lfs)
    warnings.push(
      `${lfs} of ${images} screenshots are Git LFS pointer files, not images (the clone was made without \`git lfs pull\`): the steps are imported without them`,
    );
  if (missing.length)
    warnings.push(`${missing.length} screenshot${missing.length === 1 ? " is" : "s are"} named but not found: ${missing.slice(0, 5).join(", ")}`);
  return { folder, extraShots, stepOfImage };
}

/**
 * The end of the trajectory: the answer joins a final answer action, and screenshots past the last action become
 * steps of their own. Returns the step a folder image ended up on (null: not shown).
 */
function appendEnd(
  drafts: StepDraft[],
  answer: string | null,
  placed: PlacedShots,
): { endsWithAnswer: boolean; answerAction: string | null; resolveImageStep: (i: number) => number | null } {
  const { extraShots, stepOfImage } = placed;
  const lastAction = drafts.length ? drafts[drafts.length - 1]!.action : null;
  const endsWithAnswer = lastAction?.type === "answer";
  if (endsWithAnswer && answer && !lastAction.value) lastAction.value = answer;
  const needsEnd = (drafts.length > 0 || extraShots.length > 0) && (extraShots.length > 0 || (answer !== null && !endsWithAnswer));
  const base = drafts.length;
  if (needsEnd) {
    for (const s of extraShots.slice(0, -1))
      drafts.push({ actionRaw: null, action: { type: "noop", value: "screenshot after the last action" }, thought: null, url: null, error: null, shot: s });
    const last = extraShots[extraShots.length - 1] ?? null;
    if (answer !== null && !endsWithAnswer)
      drafts.push({ actionRaw: null, action: { type: "answer", value: answer }, thought: null, url: null, error: null, shot: last });
    else if (last)
      drafts.push({ actionRaw: null, action: { type: "noop", value: "screenshot after the last action" }, thought: null, url: null, error: null, shot: last });
  }
  const resolveImageStep = (i: number): number | null => {
    const s = stepOfImage.get(i);
    if (s === undefined) return null;
    return s >= 0 ? s : base + (-1 - s);
  };
  return { endsWithAnswer, answerAction: endsWithAnswer ? (lastAction.value ?? null) : null, resolveImageStep };
}

/** The task as the task list names it, or as the result describes it. */
function taskOfResult(r: Record<string, unknown>, taskId: string, intent: string, listed: ImportTask | undefined, drafts: StepDraft[]): ImportTask {
  if (listed) return { ...listed };
  // Without a website in the result or the task list, the first page the agent went to is where the task starts
  // (the benchmark starts every task on its website).
  const firstPage = drafts.find((d) => d.action.type === "goto" && /^https?:\/\//i.test(d.action.value ?? ""))?.action.value ?? null;
  const website = str(r.website) ?? str(r.start_url) ?? str(r.url) ?? firstPage;
  const level = typeof r.level === "string" ? r.level : null;
  return importTask({
    taskSet: ONLINE_MIND2WEB_TASK_SET,
    externalId: taskId,
    site: hostOf(website),
    intent: intent.trim(),
    startUrl: website,
    ...mind2webLevel(level),
    extra: typeof r.reference_length === "number" ? { reference_length: r.reference_length } : null,
  });
}

async function readTask(dir: string, run: RunContext, judges: JudgeFile[]): Promise<ImportItem> {
  const { file, r } = await readResult(dir);
  const taskId = str(r.task_id)?.trim() ?? path.basename(dir);
  const listed = run.tasks.get(taskId);
  const intent = str(r.task) ?? str(r.confirmed_task) ?? str(r.intent) ?? str(r.instruction) ?? listed?.intent ?? null;
  if (!intent) throw new ImportError(file, `has no task text ("task" or "confirmed_task") and task ${taskId} is not in a task list`);
  const warnings: string[] = [];
  const { drafts, history } = stepDrafts(r, file, warnings);
  const placed = await placeShots(dir, r, history, drafts, warnings);
  const answer = answerOf(r);
  const { endsWithAnswer, answerAction, resolveImageStep } = appendEnd(drafts, answer, placed);
  const steps: ImportStep[] = drafts.map((d, index) => ({
    index,
    screenshot: d.shot?.image ?? null,
    rawScreenshot: null,
    marksBurnedIn: false,
    ...stepContent(d),
    durationMs: d.durationMs ?? null,
  }));

  const verdicts = resultJudgeVerdicts(r);
  for (const j of judges) {
    const row = j.rows.find((x) => x.taskId === taskId);
    if (row) verdicts.push(judgeFileVerdict(j, row, resolveImageStep, placed.folder.order.length, (m) => warnings.push(m)));
  }

  const selfReport = typeof r.self_report_success === "boolean" ? r.self_report_success : null;
  const ended = outcomeOf(r, answer !== null || endsWithAnswer, steps.length);
  const detail = selfReport === null ? ended.detail : `the agent reported ${selfReport ? "success" : "failure"} (its own claim, not a verdict)`;
  return {
    kind: "trajectory",
    trajectory: {
      task: taskOfResult(r, taskId, intent, listed, drafts),
      run: {
        runKey: run.key,
        name: run.name,
        agentName: str(r.agent) ?? str(r.agent_name) ?? run.agentName,
        model: str(r.model) ?? str(r.model_name) ?? str(r.llm),
        sourceSystem: ONLINE_MIND2WEB_FORMAT,
        config: null,
      },
      attempt: 0,
      finalAnswer: answer ?? answerAction,
      outcome: ended.outcome,
      outcomeDetail: detail,
      sourcePath: dir,
      sourceFiles: [path.join(dir, RESULT)].filter((f) => fs.existsSync(f)),
      steps,
      verdicts,
      warnings,
    },
  };
}

// ---------------------------------------------------------------- the importer

interface RunGroup {
  dir: string;
  tasks: string[];
}

function groupRuns(taskDirs: string[]): RunGroup[] {
  const groups = new Map<string, string[]>();
  for (const d of taskDirs) {
    const parent = path.dirname(d);
    groups.set(parent, [...(groups.get(parent) ?? []), d]);
  }
  return [...groups].map(([dir, tasks]) => ({ dir, tasks }));
}

/** The run a judge file speaks about: the runs under the nearest folder above it (or its own) that holds any. */
function runsInScope(file: string, runs: RunGroup[]): RunGroup[] {
  let dir = path.dirname(path.resolve(file));
  for (;;) {
    const inside = runs.filter((r) => r.dir === dir || r.dir.startsWith(dir + path.sep));
    if (inside.length) return inside;
    const up = path.dirname(dir);
    if (up === dir) return [];
    dir = up;
  }
}

async function taskIdOf(dir: string): Promise<string> {
  const h = await head(path.join(dir, RESULT), 4096);
  const m = /"task_id"\s*:\s*"([^"]+)"/.exec(h) ?? /"task_id"\s*:\s*(\d+)/.exec(h);
  return m ? m[1]!.trim() : path.basename(dir);
}

export const onlineMind2WebImporter: Importer = {
  format: ONLINE_MIND2WEB_FORMAT,
  description:
    "Online-Mind2Web results: <task_id>/result.json + trajectory/<n>_full_screenshot.png at any depth (answer-only submissions too), with the task list and WebJudge *_auto_eval_results.json files",
  async sniff(input) {
    const found = await walk(input, 5);
    for (const dir of found.taskDirs) {
      const h = await head(path.join(dir, RESULT));
      if (headLooksLikeResult(h)) return 0.9;
      if (isLfsPointer(Buffer.from(h)) || (!h && TASK_ID_NAME.test(path.basename(dir)))) return 0.6;
    }
    return 0;
  },
  async *read(input, options) {
    const found = await walk(input);
    if (!found.taskDirs.length)
      throw new ImportError(input, "no Online-Mind2Web results found (folders with result.json, or task folders with trajectory/ screenshots)");
    const runs = groupRuns(found.taskDirs);
    options.onTotal?.(found.taskDirs.length);

    const taskFiles = [...found.taskLists, ...(options.tasksFile ? [options.tasksFile] : [])];
    let tasks = new Map<string, ImportTask>();
    try {
      tasks = await readTaskLists(taskFiles);
    } catch (e) {
      if (!(e instanceof ImportError)) throw e;
      yield { kind: "skipped", path: e.file, reason: `task list not used: ${e.problem}` };
    }

    // Judge files: one evaluator each, read before the trajectories they give verdicts to.
    const judges = new Map<RunGroup, JudgeFile[]>();
    const named = new Set((options.evalLogs ?? []).map((f) => path.resolve(f)));
    for (const f of [...new Set([...found.judgeFiles.map((f) => path.resolve(f)), ...named])]) {
      let judge: JudgeFile;
      try {
        judge = await readJudgeFile(f);
      } catch (e) {
        if (!(e instanceof ImportError)) throw e;
        // A file only named like a judge's is passed over when it holds something else; one named by the user is not.
        if (named.has(f) || /auto_eval_results/i.test(f)) yield { kind: "skipped", path: e.file, reason: e.problem };
        continue;
      }
      const scope = named.has(f) ? runs : runsInScope(f, runs);
      const ids = new Map<string, RunGroup[]>();
      for (const run of scope) {
        for (const dir of run.tasks) {
          const id = await taskIdOf(dir);
          ids.set(id, [...(ids.get(id) ?? []), run]);
        }
      }
      const unmatched = judge.rows.filter((row) => !ids.has(row.taskId)).map((row) => row.taskId);
      for (const run of scope)
        judges.set(run, [...(judges.get(run) ?? []), { ...judge, rows: judge.rows.filter((row) => ids.get(row.taskId)?.includes(run)) }]);
      if (unmatched.length) {
        yield {
          kind: "skipped",
          path: f,
          reason: `${unmatched.length} of ${judge.rows.length} verdicts name tasks not in this import (${unmatched.slice(0, 3).join(", ")}${unmatched.length > 3 ? ", …" : ""})`,
        };
      }
    }

    for (const run of runs) {
      // Named by its folder as the person knows it (an upload's unpacked folder is the zip), never where it sits.
      const name = folderName(run.dir, options.renamed);
      const ctx: RunContext = { key: `${ONLINE_MIND2WEB_FORMAT}:${name}`, name, agentName: name, tasks };
      const attempts = new Map<string, number>();
      for (const dir of run.tasks) {
        let item: ImportItem;
        try {
          item = await readTask(dir, ctx, judges.get(run) ?? []);
        } catch (e) {
          item = unreadableTrajectory(dir, e);
        }
        if (item.kind === "trajectory") {
          // The same task twice in one run (a retry kept beside the first attempt): attempts in folder order.
          const id = item.trajectory.task.externalId;
          const n = attempts.get(id) ?? 0;
          attempts.set(id, n + 1);
          item.trajectory.attempt = n;
        }
        yield item;
      }
    }
  },
};
