/**
 * Run by analytics.spec.ts in a child process (tsx) against the e2e database. `seed` gives the trajectories the
 * global setup imported a campaign with three annotators' labels and consolidated labels, and verdicts from a
 * judge at k = 1 and k = 3; `clean` removes all of it again, so the specs that run later see the database as the
 * global setup left it. Writes go through the repositories. Prints one JSON object.
 */
import {
  getCampaignByName,
  deleteCampaign,
  getItemByTrajectory,
  importedAnnotatorKey,
  insertCampaign,
  insertCampaignItems,
} from "../../db/repositories/annotation/campaigns";
import { insertLabel, upsertConsolidated } from "../../db/repositories/annotation/labels";
import { deleteJudgeConfig, deleteVerdicts, getJudgeConfigByName, insertJudgeConfig, upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { listTrajectories } from "../../db/repositories/trajectories";
import { defaultLabelSchema, WEBVOYAGER_ERROR_CATEGORIES } from "../../server/domain/annotation/label-schema";
import { DEFAULT_JUDGE_OPTIONS } from "../../server/domain/evaluation/verdicts";
import { getAppContext } from "../../server/context";
import { runSeedScript } from "./seed-script";

export const E2E_CAMPAIGN = "E2E analytics campaign";
export const E2E_JUDGE = "E2E judge";
const ANNOTATORS = ["Ana", "Ben", "Cleo"];

const { db } = getAppContext();
const mode = process.argv[2];

async function clean(): Promise<void> {
  const campaign = await getCampaignByName(db, E2E_CAMPAIGN);
  if (campaign) await deleteCampaign(db, campaign.id);
  const judge = await getJudgeConfigByName(db, E2E_JUDGE);
  if (judge) {
    await deleteVerdicts(db, { evaluatorKey: `judge:${judge.id}` });
    await deleteJudgeConfig(db, judge.id);
  }
}

/** Three samples whose majority is the verdict; every third item has one dissenting sample. */
function samplesOf(success: boolean, i: number) {
  const dissent = i % 3 === 0 ? 1 : 0;
  const successes = success ? 3 - dissent : dissent;
  return { sampleCount: 3, sampleSuccesses: successes, sampleFailures: 3 - successes };
}

async function main(): Promise<void> {
  if (mode === "clean") {
    await clean();
    process.stdout.write(JSON.stringify({ cleaned: true }));
  } else if (mode === "seed") {
    await clean();
    const rows = (await listTrajectories(db, {}, { offset: 0, limit: 10_000, sort: "id", dir: "asc" })).rows;
    const ids = rows.map((r) => r.id);
    const campaignId = await insertCampaign(db, {
      name: E2E_CAMPAIGN,
      labelSchema: { ...defaultLabelSchema(), allowUnsure: true },
      annotatorsPerItem: 3,
      selection: { description: `${ids.length} e2e trajectories` },
      origin: "import",
    });
    await insertCampaignItems(db, campaignId, ids);
    const configId = await insertJudgeConfig(db, { name: E2E_JUDGE, model: "e2e-judge-model", promptVersion: "v1", options: DEFAULT_JUDGE_OPTIONS });
    const judgeKey = `judge:${configId}`;
    const categories = [...WEBVOYAGER_ERROR_CATEGORIES];
    for (const [i, t] of rows.entries()) {
      // A fixed pattern: about 60% successes, one annotator in four disagreeing, the judge wrong on some.
      const success = i % 5 !== 1 && i % 5 !== 3;
      const category = categories[i % categories.length]!;
      const step = Math.max(0, Math.min(t.stepCount - 1, i % Math.max(1, t.stepCount)));
      const itemId = (await getItemByTrajectory(db, campaignId, t.id))!.id;
      for (const [a, name] of ANNOTATORS.entries()) {
        const flips = (i + a) % 4 === 3;
        const verdict = success !== flips ? "success" : "failure";
        await insertLabel(db, {
          campaignId,
          itemId,
          trajectoryId: t.id,
          annotatorKey: importedAnnotatorKey(name),
          annotatorName: name,
          origin: "import",
          verdict,
          category: verdict === "failure" ? (flips && a === 2 ? categories[(i + 1) % categories.length]! : category) : null,
          firstFailingStep: verdict === "failure" ? step : null,
        });
      }
      await upsertConsolidated(db, {
        campaignId,
        itemId,
        trajectoryId: t.id,
        verdict: success ? "success" : "failure",
        category: success ? null : category,
        firstFailingStep: success ? null : step,
        method: "adjudicated",
        basedOn: [],
      });
      for (const k of ["1", "3"]) {
        const wrong = k === "1" ? i % 4 === 2 : i % 6 === 4;
        const verdict = k === "1" && i === 0 ? "unparseable" : success !== wrong ? "success" : "failure";
        await upsertVerdict(db, {
          trajectoryId: t.id,
          kind: "judge",
          origin: "verdict",
          evaluatorKey: judgeKey,
          evaluatorName: E2E_JUDGE,
          judgeConfigId: configId,
          k,
          promptVersion: "v1",
          verdict,
          rationale: `e2e: k=${k} says ${verdict}`,
          // k = 3 was sampled three times per item: the majority is the verdict, the minority varies with i, so the
          // reliability diagram has points at 0, 1/3, 2/3 and 1.
          ...(k === "3" ? samplesOf(verdict === "success", i) : {}),
          // k = 3 also names a first failing step: the humans' on even rows, one later on odd rows.
          ...(k === "3" && verdict === "failure" ? { firstFailingStep: Math.min(t.stepCount - 1, step + (i % 2)) } : {}),
        });
      }
    }
    process.stdout.write(JSON.stringify({ campaignId, judgeKey, trajectories: ids.length }));
  } else {
    process.stderr.write("usage: analytics-seed.ts seed|clean\n");
    process.exitCode = 2;
  }
}

await runSeedScript(main);
