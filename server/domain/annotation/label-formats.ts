/**
 * Label files in the shapes benchmarks publish, both ways:
 *
 * - Online-Mind2Web `human_label.json`: a JSON array with one object per task, `task_id`, `confirmed_task` and one
 *   `<Agent>_human_label` per agent ("0" failure, "1" success, "2" not executable; strings, as in the published
 *   file; spaces in agent names become underscores, "Browser Use" → `Browser_Use_human_label`). One label per task
 *   and agent: the consolidated label of the trajectory.
 * - AgentRewardBench `annotations.csv`: its nine columns, one row per annotator and trajectory; Verdict fills
 *   `trajectory_success` (Successful / Unsuccessful / Unsure) and leaves the three questions it does not ask empty.
 * - a CUAVerifierBench-shaped table: trajectory, reviewer, stage, verdict, reasoning (plus task, agent, category
 *   and failing step so nothing is lost). Stage "blind" = labelled before the reviewer saw any evaluation of the
 *   trajectory, "informed" = after (CUAVerifierBench's UV-blind / UV-informed), "adjudication" = the consolidated
 *   label an adjudicator set.
 *
 * Reading turns each file into a CsvTable (header, rows, line numbers) that the column-mapping importer reads, so
 * every format shares one set of checks and error messages (file, line, column).
 */
import { formatCsv, type CsvTable } from "../csv";
import { LabelImportError, type LabelImportMapping } from "./label-io";
import type { LabelVerdict } from "./label-schema";

export const LABEL_FORMATS = ["verdict-csv", "verdict-jsonl", "online-mind2web", "agentrewardbench", "cuaverifierbench"] as const;
export type LabelFormat = (typeof LABEL_FORMATS)[number];

export const LABEL_FORMAT_DESCRIPTIONS: Record<LabelFormat, string> = {
  "verdict-csv": "Verdict CSV: every annotation and consolidated label, all fields",
  "verdict-jsonl": "Verdict JSONL: the same records, one JSON object per line",
  "online-mind2web": "Online-Mind2Web human_label.json: 0 / 1 / 2 per task and agent (consolidated labels)",
  agentrewardbench: "AgentRewardBench annotations.csv: one row per annotator and trajectory",
  cuaverifierbench: "CUAVerifierBench-shaped CSV: trajectory, reviewer, stage, verdict, reasoning",
};

// ---------------------------------------------------------------- Online-Mind2Web human_label.json

export const MIND2WEB_LABELS: Partial<Record<LabelVerdict, string>> = { failure: "0", success: "1", not_executable: "2" };
const MIND2WEB_SUFFIX = "_human_label";

/** The key of an agent's column: spaces to underscores, then "_human_label". */
export function mind2webAgentKey(agent: string): string {
  return agent.trim().replace(/\s+/g, "_") + MIND2WEB_SUFFIX;
}

export interface Mind2WebEntry {
  taskId: string;
  task: string;
  agent: string;
  verdict: LabelVerdict;
}

/**
 * The file's objects: tasks in order of first appearance, agents in order of first appearance within each task.
 * Verdicts the format cannot hold ("unsure") are left out and returned. Two labels for one task and agent key are
 * an error (two runs of an agent with the same name: export them from separate campaigns).
 */
export function buildMind2WebHumanLabels(entries: readonly Mind2WebEntry[]): { records: Record<string, string>[]; left: Mind2WebEntry[] } {
  const byTask = new Map<string, Record<string, string>>();
  const left: Mind2WebEntry[] = [];
  for (const e of entries) {
    const value = MIND2WEB_LABELS[e.verdict];
    if (value === undefined) {
      left.push(e);
      continue;
    }
    let rec = byTask.get(e.taskId);
    if (!rec) byTask.set(e.taskId, (rec = { task_id: e.taskId, confirmed_task: e.task }));
    const key = mind2webAgentKey(e.agent);
    if (key in rec)
      throw new LabelImportError(
        `task ${JSON.stringify(e.taskId)} has two trajectories of agents named ${JSON.stringify(e.agent)} (column ${key}); Online-Mind2Web holds one label per task and agent`,
      );
    rec[key] = value;
  }
  return { records: [...byTask.values()], left };
}

export function mind2webHumanLabelJson(records: readonly Record<string, string>[]): string {
  return JSON.stringify(records) + "\n";
}

/** Line (1-based) where each top-level array element starts, found by scanning the JSON text outside strings. */
function elementLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\n") line++;
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "[" || ch === "{") {
      if (depth === 1) lines.push(line);
      depth++;
    } else if (ch === "]" || ch === "}") depth--;
  }
  return lines;
}

/** Header of the table a human_label.json becomes: one row per task and agent. */
export const MIND2WEB_TABLE_HEADER = ["task_id", "agent", "label", "annotator"];

/**
 * Reads a human_label.json into rows of (task_id, agent, label, annotator); `annotator` names whoever the labels
 * are attributed to (the file has no annotators). Errors name the file, line and field.
 */
