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
/** Most ids an `ids` filter takes: even scattered ids (about 7 characters each) keep the URL well under the 16 KB Node allows for a request head, cookies included. */
export const MAX_IDS = 1000;

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
  /** Exactly these trajectories (the analytics views link to the trajectories behind a figure this way). */
  ids: z.array(id).min(1).max(MAX_IDS).optional(),
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
  ids: "ids",
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
    ids: parseIdList(getParam(sp, URL_KEYS.ids)),
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
    out.set(key, Array.isArray(v) ? formatIdList(v) : typeof v === "boolean" ? (v ? "yes" : "no") : String(v));
  }
  const s = out.toString();
  return s ? `?${s}` : "";
}

/** Number of filters (not sort/page) in effect, for the "clear filters" affordance. */
export function activeFilterCount(q: TrajectoryListQuery): number {
  const keys: (keyof TrajectoryListQuery)[] = ["taskSetId", "runId", "taskId", "site", "model", "outcome", "minSteps", "maxSteps", "hasAnswer", "q", "ids"];
  return keys.filter((k) => q[k] !== undefined).length;
}

/**
 * Trajectory ids as URL text: ascending, runs of consecutive ids written as ranges ("3-7,12,20-21"), so the ids
 * behind an analytics figure (often contiguous imports) stay short.
 */
export function formatIdList(ids: readonly number[]): string {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(j > i ? `${sorted[i]}-${sorted[j]}` : String(sorted[i]));
    i = j + 1;
  }
  return parts.join(",");
}

/** The inverse of formatIdList; malformed text, or more than MAX_IDS ids, gives undefined (the filter is dropped). */
export function parseIdList(text: string | undefined): number[] | undefined {
  if (!text || !/^\d{1,9}(-\d{1,9})?(,\d{1,9}(-\d{1,9})?)*$/.test(text)) return undefined;
  const out = new Set<number>();
  for (const part of text.split(",")) {
    const [a, b] = part.split("-").map(Number) as [number, number | undefined];
    const to = b ?? a;
    if (a < 1 || to < a || out.size + (to - a + 1) > MAX_IDS) return undefined;
    for (let v = a; v <= to; v++) out.add(v);
  }
  return [...out].sort((x, y) => x - y);
}
