/**
 * GET /api/trajectories/<id>/atif: one trajectory as ATIF, for the player's download: a zip holding
 * `trajectory-<id>.atif.json` and its screenshots under `images/` (server/services/trajectories/atif-export.ts).
 * For researchers and admins who see the whole catalog: the file names the run and carries the verdicts, which
 * annotators labelling blind must not see.
 */
import { sessionFromHeaders } from "@/server/auth/auth";
import { getAppContext } from "@/server/context";
import { AppError, HTTP_STATUS } from "@/server/errors";
import { assertTrajectoryBrowsable, seesWholeCatalog } from "@/server/services/access";
import { atifDownload } from "@/server/services/trajectories";
import { guardedRoute } from "../../../_lib/guarded-route";

function text(status: number, message: string): Response {
  return new Response(`${message}\n`, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}

async function downloadAtif(req: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const app = await getAppContext();
  const user = await sessionFromHeaders(app, req.headers);
  if (!user) return text(401, "Sign in to download trajectories");
  const raw = (await params).id;
  if (!/^\d{1,12}$/.test(raw) || Number(raw) < 1) return text(400, `trajectory id: expected a number, got ${JSON.stringify(raw)}`);
  const id = Number(raw);
  const actor = { userId: user.userId, name: user.name, role: user.role };
  try {
    await assertTrajectoryBrowsable(app.db, actor, id);
    if (!(await seesWholeCatalog(app.db, actor))) return text(403, "ATIF downloads are for researchers and admins who are not labelling blind");
    const file = await atifDownload(app, id, { withVerdicts: true });
    return new Response(new Uint8Array(file.body), {
      headers: {
        "Content-Type": "application/zip",
        "Content-Disposition": `attachment; filename="${file.fileName}"`,
        "Content-Length": String(file.body.byteLength),
        "Cache-Control": "no-store",
      },
    });
  } catch (e) {
    if (e instanceof AppError) return text(HTTP_STATUS[e.code], e.message);
    throw e;
  }
}

export const GET = guardedRoute(downloadAtif);
