/**
 * The analytics pages' filters as they travel in the URL (`/analytics?run=2&site=Amazon&campaign=3&unparseable=failure`),
 * parsed forgivingly (a bad value drops that filter) and written back with only the values that differ from the
 * defaults.
 */
import { DIFFICULTY_DIMENSIONS, type DifficultyDimension, type Selection } from "@/server/domain/analytics/selection";
import { parseReferenceSpec, type ReferenceSpec } from "@/server/domain/analytics/reference";
import { FLAGGED_PARAM, NO_SITE, type AnalyticsParams } from "./search";

export { analyticsSearch, FLAGGED_PARAM, NO_SITE, type AnalyticsParams } from "./search";

export type SearchParamsLike = URLSearchParams | Record<string, string | string[] | undefined>;

export function getParam(sp: SearchParamsLike, key: string): string | undefined {
  if (sp instanceof URLSearchParams) return sp.get(key) ?? undefined;
  const v = sp[key];
  return Array.isArray(v) ? v[0] : v;
}

export function positiveInt(s: string | undefined): number | undefined {
  if (s === undefined || !/^\d{1,9}$/.test(s)) return undefined;
  const n = Number(s);
  return n > 0 ? n : undefined;
}

export function parseAnalyticsParams(sp: SearchParamsLike): AnalyticsParams {
  const site = getParam(sp, "site");
  const dim = getParam(sp, "dim");
  const by = getParam(sp, "by");
  let reference: ReferenceSpec | undefined;
  try {
    const ref = getParam(sp, "ref");
    reference = ref ? parseReferenceSpec(ref.slice(0, 300)) : undefined;
  } catch {
    reference = undefined;
  }
  return {
    by: by ? by.slice(0, 200) : undefined,
    reference: reference?.kind === "consolidated" ? undefined : reference,
    taskSetId: positiveInt(getParam(sp, "set")),
    runId: positiveInt(getParam(sp, "run")),
    site: site === undefined || site === "" ? undefined : site === NO_SITE ? null : site.slice(0, 500),
    campaignId: positiveInt(getParam(sp, "campaign")),
    unparseable: getParam(sp, "unparseable") === "failure" ? "failure" : "exclude",
    difficulty: (DIFFICULTY_DIMENSIONS as readonly string[]).includes(dim ?? "") ? (dim as DifficultyDimension) : "overall",
    includeFlagged: getParam(sp, FLAGGED_PARAM) === "include" ? true : undefined,
  };
}

/** The scope part (what the services call Scope). */
export function scopeOfParams(p: AnalyticsParams): { taskSetId?: number; runId?: number; site?: string | null; includeFlagged?: boolean } {
  const s: { taskSetId?: number; runId?: number; site?: string | null; includeFlagged?: boolean } = {};
  if (p.includeFlagged) s.includeFlagged = true;
  if (p.taskSetId !== undefined) s.taskSetId = p.taskSetId;
  if (p.runId !== undefined) s.runId = p.runId;
  if (p.site !== undefined) s.site = p.site;
  return s;
}

/** The trajectory list filtered like a selection, when the selection is only list filters (site, run, task set). */
export function trajectoryListHref(sel: Selection): string | null {
  const keys = Object.keys(sel);
  if (keys.some((k) => !["taskSetId", "runId", "site"].includes(k)) || sel.site === null) return null;
  const out = new URLSearchParams();
  if (sel.taskSetId !== undefined) out.set("set", String(sel.taskSetId));
  if (sel.runId !== undefined) out.set("run", String(sel.runId));
  if (sel.site !== undefined && sel.site !== null) out.set("site", sel.site);
  const s = out.toString();
  return `/trajectories${s ? `?${s}` : ""}`;
}
