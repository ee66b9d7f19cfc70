/**
 * GET /api/campaigns/<id>/labels?format=…: a campaign's labels as a download (researchers and admins). csv / jsonl:
 * one record per annotation plus one per consolidated label, keyed by trajectory id; online-mind2web,
 * agentrewardbench, cuaverifierbench: the benchmarks' own shapes (server/domain/annotation/label-formats.ts).
 */
import { sessionFromHeaders } from "@/server/auth/auth";
import { getAppContext } from "@/server/context";
import { AppError, HTTP_STATUS } from "@/server/errors";
import { LABEL_FORMATS } from "@/server/domain/annotation/label-formats";
import { exportCampaignLabels, exportLabelsAs } from "@/server/services/annotation";
import { guardedRoute } from "../../../_lib/guarded-route";

function text(status: number, message: string): Response {
  return new Response(`${message}\n`, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}

async function exportLabels(req: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const app = await getAppContext();
  const user = await sessionFromHeaders(app, req.headers);
  if (!user) return text(401, "Sign in to export labels");
  const raw = (await params).id;
  if (!/^\d{1,9}$/.test(raw)) return text(400, `campaign id: expected a number, got ${JSON.stringify(raw)}`);
  const format = new URL(req.url).searchParams.get("format") ?? "csv";
  const benchmark = format !== "csv" && format !== "jsonl";
  if (benchmark && !(LABEL_FORMATS as readonly string[]).includes(format))
    return text(400, `format: csv, jsonl or one of ${LABEL_FORMATS.join(", ")}, got ${JSON.stringify(format)}`);
  try {
    const actor = { userId: user.userId, name: user.name, role: user.role };
    const file = benchmark ? await exportLabelsAs(app.db, actor, Number(raw), format) : await exportCampaignLabels(app.db, actor, Number(raw), format);
    return new Response(file.body, {
      headers: {
        "Content-Type": file.contentType,
        "Content-Disposition": `attachment; filename="${file.fileName}"`,
        "Cache-Control": "no-store",
      },
    });
  } catch (e) {
    if (e instanceof AppError) return text(HTTP_STATUS[e.code], e.message);
    throw e;
  }
}

export const GET = guardedRoute(exportLabels);
