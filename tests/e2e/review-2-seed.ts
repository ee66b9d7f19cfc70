/**
 * Run by review-2-more.spec.ts in a child process (tsx) against the e2e database. `seed` leaves what a team has
 * after importing a fork's results folder run by run (UI review 2, #9 and #10): 33 agent runs named by their
 * results path, all sharing the prefix "webvoyager-gndd1221/results/", one trajectory each on two sites of a task set
 * of their own, each judged by one judge. `clean` removes all of it. Prints one JSON object.
 */
import { eq, inArray } from "drizzle-orm";
import { tablesOf } from "../../db/database";
import { deleteJudgeConfig, deleteVerdicts, getJudgeConfigByName, insertJudgeConfig, upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { DEFAULT_JUDGE_OPTIONS } from "../../server/domain/evaluation/verdicts";
import { getAppContext } from "../../server/context";
import { seedOrClean } from "./seed-script";

export const MANY_RUNS_SET = "E2E review 2 fork";
const JUDGE = "E2E review 2 judge";
export const RUN_COUNT = 33;
export const RUN_PREFIX = "webvoyager-gndd1221/results/";

const { db } = getAppContext();
const mode = process.argv[2];

async function clean(): Promise<void> {
  const { taskSets, tasks, trajectories, agentRuns } = tablesOf(db);
  const judge = await getJudgeConfigByName(db, JUDGE);
  if (judge) {
    await deleteVerdicts(db, { evaluatorKey: `judge:${judge.id}` });
    await deleteJudgeConfig(db, judge.id);
  }
  const [set] = await db.select({ id: taskSets.id }).from(taskSets).where(eq(taskSets.name, MANY_RUNS_SET));
  if (!set) return;
  const taskIds = (await db.select({ id: tasks.id }).from(tasks).where(eq(tasks.taskSetId, set.id))).map((t) => t.id);
  if (taskIds.length) {
    const runIds = [
      ...new Set((await db.select({ runId: trajectories.runId }).from(trajectories).where(inArray(trajectories.taskId, taskIds))).map((r) => r.runId)),
    ];
    await db.delete(trajectories).where(inArray(trajectories.taskId, taskIds));
    if (runIds.length) await db.delete(agentRuns).where(inArray(agentRuns.id, runIds));
    await db.delete(tasks).where(inArray(tasks.id, taskIds));
  }
  await db.delete(taskSets).where(eq(taskSets.id, set.id));
}

async function seed() {
  await clean();
  const { taskSets, tasks, agentRuns, trajectories } = tablesOf(db);
  const [set] = await db.insert(taskSets).values({ name: MANY_RUNS_SET, benchmark: "webvoyager" }).returning();
  const taskRows = await db
    .insert(tasks)
    .values(
      ["Allrecipes", "GitHub"].map((site, i) => ({
        taskSetId: set!.id,
        externalId: `Review2--${i}`,
        site,
        intent: `Find item ${i} on ${site}.`,
        contentHash: `review2-task-${i}`,
      })),
    )
    .returning();
  const configId = await insertJudgeConfig(db, { name: JUDGE, model: "e2e-judge-model", promptVersion: "v1", options: DEFAULT_JUDGE_OPTIONS });
  const runs: { id: number; name: string }[] = [];
  for (let i = 0; i < RUN_COUNT; i++) {
    // Timestamps one minute apart: only the last part of each name tells the runs apart.
    const name = `${RUN_PREFIX}20250513_04${String(10 + i).padStart(2, "0")}07`;
    const [run] = await db
      .insert(agentRuns)
      .values({ runKey: `webvoyager:/data/${name}`, name, agentName: "webvoyager", model: "gpt-4o", sourceSystem: "webvoyager" })
      .returning();
    const [t] = await db
      .insert(trajectories)
      .values({
        runId: run!.id,
        taskId: taskRows[i % 2]!.id,
        attempt: 0,
        outcome: "answered",
        stepCount: 3,
        sourceFormat: "webvoyager",
        contentHash: `v2:review2-${i}`,
      })
      .returning();
    const verdict = i % 3 === 0 ? "failure" : "success";
    await upsertVerdict(db, {
      trajectoryId: t!.id,
      kind: "judge",
      origin: "verdict",
      evaluatorKey: `judge:${configId}`,
      evaluatorName: JUDGE,
      judgeConfigId: configId,
      k: "1",
      promptVersion: "v1",
      verdict,
      rationale: `e2e: says ${verdict}`,
    });
    runs.push({ id: run!.id, name });
  }
  return { taskSetId: set!.id, runs };
}

await seedOrClean(mode, { seed, clean, usage: "review-2-seed.ts seed|clean" });
