/**
 * Run by improving-a-judge.spec.ts in a child process (tsx) against the e2e database: imports ten small
 * trajectories (a native bundle, as real data arrives) and one person's labels of them as a campaign, the way a
 * researcher brings in a finished human evaluation. Prints { campaignId, campaignName, ids } as JSON.
 *
 * The ten are five pairs of "twins" (same site, same human label, behaving alike for the prompt-reading judge in
 * tests/helpers/fake-judge-model.ts), so that whichever twin the seeded split holds out, the held-out part is one
 * of each; IMPROVEMENT_TWINS in improvement-data.ts lists them with what the judge makes of them.
 */
import { importLabelsCsv } from "../../server/services/annotation/io";
import { getAppContext } from "../../server/context";
import { first, tablesOf } from "../../db/database";
import { eq } from "drizzle-orm";
import { seedTrajectories } from "../helpers/judge-fixtures";
import { account } from "./accounts";
import { IMPROVEMENT_TWINS } from "./improvement-data";
import { runSeedScript } from "./seed-script";

async function main(): Promise<void> {
  const ctx = getAppContext();
  const stamp = process.argv[2] ?? Date.now().toString(36);
  const specs = IMPROVEMENT_TWINS.flatMap((t) => t.items.map((i) => ({ steps: 2, intent: i.intent, finalAnswer: i.answer, site: t.site })));
  const seeded = await seedTrajectories(ctx, specs, `improvement-e2e-${stamp}`);
  const { users } = tablesOf(ctx.db);
  const me = await first(
    ctx.db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.email, account("researcher").email))
      .limit(1),
  );
  if (!me) throw new Error("no e2e researcher account");
  const humans = IMPROVEMENT_TWINS.flatMap((t) => t.items.map(() => t.human));
  const notes = IMPROVEMENT_TWINS.flatMap((t) => t.items.map(() => t.note));
  const campaignName = `E2E improving a judge ${stamp}`;
  const report = await importLabelsCsv(
    ctx.db,
    { userId: me.id, name: account("researcher").name, role: "researcher" },
    {
      csv: ["trajectory_id,annotator,verdict,note", ...seeded.map((t, i) => `${t.id},Lee,${humans[i]},${notes[i]}`)].join("\n") + "\n",
      source: "human-evaluation.csv",
      mapping: { annotator: "annotator", verdict: "verdict", trajectoryId: "trajectory_id", note: "note" },
      campaign: { name: campaignName, annotatorsPerItem: 1 },
    },
  );
  process.stdout.write(JSON.stringify({ campaignId: report.campaignId, campaignName, ids: seeded.map((t) => t.id) }));
}

await runSeedScript(main);
