/**
 * The MCP SDK's own client connected to Verdict's MCP server, as a coding assistant would connect: over
 * Streamable HTTP to /api/mcp with a bearer token, or over stdio to `scripts/mcp.ts` started as a child process
 * with the token in VERDICT_TOKEN.
 */
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

export async function httpMcpClient(baseUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: "verdict-tests", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/api/mcp", baseUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

/** Starts `node --import tsx scripts/mcp.ts` on the installation the environment names; its stderr is kept for failures. */
export async function stdioMcpClient(env: Record<string, string>, token: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", "scripts/mcp.ts"],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env, VERDICT_TOKEN: token },
    stderr: "pipe",
  });
  let log = "";
  transport.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const client = new Client({ name: "verdict-tests", version: "1" });
  try {
    await client.connect(transport);
  } catch (e) {
    throw new Error(`the stdio server did not start: ${(e as Error).message}\n${log}`);
  }
  return { client, stderr: () => log };
}

export type ToolResult = CallToolResult;

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

/** The text parts of a tool's answer, joined. */
export function textOf(result: ToolResult): string {
  return result.content
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}

/** A successful tool answer's JSON (its first text part); fails with the answer's text when the call was refused. */
export async function callJson<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await callTool(client, name, args);
  if (result.isError) throw new Error(`${name} was refused: ${textOf(result)}`);
  const first = result.content[0];
  if (first?.type !== "text") throw new Error(`${name} answered no text`);
  return JSON.parse(first.text) as T;
}

export function imagesOf(result: ToolResult): { data: string; mimeType: string }[] {
  return result.content.filter((c) => c.type === "image").map((c) => ({ data: c.data, mimeType: c.mimeType }));
}
