/**
 * The Import page's folder upload (server/services/imports/folder-uploads.ts) over HTTP: who may send, and the
 * service's refusals as `{ error }` answers with their status, like the zip upload's.
 */
import { sessionFromHeaders } from "@/server/auth/auth";
import { getAppContext } from "@/server/context";
import { hasRole } from "@/server/domain/access/actor";
import { AppError, HTTP_STATUS } from "@/server/errors";
import { json } from "./zip-upload";

type AppContext = ReturnType<typeof getAppContext>;

/** Runs `work` for a signed-in researcher or admin; anything the service refuses becomes its status and message. */
export async function asFolderSender(req: Request, work: (app: AppContext, userId: string) => Promise<Response>): Promise<Response> {
  const app = getAppContext();
  const user = await sessionFromHeaders(app, req.headers);
  if (!user) return json(401, { error: "Sign in to import trajectories" });
  if (!hasRole(user, "researcher")) return json(403, { error: "Importing is for researchers and admins" });
  try {
    return await work(app, user.userId);
  } catch (e) {
    if (e instanceof AppError) return json(HTTP_STATUS[e.code], { error: e.message });
    throw e;
  }
}
