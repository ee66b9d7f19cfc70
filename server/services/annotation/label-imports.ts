/**
 * Label imports from the dashboard (the campaign page's "Import labels from a CSV") run as jobs: the web server keeps
 * the file and queues the import, a worker reads it (parsing in a thread of its own: ./label-import-job.ts) and
 * imports the labels as `importLabelTable` does for the CLI, and the page polls for the report. The import acts for
 * the person who started it, with the role they have when it runs.
 */
import { requireRole, type Actor } from "../../domain/access/actor";
import type { AppContext } from "../../context";
import { checkUploadRoom } from "../jobs/upload-quota";
import { enqueueRequestedJob, requestedJob, type RequestedJobPayload, type RequestedJobView } from "../jobs/requested-jobs";
import { removeUploadedText, stageUploadedText, type StagedText } from "../../storage/uploaded-text";
import type { LabelImportReport, LabelImportRequest } from "./io";

export const LABEL_IMPORT_JOB_TYPE = "labels.import-csv";

export interface LabelImportJobPayload extends RequestedJobPayload, Omit<LabelImportRequest, "csv"> {
  file: StagedText;
}

/** Keeps the CSV and queues its import for a worker; resolves to the job's id. */
export async function startLabelImport(ctx: AppContext, actor: Actor, req: LabelImportRequest): Promise<number> {
  requireRole(actor, "researcher", "import labels");
  const { csv, ...rest } = req;
  await checkUploadRoom(ctx, actor.userId, Buffer.byteLength(csv, "utf8"));
  const file = await stageUploadedText(ctx.config, csv);
  try {
    const payload: LabelImportJobPayload = { ...rest, file, requestedBy: actor.userId, uploadBytes: file.bytes };
    return await enqueueRequestedJob(ctx, LABEL_IMPORT_JOB_TYPE, payload);
  } catch (e) {
    await removeUploadedText(ctx.config, file).catch(() => undefined);
    throw e;
  }
}

/** The import as the page that started it polls it: its report once done. */
export async function labelImportJob(ctx: AppContext, actor: Actor, id: number): Promise<RequestedJobView<LabelImportReport>> {
  return requestedJob<LabelImportReport>(ctx, actor, LABEL_IMPORT_JOB_TYPE, id);
}
