/**
 * Run by player.spec.ts in a child process (tsx) against the e2e database. `seed <steps> <trajectoryId>` writes a
 * long trajectory (tests/helpers/long-trajectory.ts) whose steps reuse the screenshots of an imported trajectory,
 * so its images are real; `clean` removes it with its task, run and task set. Prints one JSON object.
 */
import { eq, inArray } from "drizzle-orm";
import { tablesOf } from "../../db/database";
import { getAppContext } from "../../server/context";
import { seedLongTrajectory } from "../helpers/long-trajectory";
import { runSeedScript } from "./seed-script";

const EXTERNAL_ID = "e2e-long-trajectory";
const { db } = getAppContext();
const [mode, rawSteps, rawFrom] = process.argv.slice(2);

async function clean(): Promise<void> {
  const { agentRuns, taskSets, tasks, trajectories } = tablesOf(db);
  const rows = await db
    .select({ id: trajectories.id, taskId: trajectories.taskId, runId: trajectories.runId, setId: tasks.taskSetId })
    .from(trajectories)
    .innerJoin(tasks, eq(tasks.id, trajectories.taskId))
    .where(eq(tasks.externalId, EXTERNAL_ID));
  if (!rows.length) return;
  await db.delete(trajectories).where(
    inArray(
      trajectories.id,
      rows.map((r) => r.id),
    ),
  );
  await db.delete(tasks).where(
    inArray(
      tasks.id,
      rows.map((r) => r.taskId),
    ),
  );
  await db.delete(agentRuns).where(
    inArray(
      agentRuns.id,
      rows.map((r) => r.runId),
    ),
  );
  await db.delete(taskSets).where(
    inArray(
      taskSets.id,
      rows.map((r) => r.setId),
    ),
  );
}

async function main(): Promise<void> {
  const { steps } = tablesOf(db);
  if (mode === "clean") {
    await clean();
    console.log(JSON.stringify({ cleaned: true }));
  } else if (mode === "seed") {
    await clean();
    const from = Number(rawFrom);
    const hashes = (await db.select({ hash: steps.screenshotHash }).from(steps).where(eq(steps.trajectoryId, from)).orderBy(steps.index))
      .map((r) => r.hash)
      .filter((h): h is string => !!h);
    if (!hashes.length) throw new Error(`Trajectory ${from} has no screenshots to reuse`);
    const n = Number(rawSteps);
    const id = await seedLongTrajectory(db, { steps: n, externalTaskId: EXTERNAL_ID, screenshotHashes: hashes, marks: 30 });
    console.log(JSON.stringify({ id, lastHash: hashes[(n - 1) % hashes.length] }));
  } else {
    throw new Error(`usage: long-trajectory-seed.ts seed <steps> <trajectoryId> | clean`);
  }
}

await runSeedScript(main);
