import type { Db } from "../../db/database";
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

export async function collectStats(db: Db): Promise<VerdictStats> {
  // Owned by other parts of the code base; awaited whether or not they are asynchronous yet.
  const c = await countTasksAndSets(db);
  const t = await countTrajectoriesAndSteps(db);
  const screenshots = await countScreenshots(db);
  return { taskSets: c.taskSets, tasks: c.tasks, runs: c.runs, trajectories: t.trajectories, steps: t.steps, screenshots };
}
