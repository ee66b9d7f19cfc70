/**
 * The HTTP API for scripts under /api/v1 (docs/guide/api.md): every request carries an API token
 * (Authorization: Bearer) and nothing else identifies it (no cookie, no token in the URL). Each endpoint calls the
 * same tRPC procedures the dashboard calls, as the token's owner, so roles, the blind and every other rule apply
 * exactly as they do for that person signed in; a read token's changes are refused by the procedures' own check.
 * Answers are JSON; errors are `{ error }` with the status the procedure's refusal carries.
 */
import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { BodyTooLargeError, readBodyWithLimit } from "@/server/api/body-limit";
import { createCaller } from "@/server/api/root";
import { createTRPCContext } from "@/server/api/trpc";
import { DEFAULT_MAX_BODY_BYTES } from "@/server/config";
import { getAppContext } from "@/server/context";
import { authenticateBearer, type BearerIdentity } from "@/server/services/accounts";
import { guardedRoute } from "./guarded-route";
import { json } from "./zip-upload";

export type ApiCaller = ReturnType<typeof createCaller>;

export interface V1Request {
  req: Request;
  api: ApiCaller;
  identity: BearerIdentity;
}

/** A value the caller sent that the endpoint cannot use: answered 400 with the message. */
export class V1InputError extends Error {}

/** An /api/v1 endpoint: guarded like every route, then identified by its token or refused (401, 429, 400). */
export function v1Route<Rest extends unknown[]>(handler: (r: V1Request, ...rest: Rest) => Promise<Response>) {
  return guardedRoute(async (req: Request, ...rest: Rest) => {
    const app = getAppContext();
    const bearer = await authenticateBearer(app, req);
    if (bearer === null) return json(401, { error: "This API takes an API token: send Authorization: Bearer <token> (make one on your account page)" });
    if ("refusal" in bearer) return json(bearer.refusal.status, { error: bearer.refusal.message });
    const api = createCaller(await createTRPCContext({ headers: req.headers, bearer: bearer.identity }, app));
    try {
      return await handler({ req, api, identity: bearer.identity }, ...rest);
    } catch (e) {
      if (e instanceof TRPCError) return json(getHTTPStatusCodeFromError(e), { error: e.message });
      if (e instanceof V1InputError) return json(400, { error: e.message });
      if (e instanceof BodyTooLargeError) return json(413, { error: e.message });
      throw e;
    }
  });
}

/** The JSON body of a request, read no further than the installation's body limit. */
export async function jsonBody(req: Request): Promise<unknown> {
  const bytes = await readBodyWithLimit(req, getAppContext().config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
  } catch {
    throw new V1InputError("The body must be JSON");
  }
}

/** A positive integer path parameter (a trajectory's or import's id). */
export function idParam(value: string | undefined, what: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new V1InputError(`${what}: ${JSON.stringify(value ?? "")} is not an id`);
  return n;
}

export { json };
