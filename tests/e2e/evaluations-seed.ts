/**
 * Run by evaluations-panel.spec.ts in a child process (tsx) against the e2e database, after analytics-seed.ts
 * (judge verdicts, labels, consolidated labels). `seed <trajectoryId>` gives that trajectory's task a
 * VisualWebArena-style string_match rule (as the demo tasks carry), runs the real rule evaluator on it, and puts
 * the trajectory in a blind campaign labelled by annotator1; `clean` undoes all of it. Prints one JSON object.
 */
import { and, eq } from "drizzle-orm";
import { createCampaign } from "../../server/services/annotation";
import { deleteCampaign, getCampaignByName } from "../../db/repositories/annotation/campaigns";
import { deleteVerdicts } from "../../db/repositories/evaluation/verdicts";
import { first, tablesOf } from "../../db/database";
import { evaluateRuleVerdicts, VWA_RULES_EVALUATOR_KEY } from "../../server/services/evaluation/rules";
import { getAppContext } from "../../server/context";
import { account } from "./accounts";
import { runSeedScript } from "./seed-script";

export const BLIND_CAMPAIGN = "E2E evaluations blind campaign";
export const RULE = { eval_types: ["string_match"], reference_answers: { must_include: ["$59.99"] } };

const { db } = getAppContext();
const [mode, rawId] = process.argv.slice(2);

async function userId(key: Parameters<typeof account>[0]): Promise<string> {
  const { users } = tablesOf(db);
  const row = await first(
    db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.email, account(key).email))
      .limit(1),
  );
  if (!row) throw new Error(`No e2e account ${account(key).email}`);
  return row.id;
}

async function clean(trajectoryId: number | null): Promise<void> {
  const { tasks, trajectories } = tablesOf(db);
  const campaign = await getCampaignByName(db, BLIND_CAMPAIGN);
  if (campaign) await deleteCampaign(db, campaign.id);
  await deleteVerdicts(db, { evaluatorKey: VWA_RULES_EVALUATOR_KEY });
  if (trajectoryId !== null) {
    const t = await first(db.select({ taskId: trajectories.taskId }).from(trajectories).where(eq(trajectories.id, trajectoryId)).limit(1));
    if (t) await db.update(tasks).set({ evaluatorConfig: null }).where(eq(tasks.id, t.taskId));
  }
}

async function main(): Promise<void> {
  const { campaignItems, tasks, trajectories } = tablesOf(db);
  const id = rawId ? Number(rawId) : null;
  if (mode === "clean") {
    await clean(id);
    process.stdout.write(JSON.stringify({ cleaned: true }));
  } else if (mode === "seed" && id) {
    await clean(id);
    const t = (await first(db.select({ taskId: trajectories.taskId }).from(trajectories).where(eq(trajectories.id, id)).limit(1)))!;
    await db.update(tasks).set({ evaluatorConfig: RULE }).where(eq(tasks.id, t.taskId));
    const report = await evaluateRuleVerdicts({ db, env: {} }, { trajectoryIds: [id] });
    const researcher = { userId: await userId("researcher"), name: account("researcher").name, role: "researcher" as const };
    const campaign = await createCampaign(db, researcher, {
      name: BLIND_CAMPAIGN,
      trajectoryIds: [id],
      annotatorsPerItem: 1,
      annotatorIds: [await userId("annotator1")],
    });
    const item = (await first(
      db
        .select({ itemNo: campaignItems.itemNo })
        .from(campaignItems)
        .where(and(eq(campaignItems.campaignId, campaign.id), eq(campaignItems.trajectoryId, id)))
        .limit(1),
    ))!;
    process.stdout.write(JSON.stringify({ rules: report.byVerdict, campaignId: campaign.id, itemNo: item.itemNo }));
  } else {
    process.stderr.write("usage: evaluations-seed.ts seed|clean <trajectoryId>\n");
    process.exitCode = 2;
  }
}

await runSeedScript(main);
