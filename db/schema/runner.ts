import { tasks, trajectories } from "./core";
import { sqliteKit, timestamps, type SchemaKit, type TableRefs } from "./columns";

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

/** The tables this module's tables reference, of the dialect being declared. */
export type RunnerRefs = TableRefs<"tasks" | "trajectories">;

/** The tables of this module, declared once for both dialects (db/schema/columns.ts). */
export function runnerTables(k: SchemaKit, { tasks, trajectories }: RunnerRefs) {
  /**
   * An admin's description of a lab's own VisualWebArena / WebArena deployment (server/domain/live/deployment.ts):
   * placeholder → URL, per-site login and reset hook. Runs using it may reach exactly its hosts.
   */
  const deploymentProfiles = k.table("deployment_profiles", {
    id: k.id(),
    name: k.text("name").notNull().unique(),
    description: k.text("description"),
    sites: k.json("sites").$type<StoredDeploymentSite[]>().notNull(),
    ...timestamps(k),
  });

  /**
   * What a live run leaves per step beyond the step itself: when it started (to place the HAR's requests), the tabs
   * open, and the exact prompt the policy sent (version + messages, images as their sha256).
   */
  const liveStepEvidence = k.table(
    "live_step_evidence",
    {
      trajectoryId: k.cascadeId("trajectory_id", () => trajectories.id),
      index: k.integer("idx").notNull(),
      startedAt: k.bigint("started_at").notNull(),
      tabs: k.json("tabs").$type<{ index: number; url: string; active: boolean }[]>(),
      prompt: k.json("prompt").$type<{ version: string; messages: unknown[] } | null>(),
    },
    (t) => [k.primaryKey({ columns: [t.trajectoryId, t.index] })],
  );

  /** The network log (HAR) of a live trajectory, content-addressed in the screenshot store. */
  const liveTrajectoryHar = k.table("live_trajectory_har", {
    trajectoryId: k.primaryCascadeId("trajectory_id", () => trajectories.id),
    harHash: k.text("har_hash").notNull(),
    bytes: k.integer("bytes").notNull(),
    entries: k.integer("entries").notNull(),
    createdAt: k.stamp("created_at"),
  });

  /**
   * A task's input image (VisualWebArena's `image`) as a live run first fetched it: the source it was fetched from (the
   * URL after the profile's placeholders were filled in) and the stored copy, content-addressed in the screenshot
   * store. Later runs send the stored bytes instead of fetching the image again.
   */
  const taskInputImages = k.table(
    "task_input_images",
    {
      taskId: k.cascadeId("task_id", () => tasks.id),
      source: k.text("source").notNull(),
      imageHash: k.text("image_hash").notNull(),
      mime: k.text("mime").notNull(),
      bytes: k.integer("bytes").notNull(),
      createdAt: k.stamp("created_at"),
    },
    (t) => [k.primaryKey({ columns: [t.taskId, t.source] })],
  );
  return { deploymentProfiles, liveStepEvidence, liveTrajectoryHar, taskInputImages };
}

export const { deploymentProfiles, liveStepEvidence, liveTrajectoryHar, taskInputImages } = runnerTables(sqliteKit, { tasks, trajectories });

export type DeploymentProfileRow = typeof deploymentProfiles.$inferSelect;
