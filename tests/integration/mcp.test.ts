/**
 * Verdict's MCP server used by the MCP SDK's own client, as a coding assistant would, over Streamable HTTP (the
 * route handler behind a real HTTP server) and over stdio (scripts/mcp.ts as a child process), against a real
 * database on both engines: a researcher lists, searches and reads a trajectory with its screenshots as images;
 * annotators find their queue, claim an item, read it and label it, and the label is stored.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { tablesOf } from "../../db/database";
import { closeSharedDatabases } from "../../server/context";
import type { Actor } from "../../server/domain/access/actor";
import { MAX_IMAGES } from "../../server/api/mcp/steps";
import { createApiToken } from "../../server/services/accounts/api-tokens";
import { createCampaign } from "../../server/services/annotation";
import { makeActor } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { seedTrajectories } from "../helpers/judge-fixtures";
import { callJson, callTool, httpMcpClient, imagesOf, stdioMcpClient, textOf } from "../helpers/mcp-client";
import { startRouteServer, type RouteServer } from "../helpers/route-server";

const TOOLS = [
  "agreement",
  "get_evaluations",
  "get_item",
  "get_steps",
  "get_trajectory",
  "list_trajectories",
  "my_queue",
  "next_item",
  "search_trajectories",
  "submit_label",
];

interface Row {
  id: number;
  hits?: { step: number | null; field: string; text: string }[];
}

describeEachBackend("the MCP server through an MCP client", (backend) => {
  let ctx: TestContext;
  let server: RouteServer;
  let env: Record<string, string>;
  const saved = { ...process.env };
  let researcher: Actor;
  const annotators: Actor[] = [];
  let salmonId: number;
  let longId: number;
  let campaignId: number;
  const clients: Client[] = [];

  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-mcp-");
    env = { VERDICT_DATA_DIR: ctx.dir, VERDICT_DB: ctx.config.dbPath, ...(ctx.config.postgresUrl ? { VERDICT_DATABASE_URL: ctx.config.postgresUrl } : {}) };
    Object.assign(process.env, env);
    if (!ctx.config.postgresUrl) delete process.env.VERDICT_DATABASE_URL;
    researcher = await makeActor(ctx, "Rita Researcher", "researcher");
    annotators.push(await makeActor(ctx, "Ann Http", "annotator"), await makeActor(ctx, "Sid Stdio", "annotator"));
    const seeded = await seedTrajectories(ctx, [
      { steps: 3, intent: "Find a salmon recipe with five stars", thoughts: true },
      { steps: 2, intent: "Book a table for two" },
      { steps: 2, intent: "Compare two laptops" },
      { steps: MAX_IMAGES + 2, intent: "Scroll a long page" },
    ]);
    salmonId = seeded[0]!.id;
    longId = seeded[3]!.id;
    campaignId = (
      await createCampaign(ctx.db, researcher, {
        name: "Recipes",
        trajectoryIds: [salmonId],
        annotatorsPerItem: 2,
        annotatorIds: annotators.map((a) => a.userId),
      })
    ).id;
    server = await startRouteServer();
  });

  afterAll(async () => {
    for (const c of clients) await c.close();
    await server?.close();
    await closeSharedDatabases();
    await ctx?.cleanup();
    process.env = saved;
  });

  const token = async (who: Actor, scope: "read" | "read-write" = "read-write") =>
    (await createApiToken(ctx, who, { ownerId: who.userId, name: "assistant", scope })).token;

  async function connect(transport: "http" | "stdio", who: Actor): Promise<Client> {
    const t = await token(who);
    const client = transport === "http" ? await httpMcpClient(server.url, t) : (await stdioMcpClient(env, t)).client;
    clients.push(client);
    return client;
  }

  async function researcherSession(client: Client): Promise<void> {
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const all = await callJson<{ total: number; rows: Row[] }>(client, "list_trajectories", { pageSize: 10 });
    expect(all.total).toBe(4);
    const found = await callJson<{ total: number; rows: Row[] }>(client, "search_trajectories", { query: "intent:salmon" });
    expect(found.rows.map((r) => r.id)).toEqual([salmonId]);
    expect(found.rows[0]!.hits).toContainEqual({ step: null, field: "intent", text: "Find a [salmon] recipe with five stars" });
    const thoughts = await callJson<{ rows: Row[] }>(client, "search_trajectories", { query: "thought:thinking" });
    expect(thoughts.rows.map((r) => r.id)).toEqual([salmonId]);
    expect(thoughts.rows[0]!.hits!.map((h) => [h.step, h.text])).toContainEqual([2, "[Thinking] about step 2"]);
    const one = await callJson<{ task: { intent: string }; stepCount: number; link: string }>(client, "get_trajectory", { id: salmonId });
    expect(one).toMatchObject({ task: { intent: "Find a salmon recipe with five stars" }, stepCount: 3 });
    expect(one.link).toMatch(new RegExp(`^/t/[0-9a-f]+\\?id=${salmonId}&step=1$`));
    const steps = await callTool(client, "get_steps", { id: salmonId, from: 1, count: 5 });
    expect(steps.isError).toBeFalsy();
    expect(textOf(steps)).toContain("Thought: Thinking about step 2");
    expect(textOf(steps)).not.toContain("Thinking about step 1\n");
    const images = imagesOf(steps);
    expect(images).toHaveLength(2);
    for (const image of images) {
      expect(image.mimeType).toBe("image/webp");
      const bytes = Buffer.from(image.data, "base64");
      expect([bytes.subarray(0, 4).toString(), bytes.subarray(8, 12).toString()]).toEqual(["RIFF", "WEBP"]);
    }
    expect(imagesOf(await callTool(client, "get_steps", { id: salmonId, screenshots: false }))).toEqual([]);
    // One answer carries at most MAX_IMAGES screenshots; the steps past them say so.
    const long = await callTool(client, "get_steps", { id: longId, count: MAX_IMAGES + 2 });
    expect(imagesOf(long)).toHaveLength(MAX_IMAGES);
    expect(textOf(long).match(/screenshot left out/g)).toHaveLength(2);
    expect(textOf(long)).toContain(`Step ${MAX_IMAGES + 2} ·`);
  }

  async function annotatorSession(client: Client, who: Actor, note: string): Promise<void> {
    const queue = await callJson<{ campaigns: { id: number; remaining: number }[] }>(client, "my_queue");
    expect(queue.campaigns).toMatchObject([{ id: campaignId, remaining: 1 }]);
    const { next } = await callJson<{ next: { itemNo: number } }>(client, "next_item", { campaignId });
    expect(next.itemNo).toBe(1);
    const item = await callTool(client, "get_item", { campaignId, itemNo: next.itemNo });
    expect(textOf(item)).toContain("Find a salmon recipe");
    expect(imagesOf(item)).toHaveLength(3);
    await callJson(client, "submit_label", { campaignId, itemNo: next.itemNo, verdict: "failure", category: "other", note });
    const after = await callJson<{ campaigns: { remaining: number }[] }>(client, "my_queue");
    expect(after.campaigns[0]!.remaining).toBe(0);
    const { labels } = tablesOf(ctx.db);
    const stored = (await ctx.db.select().from(labels)).filter((l) => l.userId === who.userId);
    expect(stored).toMatchObject([{ verdict: "failure", category: "other", note }]);
  }

  it("over Streamable HTTP: a researcher lists, searches and reads steps with screenshots; an annotator labels", async () => {
    await researcherSession(await connect("http", researcher));
    await annotatorSession(await connect("http", annotators[0]!), annotators[0]!, "labelled over HTTP");
  });

  it("over stdio: the same, with the token in VERDICT_TOKEN; the researcher reads both labels and the agreement figures", async () => {
    await researcherSession(await connect("stdio", researcher));
    await annotatorSession(await connect("stdio", annotators[1]!), annotators[1]!, "labelled over stdio");
    // Both labels are in: the researcher's assistant reads them with the trajectory's evaluations.
    const researcherClient = clients[0]!;
    const evaluations = textOf(await callTool(researcherClient, "get_evaluations", { id: salmonId }));
    expect(evaluations).toContain("labelled over HTTP");
    expect(evaluations).toContain("labelled over stdio");
    // The agreement figures of the campaign, as worked out by hand: two annotators, one item, both "failure" (so one
    // consolidated label, 100 % agreement, and κ undefined because every rating is in the same category); no judge.
    const agreement = JSON.parse(textOf(await callTool(researcherClient, "agreement", { campaignId }))) as {
      judges: { referenceLabels: number; judges: unknown[] };
      humans: {
        labels: number;
        pairableItems: number;
        annotators: { name: string; labels: number; successShare: number }[];
        verdict: { percent: { value: number; items: number }; fleiss: { kappa: number | null; reason: string } };
      };
    };
    expect(agreement.judges).toMatchObject({ referenceLabels: 1, judges: [] });
    expect(agreement.humans).toMatchObject({ labels: 2, pairableItems: 1, verdict: { percent: { value: 1, items: 1 }, fleiss: { kappa: null } } });
    expect(agreement.humans.verdict.fleiss.reason).toContain("every rating is in the same category");
    expect(agreement.humans.annotators.map((a) => [a.name, a.labels, a.successShare]).sort()).toEqual(annotators.map((a) => [a.name, 1, 0]).sort());
  });
});
