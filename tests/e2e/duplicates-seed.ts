/**
 * Run by import-duplicates.spec.ts in a child process (tsx) against the e2e database. `seed` leaves what an earlier
 * Verdict left when one results folder was imported from two places: every trajectory stored twice, in two runs,
 * the first copies with the old kind of content hash; annotators labelled whichever copy they were given (one
 * labelled both copies of Dup--2, a clash the merge must leave). `clean` removes the copies, their runs and tasks,
 * and the campaign. Prints one JSON object.
 */
import fs from "node:fs";
import path from "node:path";
import { eq, inArray, like, sql } from "drizzle-orm";
import { rawRun, tablesOf } from "../../db/database";
import { deleteCampaign, getCampaignByName } from "../../db/repositories/annotation/campaigns";
import { importLabelsCsv } from "../../server/services/annotation";
import { runImport } from "../../server/services/imports/ingest";
import { getAppContext } from "../../server/context";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";
import { seedOrClean } from "./seed-script";

export const DUPLICATES_CAMPAIGN = "E2E duplicates campaign";
const RUN_FOLDER = "20240101_00_00_00";

const ctx = getAppContext();
const { db } = ctx;
const [mode] = process.argv.slice(2);
const dir = process.env.VERDICT_DATA_DIR!;

async function clean(): Promise<void> {
  const { tasks, trajectories, agentRuns } = tablesOf(db);
  const campaign = await getCampaignByName(db, DUPLICATES_CAMPAIGN);
  if (campaign) await deleteCampaign(db, campaign.id);
  const taskRows = await db.select({ id: tasks.id }).from(tasks).where(like(tasks.externalId, "Dup--%"));
  const taskIds = taskRows.map((t) => t.id);
  if (!taskIds.length) return;
  const rows = await db.select({ runId: trajectories.runId }).from(trajectories).where(inArray(trajectories.taskId, taskIds));
  await db.delete(trajectories).where(inArray(trajectories.taskId, taskIds));
  for (const runId of new Set(rows.map((r) => r.runId))) await db.delete(agentRuns).where(eq(agentRuns.id, runId));
  await db.delete(tasks).where(inArray(tasks.id, taskIds));
}

async function folder(place: string) {
  const root = path.join(dir, "duplicates-e2e", place, "results");
  fs.rmSync(root, { recursive: true, force: true });
  const act = (id: string, answer: string) => ({
    id,
    intent: `Find ${id} in the catalogue.`,
    url: "https://dup.test/",
    actions: ["Click [0]", `ANSWER; ${answer}`],
  });
  await writeWebVoyagerFixture(path.join(root, RUN_FOLDER), [act("Dup--1", "one"), act("Dup--2", "two"), act("Dup--3", "three")], 9100);
  return root;
}

async function seed() {
  await clean();
  const first = await runImport(ctx, { path: await folder("lab") });
  for (const t of first.trajectories)
    await rawRun(db, sql`update trajectories set content_hash = ${`v2:hidden-${t.id}`}, identity_hash = null where id = ${t.id}`);
  await rawRun(
    db,
    sql`update agent_runs set run_key = ${`webvoyager:${path.join(dir, "duplicates-e2e", "lab", "results", RUN_FOLDER)}`} where id = ${first.trajectories[0]!.runId}`,
  );
  const second = await runImport(ctx, { path: await folder("laptop") });
  for (const t of first.trajectories) await rawRun(db, sql`update trajectories set content_hash = ${`old-${t.id}`} where id = ${t.id}`);
  const a = Object.fromEntries(first.trajectories.map((t) => [t.externalTaskId, t.id]));
  const b = Object.fromEntries(second.trajectories.map((t) => [t.externalTaskId, t.id]));
  const { users } = tablesOf(db);
  const [admin] = await db.select({ id: users.id, name: users.name }).from(users).where(eq(users.email, "admin@e2e.test"));
  const csv = [
    "annotator,trajectory,verdict",
    `Ann,${a["Dup--1"]},success`,
    `Bob,${b["Dup--1"]},success`,
    `Ann,${a["Dup--2"]},failure`,
    `Ann,${b["Dup--2"]},success`,
    `Bob,${b["Dup--3"]},failure`,
  ].join("\n");
  await importLabelsCsv(
    db,
    { userId: admin!.id, name: admin!.name, role: "admin" },
    {
      csv,
      source: "labels.csv",
      mapping: { annotator: "annotator", verdict: "verdict", trajectoryId: "trajectory" },
      campaign: { name: DUPLICATES_CAMPAIGN, annotatorsPerItem: 2 },
    },
  );
  return { a, b };
}

await seedOrClean(mode, { seed, clean, usage: "duplicates-seed.ts seed|clean" });
