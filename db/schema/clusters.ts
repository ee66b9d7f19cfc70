/**
 * Saved failure-cluster runs (server/domain/analytics/failure-clusters.ts): the slice a researcher clustered, and the
 * clusters found, with the names they gave them and the merges they made. A run is written once its job has
 * computed it; renaming and merging rewrite its `result`.
 */
import { sql } from "drizzle-orm";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./auth";

export const failureClusterRuns = sqliteTable("failure_cluster_runs", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  /** What was clustered: the trajectory list's filter, which failures (basis) and k if one was given. */
  slice: text("slice", { mode: "json" }).$type<unknown>().notNull(),
  /** The clusters (SavedCluster[]) and how k was chosen. */
  result: text("result", { mode: "json" }).$type<unknown>().notNull(),
  createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
  createdByName: text("created_by_name").notNull(),
  createdAt: integer("created_at", { mode: "timestamp_ms" })
    .notNull()
    .default(sql`(unixepoch('subsec') * 1000)`),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" })
    .notNull()
    .default(sql`(unixepoch('subsec') * 1000)`),
});
