/**
 * better-auth's HTTP endpoints (sign-in, sign-out, session) for the installation's database. Sign-in bodies are
 * a few hundred bytes, so anything over AUTH_MAX_BODY_BYTES is refused before it is read, as are requests to a
 * name this installation does not answer to and requests from pages of other origins (guardedRoute). A database
 * busy with another process's write is a retryable 503, as in the tRPC API.
 */
import { toNextJsHandler } from "better-auth/next-js";
import { limitBody } from "@/server/api/body-limit";
import { DATABASE_BUSY_MESSAGE } from "@/server/api/trpc";
import { authRequestState, getAuth } from "@/server/auth/auth";
import { getAppContext } from "@/server/context";
import { isDatabaseBusy } from "@/db/client";
import { guardedRoute } from "../../_lib/guarded-route";

const AUTH_MAX_BODY_BYTES = 64 * 1024;

async function handler(req: Request): Promise<Response> {
  const app = getAppContext();
  const limited = await limitBody(req, AUTH_MAX_BODY_BYTES);
  if (limited instanceof Response) return limited;
  const state = { databaseBusy: false };
  const auth = await getAuth(app);
  let response: Response;
  try {
    response = await authRequestState.run(state, () => auth.handler(limited));
  } catch (error) {
    // The sign-in rate limit is counted in the database before better-auth's own error handling starts, so a busy
    // database can surface here instead.
    if (!isDatabaseBusy(error)) throw error;
    state.databaseBusy = true;
    response = new Response(null, { status: 500 });
  }
  if (state.databaseBusy && response.status >= 500) {
    // Nothing was written (e.g. the new session); signing in again in a moment works.
    return new Response(JSON.stringify({ message: DATABASE_BUSY_MESSAGE, code: "DATABASE_BUSY", retryable: true }) + "\n", {
      status: 503,
      headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", "Retry-After": "1" },
    });
  }
  return response;
}

export const { GET, POST } = toNextJsHandler(guardedRoute(handler));
