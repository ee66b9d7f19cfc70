/**
 * Labels in and out as files: the export's columns and row formatting (CSV and JSONL), and reading a CSV of
 * labels made elsewhere through a column mapping (which column holds the annotator, the trajectory's identity,
 * the verdict, and how the file's verdict words map to ours).
 *
 * Identity: an exported row carries Verdict's trajectory id (stable, joins to the trajectory list and bundles)
 * plus the task's benchmark id and the run's model, so the same file can be matched back either way.
 */
import { ValidationError } from "../../errors";
import { z } from "zod";
import { formatCsv, type CsvTable, type CsvWriteOptions } from "../csv";
import { LABEL_VERDICTS, type LabelVerdict } from "./label-schema";
import { answerCell, type LabelAnswers } from "./questions";
import type { RegionMark } from "./region-marks";

// ---------------------------------------------------------------- export

export const LABEL_EXPORT_COLUMNS = [
  "kind",
  "campaign_id",
  "campaign_name",
  "item_id",
  "item_no",
  "item_state",
  "trajectory_id",
  "task_set",
  "benchmark",
  "task_id",
  "site",
  "run_id",
  "run_name",
  "agent",
  "model",
  "attempt",
  "label_id",
  "annotator_id",
  "annotator_name",
  "label_origin",
  "verdict",
  "category",
  "first_failing_step_number",
  "note",
  "time_spent_ms",
  "steps_viewed_numbers",
  "revision",
  "after_reveal",
  "labelled_at",
  "updated_at",
  "consolidation_method",
  "adjudicator",
  "reason",
  "guideline_version",
  "confidence",
  "disagreement_source",
  "qa_decision",
  "qa_reviewer",
] as const;

export type LabelExportColumn = (typeof LABEL_EXPORT_COLUMNS)[number];

/**
 * Steps leave Verdict as the numbers people saw in the player and the label panel (1 = first step), in columns
 * named `…_number(s)`, so an export joins with what annotators saw; the database keeps 0-based indices.
 */
export function stepNumber(index: number): number;
export function stepNumber(index: number | null): number | null;
export function stepNumber(index: number | null): number | null {
  return index === null ? null : index + 1;
}
/** A region mark as it leaves Verdict: its step as the step number people saw, the rest in screenshot pixels. */
export type ExportedMark =
  | { kind: "box"; step_number: number; label: string; x: number; y: number; width: number; height: number }
  | { kind: "point"; step_number: number; label: string; x: number; y: number };

/** A label's marks for export, steps as step numbers (null when it has none). */
export function marksForExport(marks: readonly RegionMark[] | null | undefined): ExportedMark[] | null {
  if (!marks || marks.length === 0) return null;
  return marks.map(({ step, ...rest }) =>
    rest.kind === "box"
      ? { kind: "box", step_number: stepNumber(step), label: rest.label, x: rest.x, y: rest.y, width: rest.width, height: rest.height }
      : { kind: "point", step_number: stepNumber(step), label: rest.label, x: rest.x, y: rest.y },
  );
}

/**
 * One exported record: "annotation" rows are individual labels, "consolidated" rows an item's final label.
 * `answers` holds the answers to the campaign's own questions (annotation rows), `marks` the label's region marks,
 * steps as step numbers.
 */
export type LabelExportRow = Record<LabelExportColumn, string | number | number[] | null> & { answers?: LabelAnswers | null; marks?: ExportedMark[] | null };

/** Whether an export carries a marks column: only when some label has marks, so files of campaigns without them keep their shape. */
function hasMarks(rows: readonly LabelExportRow[]): boolean {
  return rows.some((r) => (r.marks?.length ?? 0) > 0);
}

/**
 * The export as CSV; notes and imported names that look like formulas are neutralised unless `raw` (see formatCsv).
 * Each of the campaign's questions (`questionIds`) gets a column `answer_<id>` after the fixed ones; when any label
 * has region marks, a last column `marks` holds each label's marks as a JSON list.
 */
