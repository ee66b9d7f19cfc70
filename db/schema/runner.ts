import { sql } from "drizzle-orm";
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { tasks, trajectories } from "./core";
import { cascadeId } from "./columns";

const createdAt = () =>
  integer("created_at", { mode: "timestamp_ms" })
    .notNull()
    .default(sql`(unixepoch('subsec') * 1000)`);

/** One site of a deployment profile as stored: secrets sealed with the secret box (server/auth/secret-box.ts). */
export interface StoredDeploymentSite {
  placeholder: string;
  url: string;
  login:
    | {
        kind: "recipe";
        url: string;
        usernameSelector: string;
        passwordSelector: string;
        submitSelector: string | null;
        username: string;
        passwordSealed: string;
      }
    | { kind: "storageState"; stateSealed: string }
    | null;
  reset: { method: "POST" | "GET"; url: string } | null;
}

/**
 * An admin's description of a lab's own VisualWebArena / WebArena deployment (server/domain/live/deployment.ts):
 * placeholder → URL, per-site login and reset hook. Runs using it may reach exactly its hosts.
 */
export const deploymentProfiles = sqliteTable("deployment_profiles", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull().unique(),
  description: text("description"),
  sites: text("sites", { mode: "json" }).$type<StoredDeploymentSite[]>().notNull(),
  createdAt: createdAt(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" })
    .notNull()
    .default(sql`(unixepoch('subsec') * 1000)`),
});

/**
 * What a live run leaves per step beyond the step itself: when it started (to place the HAR's requests), the tabs
 * open, and the exact prompt the policy sent (version + messages, images as their sha256).
 */
export const liveStepEvidence = sqliteTable(
  "live_step_evidence",
  {
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    index: integer("idx").notNull(),
    startedAt: integer("started_at").notNull(),
    tabs: text("tabs", { mode: "json" }).$type<{ index: number; url: string; active: boolean }[]>(),
    prompt: text("prompt", { mode: "json" }).$type<{ version: string; messages: unknown[] } | null>(),
  },
  (t) => [primaryKey({ columns: [t.trajectoryId, t.index] })],
);

/** The network log (HAR) of a live trajectory, content-addressed in the screenshot store. */
export const liveTrajectoryHar = sqliteTable("live_trajectory_har", {
  trajectoryId: integer("trajectory_id")
    .primaryKey()
    .references(() => trajectories.id, { onDelete: "cascade" }),
  harHash: text("har_hash").notNull(),
  bytes: integer("bytes").notNull(),
  entries: integer("entries").notNull(),
  createdAt: createdAt(),
});

/**
 * A task's input image (VisualWebArena's `image`) as a live run first fetched it: the source it was fetched from (the
 * URL after the profile's placeholders were filled in) and the stored copy, content-addressed in the screenshot
 * store. Later runs send the stored bytes instead of fetching the image again.
 */
export const taskInputImages = sqliteTable(
  "task_input_images",
  {
    taskId: cascadeId("task_id", () => tasks.id),
    source: text("source").notNull(),
    imageHash: text("image_hash").notNull(),
    mime: text("mime").notNull(),
    bytes: integer("bytes").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.taskId, t.source] })],
);

export type DeploymentProfileRow = typeof deploymentProfiles.$inferSelect;
