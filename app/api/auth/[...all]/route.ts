/**
 * better-auth's HTTP endpoints (sign-in, sign-out, session) for the installation's database.
 */
import { toNextJsHandler } from "better-auth/next-js";
import { getAuth } from "@/server/auth/auth";
import { getAppContext } from "@/server/context";

const handler = (req: Request) => getAuth(getAppContext()).handler(req);

export const { GET, POST } = toNextJsHandler(handler);