export function labelExportCsv(rows: readonly LabelExportRow[], options: CsvWriteOptions & { questionIds?: readonly string[] } = {}): string {
  const questionIds = options.questionIds ?? [];
  const withMarks = hasMarks(rows);
  const records: string[][] = [[...LABEL_EXPORT_COLUMNS, ...questionIds.map((q) => `answer_${q}`), ...(withMarks ? ["marks"] : [])]];
  for (const r of rows) {
    records.push([
      ...LABEL_EXPORT_COLUMNS.map((c) => {
        const v = r[c];
        if (v === null || v === undefined) return "";
        if (Array.isArray(v)) return v.join(" ");
        return String(v);
      }),
      ...questionIds.map((q) => answerCell(r.answers?.[q])),
      ...(withMarks ? [r.marks?.length ? JSON.stringify(r.marks) : ""] : []),
    ]);
  }
  return formatCsv(records, options);
}

/** The export as JSON lines; a campaign with questions adds an `answers` object to each record, marks a `marks` list. */
export function labelExportJsonl(rows: readonly LabelExportRow[], options: { questionIds?: readonly string[] } = {}): string {
  const withAnswers = (options.questionIds ?? []).length > 0;
  const withMarks = hasMarks(rows);
  return (
    rows
      .map((r) => {
        const record: Record<string, unknown> = Object.fromEntries(LABEL_EXPORT_COLUMNS.map((c) => [c, r[c] ?? null]));
        if (withAnswers) record.answers = r.answers ?? null;
        if (withMarks) record.marks = r.marks ?? null;
        return JSON.stringify(record);
      })
      .join("\n") + (rows.length ? "\n" : "")
  );
}

// ---------------------------------------------------------------- import

/**
 * One annotator's columns on a row of a wide table (Evaluator1/Overall1, Evaluator2/Overall2, … on one row): the
 * column naming the annotator, or the annotator's name itself when the columns are named after them.
 */
export interface LabelColumnPair {
  annotator?: string;
  annotatorName?: string;
  verdict: string;
  category?: string;
  firstFailingStep?: string;
  note?: string;
}

export interface LabelImportMapping {
  /** Column naming the annotator (an imported annotator is a name, not an account). Long layout: one label a row. */
  annotator?: string;
  /** Column holding the verdict (long layout). */
  verdict?: string;
  /**
   * Wide layout instead of annotator/verdict: each pair is one annotator's label on the row. An empty pair (no
   * verdict) is skipped with its reason. category, firstFailingStep and note given at the top apply to every pair
   * that does not name its own.
   */
  labels?: LabelColumnPair[];
  /** The file's verdict words → ours; a word mapped to null marks rows to skip. Default: see DEFAULT_VERDICT_WORDS. */
  verdictValues?: Record<string, LabelVerdict | null>;
  /** Column with Verdict trajectory ids (an export of this app). Otherwise `taskId` (+ `model`, `benchmark`). */
  trajectoryId?: string;
  /** Column with the benchmark's task id, matched to the task's external id. */
  taskId?: string;
  /** Column matched against the run's model, agent name or run name. */
  model?: string;
  /** Column matched against the task set's benchmark or name. */
  benchmark?: string;
  category?: string;
  /** Column with the first failing step: a step number, 1 = first step, unless `firstFailingStepIs` says "index". */
  firstFailingStep?: string;
  /** "number" (default): 1-based, as Verdict shows and exports steps; "index": 0-based, as some tools write them. */
  firstFailingStepIs?: "number" | "index";
  note?: string;
  /** Only rows whose column equals this value are read (e.g. kind = annotation in an export of this app). */
  where?: { column: string; equals: string };
  /** Rows whose column equals this value are skipped (e.g. stage = adjudication in a CUAVerifierBench table). */
  whereNot?: { column: string; equals: string };
  /** Drop AgentRewardBench's ".resized" / ".improved" id segments on both sides before matching task ids. */
  normalizeTaskIds?: boolean;
}

/**
 * A mapping as the API and the CLI accept it (the dashboard's import form sends one, `labels import --mapping` reads
 * one from a file): the same rules for both, so a file the CLI takes is one the form would take.
 */
