/**
 * PUT /api/imports/folders/<session>/files/<sha256>: one file of a declared folder; the body is its content.
 * Answers `{ stored }` (false when the server held it already); 400 when the content is not what was declared.
 */
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { receiveFolderFile } from "@/server/services/imports";
import { asFolderSender } from "../../../../../_lib/folder-upload";
import { guardedRoute } from "../../../../../_lib/guarded-route";
import { json } from "../../../../../_lib/zip-upload";

async function put(req: Request, { params }: { params: Promise<{ session: string; sha: string }> }): Promise<Response> {
  return asFolderSender(req, async (app, userId) => {
    const { session, sha } = await params;
    const body = req.body ? Readable.fromWeb(req.body as unknown as WebReadableStream) : Readable.from([]);
    return json(200, await receiveFolderFile(app, userId, session, sha, body));
  });
}

export const PUT = guardedRoute(put);
