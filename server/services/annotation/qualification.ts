/**
 * A campaign's qualification phase: a few gold items (marked `qualification`) handed to each annotator before
 * anything else, each answered once and followed by its known answer as feedback. An annotator's labels count
 * (other items, the agreement statistics) only once they have answered every qualification item and got at least
 * the campaign's share right (`qualificationPassAt`); one who falls short gets no further items.
 *
 * The known answer is never sent before the annotator's own answer is stored, and a qualification answer cannot be
 * changed or undone afterwards: otherwise the feedback would hand out the right answer to copy.
 */
import type { Db } from "../../../db/database";
import { getUser } from "../../../db/repositories/accounts/users";
import { getLabelByKey } from "../../../db/repositories/annotation/labels";
import { getGoldItem, goldAnswers, goldItemsOfCampaign, upsertGoldItem } from "../../../db/repositories/annotation/quality";
import { isCampaignAnnotator, skippedItemsOf, updateCampaign, userAnnotatorKey } from "../../../db/repositories/annotation/campaigns";
import type { CampaignRow } from "../../../db/schema/index";
import { requireRole, type Actor } from "../../domain/access/actor";
import { isGoldCorrect } from "../../domain/annotation/assignment";
import { qualificationStanding, qualificationStandingsOf, type QualificationStanding } from "../../domain/annotation/qualification";
import { AppError, ConflictError, ValidationError } from "../../errors";
import { withTransaction } from "../../../db/database";
import { requireCampaign } from "./campaign-lookup";
import { assertCampaignVisible } from "./campaigns";

export const NOT_QUALIFIED_MESSAGE =
  "You did not reach the share of right answers this campaign's qualification asks for, so your labels do not count here and no more trajectories will be handed to you. The researcher can see your answers and talk them through with you.";

/**
 * The user's standing on the campaign's qualification items, and the next one to answer while some are left: in
 * item order, except that items the user skipped (`skippedBy`, their user id) come after the others, the one skipped
 * longest ago first (Skip's "put it back and label it last").
 */
export async function qualificationOf(
  db: Db,
  campaign: CampaignRow,
  annotatorKey: string,
  skippedBy?: string,
): Promise<QualificationStanding & { next: { itemId: number; trajectoryId: number; itemNo: number } | null; left: number }> {
  const items = (await goldItemsOfCampaign(db, campaign.id)).filter((g) => g.qualification);
  if (campaign.qualificationPassAt === null || items.length === 0) return { ...qualificationStanding(0, 0, 0, null), next: null, left: 0 };
  const ids = new Set(items.map((g) => g.itemId));
  const answers = (await goldAnswers(db, campaign.id, annotatorKey)).filter((a) => ids.has(a.itemId));
  const answered = new Set(answers.map((a) => a.itemId));
  const correct = answers.filter((a) => isGoldCorrect({ verdict: a.goldVerdict, category: a.goldCategory }, a)).length;
  const open = items.filter((g) => !answered.has(g.itemId));
  const skipped = skippedBy ? await skippedItemsOf(db, campaign.id, skippedBy) : new Map<number, Date>();
  const next = open.find((g) => !skipped.has(g.itemId)) ?? open.sort((a, b) => skipped.get(a.itemId)!.getTime() - skipped.get(b.itemId)!.getTime())[0];
  return {
    ...qualificationStanding(items.length, answers.length, correct, campaign.qualificationPassAt),
    next: next ? { itemId: next.itemId, trajectoryId: next.trajectoryId, itemNo: next.itemNo } : null,
    left: open.length,
  };
}

/** Whether the item is one of its campaign's qualification (training) items. */
export async function isQualificationItem(db: Db, itemId: number): Promise<boolean> {
  return !!(await getGoldItem(db, itemId))?.qualification;
}

/**
 * Refuses Skip on the last training item the user has left: there is no other to hand out in its place, and the
 * phase must be answered before anything else (Skip would only bring the same item back).
 */
export async function assertQualificationSkippable(db: Db, campaign: CampaignRow, userId: string, itemId: number): Promise<void> {
  if (campaign.qualificationPassAt === null || !(await isQualificationItem(db, itemId))) return;
  const { left } = await qualificationOf(db, campaign, userAnnotatorKey(userId));
  if (left <= 1) throw new ConflictError("This is your last training item: answer it to finish the training (there is no other to take its turn)");
}

/**
 * Refuses a submit the qualification does not allow: any item but a qualification item before the annotator has
 * passed, anything after they failed, and a second answer to a qualification item.
 */
export async function assertQualificationAllows(db: Db, campaign: CampaignRow, annotatorKey: string, itemId: number): Promise<void> {
  if (campaign.qualificationPassAt === null) return;
  const gold = await getGoldItem(db, itemId);
  if (gold?.qualification) {
    if (await getLabelByKey(db, itemId, annotatorKey)) throw new ConflictError("A qualification answer cannot be changed once it is submitted");
    return;
  }
  const standing = await qualificationOf(db, campaign, annotatorKey);
  if (standing.status === "failed") throw new AppError("FORBIDDEN", NOT_QUALIFIED_MESSAGE);
  if (standing.status === "in_progress") {
    throw new AppError("FORBIDDEN", `Answer this campaign's qualification items first (${standing.answered} of ${standing.items} answered)`);
  }
}

