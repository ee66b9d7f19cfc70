/**
 * Every route handler under app/api is exported through `guardedRoute`: requests addressed to a name this
 * installation does not answer to, or sent by a page of another origin, are refused before the handler reads the
 * session, the body or anything else (server/auth/origins.ts, `foreignRequestRefusal`). Pages get the same Host
 * check in proxy.ts; tests/security/web.test.ts walks every route file and checks each export refuses both.
 */
import { foreignRequestRefusal } from "@/server/auth/origins";
import { getAppContext } from "@/server/context";

export function guardedRoute<Rest extends unknown[]>(handler: (req: Request, ...rest: Rest) => Promise<Response>): (req: Request, ...rest: Rest) => Promise<Response> {
  return async (req, ...rest) => foreignRequestRefusal(req, getAppContext().config) ?? handler(req, ...rest);
}
