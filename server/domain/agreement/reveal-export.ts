/**
 * The two stages of blind → reveal → revise as a file, in the shape of CUAVerifierBench's human labels: one row per
 * (trajectory, reviewer, stage), stage "blind" (before the evaluator was shown) or "informed" (after: the label
 * kept or revised, with the reviewer's reason as its reasoning). The informed row names the evaluator shown and
 * its verdict; the blind row names none (nothing was shown). CSV and JSONL carry the same columns, and both read
 * back into the same rows (`parseRevealStages`), errors naming the file, line and column.
 *
 * Step numbers are 1-based (`failure_step_number`), as in the other label files.
 */
import { ValidationError } from "../../errors";
import { CsvError, formatCsv, parseCsvTable } from "../csv";

export const REVEAL_STAGE_COLUMNS = [
  "trajectory",
  "item",
  "reviewer",
  "stage",
  "verdict",
  "reasoning",
  "category",
  "failure_step_number",
  "task_id",
  "agent",
  "evaluator_shown",
  "evaluator_id",
  "evaluator_verdict",
  "decision",
  "at",
] as const;

export type RevealStage = "blind" | "informed";

export interface RevealStageRow {
  trajectoryId: number;
  itemNo: number;
  reviewer: string;
  stage: RevealStage;
  verdict: string;
  reasoning: string | null;
  category: string | null;
  /** 1-based. */
  failureStepNumber: number | null;
  taskId: string;
  agent: string;
  /** Informed rows: the evaluator's name, id and verdict as shown; blind rows: null. */
  evaluatorShown: string | null;
  evaluatorId: string | null;
  evaluatorVerdict: string | null;
  /** Informed rows: keep or revise. */
  decision: "keep" | "revise" | null;
  /** When the stage's label was given (ISO 8601). */
  at: string;
}

export class RevealFileError extends ValidationError {
  constructor(message: string) {
    super(message);
    this.name = "RevealFileError";
  }
}

function cells(r: RevealStageRow): string[] {
  const s = (v: string | number | null) => (v === null ? "" : String(v));
  return [
    s(r.trajectoryId),
    s(r.itemNo),
    r.reviewer,
    r.stage,
    r.verdict,
    s(r.reasoning),
    s(r.category),
    s(r.failureStepNumber),
    r.taskId,
    r.agent,
    s(r.evaluatorShown),
    s(r.evaluatorId),
    s(r.evaluatorVerdict),
    s(r.decision),
    r.at,
  ];
}

export function revealStagesCsv(rows: readonly RevealStageRow[]): string {
  return formatCsv([[...REVEAL_STAGE_COLUMNS], ...rows.map(cells)]);
}

export function revealStagesJsonl(rows: readonly RevealStageRow[]): string {
  return rows
    .map((r) => {
      const values = cells(r);
      return JSON.stringify(Object.fromEntries(REVEAL_STAGE_COLUMNS.map((c, i) => [c, values[i] === "" ? null : values[i]])));
    })
    .map((line) => `${line}\n`)
    .join("");
}

/** The export neutralises spreadsheet formulas with a leading `'` (see formatCsv); reading takes it off again. */
function unneutralise(v: string): string {
  return /^'[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/.test(v) ? v.slice(1) : v;
}

function rowFrom(get: (column: string) => string, where: string, fromCsv: boolean): RevealStageRow {
  const text = (c: string) => {
    const v = fromCsv ? unneutralise(get(c)) : get(c);
    return v === "" ? null : v;
  };
  const required = (c: string) => {
    const v = text(c);
    if (v === null) throw new RevealFileError(`${where}: column ${c} is empty`);
    return v;
  };
  const whole = (c: string, min: number) => {
    const v = text(c);
    if (v === null) return null;
    if (!/^\d+$/.test(v) || Number(v) < min) throw new RevealFileError(`${where}: column ${c} must be a whole number from ${min}, got ${JSON.stringify(v)}`);
    return Number(v);
  };
  const stage = required("stage");
  if (stage !== "blind" && stage !== "informed") throw new RevealFileError(`${where}: column stage must be blind or informed, got ${JSON.stringify(stage)}`);
  const decision = text("decision");
  if (decision !== null && decision !== "keep" && decision !== "revise")
    throw new RevealFileError(`${where}: column decision must be keep, revise or empty, got ${JSON.stringify(decision)}`);
  if (stage === "informed" && decision === null) throw new RevealFileError(`${where}: an informed row needs its decision (keep or revise)`);
  const at = required("at");
  if (Number.isNaN(Date.parse(at))) throw new RevealFileError(`${where}: column at must be a date and time (ISO 8601), got ${JSON.stringify(at)}`);
  return {
    trajectoryId:
      whole("trajectory", 1) ??
      (() => {
        throw new RevealFileError(`${where}: column trajectory is empty`);
      })(),
    itemNo: whole("item", 1) ?? 0,
    reviewer: required("reviewer"),
    stage,
    verdict: required("verdict"),
    reasoning: text("reasoning"),
    category: text("category"),
    failureStepNumber: whole("failure_step_number", 1),
    taskId: text("task_id") ?? "",
    agent: text("agent") ?? "",
    evaluatorShown: text("evaluator_shown"),
    evaluatorId: text("evaluator_id"),
    evaluatorVerdict: text("evaluator_verdict"),
    decision,
    at,
  };
}

/** Reads a reveal-stages file written by revealStagesCsv / revealStagesJsonl back into its rows. */
export function parseRevealStages(text: string, format: "csv" | "jsonl", source: string): RevealStageRow[] {
  if (format === "csv") {
    let table;
    try {
      table = parseCsvTable(text, { source });
    } catch (e) {
      if (e instanceof CsvError) throw new RevealFileError(e.message);
      throw e;
    }
    const missing = REVEAL_STAGE_COLUMNS.filter((c) => !table.header.includes(c));
    if (missing.length) throw new RevealFileError(`${source}: the header lacks column${missing.length === 1 ? "" : "s"} ${missing.join(", ")}`);
    const at = new Map(table.header.map((h, i) => [h, i]));
    return table.rows.map((row, r) => rowFrom((c) => row[at.get(c)!] ?? "", `${source}: line ${table.lines[r]}`, true));
  }
  const rows: RevealStageRow[] = [];
  text.split("\n").forEach((raw, i) => {
    if (!raw.trim()) return;
    const where = `${source}: line ${i + 1}`;
    let rec: unknown;
    try {
      rec = JSON.parse(raw);
    } catch (e) {
      throw new RevealFileError(`${where}: not a JSON object (${(e as Error).message})`);
    }
    if (!rec || typeof rec !== "object" || Array.isArray(rec)) throw new RevealFileError(`${where}: expected a JSON object`);
    const obj = rec as Record<string, unknown>;
    rows.push(
      rowFrom(
        (c) => {
          const v = obj[c];
          if (v === null || v === undefined) return "";
          if (typeof v !== "string") throw new RevealFileError(`${where}: ${c} must be a string or null, got ${JSON.stringify(v)}`);
          return v;
        },
        where,
        false,
      ),
    );
  });
  return rows;
}
