/**
 * AgentRewardBench trajectories (the HF dataset `McGill-NLP/agent-reward-bench`):
 *   trajectories/cleaned/<benchmark>/<agent>/<experiment>/<task_id>.json        one trajectory (can be ~200 MB)
 *   trajectories/screenshots/<benchmark>/<agent>/<task_id>/screenshot_step_<k>.png
 *   trajectories/judgments/<benchmark>/<agent>/<judge>/<task_id>.json            one judge's verdict
 *
 * The trajectory JSON is BrowserGym's episode with per-step observations. It is streamed token by token: the
 * bulky per-step fields (accessibility trees, DOM, chat transcripts) are dropped by the tokenizer before any
 * object is built, and each step is reduced to what Verdict keeps before the next one is read, so memory stays
 * bounded by the largest single step, not the file.
 *
 * Per step: `action` (a BrowserGym call string, parsed by the BrowserGym grammar; null on the final observation),
 * `reasoning`, `url`, `last_action_error` (the error of the *previous* step's action), `screenshot_path`, and
 * `extra_element_properties` `{bid: {bbox:[x,y,w,h], set_of_marks, visibility, clickable}}`, which become the
 * Set-of-Marks elements (labels are bids; tag and name come from `axtree_pruned` when present).
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import Assembler from "stream-json/assembler.js";
import ignore from "stream-json/filters/ignore.js";
import { actionCalls, browserGymAnswer, parseBrowserGymAction } from "../domain/actions/browsergym";
import type { Outcome, ParsedAction, SomElement } from "../domain/types";
import { browserGymTask, checkSummary, cumRewardVerdict, type SummaryInfo } from "./browsergym";
import { fileImage, headText, isDir, withinBoundary } from "./fs-helpers";
import { ImportError, type EvaluatorLogReport, type ImportItem, type ImportStep, type ImportVerdict, type Importer } from "./types";

/** Per-step fields never needed for playback; dropped while tokenizing. */
const DROPPED_STEP_FIELDS = new Set(["axtree_obj", "axtree", "chat_messages", "dom", "dom_object", "dom_txt", "pruned_html", "html", "bounding_boxes"]);
/** Top-level fields never needed; `logs` can be long. */
const DROPPED_TOP_FIELDS = new Set(["logs", "chat_messages"]);
const HEAD_BYTES = 64 * 1024;
const MAX_JUDGMENT_BYTES = 64 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------------------------
// Streaming read

interface CompactStep {
  num: number | null;
  action: string | null | undefined;
  reasoning: string | null;
  url: string | null;
  lastActionError: string | null;
  screenshotPath: string | null;
  elements: SomElement[] | null;
  durationMs: number | null;
}

interface StreamedTrajectory {
  top: Record<string, unknown>;
  steps: CompactStep[];
  hasSteps: boolean;
}

/** `[12] button 'Search', clickable` lines of the pruned accessibility tree: bid → role and name. */
function axtreeIndex(text: unknown): Map<string, { tag: string | null; text: string | null }> {
  const out = new Map<string, { tag: string | null; text: string | null }>();
  if (typeof text !== "string") return out;
  for (const line of text.split("\n")) {
    const m = /^\s*\[([a-zA-Z]*\d+)\]\s+(\S+)(?:\s+'((?:[^'\\]|\\.)*)')?/.exec(line);
    if (m && !out.has(m[1]!)) out.set(m[1]!, { tag: m[2]!, text: m[3] ? m[3] : null });
  }
  return out;
}

function bboxOf(v: unknown): [number, number, number, number] | null {
  if (!Array.isArray(v) || v.length !== 4 || !v.every((x) => typeof x === "number" && Number.isFinite(x))) return null;
  return [v[0], v[1], v[2], v[3]];
}

