/**
 * POST /api/v1/imports?name=<file name>[&format=<format>] with an API token (read-write; researchers and admins):
 * push a results folder as a .zip. The same import job as the Import page's upload, with the same size limit and
 * waiting-room quota; answers 202 `{ jobId }`, then poll GET /api/v1/imports/<jobId>.
 */
import { scopeAllowsWrites } from "@/server/domain/access/api-tokens";
import { json, v1Route } from "../../_lib/v1";
import { receiveZipUpload } from "../../_lib/zip-upload";

export const POST = v1Route(async ({ req, identity }) => {
  if (!scopeAllowsWrites(identity.scope))
    return json(403, { error: "This API token may only read (its scope is read); pushing an import needs a read-write token" });
  return receiveZipUpload(req, identity.session, "push");
});
