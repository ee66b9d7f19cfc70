/**
 * An annotator's tools: their labelling queue, claiming the next item, reading an item (as the labelling page
 * shows it: nothing the blind hides) and submitting a label; and the researchers' agreement figures. Items are
 * addressed by campaign and item number as on the labelling page. A read token cannot claim or label: the
 * procedures are mutations, which a read token's scope refuses.
 */
import { randomUUID } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { LABEL_VERDICTS } from "../../domain/annotation/label-schema";
import { MAX_STEPS_PER_CALL, stepsResult } from "./steps";
import { defineTool, jsonResult, type CallerSource } from "./tool-kit";

const id = z.number().int().positive();

function registerQueue(server: McpServer, source: CallerSource): void {
  defineTool(
    server,
    source,
    "my_queue",
    {
      title: "My labelling queue",
      description:
        "Your labelling campaigns with how many items are left for you. With campaignId: that campaign's instructions and label schema, and your recent labels in it.",
      input: { campaignId: id.optional() },
    },
    async ({ api }, { campaignId }) => {
      if (campaignId === undefined) return jsonResult({ campaigns: await api.labelling.myCampaigns() });
      const [campaign, recent] = await Promise.all([api.labelling.campaign({ id: campaignId }), api.labelling.done({ campaignId, limit: 50 })]);
      return jsonResult({ campaign, recentLabels: recent });
    },
  );
  defineTool(
    server,
    source,
    "next_item",
    {
      title: "Claim the next item",
      description: "Reserves the next item of a campaign for you (or the one you already hold) and answers its item number; null when nothing is left.",
      input: { campaignId: id },
      changes: true,
    },
    async ({ api }, { campaignId }) => jsonResult({ next: await api.labelling.next({ campaignId }) }),
  );
  defineTool(
    server,
    source,
    "get_item",
    {
      title: "A campaign item",
      description: `An item you label, as the labelling page shows it (task, final answer, outcome; no run or judge while the campaign is blind), with steps from a 0-based position and their screenshots. Up to ${MAX_STEPS_PER_CALL} steps a call.`,
      input: {
        campaignId: id,
        itemNo: id,
        from: z.number().int().nonnegative().default(0),
        count: z.number().int().positive().max(MAX_STEPS_PER_CALL).default(5),
        screenshots: z.boolean().default(true),
      },
    },
    async (call, { campaignId, itemNo, from, count, screenshots }) => {
      const { index: _index, window: _window, ...item } = await call.api.labelling.item({ campaignId, itemNo });
      const window = await call.api.labelling.itemSteps({ campaignId, itemNo, from, count });
      return stepsResult(call, JSON.stringify(item, null, 1), window.steps, screenshots);
    },
  );
}

function registerLabelling(server: McpServer, source: CallerSource): void {
  defineTool(
    server,
    source,
    "submit_label",
    {
      title: "Submit a label",
      description:
        "Submits (or revises) your label on a campaign item: the verdict, and where the campaign's schema asks for them a category, the first failing step (0-based) and a note. Needs a read-write token.",
      input: {
        campaignId: id,
        itemNo: id,
        verdict: z.enum(LABEL_VERDICTS),
        category: z.string().max(200).optional(),
        firstFailingStep: z.number().int().nonnegative().optional(),
        note: z.string().max(10_000).optional(),
        answers: z.record(z.string(), z.unknown()).optional().describe("answers to the campaign's extra questions, by question id"),
        key: z.string().min(8).max(128).optional().describe("an idempotency key: the same key again changes nothing (retries)"),
      },
      changes: true,
    },
    async ({ api }, { key, ...label }) => jsonResult(await api.labelling.submit({ ...label, idempotencyKey: key ?? `mcp-${randomUUID()}` })),
  );
}

function registerAgreement(server: McpServer, source: CallerSource): void {
  defineTool(
    server,
    source,
    "agreement",
    {
      title: "Agreement figures",
      description:
        "How well each evaluator agrees with the human labels (κ, accuracy, confusion, with intervals) over a scope; with campaignId, also the annotators' agreement with each other in that campaign. Researchers and admins who label nothing blind.",
      input: { campaignId: id.optional(), runId: id.optional(), taskSetId: id.optional(), site: z.string().max(500).optional() },
    },
    async ({ api }, { campaignId, runId, taskSetId, site }) => {
      const judges = await api.analytics.judges({ scope: { runId, taskSetId, site }, campaignId });
      const humans = campaignId === undefined ? null : await api.analytics.humans({ campaignId });
      return jsonResult({ judges, humans });
    },
  );
}

export function registerLabellingTools(server: McpServer, source: CallerSource): void {
  registerQueue(server, source);
  registerLabelling(server, source);
  registerAgreement(server, source);
}
