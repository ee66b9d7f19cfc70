/**
 * The trajectory list's query: filters, sort and page, as it travels in a shareable URL
 * (`/trajectories?run=3&outcome=answered&q=salmon&sort=steps&dir=desc&page=2`) and as the tRPC input.
 *
 * URL parsing is forgiving (a hand-edited link with a bad value drops that value instead of failing the page);
 * the tRPC input schema is strict (./trajectory-list-input.ts). This module is zod-free: the list's browser code
 * (filter bar, table, triage bar) imports it, and zod is about 100 KB of script the page would parse before it hydrates.
 */
import { MAX_QUERY_LENGTH } from "./trajectories/search-query";
import type { TrajectoryListQuery } from "./trajectory-list-input";

export type { TrajectoryListInput, TrajectoryListQuery } from "./trajectory-list-input";

/** "relevance": with a behaviour search, most matching entries first. */
export const TRAJECTORY_SORTS = ["id", "steps", "task", "site", "updated", "human", "verdict", "relevance"] as const;
export type TrajectorySortKey = (typeof TRAJECTORY_SORTS)[number];
export const PAGE_SIZES = [25, 50, 100, 200] as const;
export const DEFAULT_PAGE_SIZE = 50;
/** Most ids an `ids` filter takes: even scattered ids (about 7 characters each) keep the URL well under the 16 KB Node allows for a request head, cookies included. */
export const MAX_IDS = 1000;

/** The consolidated human label a trajectory ends with (its latest campaign's), or none yet. */
export const HUMAN_LABEL_FILTERS = ["success", "failure", "unsure", "none"] as const;
/** Where the trajectory's latest campaign item stands, or none when it is in no campaign. */
export const ITEM_STATE_FILTERS = ["open", "agreed", "disputed", "adjudicated", "none"] as const;
/** A chosen evaluator's verdict, or none when it has not judged the trajectory. */
export const VERDICT_FILTERS = ["success", "failure", "unparseable", "not_evaluable", "none"] as const;
/** The benchmark's own rule check (any rule evaluator) result. */
export const RULE_FILTERS = ["success", "failure", "not_evaluable", "none"] as const;
/** Humans' consolidated success/failure against the chosen evaluator's success/failure. */
export const AGREEMENT_FILTERS = ["agree", "disagree", "no_human"] as const;
/**
 * Trajectories of tasks flagged in the task validity ledger: left out of a researcher's list (`exclude`, the default) unless `include`d;
 * `only` lists just them.
 */
export const FLAGGED_FILTERS = ["exclude", "include", "only"] as const;
/** A sample can be drawn in proportion from each run or each site. */
export const SAMPLE_STRATA = ["run", "site"] as const;
/** Largest random sample the list draws (a campaign of more is made from the filter itself). */
export const MAX_SAMPLE = 5000;
/** Seeds are 32-bit unsigned integers: the sampler's generator state. */
export const MAX_SEED = 4_294_967_295;

/**
 * A chosen evaluator as one string, `<evaluator key>|<k>|<prompt version>` ("judge:3|1|v2", "heuristic:loop||1"):
 * the same identity the analytics views use. Split from the right, so a key may itself hold "|".
 */
export interface EvaluatorRef {
  key: string;
  k: string;
  pv: string;
}

export function parseEvaluatorRef(text: string): EvaluatorRef | undefined {
  const last = text.lastIndexOf("|");
  const middle = last > 0 ? text.lastIndexOf("|", last - 1) : -1;
  if (middle <= 0) return undefined;
  return { key: text.slice(0, middle), k: text.slice(middle + 1, last), pv: text.slice(last + 1) };
}

export function formatEvaluatorRef(e: EvaluatorRef): string {
  return `${e.key}|${e.k}|${e.pv}`;
}

/** "Fixture judge · k=1 · v1", "Heuristic: loop": enough to tell one evaluator setting from another. */
export function evaluatorLabel(e: { name: string; k: string; promptVersion: string; kind: string }): string {
  return [e.name, e.k ? `k=${e.k}` : "", e.kind === "judge" && e.promptVersion ? e.promptVersion : ""].filter(Boolean).join(" · ");
}

