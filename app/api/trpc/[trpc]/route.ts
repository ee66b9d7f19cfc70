/**
 * tRPC over HTTP (fetch adapter) for client components.
 *
 * Requests are refused before any work when addressed to a name this installation does not answer to (DNS
 * rebinding) or sent by a page of another origin (guardedRoute, server/auth/origins.ts), when the body is larger than the limit (the two CSV uploads have a
 * larger one), or when a batch holds more than MAX_BATCH_SIZE calls.
 */
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { limitBody, type BodyTooLargeError } from "@/server/api/body-limit";
import { appRouter } from "@/server/api/root";
import { createTRPCContext, MAX_BATCH_SIZE, UPLOAD_PROCEDURES } from "@/server/api/trpc";
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_UPLOAD_BYTES } from "@/server/config";
import { getAppContext } from "@/server/context";
import { guardedRoute } from "../../_lib/guarded-route";

const ENDPOINT = "/api/trpc";

/** The procedures a request calls ("a.b,c.d" in the path of a batch). */
function procedurePaths(url: string): string[] {
  const { pathname } = new URL(url);
  return decodeURIComponent(pathname.slice(ENDPOINT.length + 1)).split(",");
}

/**
 * The 413 in tRPC's own error format (one entry per call of a batch), so the browser shows the message like any
 * other refusal instead of failing to read the answer.
 */
function trpcPayloadTooLarge(req: Request, paths: string[], error: BodyTooLargeError): Response {
  const envelope = (path: string) => ({
    error: { json: { message: error.message, code: -32013, data: { code: "PAYLOAD_TOO_LARGE", httpStatus: 413, path, limit: error.limit } } },
  });
  const batch = new URL(req.url).searchParams.get("batch") === "1";
  return new Response(JSON.stringify(batch ? paths.map(envelope) : envelope(paths[0] ?? "")) + "\n", {
    status: 413,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", Connection: "close" },
  });
}

async function handler(req: Request): Promise<Response> {
  const app = getAppContext();
  const paths = procedurePaths(req.url);
  const upload = paths.every((p) => UPLOAD_PROCEDURES.has(p));
  const limit = upload ? (app.config.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES) : (app.config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  const limited = await limitBody(req, limit, (e) => trpcPayloadTooLarge(req, paths, e));
  if (limited instanceof Response) return limited;
  return fetchRequestHandler({
    endpoint: ENDPOINT,
    req: limited,
    router: appRouter,
    maxBatchSize: MAX_BATCH_SIZE,
    createContext: () => createTRPCContext({ headers: limited.headers }, app),
    onError({ path, error }) {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`tRPC ${path ?? "?"} failed:`, error.cause ?? error);
    },
  });
}

const guarded = guardedRoute(handler);
export { guarded as GET, guarded as POST };
