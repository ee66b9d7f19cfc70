/**
 * Live runs of benchmarks on PostgreSQL: deployment profiles, per-step evidence and HAR links. Mirrors
 * db/schema/runner.ts, which documents them.
 */
import { bigint, integer, json, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import type { StoredDeploymentSite } from "../schema/runner";
import { cascadeId, epochMs, nowMs } from "./columns";
import { tasks, trajectories } from "./core";

export const deploymentProfiles = pgTable("deployment_profiles", {
  id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
  name: text("name").notNull().unique(),
  description: text("description"),
  sites: json("sites").$type<StoredDeploymentSite[]>().notNull(),
  createdAt: epochMs("created_at").notNull().default(nowMs),
  updatedAt: epochMs("updated_at").notNull().default(nowMs),
});

export const liveStepEvidence = pgTable(
  "live_step_evidence",
  {
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    index: integer("idx").notNull(),
    // Epoch milliseconds as a plain number, as SQLite keeps it.
    startedAt: bigint("started_at", { mode: "number" }).notNull(),
    tabs: json("tabs").$type<{ index: number; url: string; active: boolean }[]>(),
    prompt: json("prompt").$type<{ version: string; messages: unknown[] } | null>(),
  },
  (t) => [primaryKey({ columns: [t.trajectoryId, t.index] })],
);

export const liveTrajectoryHar = pgTable("live_trajectory_har", {
  trajectoryId: integer("trajectory_id")
    .primaryKey()
    .references(() => trajectories.id, { onDelete: "cascade" }),
  harHash: text("har_hash").notNull(),
  bytes: integer("bytes").notNull(),
  entries: integer("entries").notNull(),
  createdAt: epochMs("created_at").notNull().default(nowMs),
});

export const taskInputImages = pgTable(
  "task_input_images",
  {
    taskId: cascadeId("task_id", () => tasks.id),
    source: text("source").notNull(),
    imageHash: text("image_hash").notNull(),
    mime: text("mime").notNull(),
    bytes: integer("bytes").notNull(),
    createdAt: epochMs("created_at").notNull().default(nowMs),
  },
  (t) => [primaryKey({ columns: [t.taskId, t.source] })],
);