/** Marked elements, plus any element the step's action targets (so its box can be drawn even if unmarked). */
export function elementsFromProperties(props: unknown, targets: Set<string>, axtree: unknown): SomElement[] | null {
  if (!props || typeof props !== "object" || Array.isArray(props)) return null;
  const names = axtreeIndex(axtree);
  const out: SomElement[] = [];
  for (const [bid, p] of Object.entries(props as Record<string, unknown>)) {
    if (!p || typeof p !== "object") continue;
    const info = p as { bbox?: unknown; set_of_marks?: unknown };
    const bbox = bboxOf(info.bbox);
    if (!bbox) continue;
    if (info.set_of_marks !== true && info.set_of_marks !== 1 && !targets.has(bid)) continue;
    const n = names.get(bid);
    out.push({ label: bid, bbox, tag: n?.tag ?? null, text: n?.text ?? null });
  }
  return out;
}

function compactStep(raw: unknown, index: number, file: string): CompactStep {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new ImportError(file, `steps[${index}] is not an object`);
  const s = raw as Record<string, unknown>;
  if (s.action !== undefined && s.action !== null && typeof s.action !== "string") {
    throw new ImportError(file, `steps[${index}].action is not a string or null`);
  }
  const action = s.action as string | null | undefined;
  const targets = new Set<string>();
  if (typeof action === "string") {
    for (const c of actionCalls(parseBrowserGymAction(action))) if (c.target) targets.add(c.target);
  }
  const props = s.extra_element_properties;
  const stats = s.stats && typeof s.stats === "object" ? (s.stats as Record<string, unknown>) : null;
  const elapsed = stats && typeof stats.step_elapsed === "number" ? stats.step_elapsed : null;
  return {
    num: typeof s.num === "number" && Number.isInteger(s.num) && s.num >= 0 ? s.num : null,
    action,
    reasoning: typeof s.reasoning === "string" && s.reasoning.trim() ? s.reasoning : null,
    url: typeof s.url === "string" && s.url ? s.url : null,
    lastActionError: typeof s.last_action_error === "string" && s.last_action_error.trim() ? s.last_action_error.trim() : null,
    screenshotPath: typeof s.screenshot_path === "string" && s.screenshot_path ? s.screenshot_path : null,
    elements: elementsFromProperties(props, targets, s.axtree_pruned),
    durationMs: elapsed !== null ? Math.round(elapsed * 1000) : null,
  };
}

function dropFilter(stack: (string | number | null)[]): boolean {
  if (stack.length === 1) return typeof stack[0] === "string" && DROPPED_TOP_FIELDS.has(stack[0]);
  return stack.length === 3 && stack[0] === "steps" && typeof stack[2] === "string" && DROPPED_STEP_FIELDS.has(stack[2]);
}

type Token = { name: string; value?: unknown };