export const labelImportMappingSchema = z
  .object({
    annotator: z.string().min(1).optional(),
    verdict: z.string().min(1).optional(),
    labels: z
      .array(
        z
          .object({
            annotator: z.string().min(1).optional(),
            annotatorName: z.string().trim().min(1).optional(),
            verdict: z.string().min(1),
            category: z.string().optional(),
            firstFailingStep: z.string().optional(),
            note: z.string().optional(),
          })
          .strict(),
      )
      .min(1)
      .max(100)
      .optional(),
    verdictValues: z.record(z.string(), z.enum(LABEL_VERDICTS).nullable()).optional(),
    trajectoryId: z.string().optional(),
    taskId: z.string().optional(),
    model: z.string().optional(),
    benchmark: z.string().optional(),
    category: z.string().optional(),
    firstFailingStep: z.string().optional(),
    firstFailingStepIs: z.enum(["number", "index"]).optional(),
    note: z.string().optional(),
    where: z.object({ column: z.string(), equals: z.string() }).optional(),
    whereNot: z.object({ column: z.string(), equals: z.string() }).optional(),
    normalizeTaskIds: z.boolean().optional(),
  })
  .superRefine((m, ctx) => {
    if (m.labels === undefined) {
      if (m.annotator === undefined)
        ctx.addIssue({
          code: "custom",
          path: ["annotator"],
          message: "the annotator column is required (or labels: [{annotator, verdict}, …] for several annotators on a row)",
        });
      if (m.verdict === undefined)
        ctx.addIssue({
          code: "custom",
          path: ["verdict"],
          message: "the verdict column is required (or labels: [{annotator, verdict}, …] for several annotators on a row)",
        });
      return;
    }
    if (m.annotator !== undefined || m.verdict !== undefined)
      ctx.addIssue({ code: "custom", path: ["labels"], message: "give annotator/verdict (one label a row) or labels (several on a row), not both" });
    m.labels.forEach((p, i) => {
      if ((p.annotator === undefined) === (p.annotatorName === undefined)) {
        ctx.addIssue({
          code: "custom",
          path: ["labels", i, "annotator"],
          message: "give the column naming the annotator (annotator) or the annotator's name (annotatorName), one of them",
        });
      }
    });
  }) satisfies z.ZodType<LabelImportMapping>;

/** Verdict words understood when a mapping gives none (exact match first, then ignoring case and spaces). */
export const DEFAULT_VERDICT_WORDS: Record<string, LabelVerdict | null> = {
  success: "success",
  successful: "success",
  failure: "failure",
  unsuccessful: "failure",
  unsure: "unsure",
  not_executable: "not_executable",
  "not executable": "not_executable",
};

export const LABEL_IMPORT_PRESETS: Record<string, { description: string; mapping: LabelImportMapping }> = {
  agentrewardbench: {
    description: "AgentRewardBench annotations.csv (annotator_name, benchmark, task_id, model_name, trajectory_success)",
    mapping: {
      annotator: "annotator_name",
      verdict: "trajectory_success",
      verdictValues: { Successful: "success", Unsuccessful: "failure", Unsure: "unsure" },
      taskId: "task_id",
      model: "model_name",
      benchmark: "benchmark",
      normalizeTaskIds: true,
    },
  },
  verdict: {
    description: "a label export of this app (CSV), matched on trajectory_id",
    mapping: {
      annotator: "annotator_name",
      verdict: "verdict",
      trajectoryId: "trajectory_id",
      category: "category",
      firstFailingStep: "first_failing_step_number",
      note: "note",
      where: { column: "kind", equals: "annotation" },
    },
  },
};

/** AgentRewardBench writes "visualwebarena.resized.398" for task "visualwebarena.398". */
export function normalizeTaskId(id: string): string {
  return id.trim().replace(/\.(resized|improved)(?=\.)/g, "");
}

export type ImportTrajectoryKey = { kind: "id"; trajectoryId: number } | { kind: "task"; taskId: string; model: string | null; benchmark: string | null };

export interface ImportedLabelRow {
  line: number;
  annotator: string;
  key: ImportTrajectoryKey;
  verdict: LabelVerdict;
  category: string | null;
  firstFailingStep: number | null;
  note: string | null;
}

export interface LabelRowsRead {
  rows: ImportedLabelRow[];
  /** Rows left out on purpose: filtered by `where`, or a verdict word mapped to null. */
  skipped: { line: number; reason: string }[];
}

export class LabelImportError extends ValidationError {
  constructor(message: string) {
    super(message);
    this.name = "LabelImportError";
  }
}

