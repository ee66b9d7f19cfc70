/**
 * GET /api/campaigns/<id>/reveal-stages?format=csv|jsonl: a reveal campaign's blind and informed labels, one row per
 * trajectory, reviewer and stage (CUAVerifierBench-like; server/domain/agreement/reveal-export.ts), as a download
 * for researchers and admins.
 */
import { sessionFromHeaders } from "@/server/auth/auth";
import { getAppContext } from "@/server/context";
import { AppError, HTTP_STATUS } from "@/server/errors";
import { exportRevealStages } from "@/server/services/annotation";
import { guardedRoute } from "../../../_lib/guarded-route";

function text(status: number, message: string): Response {
  return new Response(`${message}\n`, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}

async function exportStages(req: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const app = await getAppContext();
  const user = await sessionFromHeaders(app, req.headers);
  if (!user) return text(401, "Sign in to export labels");
  const raw = (await params).id;
  if (!/^\d{1,9}$/.test(raw)) return text(400, `campaign id: expected a number, got ${JSON.stringify(raw)}`);
  const format = new URL(req.url).searchParams.get("format") ?? "csv";
  if (format !== "csv" && format !== "jsonl") return text(400, `format: csv or jsonl, got ${JSON.stringify(format)}`);
  try {
    const file = await exportRevealStages(app.db, { userId: user.userId, name: user.name, role: user.role }, Number(raw), format);
    return new Response(file.body, {
      headers: { "Content-Type": file.contentType, "Content-Disposition": `attachment; filename="${file.fileName}"`, "Cache-Control": "no-store" },
    });
  } catch (e) {
    if (e instanceof AppError) return text(HTTP_STATUS[e.code], e.message);
    throw e;
  }
}

export const GET = guardedRoute(exportStages);
