/**
 * The trajectory list's query: filters, sort and page, as it travels in a shareable URL
 * (`/trajectories?run=3&outcome=answered&q=salmon&sort=steps&dir=desc&page=2`) and as the tRPC input.
 *
 * URL parsing is forgiving (a hand-edited link with a bad value drops that value instead of failing the page);
 * the tRPC input schema is strict.
 */
import { z } from "zod";

export const TRAJECTORY_SORTS = ["id", "steps", "task", "site", "updated"] as const;
export type TrajectorySortKey = (typeof TRAJECTORY_SORTS)[number];
export const PAGE_SIZES = [25, 50, 100, 200] as const;
export const DEFAULT_PAGE_SIZE = 50;

const id = z.number().int().positive();

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
  sort: z.enum(TRAJECTORY_SORTS).default("id"),
  dir: z.enum(["asc", "desc"]).default("desc"),
  page: z.number().int().positive().max(1_000_000).default(1),
  pageSize: z.number().int().positive().max(500).default(DEFAULT_PAGE_SIZE),
});

export type TrajectoryListInput = z.input<typeof trajectoryListInput>;
export type TrajectoryListQuery = z.output<typeof trajectoryListInput>;

/** URL parameter names, short because people paste these links into chats. */
const URL_KEYS = {
  taskSetId: "set",
  runId: "run",
  taskId: "task",
  site: "site",
  model: "model",
  outcome: "outcome",
  minSteps: "minSteps",
  maxSteps: "maxSteps",
  hasAnswer: "answer",
  q: "q",
  sort: "sort",
  dir: "dir",
  page: "page",
  pageSize: "size",
} as const satisfies Record<keyof TrajectoryListQuery, string>;

export type SearchParamsLike = URLSearchParams | Record<string, string | string[] | undefined>;

function getParam(sp: SearchParamsLike, key: string): string | undefined {
  if (sp instanceof URLSearchParams) return sp.get(key) ?? undefined;
  const v = sp[key];
  return Array.isArray(v) ? v[0] : v;
}

function positiveInt(s: string | undefined): number | undefined {
  if (s === undefined || !/^\d{1,9}$/.test(s)) return undefined;
  const n = Number(s);
  return n > 0 ? n : undefined;
}

function nonNegativeInt(s: string | undefined): number | undefined {
  if (s === undefined || !/^\d{1,9}$/.test(s)) return undefined;
  return Number(s);
}

function text(s: string | undefined, max: number): string | undefined {
  const t = s?.trim();
  return t ? t.slice(0, max) : undefined;
}

/** Reads a list query from URL search params; unknown or malformed values are dropped. */
export function parseTrajectoryListParams(sp: SearchParamsLike): TrajectoryListQuery {
  const sort = getParam(sp, URL_KEYS.sort);
  const dir = getParam(sp, URL_KEYS.dir);
  const answer = getParam(sp, URL_KEYS.hasAnswer);
  const size = positiveInt(getParam(sp, URL_KEYS.pageSize));
  return {
    taskSetId: positiveInt(getParam(sp, URL_KEYS.taskSetId)),
    runId: positiveInt(getParam(sp, URL_KEYS.runId)),
    taskId: positiveInt(getParam(sp, URL_KEYS.taskId)),
    site: text(getParam(sp, URL_KEYS.site), 200),
    model: text(getParam(sp, URL_KEYS.model), 200),
    outcome: text(getParam(sp, URL_KEYS.outcome), 50),
    minSteps: nonNegativeInt(getParam(sp, URL_KEYS.minSteps)),
    maxSteps: nonNegativeInt(getParam(sp, URL_KEYS.maxSteps)),
    hasAnswer: answer === "yes" ? true : answer === "no" ? false : undefined,
    q: text(getParam(sp, URL_KEYS.q), 500),
    sort: (TRAJECTORY_SORTS as readonly string[]).includes(sort ?? "") ? (sort as TrajectorySortKey) : "id",
    dir: dir === "asc" ? "asc" : "desc",
    page: Math.min(positiveInt(getParam(sp, URL_KEYS.page)) ?? 1, 1_000_000),
    pageSize: size && (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_PAGE_SIZE,
  };
}

const DEFAULTS: Pick<TrajectoryListQuery, "sort" | "dir" | "page" | "pageSize"> = {
  sort: "id",
  dir: "desc",
  page: 1,
  pageSize: DEFAULT_PAGE_SIZE,
};

/** The inverse of parseTrajectoryListParams: only non-default values, in a stable order. */
export function trajectoryListSearch(q: Partial<TrajectoryListQuery>): string {
  const out = new URLSearchParams();
  for (const [field, key] of Object.entries(URL_KEYS) as [keyof TrajectoryListQuery, string][]) {
    const v = q[field];
    if (v === undefined || v === null || v === "") continue;
    if (field in DEFAULTS && v === DEFAULTS[field as keyof typeof DEFAULTS]) continue;
    out.set(key, typeof v === "boolean" ? (v ? "yes" : "no") : String(v));
  }
  const s = out.toString();
  return s ? `?${s}` : "";
}

/** Number of filters (not sort/page) in effect, for the "clear filters" affordance. */
export function activeFilterCount(q: TrajectoryListQuery): number {
  const keys: (keyof TrajectoryListQuery)[] = ["taskSetId", "runId", "taskId", "site", "model", "outcome", "minSteps", "maxSteps", "hasAnswer", "q"];
  return keys.filter((k) => q[k] !== undefined).length;
}
