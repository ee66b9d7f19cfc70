/**
 * Live runs of benchmarks on PostgreSQL: deployment profiles, per-step evidence and HAR links. Declared once in
 * db/schema/runner.ts, which documents them.
 */
import { runnerTables } from "../schema/runner";
import { tasks, trajectories } from "./core";
import { pgKit } from "./columns";

export const { deploymentProfiles, liveStepEvidence, liveTrajectoryHar, taskInputImages } = runnerTables(pgKit, {
  tasks,
  trajectories,
});
