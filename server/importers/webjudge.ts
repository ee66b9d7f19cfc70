/**
 * Verdict files of Online-Mind2Web's automatic evaluators. WebJudge (and the benchmark's other auto-eval modes)
 * writes `<mode>_<model>_score_threshold_<t>_auto_eval_results.json`: one JSON object per line (some forks write an
 * array, one object, or pretty-printed objects one after another), each the task's result.json plus
 * `predicted_label` (1 success, 0 failure), `evaluation_details {response, predicted_label}` (or a list of them),
 * `key_points` (the numbered key points it identified) and `image_judge_record` (per screenshot, in the trajectory
 * folder's order: `{Response, Score}`; screenshots scoring at least the threshold are the ones its final judgment
 * saw). The benchmark's released results (`webjudge_<model>/<agent>_results.json`) have the same rows with
 * `final_eval` instead of `predicted_label`. One file is one evaluator.
 */
import path from "node:path";
import { readTextFile } from "./fs-helpers";
import { ImportError } from "./types";

export interface JudgeRow {
  taskId: string;
  /** 1 success, 0 failure, null when the file gives no readable label. */
  label: 0 | 1 | null;
  response: string | null;
  keyPoints: string | null;
  /** Per screenshot in the trajectory folder's order, as the judge scored it. */
  imageScores: { score: number | null; response: string | null }[] | null;
  raw: Record<string, unknown>;
}

export interface JudgeFile {
  file: string;
  evaluator: string;
  key: string;
  model: string | null;
  threshold: number;
  rows: JudgeRow[];
}

const AUTO_EVAL = /^(.+?_eval)_(.+)_score_threshold_(\d+(?:\.\d+)?)_auto_eval_results\.jsonl?$/i;
const MODE_NAMES: Record<string, string> = {
  webjudge_online_mind2web_eval: "WebJudge",
  webjudge_online_mind2web_sandbox_eval: "WebJudge (sandbox)",
  webjudge_general_eval: "WebJudge (general)",
  autonomous_eval: "Autonomous eval",
  agenttrek_eval: "AgentTrek eval",
  webvoyager_eval: "WebVoyager eval",
};

/** Whether a file's name says it holds an auto-evaluator's results (checked against its content when read). */
export function looksLikeJudgeFileName(file: string): boolean {
  const name = path.basename(file);
  if (!/\.jsonl?$/i.test(name)) return false;
  return AUTO_EVAL.test(name) || /auto_?eval/i.test(name) || /webjudge/i.test(name) || /webjudge/i.test(path.basename(path.dirname(file)));
}

/** The evaluator a file stands for, from its name (and, for the benchmark's released results, its folder's name). */
export function judgeIdentity(file: string): { evaluator: string; key: string; model: string | null; threshold: number } {
  const name = path.basename(file);
  const m = AUTO_EVAL.exec(name);
  if (m) {
    const mode = m[1]!;
    const model = m[2]!;
    const threshold = Number(m[3]);
    const label = MODE_NAMES[mode.toLowerCase()] ?? mode.replace(/_/g, " ");
    return { evaluator: `${label} (${model}, threshold ${threshold})`, key: `import:online-mind2web:${mode}:${model}:${threshold}`, model, threshold };
  }
  const folder = path.basename(path.dirname(file));
  const inFolder = /^webjudge[_-](.+)$/i.exec(folder);
  if (inFolder) {
    const stem = name.replace(/\.jsonl?$/i, "");
    return { evaluator: `WebJudge (${inFolder[1]}) ${stem}`, key: `import:online-mind2web:webjudge:${inFolder[1]}:${stem}`, model: inFolder[1]!, threshold: 3 };
  }
  const stem = name.replace(/\.jsonl?$/i, "");
  return { evaluator: stem, key: `import:online-mind2web:${stem}`, model: null, threshold: 3 };
}

