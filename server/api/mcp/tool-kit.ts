/**
 * What every MCP tool shares (docs/guide/mcp.md): who is calling, how a tool is registered, and how its answer and
 * its refusals reach the assistant. A tool never decides access itself: it calls the dashboard's own tRPC
 * procedures as the token's owner, so roles, the blind and the token's scope apply exactly as for that person
 * signed in, and a refusal comes back as the procedure's message.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { TRPCError } from "@trpc/server";
import type { z } from "zod";
import type { AppContext } from "../../context";
import type { BearerIdentity } from "../../services/accounts/api-tokens";
import type { createCaller } from "../root";

export type ApiCaller = ReturnType<typeof createCaller>;

/** The caller of one tool call: the tRPC API as the token's owner, who that is, and the installation. */
export interface McpCall {
  api: ApiCaller;
  identity: BearerIdentity;
  app: AppContext;
}

/**
 * Resolves the caller afresh for each tool call (over stdio the process lives long: a token revoked or a role
 * changed meanwhile takes effect at the next call). Throws McpRefusal when the token is no longer accepted.
 */
export type CallerSource = () => Promise<McpCall>;

/** A refusal before any procedure ran (the token is not valid any more, too many requests). */
export class McpRefusal extends Error {}

type Shape = z.ZodRawShape;
type Args<S extends Shape> = z.infer<z.ZodObject<S>>;

export interface ToolSpec<S extends Shape> {
  title: string;
  description: string;
  input: S;
  /** Tools that change something (label, claim an item) say so; clients may ask the person before calling them. */
  changes?: boolean;
}

/** Registers a tool whose handler gets the caller of this call; refusals become tool errors with their message. */
export function defineTool<S extends Shape>(
  server: McpServer,
  source: CallerSource,
  name: string,
  spec: ToolSpec<S>,
  handler: (call: McpCall, args: Args<S>) => Promise<CallToolResult>,
): void {
  server.registerTool(
    name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: spec.input,
      annotations: { readOnlyHint: !spec.changes, destructiveHint: false, openWorldHint: false },
    },
    (async (args: Args<S>) => {
      try {
        return await handler(await source(), args);
      } catch (e) {
        return refusalResult(e);
      }
    }) as never,
  );
}

/** The message an assistant reads when a call was refused or failed, with the reason in the procedure's words. */
export function refusalResult(e: unknown): CallToolResult {
  if (e instanceof TRPCError) return errorText(`${REFUSAL_WORDS[e.code] ?? e.code}: ${e.message}`);
  if (e instanceof McpRefusal) return errorText(`Not allowed: ${e.message}`);
  throw e;
}

const REFUSAL_WORDS: Partial<Record<TRPCError["code"], string>> = {
  UNAUTHORIZED: "Not signed in",
  FORBIDDEN: "Not allowed",
  NOT_FOUND: "Not found",
  BAD_REQUEST: "Bad request",
  CONFLICT: "Conflict",
  TOO_MANY_REQUESTS: "Too many requests",
  SERVICE_UNAVAILABLE: "Busy, try again",
};

export function errorText(message: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text: message }] };
}

/** A tool's answer as JSON text, which assistants read best (dates as ISO strings). */
export function jsonResult(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value, null, 1) }] };
}
