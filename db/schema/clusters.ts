/**
 * Saved failure-cluster runs (server/domain/analytics/failure-clusters.ts): the slice a researcher clustered, and the
 * clusters found, with the names they gave them and the merges they made. A run is written once its job has
 * computed it; renaming and merging rewrite its `result`.
 */
import { users } from "./auth";
import { sqliteKit, timestamps, type SchemaKit, type TableRefs } from "./columns";

/** The tables this module's tables reference, of the dialect being declared. */
export type ClusterRefs = TableRefs<"users">;

/** The tables of this module, declared once for both dialects (db/schema/columns.ts). */
export function clusterTables(k: SchemaKit, { users }: ClusterRefs) {
  const failureClusterRuns = k.table("failure_cluster_runs", {
    id: k.id(),
    /** What was clustered: the trajectory list's filter, which failures (basis) and k if one was given. */
    slice: k.json("slice").$type<unknown>().notNull(),
    /** The clusters (SavedCluster[]) and how k was chosen. */
    result: k.json("result").$type<unknown>().notNull(),
    createdBy: k.text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdByName: k.text("created_by_name").notNull(),
    ...timestamps(k),
  });
  return { failureClusterRuns };
}

export const { failureClusterRuns } = clusterTables(sqliteKit, { users });
