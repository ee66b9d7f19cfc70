/**
 * tRPC over HTTP (fetch adapter) for client components.
 *
 * Requests are refused before any work when addressed to a name this installation does not answer to (DNS
 * rebinding) or sent by a page of another origin (guardedRoute, server/auth/origins.ts), when the body is larger than
 * the limit, or when a batch holds more than MAX_BATCH_SIZE calls. The two CSV uploads have a larger limit
 * (VERDICT_MAX_UPLOAD_BYTES), which only a signed-in researcher gets: for them the session is read from the cookie
 * before the body, and anyone else is turned away (401, 403) without a byte of it being read. A request with an API
 * token (Authorization: Bearer, docs/guide/api.md) is its owner's, whatever cookie it carries; a bad, revoked or
 * expired token is refused (401) before the body too.
 */
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { limitBody, type BodyTooLargeError } from "@/server/api/body-limit";
import { appRouter } from "@/server/api/root";
import { createTRPCContext, MAX_BATCH_SIZE, UPLOAD_PROCEDURES, type RequestSession } from "@/server/api/trpc";
import { sessionFromHeaders } from "@/server/auth/auth";
import { hasRole } from "@/server/domain/access/actor";
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_UPLOAD_BYTES } from "@/server/config";
import { getAppContext } from "@/server/context";
import { authenticateBearer } from "@/server/services/accounts";
import { guardedRoute } from "../../_lib/guarded-route";

const ENDPOINT = "/api/trpc";

/** The procedures a request calls ("a.b,c.d" in the path of a batch). */
function procedurePaths(url: string): string[] {
  const { pathname } = new URL(url);
  return decodeURIComponent(pathname.slice(ENDPOINT.length + 1)).split(",");
}

/** JSON-RPC codes tRPC gives these refusals. */
const RPC_CODES = { BAD_REQUEST: -32600, UNAUTHORIZED: -32001, FORBIDDEN: -32003, PAYLOAD_TOO_LARGE: -32013, TOO_MANY_REQUESTS: -32029 } as const;

/**
 * A refusal in tRPC's own error format (one entry per call of a batch), so the browser shows the message like any
 * other refusal instead of failing to read the answer. The connection is closed: the body is not read.
 */
function trpcRefusal(
  req: Request,
  paths: string[],
  code: keyof typeof RPC_CODES,
  status: number,
  message: string,
  extra: Record<string, unknown> = {},
): Response {
  const envelope = (path: string) => ({ error: { json: { message, code: RPC_CODES[code], data: { code, httpStatus: status, path, ...extra } } } });
  const batch = new URL(req.url).searchParams.get("batch") === "1";
  return new Response(JSON.stringify(batch ? paths.map(envelope) : envelope(paths[0] ?? "")) + "\n", {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", Connection: "close" },
  });
}

function trpcPayloadTooLarge(req: Request, paths: string[], error: BodyTooLargeError): Response {
  return trpcRefusal(req, paths, "PAYLOAD_TOO_LARGE", 413, error.message, { limit: error.limit });
}

async function handler(req: Request): Promise<Response> {
  const app = getAppContext();
  const paths = procedurePaths(req.url);
  const upload = paths.every((p) => UPLOAD_PROCEDURES.has(p));
  const smallLimit = app.config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const limit = upload ? Math.max(smallLimit, app.config.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES) : smallLimit;
  // Scripts send an API token (Authorization: Bearer); it alone says who is asking, before any body is read.
  const bearer = await authenticateBearer(app, req);
  if (bearer && "refusal" in bearer) {
    const { status, message } = bearer.refusal;
    return trpcRefusal(req, paths, status === 429 ? "TOO_MANY_REQUESTS" : status === 400 ? "BAD_REQUEST" : "UNAUTHORIZED", status, message);
  }
  const identity = bearer?.identity ?? null;
  let session: RequestSession | null | undefined = identity?.session;
  if (limit > smallLimit && req.method !== "GET" && req.method !== "HEAD") {
    // Reading a large body costs memory and time: only for a researcher, known by the cookie alone.
    session ??= await sessionFromHeaders(app, req.headers);
    if (!session) return trpcRefusal(req, paths, "UNAUTHORIZED", 401, "Sign in to upload files");
    if (!hasRole(session, "researcher")) return trpcRefusal(req, paths, "FORBIDDEN", 403, "Uploading files is for researchers and admins");
  }
  const limited = await limitBody(req, limit, (e) => trpcPayloadTooLarge(req, paths, e));
  if (limited instanceof Response) return limited;
  return fetchRequestHandler({
    endpoint: ENDPOINT,
    req: limited,
    router: appRouter,
    maxBatchSize: MAX_BATCH_SIZE,
    createContext: () => createTRPCContext({ headers: limited.headers, session, bearer: identity }, app),
    onError({ path, error }) {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`tRPC ${path ?? "?"} failed:`, error.cause ?? error);
    },
  });
}

const guarded = guardedRoute(handler);
export { guarded as GET, guarded as POST };
