/**
 * Label imports from the dashboard (the campaign page's "Import labels") run as jobs: the web server keeps the file
 * (a CSV, or an .xlsx workbook sent as base64) and queues the import, a worker reads it (parsing in a thread of its
 * own: ./label-import-job.ts) and
 * imports the labels as `importLabelTable` does for the CLI, and the page polls for the report. The import acts for
 * the person who started it, with the role they have when it runs.
 */
import { requireRole, type Actor } from "../../domain/access/actor";
import type { AppContext } from "../../context";
import { ValidationError } from "../../errors";
import { enqueueUploadedTextJob, requestedJob, type RequestedJobPayload, type RequestedJobView } from "../jobs";
import type { StagedText } from "../../storage/uploaded-text";
import type { LabelImportReport, LabelImportRequest } from "./io";

export const LABEL_IMPORT_JOB_TYPE = "labels.import-csv";

/** What the campaign page sends: the file as CSV text, or a workbook's bytes as base64 with the sheet to read. */
export type DashboardLabelImportRequest = Omit<LabelImportRequest, "csv"> &
  ({ csv: string; xlsxBase64?: undefined; sheet?: undefined } | { xlsxBase64: string; sheet?: string; csv?: undefined });

export interface LabelImportJobPayload extends RequestedJobPayload, Omit<LabelImportRequest, "csv"> {
  file: StagedText;
  /** How the staged text holds the file ("csv" when absent: jobs queued before workbooks were taken). */
  encoding?: "csv" | "xlsx-base64";
  sheet?: string;
}

/** Keeps the file and queues its import for a worker; resolves to the job's id. */
export async function startLabelImport(ctx: AppContext, actor: Actor, req: DashboardLabelImportRequest): Promise<number> {
  requireRole(actor, "researcher", "import labels");
  const { csv, xlsxBase64, sheet, ...rest } = req;
  const text = csv ?? xlsxBase64;
  if (text === undefined) throw new ValidationError(`${req.source}: no file was sent`);
  // The quota counts the file's own size, not its base64 form.
  const bytes = csv !== undefined ? Buffer.byteLength(csv, "utf8") : Math.floor((xlsxBase64!.length * 3) / 4);
  return enqueueUploadedTextJob<LabelImportJobPayload>(ctx, actor, LABEL_IMPORT_JOB_TYPE, { text, bytes }, (file) => ({
    ...rest,
    ...(csv !== undefined ? { encoding: "csv" as const } : { encoding: "xlsx-base64" as const, sheet }),
    file,
  }));
}

/** The import as the page that started it polls it: its report once done. */
export async function labelImportJob(ctx: AppContext, actor: Actor, id: number): Promise<RequestedJobView<LabelImportReport>> {
  return requestedJob<LabelImportReport>(ctx, actor, LABEL_IMPORT_JOB_TYPE, id);
}
