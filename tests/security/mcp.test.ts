/**
 * Verdict's MCP server as an attacker would try it (issue 31, item 2), on both engines: the HTTP endpoint's gate
 * (no token, forged token, a token in the URL, a rebound Host name, a foreign page riding a cookie, an oversized
 * body), an annotator's assistant reaching for what the blind hides (judge verdicts and rationales, run names,
 * trajectories outside their campaigns, another annotator's label and note, agreement figures, blind-revealing
 * search terms), read tokens labelling or claiming items, and a stdio server whose token is revoked mid-session.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { tablesOf } from "../../db/database";
import { createVerdictMcpServer, tokenCaller } from "../../server/api/mcp/server";
import { closeSharedDatabases } from "../../server/context";
import type { Actor } from "../../server/domain/access/actor";
import { newTokenSecret, parseToken } from "../../server/domain/access/api-tokens";
import { createApiToken, revokeToken } from "../../server/services/accounts/api-tokens";
import { createCampaign, nextItem, submitItemLabel } from "../../server/services/annotation";
import { makeActor } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { seedTrajectories } from "../helpers/judge-fixtures";
import { callTool, httpMcpClient, imagesOf, textOf, type ToolResult } from "../helpers/mcp-client";
import { rawRequest, startRouteServer, type RouteServer } from "../helpers/route-server";

const JUDGE_SECRET = "JudgeRationaleOnlyForResearchers";
const RUN_SECRET = "agent-orion";
const OTHER_NOTE = "OthersNoteNotForYou";
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "1" } },
};

describeEachBackend("the MCP server against an attacker", (backend) => {
  let ctx: TestContext;
  let server: RouteServer;
  const saved = { ...process.env };
  const people = {} as Record<"researcher" | "annotator" | "other", Actor>;
  let blindId: number;
  let outsideId: number;
  let campaignId: number;
  let nextAddress = 10;
  const address = () => `127.0.0.${nextAddress++}`;
  const clients: Client[] = [];

  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-sec-mcp-");
    process.env.VERDICT_DATA_DIR = ctx.dir;
    process.env.VERDICT_DB = ctx.config.dbPath;
    if (ctx.config.postgresUrl) process.env.VERDICT_DATABASE_URL = ctx.config.postgresUrl;
    else delete process.env.VERDICT_DATABASE_URL;
    people.researcher = await makeActor(ctx, "Rita", "researcher");
    people.annotator = await makeActor(ctx, "Ann", "annotator");
    people.other = await makeActor(ctx, "Otto", "annotator");
    const [blind] = await seedTrajectories(ctx, [{ steps: 2, intent: "Find the blind recipe" }], "mcp-security");
    const [outside] = await seedTrajectories(ctx, [{ steps: 2, intent: "Find the outside recipe" }]);
    [blindId, outsideId] = [blind!.id, outside!.id];
    const { evaluatorVerdicts, agentRuns } = tablesOf(ctx.db);
    await ctx.db.update(agentRuns).set({ name: RUN_SECRET, agentName: RUN_SECRET });
    for (const t of [blindId, outsideId]) {
      await ctx.db.insert(evaluatorVerdicts).values({
        trajectoryId: t,
        kind: "judge",
        origin: "verdict",
        evaluatorKey: "judge:1",
        evaluatorName: "Judge",
        verdict: "failure",
        rationale: JUDGE_SECRET,
      });
    }
    campaignId = (
      await createCampaign(ctx.db, people.researcher, {
        name: "Blind campaign",
        trajectoryIds: [blindId],
        annotatorsPerItem: 2,
        annotatorIds: [people.annotator.userId, people.other.userId],
      })
    ).id;
    // The other annotator labels first, with a note.
    const item = (await nextItem(ctx.db, people.other, campaignId))!;
    await submitItemLabel(ctx.db, people.other, { campaignId, itemNo: item.itemNo, verdict: "success", note: OTHER_NOTE, idempotencyKey: "other-label-1" });
    server = await startRouteServer();
  });

  afterAll(async () => {
    for (const c of clients) await c.close();
    await server?.close();
    await closeSharedDatabases();
    await ctx?.cleanup();
    process.env = saved;
  });

  const tokenFor = async (who: keyof typeof people, scope: "read" | "read-write") =>
    (await createApiToken(ctx, people[who], { ownerId: people[who].userId, name: `${who} assistant`, scope })).token;

  async function client(who: keyof typeof people, scope: "read" | "read-write"): Promise<Client> {
    const c = await httpMcpClient(server.url, await tokenFor(who, scope));
    clients.push(c);
    return c;
  }

  function post(token: string | null, body: unknown, headers: Record<string, string> = {}, path = "/api/mcp") {
    return rawRequest(`${server.url}${path}`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
      localAddress: address(),
    });
  }

  const refused = (r: ToolResult, why: RegExp) => {
    expect(r.isError, textOf(r)).toBe(true);
    expect(textOf(r)).toMatch(why);
  };
  const leaksNothing = (r: ToolResult) => {
    const all = JSON.stringify(r.content);
    for (const secret of [JUDGE_SECRET, RUN_SECRET, OTHER_NOTE]) expect(all).not.toContain(secret);
  };

  it("answers nothing without a valid token in the header, nor to a rebound Host, a foreign page's cookie or an oversized body", async () => {
    const none = await post(null, INITIALIZE);
    expect(none.status).toBe(401);
    expect(none.headers["www-authenticate"]).toMatch(/^Bearer/);
    expect((await post(newTokenSecret().token, INITIALIZE)).status).toBe(401);
    const token = await tokenFor("researcher", "read");
    expect((await post(token, INITIALIZE)).status).toBe(200);
    expect((await post(token, INITIALIZE, {}, `/api/mcp?access_token=${token}`)).status).toBe(400);
    expect((await post(token, INITIALIZE, { Host: `rebind.attacker.example:${server.port}` })).status).toBe(421);
    expect((await post(token, INITIALIZE, { Cookie: "x=1", Origin: "http://127.0.0.1:9998" })).status).toBe(403);
    const big = JSON.stringify({ ...INITIALIZE, params: { ...INITIALIZE.params, padding: "x".repeat(3 * 1024 * 1024) } });
    expect((await post(token, big)).status).toBe(413);
    expect((await rawRequest(`${server.url}/api/mcp`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(405);
  });

  it("an annotator's assistant sees no judge verdict, run name, other trajectory or other annotator's note", async () => {
    const c = await client("annotator", "read-write");
    const list = await callTool(c, "list_trajectories");
    expect(list.isError).toBeFalsy();
    leaksNothing(list);
    // The blind item is reached only as a campaign item until labelled; the other trajectory not at all.
    expect(JSON.parse(textOf(list)).rows).toEqual([]);
    for (const id of [blindId, outsideId]) {
      for (const tool of ["get_trajectory", "get_steps", "get_evaluations"]) {
        const r = await callTool(c, tool, { id });
        refused(r, /Not allowed|Not found/);
        leaksNothing(r);
        expect(imagesOf(r)).toEqual([]);
      }
    }
    for (const query of ["judge:failure", `rationale:${JUDGE_SECRET}`, "human:success"])
      refused(await callTool(c, "search_trajectories", { query }), /Bad request|Not allowed/);
    for (const query of [JUDGE_SECRET, OTHER_NOTE, `note:${OTHER_NOTE}`, RUN_SECRET]) {
      const r = await callTool(c, "search_trajectories", { query });
      leaksNothing(r);
      if (!r.isError) expect(JSON.parse(textOf(r)).rows).toEqual([]);
    }
    refused(await callTool(c, "agreement"), /Not allowed/);
    refused(await callTool(c, "agreement", { campaignId }), /Not allowed/);
    // Their own item: the task and screenshots, and nothing the blind hides.
    const { next } = JSON.parse(textOf(await callTool(c, "next_item", { campaignId }))) as { next: { itemNo: number } };
    const item = await callTool(c, "get_item", { campaignId, itemNo: next.itemNo });
    expect(textOf(item)).toContain("Find the blind recipe");
    expect(imagesOf(item)).toHaveLength(2);
    leaksNothing(item);
    const queue = await callTool(c, "my_queue", { campaignId });
    leaksNothing(queue);
    expect(JSON.parse(textOf(queue)).recentLabels).toEqual([]);
  });

  it("read tokens cannot claim or label; nothing is written", async () => {
    const { labels } = tablesOf(ctx.db);
    const before = (await ctx.db.select().from(labels)).length;
    for (const who of ["annotator", "researcher"] as const) {
      const c = await client(who, "read");
      refused(await callTool(c, "next_item", { campaignId }), /only read/);
      refused(await callTool(c, "submit_label", { campaignId, itemNo: 1, verdict: "failure", category: "other" }), /only read/);
    }
    // A researcher's read-write token is not an annotator of the campaign: it cannot label its items either.
    const researcher = await client("researcher", "read-write");
    refused(await callTool(researcher, "submit_label", { campaignId, itemNo: 1, verdict: "failure", category: "other" }), /Not allowed|Not found/);
    expect((await ctx.db.select().from(labels)).length).toBe(before);
    // Another annotator's label is not theirs to overwrite by item number: labels are per person.
    const annotator = await client("annotator", "read-write");
    const own = await callTool(annotator, "submit_label", { campaignId, itemNo: 1, verdict: "failure", category: "other", note: "mine" });
    expect(own.isError, textOf(own)).toBeFalsy();
    const rows = await ctx.db.select().from(labels);
    expect(rows.find((l) => l.userId === people.other.userId)).toMatchObject({ verdict: "success", note: OTHER_NOTE });
    expect(rows.find((l) => l.userId === people.annotator.userId)).toMatchObject({ verdict: "failure", note: "mine" });
  });

  it("a stdio server stops answering at the next call once its token is revoked", async () => {
    const token = await tokenFor("researcher", "read");
    const mcp = createVerdictMcpServer(tokenCaller(ctx, token));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const c = new Client({ name: "probe", version: "1" });
    await c.connect(clientSide);
    clients.push(c);
    expect((await callTool(c, "list_trajectories")).isError).toBeFalsy();
    const id = (await ctx.db.select().from(tablesOf(ctx.db).apiTokens)).find((r) => r.publicId === parseToken(token)!.publicId)!.id;
    await revokeToken(ctx, people.researcher, id);
    const after = await callTool(c, "list_trajectories");
    refused(after, /not valid/);
    expect(textOf(after)).not.toContain("recipe");
  });
});
