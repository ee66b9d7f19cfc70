/**
 * POST /api/imports/folders/<session>: imports a folder whose files have all arrived, as JSON `{ again?: boolean }`.
 * Answers 202 `{ jobId, refused }`; 409 when files are missing or the same content was imported before (send
 * `again: true` to import it anyway).
 */
import { finishFolderUpload } from "@/server/services/imports";
import { asFolderSender } from "../../../_lib/folder-upload";
import { guardedRoute } from "../../../_lib/guarded-route";
import { json } from "../../../_lib/zip-upload";

async function finish(req: Request, { params }: { params: Promise<{ session: string }> }): Promise<Response> {
  return asFolderSender(req, async (app, userId) => {
    const body = (await req.json().catch(() => ({}))) as { again?: unknown } | null;
    return json(202, await finishFolderUpload(app, userId, (await params).session, { again: body?.again === true }));
  });
}

export const POST = guardedRoute(finish);
