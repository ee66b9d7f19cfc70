/**
 * A campaign's labels out and back in, in each format of server/domain/annotation/label-formats.ts (researchers).
 * Every export can be imported into a fresh campaign over the same trajectories and gives the same labels back:
 * per annotator for Verdict's own files, AgentRewardBench and the CUAVerifierBench table, per task and agent (the
 * consolidated label) for Online-Mind2Web, whose file has no annotators.
 */
import type { Db } from "../../../db/database";
import { trajectoryRows } from "../../../db/repositories/analytics";
import { requireRole, type Actor } from "../../domain/access/actor";
import { parseCsvTable, type CsvTable } from "../../domain/csv";
import {
  arbAnnotationsCsv,
  buildMind2WebHumanLabels,
  cuaImportMapping,
  cuaVerifierCsv,
  LABEL_FORMATS,
  mind2webHumanLabelJson,
  mind2webImportMapping,
  readJsonlTable,
  readMind2WebHumanLabels,
  type CuaRow,
  type LabelFormat,
} from "../../domain/annotation/label-formats";
import { LABEL_EXPORT_COLUMNS, LABEL_IMPORT_PRESETS, labelExportCsv, labelExportJsonl, type LabelImportMapping } from "../../domain/annotation/label-io";
import type { LabelVerdict } from "../../domain/annotation/label-schema";
import { ValidationError } from "../../errors";
import { campaignForExport } from "./campaign-lookup";
import { campaignLabelRows, importLabelTable, type LabelImportReport, type LabelImportRequest } from "./io";

export interface LabelFile {
  fileName: string;
  contentType: string;
  body: string;
  /** Labels the format cannot hold (e.g. "unsure" in Online-Mind2Web), left out of the file. */
  leftOut: number;
}

function checkFormat(format: string): LabelFormat {
  if (!(LABEL_FORMATS as readonly string[]).includes(format))
    throw new ValidationError(`format: one of ${LABEL_FORMATS.join(", ")}, got ${JSON.stringify(format)}`);
  return format as LabelFormat;
}

const str = (v: unknown) => (v === null || v === undefined ? "" : String(v));

/** The campaign's labels as a file in `format`. */
export async function exportLabelsAs(db: Db, actor: Actor, campaignId: number, formatName: string): Promise<LabelFile> {
  requireRole(actor, "researcher", "export labels");
  const format = checkFormat(formatName);
  const { slug } = await campaignForExport(db, actor, campaignId);
  const rows = await campaignLabelRows(db, campaignId);
  const annotations = rows.filter((r) => r.kind === "annotation");
  switch (format) {
    case "verdict-csv":
      return { fileName: `${slug}-labels.csv`, contentType: "text/csv; charset=utf-8", body: labelExportCsv(rows), leftOut: 0 };
    case "verdict-jsonl":
      return { fileName: `${slug}-labels.jsonl`, contentType: "application/x-ndjson; charset=utf-8", body: labelExportJsonl(rows), leftOut: 0 };
    case "online-mind2web": {
      const consolidated = rows.filter((r) => r.kind === "consolidated");
      const intents = new Map(
        (
          await trajectoryRows(
            db,
            consolidated.map((r) => r.trajectory_id as number),
          )
        ).map((t) => [t.id, t.intent]),
      );
      const built = buildMind2WebHumanLabels(
        consolidated.map((r) => ({
          taskId: str(r.task_id),
          task: intents.get(r.trajectory_id as number) ?? "",
          agent: str(r.agent),
          verdict: r.verdict as LabelVerdict,
        })),
      );
      return {
        fileName: "human_label.json",
        contentType: "application/json; charset=utf-8",
        body: mind2webHumanLabelJson(built.records),
        leftOut: built.left.length,
      };
    }
    case "agentrewardbench": {
      const { csv, left } = arbAnnotationsCsv(
        annotations.map((r) => ({
          annotator: str(r.annotator_name),
          benchmark: str(r.benchmark),
          taskId: str(r.task_id),
          model: str(r.model ?? r.agent),
          expName: str(r.run_name),
          verdict: r.verdict as LabelVerdict,
        })),
      );
      return { fileName: "annotations.csv", contentType: "text/csv; charset=utf-8", body: csv, leftOut: left.length };
    }
    case "cuaverifierbench": {
      const table: CuaRow[] = rows
        .filter((r) => r.kind === "annotation" || r.consolidation_method === "adjudicated")
        .map((r) => ({
          trajectoryId: r.trajectory_id as number,
          reviewer: str(r.annotator_name),
          stage: r.kind === "consolidated" ? "adjudication" : r.after_reveal === 1 ? "informed" : "blind",
          verdict: r.verdict as LabelVerdict,
          reasoning: r.kind === "consolidated" ? (r.reason as string | null) : (r.note as string | null),
          taskId: str(r.task_id),
          agent: str(r.agent),
          category: (r.category as string | null) ?? null,
          failureStepNumber: (r.first_failing_step_number as number | null) ?? null,
        }));
      return { fileName: `${slug}-cuaverifierbench.csv`, contentType: "text/csv; charset=utf-8", body: cuaVerifierCsv(table), leftOut: 0 };
    }
  }
}

export interface FormatImportRequest extends Omit<LabelImportRequest, "csv" | "mapping"> {
  format: string;
  /** The file as text. */
  text: string;
  /** Online-Mind2Web only: the name its labels are attributed to (the file names no annotators). */
  annotator?: string;
}

/** Who Online-Mind2Web labels are attributed to unless the import says otherwise. */
export const MIND2WEB_DEFAULT_ANNOTATOR = "Online-Mind2Web human label";

/** Imports a file in `format` into a new or existing campaign (see importLabelTable for matching and reporting). */
export async function importLabelsAs(db: Db, actor: Actor, req: FormatImportRequest, now = Date.now()): Promise<LabelImportReport> {
  requireRole(actor, "researcher", "import labels");
  const format = checkFormat(req.format);
  let table: CsvTable;
  let mapping: LabelImportMapping;
  switch (format) {
    case "online-mind2web":
      table = readMind2WebHumanLabels(req.text, req.source, req.annotator?.trim() || MIND2WEB_DEFAULT_ANNOTATOR);
      mapping = mind2webImportMapping();
      break;
    case "verdict-jsonl":
      table = readJsonlTable(req.text, req.source, LABEL_EXPORT_COLUMNS);
      mapping = LABEL_IMPORT_PRESETS.verdict!.mapping;
      break;
    case "verdict-csv":
      table = parseCsvTable(req.text, { source: req.source });
      mapping = LABEL_IMPORT_PRESETS.verdict!.mapping;
      break;
    case "agentrewardbench":
      table = parseCsvTable(req.text, { source: req.source });
      mapping = LABEL_IMPORT_PRESETS.agentrewardbench!.mapping;
      break;
    case "cuaverifierbench":
      table = parseCsvTable(req.text, { source: req.source });
      mapping = cuaImportMapping();
      break;
  }
  return await importLabelTable(
    db,
    actor,
    table,
    { source: req.source, campaign: req.campaign, dryRun: req.dryRun, unmatchedLimit: req.unmatchedLimit, mapping },
    now,
  );
}
