/**
 * Failures of three kinds for failure-cluster tests, written through the repositories (so the behaviour-search
 * entries come from the database's own triggers):
 *   C1–C3 a CAPTCHA, L1–L3 a login wall, O1–O3 a page timeout, and S1 a success.
 * Runs and sites: C1, C2, L1, O1 alpha on Shop; C3, L2, O2 beta on Maps; L3, O3, S1 beta on Shop.
 * Human consolidated labels: every C, L and O a failure (categories "environment" for C and L, "timeout" for O), S1 a
 * success. The judge says failure for C and L, success for O and S1, so humans and the judge disagree on O1–O3.
 * Each trajectory has five steps: the first two say only "zebra" things (too early to be read), the last three what
 * went wrong.
 */
import type { Db } from "../../db/database";
import { getItemByTrajectory, insertCampaign, insertCampaignItems } from "../../db/repositories/annotation/campaigns";
import { upsertConsolidated } from "../../db/repositories/annotation/labels";
import { ensureTask, ensureTaskSet, upsertRun } from "../../db/repositories/catalog";
import { insertJudgeConfig, upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { saveTrajectory, type StepValues } from "../../db/repositories/trajectories";
import { defaultLabelSchema } from "../../server/domain/annotation/label-schema";
import { DEFAULT_JUDGE_OPTIONS } from "../../server/domain/evaluation/verdicts";

type Kind = "C" | "L" | "O" | "S";

const LAST: Record<Kind, string[]> = {
  C: ["A captcha appeared on the page", "The captcha asks me to verify I am human", "Still blocked by the captcha"],
  L: ["The site shows a login wall", "Sign in required: the login wall hides the results", "I cannot pass the login wall without a password"],
  O: ["The page keeps loading, spinner forever", "Navigation timeout while loading the results", "Timeout again, the page never loaded"],
  S: ["Found the item", "Reading the price", "Answering with the price"],
};

const RATIONALE: Record<Kind, string> = {
  C: "The agent was stopped by a captcha and never reached the answer",
  L: "A login wall blocked the agent before the results",
  O: "The answer is plausible",
  S: "The answer matches the page",
};

export const CLUSTER_ROWS: { name: string; kind: Kind; run: "alpha" | "beta"; site: string }[] = [
  { name: "C1", kind: "C", run: "alpha", site: "Shop" },
  { name: "C2", kind: "C", run: "alpha", site: "Shop" },
  { name: "C3", kind: "C", run: "beta", site: "Maps" },
  { name: "L1", kind: "L", run: "alpha", site: "Shop" },
  { name: "L2", kind: "L", run: "beta", site: "Maps" },
  { name: "L3", kind: "L", run: "beta", site: "Shop" },
  { name: "O1", kind: "O", run: "alpha", site: "Shop" },
  { name: "O2", kind: "O", run: "beta", site: "Maps" },
  { name: "O3", kind: "O", run: "beta", site: "Shop" },
  { name: "S1", kind: "S", run: "beta", site: "Shop" },
];

export interface ClusterFixture {
  ids: Record<string, number>;
  runIds: Record<"alpha" | "beta", number>;
  /** The judge as the list names an evaluator: `<key>|<k>|<prompt version>`. */
  evaluator: string;
  campaignId: number;
}

function stepsFor(kind: Kind): StepValues[] {
  const early = ["zebra zebra on the home page", "zebra search results"];
  return [...early, ...LAST[kind]].map((thought, index) => ({
    index,
    url: `https://${kind === "L" ? "accounts" : "www"}.example.test/${kind === "L" ? "signin" : "page"}/${index}`,
    thought,
    actionRaw: index === 4 && kind !== "S" ? "ANSWER; cannot finish" : `Click [${index + 10}]`,
    action: index === 4 && kind !== "S" ? { type: "answer", value: "cannot finish" } : { type: "click", target: String(index + 10) },
  }));
}

export async function seedClusterFixture(db: Db): Promise<ClusterFixture> {
  const setId = await ensureTaskSet(db, { name: "Cluster fixture", benchmark: "webvoyager" });
  const runIds = {
    alpha: await upsertRun(db, { runKey: "clusters:alpha", name: "alpha", agentName: "alpha agent", model: "m-a", sourceSystem: "test", config: null }),
    beta: await upsertRun(db, { runKey: "clusters:beta", name: "beta", agentName: "beta agent", model: "m-b", sourceSystem: "test", config: null }),
  };
  const ids: Record<string, number> = {};
  for (const row of CLUSTER_ROWS) {
    const taskId = await ensureTask(db, setId, {
      externalId: `cluster-${row.name}`,
      site: row.site,
      intent: `Find the price of item ${row.name}`,
      startUrl: null,
      contentHash: `cluster-task-${row.name}`,
    });
    const steps = stepsFor(row.kind);
    const saved = await saveTrajectory(db, {
      runId: runIds[row.run],
      taskId,
      attempt: 0,
      finalAnswer: row.kind === "S" ? "12 dollars" : "cannot finish",
      outcome: "answered",
      outcomeDetail: null,
      stepCount: steps.length,
      sourceFormat: "test",
      sourcePath: null,
      contentHash: `cluster-${row.name}`,
      steps,
    });
    ids[row.name] = saved.id;
  }
  const campaignId = await insertCampaign(db, {
    name: "Cluster fixture campaign",
    labelSchema: { ...defaultLabelSchema(), requireCategory: false },
    annotatorsPerItem: 1,
    selection: { description: "10 fixture trajectories" },
    origin: "import",
  });
  await insertCampaignItems(db, campaignId, Object.values(ids));
  const configId = await insertJudgeConfig(db, { name: "Cluster judge", model: "judge-model", promptVersion: "v1", options: DEFAULT_JUDGE_OPTIONS });
  for (const row of CLUSTER_ROWS) {
    const trajectoryId = ids[row.name]!;
    const itemId = (await getItemByTrajectory(db, campaignId, trajectoryId))!.id;
    const failed = row.kind !== "S";
    await upsertConsolidated(db, {
      campaignId,
      itemId,
      trajectoryId,
      verdict: failed ? "failure" : "success",
      category: !failed ? null : row.kind === "O" ? "timeout" : "environment",
      firstFailingStep: null,
      method: "adjudicated",
      basedOn: [],
    });
    await upsertVerdict(db, {
      trajectoryId,
      kind: "judge",
      origin: "verdict",
      evaluatorKey: `judge:${configId}`,
      evaluatorName: "Cluster judge",
      judgeConfigId: configId,
      k: "1",
      promptVersion: "v1",
      verdict: row.kind === "C" || row.kind === "L" ? "failure" : "success",
      rationale: RATIONALE[row.kind],
    });
  }
  return { ids, runIds, evaluator: `judge:${configId}|1|v1`, campaignId };
}
