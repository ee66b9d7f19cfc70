/**
 * POST /api/imports?name=<file name>[&format=<format>]: upload a .zip to import (researchers and admins, signed in).
 * The body is the zip itself; see app/api/_lib/zip-upload.ts for the limits. Answers 202 `{ jobId }`; errors are
 * `{ error }` with a message for the person uploading. Scripts push through /api/v1/imports with an API token.
 */
import { sessionFromHeaders } from "@/server/auth/auth";
import { getAppContext } from "@/server/context";
import { guardedRoute } from "../_lib/guarded-route";
import { receiveZipUpload } from "../_lib/zip-upload";

async function upload(req: Request): Promise<Response> {
  return receiveZipUpload(req, await sessionFromHeaders(getAppContext(), req.headers));
}

export const POST = guardedRoute(upload);