/** URL parameter names, short because people paste these links into chats. */
export const URL_KEYS = {
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
  search: "search",
  ids: "ids",
  human: "human",
  state: "state",
  category: "category",
  evaluator: "ev",
  verdict: "verdict",
  agreement: "agree",
  rule: "rule",
  flagged: "flagged",
  sample: "sample",
  seed: "seed",
  strata: "strata",
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

function oneOf<T extends string>(values: readonly T[], s: string | undefined): T | undefined {
  return s !== undefined && (values as readonly string[]).includes(s) ? (s as T) : undefined;
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
  const evaluator = text(getParam(sp, URL_KEYS.evaluator), 800);
  const hasEvaluator = evaluator !== undefined && parseEvaluatorRef(evaluator) !== undefined;
  const asked = positiveInt(getParam(sp, URL_KEYS.sample));
  const sample = asked !== undefined && asked <= MAX_SAMPLE ? asked : undefined;
  const seed = nonNegativeInt(getParam(sp, URL_KEYS.seed));
  const hasSearch = text(getParam(sp, URL_KEYS.search), MAX_QUERY_LENGTH) !== undefined;
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
    search: text(getParam(sp, URL_KEYS.search), MAX_QUERY_LENGTH),
    ids: parseIdList(getParam(sp, URL_KEYS.ids)),
    human: oneOf(HUMAN_LABEL_FILTERS, getParam(sp, URL_KEYS.human)),
    state: oneOf(ITEM_STATE_FILTERS, getParam(sp, URL_KEYS.state)),
    category: text(getParam(sp, URL_KEYS.category), 200),
    evaluator: hasEvaluator ? evaluator : undefined,
    // A verdict or an agreement means nothing without the evaluator it is about.
    verdict: hasEvaluator ? oneOf(VERDICT_FILTERS, getParam(sp, URL_KEYS.verdict)) : undefined,
    agreement: hasEvaluator ? oneOf(AGREEMENT_FILTERS, getParam(sp, URL_KEYS.agreement)) : undefined,
    rule: oneOf(RULE_FILTERS, getParam(sp, URL_KEYS.rule)),
    flagged: oneOf(FLAGGED_FILTERS, getParam(sp, URL_KEYS.flagged)),
    sample,
    seed: sample !== undefined && seed !== undefined && seed <= MAX_SEED ? seed : undefined,
    strata: sample !== undefined ? oneOf(SAMPLE_STRATA, getParam(sp, URL_KEYS.strata)) : undefined,
    sort:
      TRAJECTORY_SORTS.includes(sort as TrajectorySortKey) && (sort !== "verdict" || hasEvaluator) && (sort !== "relevance" || hasSearch)
        ? (sort as TrajectorySortKey)
        : "id",
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
  return FILTER_KEYS.filter((k) => q[k] !== undefined).length;
}

/** Fields that narrow the list. The chosen evaluator alone does not (it picks a column); a sample does. */
const FILTER_KEYS = [
  "taskSetId",
  "runId",
  "taskId",
  "site",
  "model",
  "outcome",
  "minSteps",
  "maxSteps",
  "hasAnswer",
  "q",
  "search",
  "ids",
  "human",
  "state",
  "category",
  "verdict",
  "agreement",
  "rule",
  "sample",
] as const satisfies readonly (keyof TrajectoryListQuery)[];

/** Filters only researchers and admins may use: they reveal human labels and evaluator verdicts. */
export const TRIAGE_KEYS = [
  "human",
  "state",
  "category",
  "evaluator",
  "verdict",
  "agreement",
  "rule",
  "flagged",
] as const satisfies readonly (keyof TrajectoryListQuery)[];

export function usesTriage(q: Partial<TrajectoryListQuery>): boolean {
  return TRIAGE_KEYS.some((k) => q[k] !== undefined) || q.sort === "human" || q.sort === "verdict";
}

/** The query without sort and paging: what a campaign, a judge batch or a sample is made from. */
export function filterOf(q: TrajectoryListQuery): Omit<TrajectoryListQuery, "sort" | "dir" | "page" | "pageSize"> {
  const { sort: _sort, dir: _dir, page: _page, pageSize: _size, ...filter } = q;
  return filter;
}

/**
 * A list filter someone pasted (the trajectory list's address, or its query "?site=shop&human=success", with or
 * without the "?"): its filters without order and paging, and the query they make again (what a batch's label names);
 * null when it selects nothing in particular. The stress-test form and `judge-stress --filter` read it the same way.
 */
export function listFilterFromText(text: string): { filter: ReturnType<typeof filterOf>; search: string } | null {
  const query = text.includes("?") ? text.slice(text.indexOf("?") + 1) : text;
  const all = filterOf(parseTrajectoryListParams(Object.fromEntries(new URLSearchParams(query.trim()))));
  const filter = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined)) as ReturnType<typeof filterOf>;
  const search = trajectoryListSearch(filter);
  return search ? { filter, search } : null;
}

/**
 * Trajectory ids as URL text: ascending, runs of consecutive ids written as ranges ("3-7,12,20-21"), so the ids
 * behind an analytics figure (often contiguous imports) stay short.
 */
export function formatIdList(ids: readonly number[]): string {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
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
