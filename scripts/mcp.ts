/**
 * `npm run --silent mcp`: Verdict's MCP server over stdio, for a coding assistant on a machine that has the
 * installation's database (docs/guide/mcp.md). It acts as the owner of the API token in VERDICT_TOKEN, with that
 * person's role and the blind, and a read token only reads. Assistants on other machines use the HTTP endpoint
 * (/api/mcp) instead. stdout carries the protocol alone: everything the server would log goes to stderr.
 */
import { serveMcpOverStdio } from "../server/api/mcp/server";
import { closeSharedDatabases, getAppContext } from "../server/context";

console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);

const token = process.env.VERDICT_TOKEN?.trim();
if (!token) {
  console.error("Set VERDICT_TOKEN to an API token (make one on your account page, or with `npm run cli -- token create`).");
  process.exit(2);
}

try {
  const who = await serveMcpOverStdio(getAppContext(process.env), token);
  console.error(`[verdict] MCP server on stdio, acting as ${who.name} (${who.role})`);
} catch (e) {
  console.error(`[verdict] ${(e as Error).message}`);
  await closeSharedDatabases();
  process.exit(1);
}
process.stdin.on("close", () => void closeSharedDatabases());