/** Whether undoing a submit on `itemId` is allowed: qualification answers stay as given. */
export async function assertQualificationUndoable(db: Db, itemId: number): Promise<void> {
  if (await isQualificationItem(db, itemId)) throw new ConflictError("A qualification answer cannot be undone");
}

/** After a submit on a qualification item: whether it was right, the known answer, and where the annotator stands. */
export async function qualificationFeedback(db: Db, campaign: CampaignRow, annotatorKey: string, itemId: number) {
  const gold = await getGoldItem(db, itemId);
  if (!gold?.qualification || campaign.qualificationPassAt === null) return null;
  const label = await getLabelByKey(db, itemId, annotatorKey);
  if (!label || label.status !== "active") return null;
  const { next: _next, left: _left, ...standing } = await qualificationOf(db, campaign, annotatorKey);
  return {
    correct: isGoldCorrect(gold, label),
    expected: { verdict: gold.verdict, category: gold.category, note: gold.note },
    standing,
  };
}

/**
 * Sets the campaign's qualification (researchers): the share of right answers that passes (null turns the phase
 * off) and which of its gold items make it up, by trajectory.
 */
export async function setQualification(db: Db, actor: Actor, input: { campaignId: number; passAt: number | null; trajectoryIds: number[] }) {
  requireRole(actor, "researcher", "change campaigns");
  if (input.passAt !== null && !(Number.isFinite(input.passAt) && input.passAt > 0 && input.passAt <= 1)) {
    throw new ValidationError(`passAt: a share above 0 and at most 1 (0.8 = 80 %), got ${JSON.stringify(input.passAt)}`, "passAt");
  }
  return withTransaction(db, async () => {
    const campaign = await requireCampaign(db, input.campaignId);
    const gold = await goldItemsOfCampaign(db, campaign.id);
    const wanted = new Set(input.trajectoryIds);
    const unknown = [...wanted].filter((t) => !gold.some((g) => g.trajectoryId === t));
    if (unknown.length)
      throw new ValidationError(`trajectoryIds: ${unknown.join(", ")} ${unknown.length === 1 ? "is not a gold item" : "are not gold items"} of this campaign`);
    if (input.passAt !== null && wanted.size === 0) throw new ValidationError("trajectoryIds: a qualification needs at least one gold item");
    for (const g of gold) {
      const { trajectoryId: _t, itemNo: _n, taskId: _k, intent: _i, ...row } = g;
      if (row.qualification !== wanted.has(g.trajectoryId)) await upsertGoldItem(db, { ...row, qualification: wanted.has(g.trajectoryId) });
    }
    await updateCampaign(db, campaign.id, { qualificationPassAt: input.passAt });
    return await requireCampaign(db, campaign.id);
  });
}

/** Every annotator's qualification standing in the campaign, by annotator key (only those who answered any). */
export async function qualificationStandings(db: Db, campaign: CampaignRow): Promise<Map<string, QualificationStanding & { name: string }>> {
  if (campaign.qualificationPassAt === null) return new Map();
  const ids = new Set((await goldItemsOfCampaign(db, campaign.id)).filter((g) => g.qualification).map((g) => g.itemId));
  const answers = (await goldAnswers(db, campaign.id)).map((a) => ({ ...a, correct: isGoldCorrect({ verdict: a.goldVerdict, category: a.goldCategory }, a) }));
  return qualificationStandingsOf(ids, answers, campaign.qualificationPassAt);
}

/** The campaign's qualification for the quality page (researchers): its threshold, items and each annotator's result. */
export async function campaignQualification(db: Db, actor: Actor, campaignId: number) {
  requireRole(actor, "researcher", "see a campaign's qualification");
  const campaign = await requireCampaign(db, campaignId);
  const items = (await goldItemsOfCampaign(db, campaign.id)).filter((g) => g.qualification);
  const standings = await qualificationStandings(db, campaign);
  return {
    passAt: campaign.qualificationPassAt,
    items: items.map((g) => ({ itemNo: g.itemNo, trajectoryId: g.trajectoryId, taskId: g.taskId, verdict: g.verdict, category: g.category })),
    annotators: [...standings].map(([annotatorKey, s]) => ({ annotatorKey, ...s })).sort((a, b) => a.name.localeCompare(b.name)),
  };
}

/**
 * Where the signed-in annotator stands in the campaign's qualification, for the labelling page's banner: null when
 * the campaign has none or the caller is not one of its annotators. Counts and the number of the item to answer
 * next only: which answers were right is told by each submit's feedback, the known answers never before it.
 */
export async function myQualification(db: Db, actor: Actor, campaignId: number) {
  const campaign = await requireCampaign(db, campaignId);
  await assertCampaignVisible(db, actor, campaign);
  if (campaign.qualificationPassAt === null || !(await isCampaignAnnotator(db, campaign.id, actor.userId))) return null;
  const { next, left: _left, ...standing } = await qualificationOf(db, campaign, userAnnotatorKey(actor.userId), actor.userId);
  if (standing.status === "off") return null;
  // Whom to ask about a result: the researcher who made the campaign (null when that account is gone).
  const askName = campaign.createdBy ? ((await getUser(db, campaign.createdBy))?.name ?? null) : null;
  return { ...standing, nextItemNo: standing.status === "in_progress" ? (next?.itemNo ?? null) : null, askName };
}
