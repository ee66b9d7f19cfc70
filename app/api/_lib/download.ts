/**
 * The download routes for signed-in people (a campaign's labels and reveal stages, a report's zip, a trajectory as
 * ATIF, the task validity ledger): guarded like every route, the session read first, a refusal of the service
 * (an `AppError`) answered with its status and message as plain text, and the file sent as an attachment that is
 * never cached.
 */
import { sessionFromHeaders } from "@/server/auth/auth";
import { getAppContext } from "@/server/context";
import type { Actor } from "@/server/domain/access/actor";
import { AppError, HTTP_STATUS } from "@/server/errors";
import { guardedRoute } from "./guarded-route";

export interface Downloader {
  app: ReturnType<typeof getAppContext>;
  actor: Actor;
}

/** A refusal in words, one line of plain text. */
export function plainText(status: number, message: string): Response {
  return new Response(`${message}\n`, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}

/** A file to save: its name, its type and, when known ahead, its size. */
export function attachment(body: BodyInit, file: { fileName: string; contentType: string; size?: number }): Response {
  const headers: Record<string, string> = { "Content-Type": file.contentType, "Content-Disposition": `attachment; filename="${file.fileName}"` };
  if (file.size !== undefined) headers["Content-Length"] = String(file.size);
  headers["Cache-Control"] = "no-store";
  return new Response(body, { headers });
}

/**
 * A path id, or the 400 that names it (`what`: "campaign id"): up to 9 digits for a campaign (its 0 is left to the
 * service, which finds no such campaign), up to 12 and not 0 for a report or a trajectory.
 */
export function routeId(raw: string, what: string, digits: 9 | 12): number | Response {
  const ok = digits === 9 ? /^\d{1,9}$/.test(raw) : /^\d{1,12}$/.test(raw) && Number(raw) > 0;
  return ok ? Number(raw) : plainText(400, `${what}: expected a number, got ${JSON.stringify(raw)}`);
}

/** A GET that downloads something for the person signed in (`signInTo`: what the 401 asks them to sign in for). */
export function downloadRoute<Rest extends unknown[]>(signInTo: string, handler: (req: Request, who: Downloader, ...rest: Rest) => Promise<Response>) {
  return guardedRoute(async (req: Request, ...rest: Rest) => {
    const app = getAppContext();
    const user = await sessionFromHeaders(app, req.headers);
    if (!user) return plainText(401, `Sign in to ${signInTo}`);
    try {
      return await handler(req, { app, actor: { userId: user.userId, name: user.name, role: user.role } }, ...rest);
    } catch (e) {
      if (e instanceof AppError) return plainText(HTTP_STATUS[e.code], e.message);
      throw e;
    }
  });
}
