/**
 * Demo accounts and a demo labelling campaign, so the quick start can be walked through end to end: three
 * annotators label the demo trajectories blind, a researcher adjudicates. Idempotent: existing accounts and the
 * campaign are left as they are (a changed password is not reset). docs/guide/getting-started.md ("Accounts") lists these.
 */
import { getUserByEmail } from "../../../db/repositories/accounts/users";
import { getCampaignByName } from "../../../db/repositories/annotation/campaigns";
import { listRuns } from "../../../db/repositories/catalog";
import { trajectoryIds } from "../../../db/repositories/trajectories";
import type { Role } from "../../../db/schema/index";
import type { AppContext } from "../../context";
import { createAccount } from "./users";
import { createCampaign } from "../annotation";

type App = Pick<AppContext, "db" | "config">;

export interface DemoAccount {
  email: string;
  name: string;
  role: Role;
  password: string;
}

/** Known passwords on purpose: these accounts exist to be tried out, never on a shared installation. */
export const DEMO_ACCOUNTS: readonly DemoAccount[] = [
  { email: "admin@verdict.demo", name: "Ada Admin", role: "admin", password: "demo-admin" },
  { email: "researcher@verdict.demo", name: "Rosa Researcher", role: "researcher", password: "demo-researcher" },
  { email: "annotator1@verdict.demo", name: "Ana Annotator", role: "annotator", password: "demo-annotator" },
  { email: "annotator2@verdict.demo", name: "Ben Annotator", role: "annotator", password: "demo-annotator" },
  { email: "annotator3@verdict.demo", name: "Cleo Annotator", role: "annotator", password: "demo-annotator" },
];

export const DEMO_CAMPAIGN_NAME = "Demo: WebVoyager-style human evaluation";

export interface DemoAccountsReport {
  created: string[];
  existing: string[];
  campaign: { id: number; created: boolean; trajectories: number } | null;
}

/** Creates the demo accounts and a demo campaign over the trajectories of the given runs (by run key; default all). */
export async function seedDemoAccounts(app: App, options: { runKeys?: string[] } = {}): Promise<DemoAccountsReport> {
  const report: DemoAccountsReport = { created: [], existing: [], campaign: null };
  // The admin goes first: on a fresh installation the first account becomes admin anyway.
  for (const a of DEMO_ACCOUNTS) {
    if (await getUserByEmail(app.db, a.email)) {
      report.existing.push(a.email);
      continue;
    }
    await createAccount(app, a);
    report.created.push(a.email);
  }

  const existing = await getCampaignByName(app.db, DEMO_CAMPAIGN_NAME);
  if (existing) {
    report.campaign = { id: existing.id, created: false, trajectories: 0 };
    return report;
  }
  const runIds = options.runKeys ? (await listRuns(app.db)).filter((r) => options.runKeys!.includes(r.runKey)).map((r) => r.id) : null;
  const ids = runIds ? (await Promise.all(runIds.map((runId) => trajectoryIds(app.db, { runId })))).flat() : await trajectoryIds(app.db);
  if (!ids.length) return report;
  const researcher = (await getUserByEmail(app.db, "researcher@verdict.demo"))!;
  const annotators = await Promise.all(DEMO_ACCOUNTS.filter((a) => a.role === "annotator").map(async (a) => (await getUserByEmail(app.db, a.email))!.id));
  const campaign = await createCampaign(
    app.db,
    { userId: researcher.id, name: researcher.name, role: researcher.role },
    {
      name: DEMO_CAMPAIGN_NAME,
      instructions:
        "Watch the whole trajectory (every screenshot and action), then decide: did the agent accomplish the task? " +
        "For a failure, pick the main error category and, if you can, mark the first step where it went wrong. " +
        "You will not see the judge's verdict or the other annotators' labels until you have submitted yours.",
      trajectoryIds: ids,
      annotatorsPerItem: 3,
      blind: true,
      annotatorIds: annotators,
      selectionDescription: "the demo trajectories",
    },
  );
  report.campaign = { id: campaign.id, created: true, trajectories: ids.length };
  return report;
}
