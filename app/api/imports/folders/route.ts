/**
 * POST /api/imports/folders: declares a folder to upload from the Import page, as JSON
 * `{ name, format?, files: [{ path, size, sha256 }] }`. Answers `{ sessionId, missing, refused, earlier, … }`:
 * the hashes still to send (PUT …/files/<sha256>), the files refused with their reasons, and an earlier import of
 * the same content if there was one. See server/services/imports/folder-uploads.ts.
 */
import { beginFolderUpload, type FolderUploadRequest } from "@/server/services/imports";
import { asFolderSender } from "../../_lib/folder-upload";
import { guardedRoute } from "../../_lib/guarded-route";
import { json } from "../../_lib/zip-upload";

async function begin(req: Request): Promise<Response> {
  return asFolderSender(req, async (app, userId) => {
    const body = (await req.json().catch(() => null)) as FolderUploadRequest | null;
    if (!body || typeof body !== "object") return json(400, { error: "Send the folder's files as JSON" });
    return json(200, await beginFolderUpload(app, userId, body));
  });
}

export const POST = guardedRoute(begin);
