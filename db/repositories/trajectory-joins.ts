/**
 * The joins that put a trajectory beside its task, task set and agent run, written once. A repository that reads
 * trajectories with any of those columns selects its columns from `trajectories` as a dynamic query and hands it
 * here, then adds its own where, order and limit, so the join conditions cannot drift between the places that ask:
 * `withTaskAndRun(db, db.select({ … }).from(trajectories).$dynamic()).where(…)`. A campaign item reaches its
 * trajectory the same way through `withItemTrajectory`, and a trajectory its task alone through `withTask`.
 */
import { eq } from "drizzle-orm";
import type { SQLiteSelect } from "drizzle-orm/sqlite-core";
import { tablesOf, type Db } from "../database";

/** A query over trajectories (or joined to them already) with each trajectory's task and run. */
export function withTaskAndRun<Q extends SQLiteSelect>(db: Db, query: Q) {
  const { trajectories, tasks, agentRuns } = tablesOf(db);
  return query.innerJoin(tasks, eq(tasks.id, trajectories.taskId)).innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId));
}

/** The same with the task's task set too. */
export function withTaskSetAndRun<Q extends SQLiteSelect>(db: Db, query: Q) {
  const { trajectories, tasks, taskSets, agentRuns } = tablesOf(db);
  return query
    .innerJoin(tasks, eq(tasks.id, trajectories.taskId))
    .innerJoin(taskSets, eq(taskSets.id, tasks.taskSetId))
    .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId));
}

/** A query over trajectories (or joined to them already) with each trajectory's task, without its run. */
export function withTask<Q extends SQLiteSelect>(db: Db, query: Q) {
  const { trajectories, tasks } = tablesOf(db);
  return query.innerJoin(tasks, eq(tasks.id, trajectories.taskId));
}

/** A query over campaign items (or joined to them already) with each item's trajectory. */
export function withItemTrajectory<Q extends SQLiteSelect>(db: Db, query: Q) {
  const { campaignItems, trajectories } = tablesOf(db);
  return query.innerJoin(trajectories, eq(trajectories.id, campaignItems.trajectoryId));
}
