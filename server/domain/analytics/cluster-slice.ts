/**
 * What a failure-cluster run groups: any trajectory-list slice (its filters and behaviour search, as the list's URL
 * carries them) narrowed to the failures of one basis:
 * - `human`: the consolidated human label says failure;
 * - `judge`: the chosen evaluator (the list's `ev`) says failure;
 * - `disputed`: humans and the chosen evaluator disagree (one says success, the other failure).
 */
import { z } from "zod";
import { ValidationError } from "../../errors";
import { trajectoryListInput, type TrajectoryListQuery } from "../trajectory-list-input";
import { MAX_CLUSTERS } from "./failure-clusters";

export const CLUSTER_BASES = ["human", "judge", "disputed"] as const;
export type ClusterBasis = (typeof CLUSTER_BASES)[number];

/** The list's filter without its sort and page. */
export const clusterFilterInput = trajectoryListInput.omit({ sort: true, dir: true, page: true, pageSize: true });
export type ClusterFilter = z.output<typeof clusterFilterInput>;

export const clusterSliceInput = z.object({
  filter: clusterFilterInput.default({}),
  basis: z.enum(CLUSTER_BASES).default("human"),
  /** The number of clusters; chosen by silhouette when absent. */
  k: z.number().int().min(1).max(MAX_CLUSTERS).optional(),
});
export type ClusterSlice = z.output<typeof clusterSliceInput>;

/** The list filter that selects the slice's failures; a filter that contradicts the basis is refused, not overridden. */
export function failureFilter(slice: ClusterSlice): Omit<TrajectoryListQuery, "sort" | "dir" | "page" | "pageSize"> {
  const f = slice.filter;
  const conflict = (field: string, has: string | undefined, wants: string) => {
    if (has !== undefined && has !== wants) {
      throw new ValidationError(`the slice asks for ${field} ${has}; failures by ${slice.basis} need ${field} ${wants} (remove that filter)`);
    }
  };
  if (slice.basis === "human") {
    conflict("human:", f.human, "failure");
    return { ...f, human: "failure" };
  }
  if (f.evaluator === undefined) throw new ValidationError(`basis ${slice.basis}: choose the evaluator (ev) whose verdicts it is about`);
  if (slice.basis === "judge") {
    conflict("verdict", f.verdict, "failure");
    return { ...f, verdict: "failure" };
  }
  conflict("agreement", f.agreement, "disagree");
  return { ...f, agreement: "disagree" };
}
