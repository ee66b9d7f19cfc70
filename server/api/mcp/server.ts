/**
 * Verdict's MCP server (docs/guide/mcp.md): the tools a coding assistant uses to browse, search and label
 * trajectories, served over stdio (`npm run --silent mcp`, one person's token) or Streamable HTTP (`/api/mcp`, each
 * request with its bearer token). Either way every tool call is made as the token's owner through the dashboard's
 * own procedures; the transports only say who is asking.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { AppContext } from "../../context";
import { authenticateBearer, type BearerIdentity } from "../../services/accounts";
import { createCaller } from "../root";
import { createTRPCContext } from "../trpc";
import { registerLabellingTools } from "./labelling-tools";
import { McpRefusal, type CallerSource } from "./tool-kit";
import { registerTrajectoryTools } from "./trajectory-tools";

const INSTRUCTIONS = [
  "Verdict holds trajectories of web agents (a task, steps with screenshots, thoughts and actions, a final answer) with judges' verdicts and human labels.",
  "Start with list_trajectories or search_trajectories, then get_trajectory, get_steps (screenshots as images) and get_evaluations.",
  "Annotators: my_queue, next_item, get_item, submit_label. Researchers: agreement.",
  "You act as the token's owner: what they may not see or do is refused with the reason.",
].join(" ");

export function createVerdictMcpServer(source: CallerSource, version = "1"): McpServer {
  const server = new McpServer({ name: "verdict", title: "Verdict", version }, { instructions: INSTRUCTIONS });
  registerTrajectoryTools(server, source);
  registerLabellingTools(server, source);
  return server;
}

/** The caller of a request already authenticated (Streamable HTTP: one server per request). */
export function callerOf(app: AppContext, identity: BearerIdentity, headers: Headers): CallerSource {
  return async () => ({ api: createCaller(await createTRPCContext({ headers, bearer: identity }, app)), identity, app });
}

/**
 * The caller of a long-lived stdio server: the token is checked again at each call, with the same rules (and the
 * same failure count) as a request to the HTTP API, so revoking it or changing its owner's role takes effect at once.
 */
export function tokenCaller(app: AppContext, token: string): CallerSource {
  const headers = new Headers({ authorization: `Bearer ${token}` });
  return async () => {
    const outcome = await authenticateBearer(app, { url: "/mcp", headers });
    if (outcome === null) throw new McpRefusal("no API token was given");
    if ("refusal" in outcome) throw new McpRefusal(outcome.refusal.message);
    return { api: createCaller(await createTRPCContext({ headers: new Headers(), bearer: outcome.identity }, app)), identity: outcome.identity, app };
  };
}

/**
 * Serves MCP on this process's stdin and stdout until the client closes them. The token is checked before the
 * server starts, so a wrong one fails at once with its reason instead of at the first tool call.
 */
export async function serveMcpOverStdio(app: AppContext, token: string): Promise<{ name: string; role: string }> {
  const source = tokenCaller(app, token);
  const { identity } = await source();
  const server = createVerdictMcpServer(source);
  await server.connect(new StdioServerTransport());
  return { name: identity.session.name, role: identity.session.role };
}
