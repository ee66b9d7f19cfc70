/**
 * GET /api/reports/<id>/download: the zip of a report built on the dashboard (server/services/trajectories/report-jobs.ts),
 * streamed from the report files. Only for the researcher who asked for it (or an admin); anyone else is told there
 * is no such report, and a report whose labels and verdicts its owner may no longer see, or that has expired, is
 * refused in words.
 */
import { Readable } from "node:stream";
import { openReportDownload } from "@/server/services/trajectories";
import { attachment, downloadRoute, routeId } from "../../../_lib/download";

export const GET = downloadRoute("download reports", async (_req, { app, actor }, { params }: { params: Promise<{ id: string }> }) => {
  const id = routeId((await params).id, "report id", 12);
  if (id instanceof Response) return id;
  const file = await openReportDownload(app, actor, id);
  return attachment(Readable.toWeb(file.body) as ReadableStream<Uint8Array>, { fileName: file.fileName, contentType: "application/zip", size: file.size });
});
