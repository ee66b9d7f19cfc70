/**
 * The worker's side of a label import from the dashboard (./label-imports.ts): read the staged CSV or workbook, parse it in a job
 * thread (jobs/threads.ts), import the rows as the person who started it, remove the file. Imported by the worker
 * runtime only, never by the web server.
 */
import { getUser } from "../../../db/repositories/accounts/users";
import type { Actor } from "../../domain/access/actor";
import type { AppContext } from "../../context";
import { ValidationError } from "../../errors";
import { runInThread } from "../jobs/threads";
import type { JobHandler } from "../jobs/worker";
import { readUploadedText, removeUploadedText } from "../../storage/uploaded-text";
import { importLabelTable } from "./io";
import type { LabelImportJobPayload } from "./label-imports";

export function labelImportJobHandler(ctx: AppContext): JobHandler {
  return async ({ job, signal }) => {
    const { file, requestedBy, encoding, sheet, ...req } = job.payload as LabelImportJobPayload;
    try {
      // The role the person has now: one demoted or deactivated since the upload imports nothing.
      const user = await getUser(ctx.db, requestedBy);
      if (!user || user.banned) throw new ValidationError(`${req.source}: the account that started this import no longer exists or is deactivated`);
      const actor: Actor = { userId: user.id, name: user.name, role: user.role };
      const text = await readUploadedText(ctx.config, file);
      if (text === null) throw new ValidationError(`${req.source}: the uploaded file is no longer there; upload it again`);
      if (encoding === "xlsx-base64") {
        const table = await runInThread(
          "workbook-table",
          { base64: text, source: req.source, sheet, chooseSheet: "in the Sheet field" },
          { signal, what: req.source },
        );
        signal.throwIfAborted();
        const report = await importLabelTable(ctx.db, actor, table, { ...req, source: `${req.source} (sheet ${JSON.stringify(table.sheet)})` });
        return { ...report, sheet: table.sheet };
      }
      const table = await runInThread("csv-table", { text, source: req.source }, { signal, what: req.source });
      signal.throwIfAborted();
      return await importLabelTable(ctx.db, actor, table, req);
    } finally {
      // A job handed back by a stopping worker runs again and needs its file; a finished or failed one does not.
      if (!signal.aborted) await removeUploadedText(ctx.config, file).catch(() => undefined);
    }
  };
}
