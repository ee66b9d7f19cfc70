/**
 * Run by region-marks.spec.ts in a child process (tsx) against the e2e database. `setup <host> <trajectory ids…>`
 * creates the spec's two annotators (Mara, who draws in the browser, signed in; Pim, whose label this script submits),
 * and a blind campaign over the first of the trajectories whose first step has a screenshot of at least 400×300,
 * two labels per item and a QA review stage, with those two annotators alone. Pim's label is a failure with one box,
 * "the answer was here", on step 1: the middle of the screenshot, a quarter of its width and height. A second
 * campaign, over the next such trajectory, has one label of Pim's without marks (the empty state of the region
 * agreement). Prints one JSON object.
 */
import { getUserByEmail } from "../../db/repositories/accounts/users";
import { stepScreenshotSizes } from "../../db/repositories/annotation/labels";
import type { Actor } from "../../server/domain/access/actor";
import { getAppContext } from "../../server/context";
import { createCampaign, nextItem, submitItemLabel } from "../../server/services/annotation";
import { createSignedInAccount } from "./account-session";
import { account } from "./accounts";
import { runSeedScript } from "./seed-script";

const app = getAppContext();
const { db } = app;

export const MARA = { key: "mara", email: "mara@e2e.test", name: "Mara Marker", role: "annotator", password: "e2e-annotator-pass" } as const;
export const PIM = { key: "pim", email: "pim@e2e.test", name: "Pim Pointer", role: "annotator", password: "e2e-annotator-pass" } as const;

async function actorOf(email: string): Promise<Actor> {
  const u = await getUserByEmail(db, email);
  if (!u) throw new Error(`no account ${email}`);
  return { userId: u.id, name: u.name, role: u.role as Actor["role"] };
}

async function main(): Promise<void> {
  const [mode, host, ...ids] = process.argv.slice(2);
  if (mode !== "setup") throw new Error(`unknown mode ${mode}`);
  const storageState = await createSignedInAccount(app, MARA, host ?? "127.0.0.1");
  await createSignedInAccount(app, PIM, host ?? "127.0.0.1");
  const fit: { id: number; width: number; height: number }[] = [];
  for (const id of ids.map(Number)) {
    const size = (await stepScreenshotSizes(db, id)).get(0);
    if (size && size.width >= 400 && size.height >= 300) fit.push({ id, ...size });
    if (fit.length === 2) break;
  }
  const [chosen, other] = fit;
  if (!chosen || !other) throw new Error("fewer than two trajectories with a screenshot of at least 400×300 on their first step");
  const researcher = await actorOf(account("researcher").email);
  const [mara, pim] = [await actorOf(MARA.email), await actorOf(PIM.email)];
  const campaign = await createCampaign(db, researcher, {
    name: "E2E region marks",
    trajectoryIds: [chosen.id],
    annotatorsPerItem: 2,
    blind: true,
    annotatorIds: [mara.userId, pim.userId],
    labelSchema: { qaReview: true },
  });
  const box = {
    kind: "box",
    step: 0,
    label: "the answer was here",
    x: Math.round(chosen.width * 0.375),
    y: Math.round(chosen.height * 0.375),
    width: Math.round(chosen.width * 0.25),
    height: Math.round(chosen.height * 0.25),
  };
  const item = await nextItem(db, pim, campaign.id);
  if (!item) throw new Error("the campaign gave Pim no item");
  await submitItemLabel(db, pim, {
    campaignId: campaign.id,
    itemNo: item.itemNo,
    verdict: "failure",
    category: campaign.labelSchema.categories[0] ?? null,
    marks: [box],
    idempotencyKey: "e2e-region-marks-pim",
  });
  const unmarked = await createCampaign(db, researcher, {
    name: "E2E region marks, none drawn",
    trajectoryIds: [other.id],
    annotatorsPerItem: 2,
    blind: true,
    annotatorIds: [pim.userId],
  });
  const unmarkedItem = await nextItem(db, pim, unmarked.id);
  if (!unmarkedItem) throw new Error("the second campaign gave Pim no item");
  await submitItemLabel(db, pim, { campaignId: unmarked.id, itemNo: unmarkedItem.itemNo, verdict: "success", idempotencyKey: "e2e-region-marks-pim-2" });
  process.stdout.write(
    JSON.stringify({
      storageState,
      campaignId: campaign.id,
      unmarkedCampaignId: unmarked.id,
      trajectoryId: chosen.id,
      size: { width: chosen.width, height: chosen.height },
      pimBox: box,
    }),
  );
}

await runSeedScript(main);
