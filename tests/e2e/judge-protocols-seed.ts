/**
 * Run by judge-protocols.spec.ts in a child process (tsx) against the e2e database. `seed <trajectoryId>` starts the
 * tests' prompt-reading judge endpoint on 127.0.0.1, makes a key-point and a rubric judge configuration pointing at
 * it, and judges the trajectory with each through the real judge service. The key-point judge scores step 2's
 * screenshot 5 (the others 1), so only it is shown for the outcome, and cites step 2 with a box in its middle and a step 99 the trajectory does not have; the rubric judge cites as the
 * endpoint works it out. `clean` removes both configurations and their verdicts. Prints one JSON object.
 */
import { deleteJudgeConfig, deleteVerdicts, getJudgeConfigByName } from "../../db/repositories/evaluation/verdicts";
import { getStepScreenshots, getTrajectoryDetail } from "../../db/repositories/trajectories";
import { getAppContext } from "../../server/context";
import { createJudgeConfig } from "../../server/services/evaluation/judge-configs";
import { judgeTrajectory } from "../../server/services/evaluation/judge-verdict";
import { promptReadingResponder } from "../helpers/fake-judge-model";
import { startFakeOpenAI } from "../helpers/fake-openai";
import { seedOrClean } from "./seed-script";
import { judgeSettings } from "../../server/config";

export const KEY_POINTS_JUDGE = "E2E key points";
export const RUBRIC_JUDGE = "E2E rubric";
const ENV = { VERDICT_JUDGE_ALLOW_LOOPBACK: "1024-65535" };
const JUDGE = judgeSettings(ENV);

const ctx = getAppContext();
const [mode, rawId] = process.argv.slice(2);

async function clean(): Promise<void> {
  for (const name of [KEY_POINTS_JUDGE, RUBRIC_JUDGE]) {
    const c = await getJudgeConfigByName(ctx.db, name);
    if (!c) continue;
    await deleteVerdicts(ctx.db, { evaluatorKey: `judge:${c.id}` });
    await deleteJudgeConfig(ctx.db, c.id);
  }
}

async function seed(id: number) {
  const detail = (await getTrajectoryDetail(ctx.db, id))!;
  const shots = await getStepScreenshots(ctx.db, id);
  const second = shots.get(detail.steps[1]!.screenshotHash!)!;
  const box = [Math.round(second.width / 4), Math.round(second.height / 4), Math.round(second.width / 2), Math.round(second.height / 2)];
  const fake = await startFakeOpenAI({
    responder: promptReadingResponder({
      // Step 2's screenshot is the one relevant enough to be shown for the outcome (so its box can be checked).
      scores: { [second.hash]: 5 },
      cite: (c) =>
        c.keyPoints.length
          ? [`Evidence: step 2 [${box.join(", ")}] — the search results`, "Evidence: step 99 — the checkout page"]
          : [`Evidence: step ${detail.steps.length} — the final page`],
    }),
  });
  try {
    const kp = await createJudgeConfig(ctx.db, { name: KEY_POINTS_JUDGE, baseUrl: fake.baseUrl, model: "e2e-model", promptVersion: "key-points" }, JUDGE);
    const rubric = await createJudgeConfig(ctx.db, { name: RUBRIC_JUDGE, baseUrl: fake.baseUrl, model: "e2e-model", promptVersion: "rubric" }, JUDGE);
    const deps = { db: ctx.db, store: ctx.store, env: ENV };
    const a = await judgeTrajectory(deps, { configId: kp.id, trajectoryId: id, k: "full" });
    const b = await judgeTrajectory(deps, { configId: rubric.id, trajectoryId: id, k: 1 });
    return { keyPoints: a.verdict, rubric: b.verdict, box, steps: detail.steps.length, screenshot: { width: second.width, height: second.height } };
  } finally {
    await fake.close();
  }
}

await seedOrClean(mode, {
  // Seeding starts from a clean slate: a retried spec seeds again.
  seed: rawId
    ? async () => {
        await clean();
        return seed(Number(rawId));
      }
    : null,
  clean,
  usage: "judge-protocols-seed.ts seed|clean <trajectoryId>",
});
