/**
 * The worker's side of an agreement CSV from the dashboard (./csv-agreement.ts): read the staged file, parse and
 * analyse it in a job thread (jobs/threads.ts), keep the result on the job, remove the file. Imported by the worker
 * runtime only, never by the web server.
 */
import type { AppContext } from "../../context";
import { ValidationError } from "../../errors";
import { runInThread } from "../jobs/threads";
import type { JobHandler } from "../jobs/worker";
import { readUploadedText, removeUploadedText } from "../../storage/uploaded-text";
import type { CsvAgreementJobPayload } from "./csv-agreement";

export function csvAgreementJobHandler(ctx: AppContext): JobHandler {
  return async ({ job, signal }) => {
    const { file, requestedBy: _by, ...choices } = job.payload as CsvAgreementJobPayload;
    void _by;
    try {
      const text = await readUploadedText(ctx.config, file);
      if (text === null) throw new ValidationError(`${choices.fileName}: the uploaded file is no longer there; upload it again`);
      return await runInThread("csv-agreement", { ...choices, text }, { signal, what: choices.fileName });
    } finally {
      // A job handed back by a stopping worker runs again and needs its file; a finished or failed one does not.
      if (!signal.aborted) await removeUploadedText(ctx.config, file).catch(() => undefined);
    }
  };
}
