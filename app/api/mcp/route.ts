/**
 * POST /api/mcp: Verdict's MCP server over Streamable HTTP (docs/guide/mcp.md), for a team's assistants. Every
 * request carries an API token (Authorization: Bearer) and is served by a server made for it alone (stateless
 * mode, JSON answers), so each tool call runs as the token's owner as they are at that request. The route is
 * guarded like every other (installation host names; the Origin rules when a cookie comes along), a missing or
 * refused token is answered before any MCP message is read, tokens count against the same rate limits as the
 * rest of the API, and a body larger than the installation's limit is refused (413).
 *
 * No GET stream: this server sends nothing unasked, so a client's request for one is answered 405 by Next.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { callerOf, createVerdictMcpServer } from "@/server/api/mcp/server";
import { DEFAULT_MAX_BODY_BYTES } from "@/server/config";
import { getAppContext } from "@/server/context";
import { authenticateBearer } from "@/server/services/accounts";
import { guardedRoute } from "../_lib/guarded-route";
import { json } from "../_lib/zip-upload";

const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="verdict"' };

function refusal(status: number, error: string): Response {
  const res = json(status, { error });
  if (status === 401) for (const [k, v] of Object.entries(CHALLENGE)) res.headers.set(k, v);
  return res;
}

async function mcp(req: Request): Promise<Response> {
  const app = getAppContext();
  const bearer = await authenticateBearer(app, req);
  if (bearer === null) return refusal(401, "Verdict's MCP server takes an API token: send Authorization: Bearer <token> (make one on your account page)");
  if ("refusal" in bearer) return refusal(bearer.refusal.status, bearer.refusal.message);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: app.config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
  });
  const server = createVerdictMcpServer(callerOf(app, bearer.identity, req.headers));
  await server.connect(transport);
  try {
    return await transport.handleRequest(req);
  } finally {
    await server.close();
  }
}

export const POST = guardedRoute(mcp);
