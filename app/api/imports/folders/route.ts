/**
 * POST /api/imports/folders: declares a folder to upload from the Import page, as JSON
 * `{ name, format?, files: [{ path, size, sha256 }] }`. Answers `{ sessionId, missing, refused, earlier, … }`:
 * the hashes still to send (PUT …/files/<sha256>), the files refused with their reasons, and an earlier import of
 * the same content if there was one. See server/services/imports/folder-uploads.ts. The declaration is read no
 * further than room for the files one import may hold (413 beyond), so a huge list costs the server that much at most.
 */
import { BodyTooLargeError, formatBytes, readBodyWithLimit } from "@/server/api/body-limit";
import { beginFolderUpload, folderDeclarationLimit, type FolderUploadRequest } from "@/server/services/imports";
import { asFolderSender } from "../../_lib/folder-upload";
import { guardedRoute } from "../../_lib/guarded-route";
import { json } from "../../_lib/zip-upload";

async function begin(req: Request): Promise<Response> {
  return asFolderSender(req, async (app, userId) => {
    const { maxBytes, maxFiles } = folderDeclarationLimit(app);
    let bytes: Uint8Array;
    try {
      bytes = await readBodyWithLimit(req, maxBytes);
    } catch (e) {
      if (!(e instanceof BodyTooLargeError)) throw e;
      return json(413, {
        error: `The folder's list of files is larger than the ${formatBytes(maxBytes)} this server reads: one import holds at most ${maxFiles} files (VERDICT_ZIP_MAX_ENTRIES). Upload part of the folder, or import it with the CLI.`,
      });
    }
    const body = parseJson(bytes) as FolderUploadRequest | null;
    if (!body || typeof body !== "object" || Array.isArray(body)) return json(400, { error: "Send the folder's files as JSON" });
    return json(200, await beginFolderUpload(app, userId, body));
  });
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
}

export const POST = guardedRoute(begin);
