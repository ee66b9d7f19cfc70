/**
 * Browsing tools: list and search trajectories (the trajectory list's filters and its behaviour search), one
 * trajectory's header, its steps with screenshots, and its labels and verdicts. Each calls the procedure the
 * dashboard's pages call, so an annotator's assistant reaches only their campaigns' trajectories and nothing the
 * blind hides, exactly as on the pages.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { SearchHit } from "../../domain/trajectories/search-query";
import { stepLinkPath } from "../../domain/trajectories/step-links";
import { HUMAN_LABEL_FILTERS, VERDICT_FILTERS, type TrajectoryListInput } from "../../domain/trajectory-list-query";
import { MAX_STEPS_PER_CALL, stepsResult } from "./steps";
import { defineTool, jsonResult, type CallerSource, type McpCall } from "./tool-kit";

const id = z.number().int().positive();

/** The list's filters an assistant is most likely to need; the names are the list URL's where they differ little. */
const listFilters = {
  runId: id.optional().describe("only this run's trajectories"),
  taskSetId: id.optional().describe("only this task set's"),
  site: z.string().max(200).optional().describe("the task's site, e.g. Allrecipes"),
  model: z.string().max(200).optional().describe("the agent's model"),
  outcome: z.string().max(50).optional().describe("how the run ended: answered, error, max_steps…"),
  human: z.enum(HUMAN_LABEL_FILTERS).optional().describe("consolidated human label (researchers and admins)"),
  evaluator: z.string().max(800).optional().describe("<evaluator key>|<k>|<prompt version>: the evaluator whose verdict `verdict` filters on"),
  verdict: z.enum(VERDICT_FILTERS).optional().describe("that evaluator's verdict (researchers and admins)"),
  page: z.number().int().positive().max(1_000_000).default(1),
  pageSize: z.number().int().positive().max(100).default(25),
};

type ListArgs = z.infer<z.ZodObject<typeof listFilters>>;

/** Where a row matched, as one line: the step (1-based, as the player numbers them), the field, the words in [brackets]. */
function hitLine(hit: SearchHit): { step: number | null; field: string; text: string } {
  return { step: hit.stepIndex === null ? null : hit.stepIndex + 1, field: hit.field, text: hit.parts.map((p) => (p.match ? `[${p.text}]` : p.text)).join("") };
}

async function listPage(call: McpCall, args: ListArgs, search?: string) {
  const query: TrajectoryListInput = { ...args, ...(search ? { search, sort: "relevance" as const } : {}) };
  const page = await call.api.trajectories.list(query);
  const rows = page.rows.map(({ hits, ...row }) => (hits ? { ...row, hits: hits.map(hitLine) } : row));
  return jsonResult({ total: page.total, page: args.page, pageSize: args.pageSize, rows });
}

function registerListing(server: McpServer, source: CallerSource): void {
  defineTool(
    server,
    source,
    "list_trajectories",
    {
      title: "List trajectories",
      description:
        "The trajectories you may browse, newest first, a page at a time, with the trajectory list's filters. Annotators see only their campaigns' trajectories they may open.",
      input: listFilters,
    },
    (call, args) => listPage(call, args),
  );
  defineTool(
    server,
    source,
    "search_trajectories",
    {
      title: "Search trajectories by behaviour",
      description: [
        "Behaviour search over what happened in trajectories, most matches first; each row lists where it matched.",
        'Syntax: words, "a phrase", field:word with fields thought, action, url, text (element text), answer, error, intent, note, rationale;',
        "word* for a prefix, -word to exclude, judge:<verdict> and human:<label> (researchers and admins). Every part must hold.",
        "Example: thought:captcha url:checkout -login. The list's filters narrow the results further.",
      ].join(" "),
      input: { query: z.string().min(1).max(500).describe("the behaviour search"), ...listFilters },
    },
    (call, { query, ...args }) => listPage(call, args, query),
  );
}

function registerTrajectory(server: McpServer, source: CallerSource): void {
  defineTool(
    server,
    source,
    "get_trajectory",
    {
      title: "A trajectory",
      description:
        "One trajectory: its task (intent, site, start URL, reference answers), run and model, final answer, outcome, step count and a stable link to it. Steps come from get_steps.",
      input: { id: id.describe("the trajectory's id") },
    },
    async (call, { id }) => {
      const { index: _index, window: _window, ...player } = await call.api.trajectories.byId({ id });
      const base = call.app.config.baseUrl?.replace(/\/+$/, "") ?? "";
      const link = `${base}${stepLinkPath({ key: player.trajectory.linkKey, id }, 1)}`;
      return jsonResult({ ...player, link });
    },
  );
  defineTool(
    server,
    source,
    "get_steps",
    {
      title: "Steps with screenshots",
      description: `A trajectory's steps from a 0-based position: URL, thought, action and error as text, each followed by its screenshot as an image (scaled down; at most a few images per answer). Up to ${MAX_STEPS_PER_CALL} steps a call.`,
      input: {
        id: id.describe("the trajectory's id"),
        from: z.number().int().nonnegative().default(0).describe("0-based index of the first step"),
        count: z.number().int().positive().max(MAX_STEPS_PER_CALL).default(5),
        screenshots: z.boolean().default(true).describe("false for text only"),
      },
    },
    async (call, { id, from, count, screenshots }) => {
      const window = await call.api.trajectories.steps({ id, from, count });
      return stepsResult(call, `Trajectory ${id}, steps from index ${from}:`, window.steps, screenshots);
    },
  );
  defineTool(
    server,
    source,
    "get_evaluations",
    {
      title: "Labels and verdicts",
      description:
        "A trajectory's verdicts (LMM judges, benchmark rules, heuristics, external evaluators) with rationales, human labels with their history, and consolidated labels. While the blind hides them from you, the answer says so instead.",
      input: { id: id.describe("the trajectory's id") },
    },
    async (call, { id }) => jsonResult(await call.api.judge.verdicts.panel({ trajectoryId: id })),
  );
}

export function registerTrajectoryTools(server: McpServer, source: CallerSource): void {
  registerListing(server, source);
  registerTrajectory(server, source);
}
