import type { Db } from "../../db/client";
import { countTasksAndSets } from "../../db/repositories/catalog";
import { countScreenshots } from "../../db/repositories/screenshots";
import { countTrajectoriesAndSteps } from "../../db/repositories/trajectories";

export interface VerdictStats {
  taskSets: number;
  tasks: number;
  runs: number;
  trajectories: number;
  steps: number;
  screenshots: number;
}

export function collectStats(db: Db): VerdictStats {
  const c = countTasksAndSets(db);
  const t = countTrajectoriesAndSteps(db);
  return { taskSets: c.taskSets, tasks: c.tasks, runs: c.runs, trajectories: t.trajectories, steps: t.steps, screenshots: countScreenshots(db) };
}
