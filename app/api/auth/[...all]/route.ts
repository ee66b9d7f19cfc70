/**
 * better-auth's HTTP endpoints (sign-in, sign-out, session) for the installation's database. Sign-in bodies are
 * a few hundred bytes, so anything over AUTH_MAX_BODY_BYTES is refused before it is read, as are requests to a
 * name this installation does not answer to (see server/auth/origins.ts).
 */
import { toNextJsHandler } from "better-auth/next-js";
import { limitBody } from "@/server/api/body-limit";
import { getAuth } from "@/server/auth/auth";
import { isAllowedHost, misdirectedResponse } from "@/server/auth/origins";
import { getAppContext } from "@/server/context";

const AUTH_MAX_BODY_BYTES = 64 * 1024;

async function handler(req: Request): Promise<Response> {
  const app = getAppContext();
  if (!isAllowedHost(req.headers.get("host"), app.config)) return misdirectedResponse(req.headers.get("host"));
  const limited = await limitBody(req, AUTH_MAX_BODY_BYTES);
  if (limited instanceof Response) return limited;
  return getAuth(app).handler(limited);
}

export const { GET, POST } = toNextJsHandler(handler);