/** JSON values written one after another (JSON Lines, or pretty-printed objects back to back). */
export function concatenatedJson(text: string, file: string): unknown[] {
  const out: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  let line = 1;
  let startLine = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\n") line++;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{" || c === "[") {
      if (depth === 0) {
        start = i;
        startLine = line;
      }
      depth++;
    } else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0 && start >= 0) {
        const chunk = text.slice(start, i + 1);
        try {
          out.push(JSON.parse(chunk));
        } catch (e) {
          throw new ImportError(file, `line ${startLine}: not valid JSON (${(e as Error).message})`);
        }
        start = -1;
      }
      if (depth < 0) throw new ImportError(file, `line ${line}: unbalanced "${c}"`);
    } else if (depth === 0 && !/\s/.test(c)) {
      throw new ImportError(file, `line ${line}: unexpected text outside a JSON object`);
    }
  }
  if (depth !== 0) throw new ImportError(file, "ends inside a JSON object (the file is cut short)");
  return out;
}

function record(v: unknown): Record<string, unknown> | null {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function labelOf(v: unknown): 0 | 1 | null {
  if (v === 1 || v === "1" || v === true || v === 1.0) return 1;
  if (v === 0 || v === "0" || v === false) return 0;
  if (typeof v === "string") {
    const t = v.trim().toLowerCase();
    if (t === "success" || t === "successful") return 1;
    if (t === "failure" || t === "fail" || t === "failed") return 0;
  }
  return null;
}

function text(v: unknown): string | null {
  if (typeof v === "string") return v;
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v.join("\n\n");
  return null;
}

/** One row of a judge file; null when the object is not a judge row (no task id). */
export function judgeRow(o: Record<string, unknown>): JudgeRow | null {
  const id = typeof o.task_id === "number" ? String(o.task_id) : typeof o.task_id === "string" ? o.task_id.trim() : "";
  if (!id) return null;
  const detailsList = Array.isArray(o.evaluation_details) ? o.evaluation_details.map(record).filter((d): d is Record<string, unknown> => d !== null) : [];
  const details = record(o.evaluation_details) ?? detailsList[0] ?? null;
  const label = labelOf(o.predicted_label) ?? labelOf(o.final_eval) ?? labelOf(details?.predicted_label) ?? labelOf(o.success);
  const responses = detailsList.length > 1 ? detailsList.map((d) => text(d.response)).filter((r): r is string => !!r) : [];
  const response = responses.length ? responses.join("\n\n———\n\n") : (text(details?.response) ?? text(o.judgement) ?? text(o.response));
  const images = Array.isArray(o.image_judge_record)
    ? o.image_judge_record.map((r) => {
        const rec = record(r);
        const score = rec ? (typeof rec.Score === "number" ? rec.Score : typeof rec.score === "number" ? rec.score : null) : null;
        return { score, response: rec ? (text(rec.Response) ?? text(rec.response)) : null };
      })
    : null;
  return { taskId: id, label, response, keyPoints: text(o.key_points), imageScores: images, raw: o };
}

/** Reads a judge file whole; throws an ImportError naming the file when it is not one. */
export async function readJudgeFile(file: string): Promise<JudgeFile> {
  const content = await readTextFile(file);
  let values: unknown[];
  const trimmed = content.trim();
  if (!trimmed) throw new ImportError(file, "is empty");
  try {
    const whole = JSON.parse(trimmed) as unknown;
    values = Array.isArray(whole) ? whole : record(whole) && !("task_id" in (whole as object)) ? Object.values(whole as object) : [whole];
  } catch {
    values = concatenatedJson(content, file);
  }
  const rows: JudgeRow[] = [];
  for (const v of values) {
    const o = record(v);
    const row = o ? judgeRow(o) : null;
    if (row) rows.push(row);
  }
  if (!rows.length) throw new ImportError(file, "holds no judge rows (objects with a task_id and a predicted label)");
  return { file, ...judgeIdentity(file), rows };
}

/** The numbered key points of a WebJudge reply ("\n1. Filter by …\n2. …") as a list. */
export function keyPointList(text: string | null): string[] {
  if (!text) return [];
  const items = text
    .split(/\n+/)
    .map((l) => l.replace(/^\s*(?:\d+[.)]|[-*•])\s*/, "").trim())
    .filter(Boolean);
  return items;
}
