/**
 * The failure-clusters page's address: the trajectory list's own filters (so any list slice opens here as it is, and
 * a cluster opens back there), which failures (`basis`), `k` when one is asked for, and `saved` for a saved run.
 */
import { CLUSTER_BASES, type ClusterBasis, type ClusterSlice } from "@/server/domain/analytics/cluster-slice";
import { MAX_CLUSTERS } from "@/server/domain/analytics/failure-clusters";
import { filterOf, formatIdList, MAX_IDS, parseTrajectoryListParams, trajectoryListSearch, type SearchParamsLike } from "@/server/domain/trajectory-list-query";
import { getParam } from "./params";

export const BASIS_LABEL: Record<ClusterBasis, string> = {
  human: "failed by the human label",
  judge: "failed by the chosen judge",
  disputed: "disputed between humans and the judge",
};

/** The slice the address asks to cluster; malformed values are dropped, as in the list. */
export function clusterSliceOfParams(sp: SearchParamsLike): ClusterSlice {
  const filter = Object.fromEntries(Object.entries(filterOf(parseTrajectoryListParams(sp))).filter(([, v]) => v !== undefined)) as ClusterSlice["filter"];
  const basis = getParam(sp, "basis");
  const k = Number(getParam(sp, "k"));
  return {
    filter,
    basis: (CLUSTER_BASES as readonly string[]).includes(basis ?? "") ? (basis as ClusterBasis) : "human",
    k: Number.isInteger(k) && k >= 1 && k <= MAX_CLUSTERS ? k : undefined,
  };
}

/** The page's address for a slice (the launcher, ready to compute it again). */
export function clusterSliceHref(slice: ClusterSlice): string {
  const search = new URLSearchParams(trajectoryListSearch(slice.filter).slice(1));
  if (slice.basis !== "human") search.set("basis", slice.basis);
  if (slice.k !== undefined) search.set("k", String(slice.k));
  const s = search.toString();
  return `/analytics/clusters${s ? `?${s}` : ""}`;
}

export function savedRunHref(id: number): string {
  return `/analytics/clusters?saved=${id}`;
}

/** The slice's filters as "name value" pairs, for the page to say what it clusters. */
export function sliceFilterText(slice: ClusterSlice): string[] {
  return [...new URLSearchParams(trajectoryListSearch(slice.filter).slice(1)).entries()].map(([k, v]) => `${k}=${v}`);
}

/**
 * A cluster's members as a trajectory-list slice (flagged tasks included, so every member shows) and as a new
 * campaign; null when there are more than one address can carry.
 */
export function memberLinks(members: readonly number[]): { list: string; campaign: string } | null {
  if (!members.length || members.length > MAX_IDS) return null;
  const ids = formatIdList(members);
  return { list: `/trajectories?ids=${ids}&flagged=include`, campaign: `/campaigns/new?ids=${ids}&flagged=include` };
}
