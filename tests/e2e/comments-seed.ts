/**
 * Run by comments.spec.ts in a child process (tsx) against the e2e database. `seed <host>` creates the spec's own
 * three annotators, signed in (Mia, who is mentioned, and Bea and Ben, who label one item blind: accounts no earlier
 * spec's campaign holds), picks two imported trajectories of three steps or more on different tasks, and makes two
 * campaigns: an open one with the first for Mia, and a blind one with the second for Bea and Ben. `clean` removes the
 * campaigns and every comment on the two trajectories, so the specs that run later see them as the setup left them.
 * Prints one JSON object.
 */
import { eq, inArray } from "drizzle-orm";
import { first, tablesOf } from "../../db/database";
import { deleteCampaign, getCampaignByName } from "../../db/repositories/annotation/campaigns";
import { countSteps } from "../../db/repositories/trajectories";
import { getAppContext } from "../../server/context";
import { createCampaign } from "../../server/services/annotation";
import { account } from "./accounts";
import { createSignedInAccount, signInAccount } from "./account-session";
import { loadFixtures } from "./fixtures";
import { seedOrClean } from "./seed-script";

export const COMMENT_ACCOUNTS = {
  mia: { key: "mia", email: "mia.mention@e2e.test", name: "Mia Mention", role: "annotator", password: "e2e-annotator-pass" },
  bea: { key: "bea", email: "bea.blind@e2e.test", name: "Bea Blind", role: "annotator", password: "e2e-annotator-pass" },
  ben: { key: "ben", email: "ben.blind@e2e.test", name: "Ben Blind", role: "annotator", password: "e2e-annotator-pass" },
} as const;
const OPEN_CAMPAIGN = "E2E comments open campaign";
const BLIND_CAMPAIGN = "E2E comments blind campaign";

const app = getAppContext();
const { db } = app;
const [mode, host] = process.argv.slice(2);

async function userIdOf(email: string): Promise<string> {
  const { users } = tablesOf(db);
  const row = await first(db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1));
  if (!row) throw new Error(`No e2e account ${email}`);
  return row.id;
}

/** Two trajectories of three steps or more, on different tasks (the side-by-side pairs share a task: left out). */
async function pickTrajectories(): Promise<[number, number]> {
  const picked: number[] = [];
  const { trajectories } = tablesOf(db);
  const tasksSeen = new Set<number>();
  for (const [task, id] of Object.entries(loadFixtures().trajectories).sort((a, b) => a[1] - b[1])) {
    if (task.startsWith("cmp-") || (await countSteps(db, id)) < 3) continue;
    const row = await first(db.select({ taskId: trajectories.taskId }).from(trajectories).where(eq(trajectories.id, id)).limit(1));
    if (!row || tasksSeen.has(row.taskId)) continue;
    tasksSeen.add(row.taskId);
    picked.push(id);
    if (picked.length === 2) return [picked[0]!, picked[1]!];
  }
  throw new Error("The e2e setup imported fewer than two trajectories of three steps on different tasks");
}

async function clean(): Promise<void> {
  const { comments } = tablesOf(db);
  for (const name of [OPEN_CAMPAIGN, BLIND_CAMPAIGN]) {
    const c = await getCampaignByName(db, name);
    if (c) await deleteCampaign(db, c.id);
  }
  const ids = await pickTrajectories();
  await db.delete(comments).where(inArray(comments.trajectoryId, ids));
}

async function seed() {
  await clean();
  const states: Record<string, string> = {};
  const { users } = tablesOf(db);
  for (const a of Object.values(COMMENT_ACCOUNTS)) {
    const exists = await first(db.select({ id: users.id }).from(users).where(eq(users.email, a.email)).limit(1));
    // A retry of the spec seeds again: its own accounts, made by the first attempt, are signed in again.
    states[a.key] = exists ? await signInAccount(app, a, host ?? "127.0.0.1") : await createSignedInAccount(app, a, host ?? "127.0.0.1");
  }
  const [t1, t2] = await pickTrajectories();
  const researcher = { userId: await userIdOf(account("researcher").email), name: account("researcher").name, role: "researcher" as const };
  const open = await createCampaign(db, researcher, {
    name: OPEN_CAMPAIGN,
    trajectoryIds: [t1],
    annotatorsPerItem: 1,
    blind: false,
    annotatorIds: [await userIdOf(COMMENT_ACCOUNTS.mia.email)],
  });
  const blind = await createCampaign(db, researcher, {
    name: BLIND_CAMPAIGN,
    trajectoryIds: [t2],
    annotatorsPerItem: 2,
    blind: true,
    annotatorIds: [await userIdOf(COMMENT_ACCOUNTS.bea.email), await userIdOf(COMMENT_ACCOUNTS.ben.email)],
  });
  return { t1, t2, openCampaign: open.id, blindCampaign: blind.id, states };
}

await seedOrClean(mode, { seed, clean, usage: "comments-seed.ts seed <host> | clean" });