/** Streams one trajectory file: top-level scalars and small objects are assembled, steps compacted one by one. */
export async function streamTrajectory(file: string): Promise<StreamedTrajectory> {
  // Small reads: the tokenizer turns each chunk into one batch of tokens, so the chunk size bounds that batch.
  const source = fs.createReadStream(file, { highWaterMark: 16 * 1024 });
  const tokens = source.pipe(ignore.withParserAsStream({ filter: dropFilter, streamValues: false }));
  source.on("error", (e) => tokens.destroy(e));
  const top: Record<string, unknown> = {};
  const steps: CompactStep[] = [];
  let hasSteps = false;
  let depth = 0;
  let key: string | null = null;
  let inSteps = false;
  let asm: Assembler | null = null;
  let asmIsStep = false;
  try {
    for await (const t of tokens as AsyncIterable<Token>) {
      if (asm) {
        asm.consume(t as never);
        if (asm.done) {
          if (asmIsStep) steps.push(compactStep(asm.current, steps.length, file));
          else if (key !== null) top[key] = asm.current;
          asm = null;
        }
        continue;
      }
      if (depth === 0) {
        if (t.name !== "startObject") throw new ImportError(file, "is not a JSON object (expected an AgentRewardBench trajectory)");
        depth = 1;
        continue;
      }
      if (inSteps) {
        if (t.name === "endArray") {
          inSteps = false;
        } else if (t.name === "startObject" || t.name === "startArray") {
          asm = new Assembler();
          asmIsStep = true;
          asm.consume(t as never);
        } else {
          throw new ImportError(file, `steps[${steps.length}] is not an object`);
        }
        continue;
      }
      switch (t.name) {
        case "keyValue":
          key = String(t.value);
          break;
        case "startObject":
        case "startArray":
          if (key === "steps") {
            if (t.name !== "startArray") throw new ImportError(file, `"steps" is not a list`);
            inSteps = true;
            hasSteps = true;
          } else {
            asm = new Assembler();
            asmIsStep = false;
            asm.consume(t as never);
          }
          break;
        case "stringValue":
          if (key === "steps") throw new ImportError(file, `"steps" is not a list`);
          if (key !== null) top[key] = t.value;
          break;
        case "numberValue":
          if (key === "steps") throw new ImportError(file, `"steps" is not a list`);
          if (key !== null) top[key] = Number(t.value);
          break;
        case "trueValue":
        case "falseValue":
        case "nullValue":
          if (key === "steps" && t.name !== "nullValue") throw new ImportError(file, `"steps" is not a list`);
          if (key !== null) top[key] = t.name === "trueValue" ? true : t.name === "falseValue" ? false : null;
          break;
        case "endObject":
          depth = 0;
          break;
      }
    }
  } catch (e) {
    if (e instanceof ImportError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new ImportError(file, "file is missing");
    throw new ImportError(file, `is not valid JSON (${(e as Error).message})`);
  } finally {
    source.destroy();
  }
  if (depth !== 0 || asm) throw new ImportError(file, "is not valid JSON (the file ends early)");
  return { top, steps, hasSteps };
}

// ---------------------------------------------------------------------------------------------------------------
// Layout: dataset root, screenshots, judgments

interface Layout {
  /** The `trajectories` folder (parent of `cleaned/`), when the file sits under one. */
  trajectoriesDir: string | null;
  benchmark: string | null;
  agent: string | null;
  experiment: string | null;
  taskId: string;
}

/** Task id = the file name without its final extension (names hold dots: `visualwebarena.resized.398.json`). */
function layoutOf(file: string): Layout {
  const abs = path.resolve(file);
  const taskId = path.basename(abs).replace(/\.json$/i, "");
  const parts = abs.split(path.sep);
  const at = parts.lastIndexOf("cleaned");
  if (at > 0 && parts.length - at >= 4) {
    return {
      trajectoriesDir: parts.slice(0, at).join(path.sep) || path.sep,
      benchmark: parts[at + 1]!,
      agent: parts[at + 2]!,
      experiment: parts.length - at >= 5 ? parts[at + 3]! : null,
      taskId,
    };
  }
  return { trajectoriesDir: null, benchmark: null, agent: null, experiment: null, taskId };
}

/**
 * The dataset root an import may read from: the folder holding `trajectories/` when the input lies inside a
 * dataset (`…/trajectories/cleaned/<b>/<a>`), else the input folder (or a single file's folder).
 */
async function datasetRootOf(input: string): Promise<string> {
  const abs = path.resolve(input);
  const parts = abs.split(path.sep);
  const at = parts.lastIndexOf("cleaned");
  if (at > 0) {
    const holder = parts.slice(0, at).join(path.sep) || path.sep;
    return path.basename(holder) === "trajectories" ? path.dirname(holder) : holder;
  }
  return (await isDir(abs)) ? abs : path.dirname(abs);
}

/** Whether `p` is `root` or below it, once symbolic links are resolved. */
function isInside(p: string, rootReal: string): boolean {
  let real: string;
  try {
    real = fs.realpathSync(p);
  } catch {
    return false;
  }
  return real === rootReal || real.startsWith(rootReal.endsWith(path.sep) ? rootReal : rootReal + path.sep);
}

/**
 * Resolves a step's `screenshot_path` ("trajectories/screenshots/<b>/<a>/<task>/screenshot_step_k.png"): against
 * every ancestor of the JSON file up to the dataset root, with and without the leading `trajectories/`, then by
 * file name in the usual places. Never outside the dataset root, links included: a crafted dataset must not pull
 * other files of this machine into the store. Null when the screenshot is not there (subsets often ship without).
 */
function resolveScreenshot(shotPath: string | null, num: number, file: string, layout: Layout, root: { dir: string; real: string }): string | null {
  const rel = (shotPath ?? "").replace(/\\/g, "/").replace(/^\.?\//, "");
  const base = shotPath ? path.posix.basename(rel) : `screenshot_step_${num}.png`;
  const candidates: string[] = [];
  if (rel && !path.isAbsolute(rel) && !rel.split("/").includes("..")) {
    const stripped = rel.replace(/^trajectories\//, "");
    let dir = path.dirname(path.resolve(file));
    for (;;) {
      candidates.push(path.join(dir, rel), path.join(dir, stripped));
      const parent = path.dirname(dir);
      if (dir === root.dir || parent === dir || !parent.startsWith(root.dir)) break;
      dir = parent;
    }
  }
  if (layout.trajectoriesDir && layout.benchmark && layout.agent) {
    candidates.push(path.join(layout.trajectoriesDir, "screenshots", layout.benchmark, layout.agent, layout.taskId, base));
  }
  const here = path.dirname(path.resolve(file));
  candidates.push(
    path.join(here, layout.taskId, base),
    path.join(here, "screenshots", layout.taskId, base),
    path.join(here, "screenshots", base),
    path.join(here, base),
  );
  return candidates.find((c) => fs.existsSync(c) && isInside(c, root.real)) ?? null;
}

/** Judge verdict from a reply: `<success>` tags (ARB's judges), `Status:` (AER), `Reward: n` (NNetNav, ≥ 4 = success). */
export function parseJudgeReply(judge: string, content: string): Pick<ImportVerdict, "verdict" | "score" | "rationale"> & { extra: Record<string, string> } {
  const tag = (name: string) => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`, "i").exec(content)?.[1]?.trim() ?? null;
  const extra: Record<string, string> = {};
  for (const k of ["side", "optimal", "loop"]) {
    const v = tag(k);
    if (v !== null) extra[k] = v;
  }
  const success = tag("success");
  if (success !== null) {
    const v = /^unsuccessful/i.test(success) ? "failure" : /^successful/i.test(success) ? "success" : "unparseable";
    return { verdict: v, score: v === "success" ? 1 : v === "failure" ? 0 : null, rationale: tag("reasoning"), extra };
  }
  const status = /Status:\s*"?(success|failure)"?/i.exec(content);
  if (status && !/^nnetnav/i.test(judge)) {
    const ok = status[1]!.toLowerCase() === "success";
    const thoughts = /Thoughts?:\s*([\s\S]*?)(?:\n\s*Status:|$)/i.exec(content)?.[1]?.trim() ?? null;
    return { verdict: ok ? "success" : "failure", score: ok ? 1 : 0, rationale: thoughts, extra };
  }
  const reward = /Reward:\s*(\d+(?:\.\d+)?)/i.exec(content);
  if (reward) {
    const n = Number(reward[1]);
    const thought = /Thoughts?:\s*([\s\S]*?)(?:\n\s*Reward:|$)/i.exec(content)?.[1]?.trim() ?? null;
    return { verdict: n >= 4 ? "success" : "failure", score: n, rationale: thought, extra };
  }
  return { verdict: "unparseable", score: null, rationale: null, extra };
}

/** Judgment folders an import read from, and the judgment files of each it took, for the report. */
type JudgmentsRead = Map<string, { evaluator: string; used: Map<string, string> }>;

async function judgmentVerdicts(layout: Layout, read: JudgmentsRead): Promise<ImportVerdict[]> {
  if (!layout.trajectoriesDir || !layout.benchmark || !layout.agent) return [];
  const root = path.join(layout.trajectoriesDir, "judgments", layout.benchmark, layout.agent);
  const judges = await fsp.readdir(root, { withFileTypes: true }).catch(() => []);
  const out: ImportVerdict[] = [];
  for (const j of judges.filter((d) => d.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const judgeDir = path.join(root, j.name);
    const seen = read.get(judgeDir) ?? { evaluator: `agentrewardbench:${j.name}`, used: new Map<string, string>() };
    read.set(judgeDir, seen);
    const file = path.join(root, j.name, `${layout.taskId}.json`);
    const stat = await fsp.stat(file).catch(() => null);
    // `<task>_error.json` files record failed judge calls: there is no verdict to import.
    if (!stat || !stat.isFile()) continue;
    if (stat.size > MAX_JUDGMENT_BYTES) throw new ImportError(file, `is larger than ${MAX_JUDGMENT_BYTES / 1024 / 1024} MB; not a judgment file`);
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(await fsp.readFile(file, "utf8")) as Record<string, unknown>;
    } catch (e) {
      throw new ImportError(file, `is not valid JSON (${(e as Error).message})`);
    }
    if (!data || typeof data !== "object" || Array.isArray(data)) throw new ImportError(file, "is not a JSON object");
    const judge = typeof data.judge === "string" ? data.judge : j.name;
    const record = (v: ImportVerdict) => seen.used.set(path.basename(file), v.verdict);
    const response = data.response as { choices?: { message?: { content?: unknown } }[] } | undefined;
    const content = response?.choices?.[0]?.message?.content;
    const base = { file, judge, judge_model_name: data.judge_model_name ?? null, provider: data.provider ?? null };
    if (typeof content !== "string") {
      // The "functional" judge is the benchmark's own rule: success when cum_reward > 0.5.
      const info = (data.trajectory_info as { summary_info?: SummaryInfo } | undefined)?.summary_info;
      const reward = info && typeof info.cum_reward === "number" ? info.cum_reward : null;
      out.push({
        evaluator: `agentrewardbench:${j.name}`,
        evaluatorKind: "rule",
        verdict: reward === null ? "unparseable" : reward > 0.5 ? "success" : "failure",
        score: reward,
        rationale: null,
        raw: { ...base, cum_reward: reward },
      });
      record(out.at(-1)!);
      continue;
    }
    const parsed = parseJudgeReply(judge, content);
    out.push({
      evaluator: `agentrewardbench:${j.name}`,
      evaluatorKind: "judge",
      verdict: parsed.verdict,
      score: parsed.score,
      rationale: parsed.rationale,
      raw: { ...base, content, ...parsed.extra },
    });
    record(out.at(-1)!);
  }
  return out;
}

/**
 * Each judgment folder the import read from: its files, how many gave an imported trajectory its verdict, and why
 * the others did not (no such trajectory in this import, or a failed judge call the benchmark kept as `_error`).
 */
async function judgmentReports(read: JudgmentsRead): Promise<EvaluatorLogReport[]> {
  const out: EvaluatorLogReport[] = [];
  for (const [dir, { evaluator, used }] of [...read].sort((a, b) => a[0].localeCompare(b[0]))) {
    const files = (await fsp.readdir(dir).catch(() => [] as string[])).filter((f) => f.toLowerCase().endsWith(".json")).sort();
    if (!files.length) continue;
    const verdicts: Record<string, number> = {};
    for (const v of used.values()) verdicts[v] = (verdicts[v] ?? 0) + 1;
    const unmatched = files
      .filter((f) => !used.has(f))
      .map((f) => ({
        block: f,
        reason: /_error\.json$/i.test(f)
          ? "records a failed judge call: there is no verdict in it"
          : `no trajectory ${f.replace(/\.json$/i, "")} of this folder in this import`,
      }));
    out.push({ file: dir, evaluator, run: "", blocks: files.length, matched: used.size, unmatched, verdicts });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Assembly

function str(v: unknown): string | null {
  return typeof v === "string" && v.trim() ? v : null;
}

async function readTrajectoryFile(file: string, root: { dir: string; real: string }, judgments: JudgmentsRead): Promise<ImportItem> {
  const { top, steps: compact, hasSteps } = await streamTrajectory(file);
  if (!hasSteps) throw new ImportError(file, `"steps" is missing`);
  const goal = str(top.goal);
  if (!goal) throw new ImportError(file, `"goal" is missing or empty`);
  if (!compact.length) throw new ImportError(file, `"steps" is empty`);
  const summary = top.summary_info === undefined || top.summary_info === null ? null : checkSummary(top.summary_info, `${file} (summary_info)`);
  const layout = layoutOf(file);
  const benchmark = str(top.benchmark) ?? layout.benchmark;
  const agent = str(top.agent) ?? layout.agent ?? "unknown agent";
  const experiment = str(top.experiment) ?? layout.experiment;

  const steps: ImportStep[] = compact.map((c, i) => {
    const index = c.num ?? i;
    const isLast = i === compact.length - 1;
    let action: ParsedAction;
    if (typeof c.action === "string") action = parseBrowserGymAction(c.action);
    // BrowserGym's last step is the observation after the final action: nothing was done at it.
    else if (isLast) action = { type: "noop" };
    else action = { type: "unparsed", value: null, parseError: "the step has no action" };
    const shot = resolveScreenshot(c.screenshotPath, index, file, layout, root);
    return {
      index,
      screenshot: shot ? fileImage(shot) : null,
      rawScreenshot: null,
      marksBurnedIn: false,
      url: c.url,
      thought: c.reasoning,
      actionRaw: typeof c.action === "string" ? c.action : null,
      action,
      elements: c.elements && c.elements.length ? c.elements : null,
      error: null,
      durationMs: c.durationMs,
    };
  });
  // A step's last_action_error reports the action of the step before it.
  compact.forEach((c, i) => {
    if (i > 0 && c.lastActionError) steps[i - 1]!.error = c.lastActionError;
  });

  let finalAnswer: string | null = null;
  let infeasible: string | null = null;
  for (const s of steps) {
    const answer = browserGymAnswer(s.action);
    if (answer !== null) finalAnswer = answer;
    const inf = actionCalls(s.action).find((c) => c.type === "report_infeasible");
    if (inf) infeasible = inf.value ?? "";
  }
  let outcome: Outcome;
  let outcomeDetail: string | null = null;
  if (summary && typeof summary.err_msg === "string" && summary.err_msg.trim()) {
    outcome = "error";
    outcomeDetail = summary.err_msg.trim();
  } else if (finalAnswer !== null || infeasible !== null) {
    outcome = "answered";
    if (finalAnswer === null) {
      finalAnswer = infeasible;
      outcomeDetail = "reported the task infeasible";
    }
  } else if (summary?.truncated === true) {
    outcome = "step_limit";
    outcomeDetail = "truncated: the step limit was reached";
  } else if (summary?.terminated === true) {
    outcome = "answered";
    outcomeDetail = "terminated without a message to the user";
  } else {
    outcome = "unknown";
    outcomeDetail = summary ? "neither terminated nor truncated" : "no summary_info";
  }

  const verdicts: ImportVerdict[] = [];
  const reward = cumRewardVerdict(summary);
  if (reward) verdicts.push(reward);
  verdicts.push(...(await judgmentVerdicts(layout, judgments)));

  const runPath = [benchmark ?? "unknown", layout.agent ?? agent, experiment ?? "unknown"].join("/");
  const config: Record<string, unknown> = {};
  for (const k of ["model_args", "flags", "package_version", "seed", "valid"]) if (top[k] !== undefined) config[k] = top[k];
  return {
    kind: "trajectory",
    trajectory: {
      task: browserGymTask(layout.taskId, goal),
      run: {
        // Dataset-relative identity: the same trajectory keeps its run wherever the dataset is unpacked.
        runKey: `agentrewardbench:${runPath}`,
        name: experiment ?? `${benchmark ?? "AgentRewardBench"} · ${agent}`,
        agentName: agent,
        model: str(top.model),
        sourceSystem: "agentrewardbench",
        config: Object.keys(config).length ? config : null,
      },
      attempt: 0,
      finalAnswer,
      outcome,
      outcomeDetail,
      sourcePath: file,
      sourceFiles: [file],
      steps,
      verdicts,
    },
  };
}

async function looksLikeTrajectory(file: string): Promise<boolean> {
  const head = await headText(file, HEAD_BYTES);
  if (!/^\s*\{/.test(head)) return false;
  // Formats of their own with steps and a goal: the AgentLab converter's output and ATIF trajectories.
  if (/"format"\s*:\s*"verdict\.agentlab-steps"|"schema_version"\s*:\s*"ATIF-/.test(head)) return false;
  const has = (k: string) => head.includes(`"${k}"`);
  // Trajectory.to_dict() writes benchmark, agent, model, valid, experiment, goal… before the steps.
  return (has("goal") && (has("benchmark") || has("experiment") || has("steps"))) || (has("benchmark") && has("agent") && has("experiment"));
}

const SKIPPED_DIRS = new Set(["judgments", "screenshots", "captions", "node_modules"]);

/** Trajectory JSON files under the input: the file itself, or every one found below a folder. */
async function findTrajectoryFiles(input: string, limit = Infinity): Promise<string[]> {
  if (!(await isDir(input))) {
    return /\.json$/i.test(input) && fs.existsSync(input) && (await looksLikeTrajectory(input)) ? [input] : [];
  }
  // From a dataset root, look only under cleaned/ (judgment files look alike).
  let start = input;
  for (const c of [path.join(input, "trajectories", "cleaned"), path.join(input, "cleaned")]) {
    if (await isDir(c)) {
      start = c;
      break;
    }
  }
  const found: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    const entries = (await fsp.readdir(dir, { withFileTypes: true }).catch(() => [])).sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }));
    for (const e of entries) {
      if (found.length >= limit) return;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (depth < 6 && !e.name.startsWith(".") && !SKIPPED_DIRS.has(e.name)) await walk(p, depth + 1);
      } else if (e.isFile() && /\.json$/i.test(e.name) && !/_error\.json$/i.test(e.name) && (await looksLikeTrajectory(p))) {
        found.push(p);
      }
    }
  };
  await walk(start, 0);
  return found;
}

export const agentRewardBenchImporter: Importer = {
  format: "agentrewardbench",
  description: "AgentRewardBench trajectory JSON (a file, cleaned/… folder or dataset root; judgments and screenshots beside)",
  async sniff(input) {
    return (await findTrajectoryFiles(input, 1)).length ? 0.9 : 0;
  },
  async *read(input, options) {
    const files = await findTrajectoryFiles(input);
    if (!files.length) throw new ImportError(input, "no AgentRewardBench trajectory JSON files found");
    options.onTotal?.(files.length);
    // Never above an upload's unpacked folder, even when the path to it happens to hold a "cleaned" folder.
    const computed = await datasetRootOf(input);
    const rootDir = withinBoundary(computed, options.boundary) ? computed : path.resolve(options.boundary!);
    const root = { dir: rootDir, real: fs.realpathSync(rootDir) };
    const judgments: JudgmentsRead = new Map();
    for (const file of files) {
      try {
        yield await readTrajectoryFile(file, root, judgments);
      } catch (e) {
        if (!(e instanceof ImportError)) throw e;
        yield { kind: "skipped", path: file, reason: e.message };
      }
    }
    for (const log of await judgmentReports(judgments)) yield { kind: "evaluatorLog", log };
  },
};
