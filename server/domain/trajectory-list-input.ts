/**
 * The trajectory list's query as the tRPC input (strict: a bad value is an error naming the field), and the types
 * of that query. The URL side (forgiving parsing, the link's text, the filter vocabulary) is
 * ./trajectory-list-query.ts, which the list's browser code imports without this schema's zod.
 */
import { z } from "zod";
import { MAX_QUERY_LENGTH } from "./trajectories/search-query";
import {
  AGREEMENT_FILTERS,
  DEFAULT_PAGE_SIZE,
  FLAGGED_FILTERS,
  HUMAN_LABEL_FILTERS,
  ITEM_STATE_FILTERS,
  MAX_IDS,
  MAX_SAMPLE,
  MAX_SEED,
  parseEvaluatorRef,
  RULE_FILTERS,
  SAMPLE_STRATA,
  TRAJECTORY_SORTS,
  VERDICT_FILTERS,
} from "./trajectory-list-query";

const id = z.number().int().positive();

const evaluatorRef = z
  .string()
  .max(800)
  .refine((s) => parseEvaluatorRef(s) !== undefined, { message: "evaluator: write it as <evaluator key>|<k>|<prompt version>" });

export const trajectoryListInput = z.object({
  taskSetId: id.optional(),
  runId: id.optional(),
  taskId: id.optional(),
  site: z.string().min(1).max(200).optional(),
  model: z.string().min(1).max(200).optional(),
  outcome: z.string().min(1).max(50).optional(),
  minSteps: z.number().int().nonnegative().optional(),
  maxSteps: z.number().int().nonnegative().optional(),
  hasAnswer: z.boolean().optional(),
  q: z.string().max(500).optional(),
  /** A behaviour search (server/domain/trajectories/search-query.ts): words, phrases, field and verdict filters. */
  search: z.string().max(MAX_QUERY_LENGTH).optional(),
  /** Exactly these trajectories (the analytics views link to the trajectories behind a figure this way). */
  ids: z.array(id).min(1).max(MAX_IDS).optional(),
  /** Triage (researchers and admins): the consolidated human label and the state of the latest campaign item. */
  human: z.enum(HUMAN_LABEL_FILTERS).optional(),
  state: z.enum(ITEM_STATE_FILTERS).optional(),
  /** Error category of the consolidated human label. */
  category: z.string().min(1).max(200).optional(),
  /** The evaluator whose verdict the list shows, filters on (`verdict`) and compares with humans (`agreement`). */
  evaluator: evaluatorRef.optional(),
  verdict: z.enum(VERDICT_FILTERS).optional(),
  agreement: z.enum(AGREEMENT_FILTERS).optional(),
  rule: z.enum(RULE_FILTERS).optional(),
  flagged: z.enum(FLAGGED_FILTERS).optional(),
  /** A seeded random sample of `sample` trajectories among those the filters select (optionally stratified). */
  sample: z.number().int().positive().max(MAX_SAMPLE).optional(),
  seed: z.number().int().nonnegative().max(MAX_SEED).optional(),
  strata: z.enum(SAMPLE_STRATA).optional(),
  sort: z.enum(TRAJECTORY_SORTS).default("id"),
  dir: z.enum(["asc", "desc"]).default("desc"),
  page: z.number().int().positive().max(1_000_000).default(1),
  pageSize: z.number().int().positive().max(500).default(DEFAULT_PAGE_SIZE),
});

export type TrajectoryListInput = z.input<typeof trajectoryListInput>;
export type TrajectoryListQuery = z.output<typeof trajectoryListInput>;
