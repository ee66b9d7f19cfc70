/**
 * Every route handler under app/api is exported through `guardedRoute`: requests addressed to a name this
 * installation does not answer to, or sent by a page of another origin, are refused before the handler reads the
 * session, the body or anything else (server/auth/origins.ts, `foreignRequestRefusal`). Pages get the same Host
 * check in proxy.ts; tests/security/web.test.ts walks every route file and checks each export refuses both.
 *
 * A script's request with an API token and no cookie is not a browser acting on a person's session, so the
 * Origin rules (which stop other sites' pages from riding the cookie) do not apply to it: a page of another site
 * cannot send an Authorization header here at all (that needs a CORS preflight no route answers), and a request
 * without a cookie has no session to ride. The Host check applies to every request.
 */
import { foreignRequestRefusal, misdirectedResponse, isAllowedHost } from "@/server/auth/origins";
import { getAppContext } from "@/server/context";

function isTokenRequest(req: Request): boolean {
  return /^Bearer\s/i.test(req.headers.get("authorization") ?? "") && !req.headers.has("cookie");
}

export function guardedRoute<Rest extends unknown[]>(
  handler: (req: Request, ...rest: Rest) => Promise<Response>,
): (req: Request, ...rest: Rest) => Promise<Response> {
  return async (req, ...rest) => {
    const config = getAppContext().config;
    if (isTokenRequest(req)) {
      const host = req.headers.get("host");
      return isAllowedHost(host, config) ? handler(req, ...rest) : misdirectedResponse(host);
    }
    return foreignRequestRefusal(req, config) ?? handler(req, ...rest);
  };
}