function lookupVerdict(word: string, table: Record<string, LabelVerdict | null>): LabelVerdict | null | undefined {
  if (Object.prototype.hasOwnProperty.call(table, word)) return table[word];
  const folded = word.trim().toLowerCase();
  for (const [k, v] of Object.entries(table)) if (k.trim().toLowerCase() === folded) return v;
  return undefined;
}

/**
 * Reads labelled rows from a table (a CSV, or a sheet of a workbook) through a mapping: one label a row (long
 * layout), or several annotator/verdict column pairs on each row (wide layout, `labels`). Problems with the mapping
 * or a row throw with the file name, line and column; nothing is half-read. Annotator names are trimmed
 * (AgentRewardBench has " H" for "H").
 */
export function readLabelRows(table: CsvTable, mapping: LabelImportMapping, source: string): LabelRowsRead {
  const col = (name: string | undefined, what: string): number | null => {
    if (name === undefined) return null;
    const i = table.header.indexOf(name);
    if (i < 0)
      throw new LabelImportError(
        `${source}: the ${what} column ${JSON.stringify(name)} is not in the header (${table.header.map((h) => JSON.stringify(h)).join(", ")})`,
      );
    return i;
  };
  if (mapping.trajectoryId === undefined && mapping.taskId === undefined) {
    throw new LabelImportError(`${source}: the mapping needs a trajectoryId column or a taskId column to find each row's trajectory`);
  }
  const wide = mapping.labels !== undefined;
  if (wide && (mapping.annotator !== undefined || mapping.verdict !== undefined)) {
    throw new LabelImportError(`${source}: the mapping gives both annotator/verdict (one label a row) and labels (several on a row); give one of them`);
  }
  if (!wide && (mapping.annotator === undefined || mapping.verdict === undefined)) {
    throw new LabelImportError(`${source}: the mapping needs an annotator and a verdict column, or labels: [{annotator, verdict}, …] for several on a row`);
  }
  const pairs = (mapping.labels ?? [{ annotator: mapping.annotator!, verdict: mapping.verdict! }]).map((p, i) => {
    const what = (field: string) => (wide ? `labels[${i}].${field}` : field);
    if (wide && (p.annotator === undefined) === (p.annotatorName === undefined)) {
      throw new LabelImportError(
        `${source}: ${what("annotator")}: give the column naming the annotator (annotator) or the annotator's name (annotatorName), one of them`,
      );
    }
    return {
      annotatorCol: col(p.annotator, what("annotator")),
      annotatorColumn: p.annotator,
      annotatorName: p.annotatorName?.trim(),
      verdictCol: col(p.verdict, what("verdict"))!,
      verdictColumn: p.verdict,
      categoryCol: col(p.category ?? mapping.category, what("category")),
      stepCol: col(p.firstFailingStep ?? mapping.firstFailingStep, what("firstFailingStep")),
      stepColumn: p.firstFailingStep ?? mapping.firstFailingStep,
      noteCol: col(p.note ?? mapping.note, what("note")),
    };
  });
  const trajectoryCol = col(mapping.trajectoryId, "trajectoryId");
  const taskCol = col(mapping.taskId, "taskId");
  const modelCol = col(mapping.model, "model");
  const benchmarkCol = col(mapping.benchmark, "benchmark");
  const whereCol = mapping.where ? col(mapping.where.column, "where") : null;
  const whereNotCol = mapping.whereNot ? col(mapping.whereNot.column, "whereNot") : null;
  if (mapping.firstFailingStepIs !== undefined && mapping.firstFailingStepIs !== "number" && mapping.firstFailingStepIs !== "index") {
    throw new LabelImportError(
      `${source}: firstFailingStepIs is ${JSON.stringify(mapping.firstFailingStepIs)}; use "number" (1 = first step) or "index" (0 = first step)`,
    );
  }
  const words = mapping.verdictValues ?? DEFAULT_VERDICT_WORDS;
  for (const [word, v] of Object.entries(words)) {
    if (v !== null && !LABEL_VERDICTS.includes(v))
      throw new LabelImportError(
        `${source}: verdictValues maps ${JSON.stringify(word)} to ${JSON.stringify(v)}, which is not one of ${LABEL_VERDICTS.join(", ")} (or null to skip)`,
      );
  }

  if (table.rows.length === 0) {
    // A header alone is usually the wrong sheet or an export cut short; "0 labels imported" would read as done.
    throw new LabelImportError(`${source} has a header row and no rows below it: there is nothing to import`);
  }
  const rows: ImportedLabelRow[] = [];
  const skipped: LabelRowsRead["skipped"] = [];
  table.rows.forEach((fields, r) => {
    const line = table.lines[r]!;
    const at = (c: string) => `${source}: line ${line}, column ${JSON.stringify(c)}`;
    if (whereCol !== null && fields[whereCol] !== mapping.where!.equals) {
      skipped.push({ line, reason: `${mapping.where!.column} is ${JSON.stringify(fields[whereCol])}` });
      return;
    }
    if (whereNotCol !== null && fields[whereNotCol] === mapping.whereNot!.equals) {
      skipped.push({ line, reason: `${mapping.whereNot!.column} is ${JSON.stringify(fields[whereNotCol])}` });
      return;
    }
    let key: ImportTrajectoryKey | undefined;
    const rowKey = (): ImportTrajectoryKey => {
      if (key) return key;
      if (trajectoryCol !== null) {
        const raw = fields[trajectoryCol]!.trim();
        const id = Number(raw);
        if (!/^\d+$/.test(raw) || !Number.isSafeInteger(id) || id <= 0)
          throw new LabelImportError(`${at(mapping.trajectoryId!)}: ${JSON.stringify(raw)} is not a trajectory id`);
        key = { kind: "id", trajectoryId: id };
      } else {
        const taskId = fields[taskCol!]!.trim();
        if (!taskId) throw new LabelImportError(`${at(mapping.taskId!)}: the task id is empty`);
        key = {
          kind: "task",
          taskId,
          model: modelCol !== null ? fields[modelCol]!.trim() || null : null,
          benchmark: benchmarkCol !== null ? fields[benchmarkCol]!.trim() || null : null,
        };
      }
      return key;
    };

    for (const pair of pairs) {
      const word = fields[pair.verdictCol]!;
      const named = pair.annotatorName ?? fields[pair.annotatorCol!]!.trim();
      // A wide row where an annotator gave no verdict (fewer evaluators on this item) is one label fewer, said so.
      if (wide && word.trim() === "") {
        skipped.push({
          line,
          reason: named
            ? `${JSON.stringify(pair.verdictColumn)} is empty for annotator ${JSON.stringify(named)}`
            : `${JSON.stringify(pair.verdictColumn)} is empty`,
        });
        continue;
      }
      const verdict = lookupVerdict(word, words);
      if (verdict === undefined)
        throw new LabelImportError(
          `${at(pair.verdictColumn)}: verdict ${JSON.stringify(word)} is not mapped (known: ${Object.keys(words)
            .map((w) => JSON.stringify(w))
            .join(", ")})`,
        );
      if (verdict === null) {
        skipped.push({ line, reason: `verdict ${JSON.stringify(word)} is mapped to skip` });
        continue;
      }
      if (!named) throw new LabelImportError(`${at(pair.annotatorColumn!)}: the annotator is empty`);

      let firstFailingStep: number | null = null;
      if (pair.stepCol !== null) {
        const raw = fields[pair.stepCol]!.trim();
        if (raw !== "") {
          const zeroBased = mapping.firstFailingStepIs === "index";
          if (!/^\d+$/.test(raw))
            throw new LabelImportError(
              `${at(pair.stepColumn!)}: ${JSON.stringify(raw)} is not a step ${zeroBased ? "index (0 = first step)" : "number (1 = first step)"}`,
            );
          if (!zeroBased && Number(raw) === 0)
            throw new LabelImportError(`${at(pair.stepColumn!)}: step numbers start at 1 (set "firstFailingStepIs": "index" for 0-based files)`);
          firstFailingStep = zeroBased ? Number(raw) : Number(raw) - 1;
        }
      }
      const category = pair.categoryCol !== null ? fields[pair.categoryCol]! || null : null;
      const note = pair.noteCol !== null ? fields[pair.noteCol]! || null : null;
      rows.push({ line, annotator: named, key: rowKey(), verdict, category, firstFailingStep, note });
    }
  });
  return { rows, skipped };
}
