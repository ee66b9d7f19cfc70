/**
 * GET /api/task-validity?format=csv|json&benchmark=…|set=…: the task validity ledger as a download (researchers and
 * admins not labelling blind): every revision of every flagged task, of one benchmark family or task set when asked.
 */
import { sessionFromHeaders } from "@/server/auth/auth";
import { getAppContext } from "@/server/context";
import { AppError, HTTP_STATUS } from "@/server/errors";
import { exportTaskValidityLedger } from "@/server/services/catalog";
import { guardedRoute } from "../_lib/guarded-route";

function text(status: number, message: string): Response {
  return new Response(`${message}\n`, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}

async function exportLedger(req: Request): Promise<Response> {
  const app = await getAppContext();
  const user = await sessionFromHeaders(app, req.headers);
  if (!user) return text(401, "Sign in to export the task validity ledger");
  const sp = new URL(req.url).searchParams;
  const format = sp.get("format") ?? "csv";
  if (format !== "csv" && format !== "json") return text(400, `format: csv or json, got ${JSON.stringify(format)}`);
  const set = sp.get("set");
  if (set !== null && !/^\d{1,9}$/.test(set)) return text(400, `set: expected a task set id, got ${JSON.stringify(set)}`);
  const benchmark = sp.get("benchmark") || undefined;
  try {
    const actor = { userId: user.userId, name: user.name, role: user.role };
    const file = await exportTaskValidityLedger(app.db, actor, { benchmark, taskSetId: set === null ? undefined : Number(set) }, format);
    return new Response(file.body, {
      headers: { "Content-Type": file.contentType, "Content-Disposition": `attachment; filename="${file.filename}"`, "Cache-Control": "no-store" },
    });
  } catch (e) {
    if (e instanceof AppError) return text(HTTP_STATUS[e.code], e.message);
    throw e;
  }
}

export const GET = guardedRoute(exportLedger);
