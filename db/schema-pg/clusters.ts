/** Saved failure-cluster runs on PostgreSQL; see db/schema/clusters.ts for their meaning. */
import { integer, json, pgTable, text } from "drizzle-orm/pg-core";
import { users } from "./auth";
import { epochMs, nowMs } from "./columns";

export const failureClusterRuns = pgTable("failure_cluster_runs", {
  id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
  slice: json("slice").$type<unknown>().notNull(),
  result: json("result").$type<unknown>().notNull(),
  createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
  createdByName: text("created_by_name").notNull(),
  createdAt: epochMs("created_at").notNull().default(nowMs),
  updatedAt: epochMs("updated_at").notNull().default(nowMs),
});