export function readMind2WebHumanLabels(text: string, source: string, annotator: string): CsvTable {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new LabelImportError(`${source}: not JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(parsed)) throw new LabelImportError(`${source}: expected a JSON array of tasks, as in Online-Mind2Web's human_label.json`);
  const lines = elementLines(text);
  const table: CsvTable = { header: MIND2WEB_TABLE_HEADER, rows: [], lines: [] };
  parsed.forEach((entry, i) => {
    const line = lines[i] ?? 1;
    const at = (field: string) => `${source}: line ${line} (task ${i + 1}), field ${JSON.stringify(field)}`;
    if (!entry || typeof entry !== "object" || Array.isArray(entry))
      throw new LabelImportError(`${source}: line ${line} (task ${i + 1}): expected an object with task_id and <agent>_human_label fields`);
    const rec = entry as Record<string, unknown>;
    if (typeof rec.task_id !== "string" || !rec.task_id.trim()) throw new LabelImportError(`${at("task_id")}: missing or not a string`);
    for (const [k, v] of Object.entries(rec)) {
      if (!k.endsWith(MIND2WEB_SUFFIX)) continue;
      const agent = k.slice(0, -MIND2WEB_SUFFIX.length);
      if (!agent) throw new LabelImportError(`${at(k)}: the field names no agent`);
      const label = typeof v === "number" ? String(v) : v;
      if (label !== "0" && label !== "1" && label !== "2")
        throw new LabelImportError(`${at(k)}: ${JSON.stringify(v)} is not a label; use "0" (failure), "1" (success) or "2" (not executable)`);
      table.rows.push([rec.task_id.trim(), agent, label, annotator]);
      table.lines.push(line);
    }
  });
  return table;
}

export function mind2webImportMapping(): LabelImportMapping {
  return {
    annotator: "annotator",
    verdict: "label",
    verdictValues: { "0": "failure", "1": "success", "2": "not_executable" },
    taskId: "task_id",
    model: "agent",
  };
}

// ---------------------------------------------------------------- AgentRewardBench annotations.csv

export const ARB_COLUMNS = [
  "annotator_name",
  "benchmark",
  "task_id",
  "model_name",
  "exp_name",
  "trajectory_success",
  "trajectory_side_effect",
  "trajectory_optimality",
  "trajectory_looping",
] as const;

export const ARB_SUCCESS_WORDS: Partial<Record<LabelVerdict, string>> = { success: "Successful", failure: "Unsuccessful", unsure: "Unsure" };

export interface ArbRow {
  annotator: string;
  benchmark: string;
  taskId: string;
  model: string;
  expName: string;
  verdict: LabelVerdict;
}

/** annotations.csv text, and the labels its success column cannot hold ("not_executable"). */
export function arbAnnotationsCsv(rows: readonly ArbRow[]): { csv: string; left: ArbRow[] } {
  const records: string[][] = [[...ARB_COLUMNS]];
  const left: ArbRow[] = [];
  for (const r of rows) {
    const word = ARB_SUCCESS_WORDS[r.verdict];
    if (!word) {
      left.push(r);
      continue;
    }
    records.push([r.annotator, r.benchmark, r.taskId, r.model, r.expName, word, "", "", ""]);
  }
  return { csv: formatCsv(records), left };
}

// ---------------------------------------------------------------- CUAVerifierBench-shaped table

export const CUA_COLUMNS = ["trajectory", "reviewer", "stage", "verdict", "reasoning", "task_id", "agent", "category", "failure_step_number"] as const;
export type CuaStage = "blind" | "informed" | "adjudication";

export interface CuaRow {
  trajectoryId: number;
  reviewer: string;
  stage: CuaStage;
  verdict: LabelVerdict;
  reasoning: string | null;
  taskId: string;
  agent: string;
  category: string | null;
  failureStepNumber: number | null;
}

export function cuaVerifierCsv(rows: readonly CuaRow[]): string {
  const records: string[][] = [[...CUA_COLUMNS]];
  for (const r of rows) {
    records.push([
      String(r.trajectoryId),
      r.reviewer,
      r.stage,
      r.verdict,
      r.reasoning ?? "",
      r.taskId,
      r.agent,
      r.category ?? "",
      r.failureStepNumber === null ? "" : String(r.failureStepNumber),
    ]);
  }
  return formatCsv(records);
}

/** Reviewers' labels from the table (adjudication rows are the consolidated labels, not a reviewer's: skipped). */
export function cuaImportMapping(): LabelImportMapping {
  return {
    annotator: "reviewer",
    verdict: "verdict",
    verdictValues: { success: "success", failure: "failure", unsure: "unsure", not_executable: "not_executable" },
    trajectoryId: "trajectory",
    category: "category",
    firstFailingStep: "failure_step_number",
    note: "reasoning",
    whereNot: { column: "stage", equals: "adjudication" },
  };
}

// ---------------------------------------------------------------- Verdict JSONL

/**
 * A Verdict JSONL export as a table with the given columns: each line one record, its values as the CSV export
 * writes them (arrays space-separated, null empty). Errors name the file and line.
 */
export function readJsonlTable(text: string, source: string, columns: readonly string[]): CsvTable {
  const table: CsvTable = { header: [...columns], rows: [], lines: [] };
  text.split("\n").forEach((raw, i) => {
    const line = i + 1;
    if (!raw.trim()) return;
    let rec: unknown;
    try {
      rec = JSON.parse(raw);
    } catch (e) {
      throw new LabelImportError(`${source}: line ${line}: not a JSON object (${(e as Error).message})`);
    }
    if (!rec || typeof rec !== "object" || Array.isArray(rec)) throw new LabelImportError(`${source}: line ${line}: expected a JSON object`);
    const r = rec as Record<string, unknown>;
    table.rows.push(
      columns.map((c) => {
        const v = r[c];
        if (v === null || v === undefined) return "";
        if (Array.isArray(v)) return v.join(" ");
        if (typeof v === "object") throw new LabelImportError(`${source}: line ${line}, field ${JSON.stringify(c)}: expected a value, got an object`);
        return String(v);
      }),
    );
    table.lines.push(line);
  });
  return table;
}
