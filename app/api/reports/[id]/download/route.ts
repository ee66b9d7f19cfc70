/**
 * GET /api/reports/<id>/download: the zip of a report built on the dashboard (server/services/trajectories/report-jobs.ts),
 * streamed from the report files. Only for the researcher who asked for it (or an admin); anyone else is told there
 * is no such report, and a report whose labels and verdicts its owner may no longer see, or that has expired, is
 * refused in words.
 */
import { Readable } from "node:stream";
import { sessionFromHeaders } from "@/server/auth/auth";
import { getAppContext } from "@/server/context";
import { AppError, HTTP_STATUS } from "@/server/errors";
import { openReportDownload } from "@/server/services/trajectories";
import { guardedRoute } from "../../../_lib/guarded-route";

function text(status: number, message: string): Response {
  return new Response(`${message}\n`, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}

async function downloadReport(req: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const app = await getAppContext();
  const user = await sessionFromHeaders(app, req.headers);
  if (!user) return text(401, "Sign in to download reports");
  const raw = (await params).id;
  if (!/^\d{1,12}$/.test(raw) || Number(raw) < 1) return text(400, `report id: expected a number, got ${JSON.stringify(raw)}`);
  try {
    const file = await openReportDownload(app, { userId: user.userId, name: user.name, role: user.role }, Number(raw));
    return new Response(Readable.toWeb(file.body) as ReadableStream<Uint8Array>, {
      headers: {
        "Content-Type": "application/zip",
        "Content-Disposition": `attachment; filename="${file.fileName}"`,
        "Content-Length": String(file.size),
        "Cache-Control": "no-store",
      },
    });
  } catch (e) {
    if (e instanceof AppError) return text(HTTP_STATUS[e.code], e.message);
    throw e;
  }
}

export const GET = guardedRoute(downloadReport);
