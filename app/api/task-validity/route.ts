/**
 * GET /api/task-validity?format=csv|json&benchmark=…|set=…: the task validity ledger as a download (researchers and
 * admins not labelling blind): every revision of every flagged task, of one benchmark family or task set when asked.
 */
import { exportTaskValidityLedger } from "@/server/services/catalog";
import { attachment, downloadRoute, plainText } from "../_lib/download";

export const GET = downloadRoute("export the task validity ledger", async (req, { app, actor }) => {
  const sp = new URL(req.url).searchParams;
  const format = sp.get("format") ?? "csv";
  if (format !== "csv" && format !== "json") return plainText(400, `format: csv or json, got ${JSON.stringify(format)}`);
  const set = sp.get("set");
  if (set !== null && !/^\d{1,9}$/.test(set)) return plainText(400, `set: expected a task set id, got ${JSON.stringify(set)}`);
  const benchmark = sp.get("benchmark") || undefined;
  const file = await exportTaskValidityLedger(app.db, actor, { benchmark, taskSetId: set === null ? undefined : Number(set) }, format);
  return attachment(file.body, { fileName: file.filename, contentType: file.contentType });
});
