/**
 * The QA review stage (Online-Mind2Web's QA reviewer). Once an item has all its labels (agreed, disputed or
 * adjudicated), a QA reviewer sees every label side by side and either confirms the consolidated label or
 * corrects it, always with a reason, their confidence and (when the labels disagreed or were wrong) the source
 * of the disagreement. The item is then "QA done" and its labels are frozen.
 *
 * QA reviewers are researchers and admins, or annotators a researcher designated for the campaign. QA is not
 * blind to labels (that is its point), but it opens only once an item's labelling is over, and the blind rule
 * still holds: a reviewer who labels the same trajectory blind (in this campaign or another) is refused its
 * review and sees no labels of it in the queue until they have labelled it. The first look is recorded as a
 * reveal so any later label of theirs on that trajectory is flagged as possibly anchored. Annotators reviewing QA
 * never learn which agent made a trajectory, and address items by campaign-local number, as when labelling.
 */
import type { Db } from "../../../db/database";
import { getConsolidated, insertConsolidationEvent, upsertConsolidated, activeLabelsOfItem } from "../../../db/repositories/annotation/labels";
import { blindedOutsideCampaign, recordReveal } from "../../../db/repositories/access/blind-rule";
import {
  getItemByNumber,
  getItemByTrajectory,
  isQaReviewer,
  isQaReviewerAnywhere,
  listCampaignsOfQaReviewer,
  listItemsInStates,
  qaPendingCounts,
  setItemQaReviewed,
  setItemState,
  trajectoryStepCount,
} from "../../../db/repositories/annotation/campaigns";
import { getTrajectoryForPlayer } from "../trajectory-views";
import { itemPlayerReads } from "./item-player";
import type { CampaignItemRow, CampaignRow } from "../../../db/schema/index";
import { hasRole, type Actor } from "../../domain/access/actor";
import { LabelValidationError, validateLabel, type LabelValues } from "../../domain/annotation/label-schema";
import { QA_DECISIONS, qaStatusOf, type QaDecision } from "../../domain/annotation/protocols";
import { AppError, ConflictError, NotFoundError, ValidationError } from "../../errors";
import { requireCampaign } from "./campaign-lookup";
import { basedOnOf, decisionMeta, decisionReason, labelsInBrief, reviewOfItem, saveConsolidatedLabel } from "./consolidation";
import { assertMayViewEvaluations, BlindError, hideAgentInTrajectory, withAgentHidden } from "../access";
import { withTransaction } from "../../../db/database";
import { LABELLING_TRANSACTION } from "./transactions";

/** Researchers and admins, or an annotator designated as this campaign's QA reviewer. */
export async function mayQaReview(db: Db, actor: Actor, campaignId: number): Promise<boolean> {
  return hasRole(actor, "researcher") || (await isQaReviewer(db, campaignId, actor.userId));
}

async function requireQaReviewer(db: Db, actor: Actor, campaignId: number): Promise<CampaignRow> {
  const campaign = await requireCampaign(db, campaignId);
  if (!(await mayQaReview(db, actor, campaignId))) throw new AppError("FORBIDDEN", `You are not a QA reviewer of campaign ${JSON.stringify(campaign.name)}`);
  return campaign;
}

async function requireQaCampaign(db: Db, actor: Actor, campaignId: number): Promise<CampaignRow> {
  const campaign = await requireQaReviewer(db, actor, campaignId);
  if (!campaign.labelSchema.qaReview) throw new ConflictError(`Campaign ${JSON.stringify(campaign.name)} has no QA review stage`);
  return campaign;
}

async function requireQaItem(db: Db, campaign: CampaignRow, trajectoryId: number) {
  const item = await getItemByTrajectory(db, campaign.id, trajectoryId);
  if (!item) throw new NotFoundError(`trajectory in campaign ${campaign.id}`, trajectoryId);
  // Items are named by number: QA reviewers may be annotators, who never learn trajectory ids.
  if (item.state === "open")
    throw new ConflictError(
      `Item ${item.itemNo} is still being labelled (${item.labelCount} of ${campaign.annotatorsPerItem} labels); QA opens once it has all its labels`,
    );
  return item;
}

/** Items waiting for QA (or already reviewed), with their labels in brief. */
export async function qaQueue(db: Db, actor: Actor, q: { campaignId: number; status?: "pending" | "done"; page?: number; pageSize?: number }) {
  const campaign = await requireQaReviewer(db, actor, q.campaignId);
  const researcher = hasRole(actor, "researcher");
  const page = q.page ?? 1;
  const pageSize = Math.min(q.pageSize ?? 50, 500);
  const status = q.status ?? "pending";
  const qaStage = campaign.labelSchema.qaReview ?? false;
  // A campaign without a QA stage has nothing to review: an empty queue that says so.
  if (!qaStage) return { campaign: { id: campaign.id, name: campaign.name }, qaStage, status, disputedFirst: false, total: 0, page, pageSize, items: [] };
  const disputedFirst = campaign.assignmentStrategy === "disputed_first";
  const { rows, total } = await listItemsInStates(
    db,
    campaign.id,
    ["agreed", "disputed", "adjudicated"],
    { offset: (page - 1) * pageSize, limit: pageSize },
    status,
    disputedFirst,
  );
  // Items the reviewer still labels blind in another campaign: listed, but without their labels (they cannot open them).
  const blinded = new Set(await blindedOutsideCampaign(db, actor.userId, campaign.id));
  const byItem = await labelsInBrief(
    db,
    rows.filter((r) => !blinded.has(r.trajectoryId)).map((r) => r.itemId),
  );
  return {
    campaign: { id: campaign.id, name: campaign.name },
    qaStage,
    status,
    disputedFirst,
    total,
    page,
    pageSize,
    items: rows.map((r) => ({
      // Annotators address items by number: trajectory ids follow import order and would line items up with runs.
      trajectoryId: researcher ? r.trajectoryId : null,
      itemNo: r.itemNo,
      blind: blinded.has(r.trajectoryId),
      state: r.state,
      qaStatus: qaStatusOf(r.state, r.qaReviewedAt !== null),
      externalTaskId: r.externalTaskId,
      site: r.site,
      intent: r.intent,
      stepCount: r.stepCount,
      // The agent stays hidden from annotators who review QA.
      runName: researcher ? r.runName : null,
      model: researcher ? r.model : null,
      labels: byItem.get(r.itemId) ?? [],
    })),
  };
}

/** One item's labels side by side for its QA review. */
export async function qaItemReview(db: Db, actor: Actor, campaignId: number, trajectoryId: number) {
  const campaign = await requireQaCampaign(db, actor, campaignId);
  const item = await requireQaItem(db, campaign, trajectoryId);
  await assertMayQaSee(db, actor, item);
  return await reviewOfItem(db, campaign, item);
}

/**
 * The blind rule at the QA stage: whoever still labels the item's trajectory blind in another campaign may not
 * see its labels here. In this campaign the item's labelling is over, so a reviewer who also labels other items
 * may review it; the look is recorded as a reveal, so should disputed-first still hand them the item, their
 * label is flagged as made after seeing the others.
 */
async function assertMayQaSee(db: Db, actor: Actor, item: Pick<CampaignItemRow, "trajectoryId" | "campaignId">): Promise<void> {
  if (hasRole(actor, "researcher")) return await assertMayViewEvaluations(db, actor.userId, item.trajectoryId);
  if ((await blindedOutsideCampaign(db, actor.userId, item.campaignId, item.trajectoryId)).length) throw new BlindError();
  await recordReveal(db, actor.userId, item.trajectoryId);
}

// ---------------------------------------------------------------- the QA page, by item number

/** True when the user is a designated QA reviewer of some campaign (the nav then offers the QA page). */
export async function isDesignatedQaReviewer(db: Db, actor: Actor): Promise<boolean> {
  return await isQaReviewerAnywhere(db, actor.userId);
}

/** The campaigns a user reviews QA for (designated reviewers), with how many items wait for their review. */
export async function myQaCampaigns(db: Db, actor: Actor) {
  const campaigns = await listCampaignsOfQaReviewer(db, actor.userId);
  const pending = await qaPendingCounts(
    db,
    campaigns.map((c) => c.id),
  );
  return campaigns.map((c) => ({
    id: c.id,
    name: c.name,
    status: c.status,
    qaStage: c.labelSchema.qaReview ?? false,
    templateId: c.templateId,
    pending: pending.get(c.id) ?? 0,
  }));
}

async function requireQaItemByNumber(db: Db, actor: Actor, campaignId: number, itemNo: number) {
  const campaign = await requireQaCampaign(db, actor, campaignId);
  const byNumber = await getItemByNumber(db, campaignId, itemNo);
  if (!byNumber) throw new NotFoundError(`item of campaign ${campaignId}`, itemNo);
  if (byNumber.state === "open")
    throw new ConflictError(
      `Item ${itemNo} is still being labelled (${byNumber.labelCount} of ${campaign.annotatorsPerItem} labels); QA opens once it has all its labels`,
    );
  await assertMayQaSee(db, actor, byNumber);
  return { campaign, item: byNumber };
}

/**
 * One item's QA review as the QA page shows it: every label side by side and the consolidated label, without
 * trajectory, item or user ids (the reviewer addresses the item by its number).
 */
export async function qaItem(db: Db, actor: Actor, campaignId: number, itemNo: number) {
  const { campaign, item } = await requireQaItemByNumber(db, actor, campaignId, itemNo);
  const review = await reviewOfItem(db, campaign, item);
  const c = review.consolidated;
  return {
    campaign: { ...review.campaign, instructions: campaign.instructions, assignmentStrategy: campaign.assignmentStrategy },
    item: { itemNo: item.itemNo, state: item.state, labelCount: item.labelCount, qaReviewedAt: item.qaReviewedAt },
    labels: review.labels
      .filter((l) => l.status === "active")
      .map((l) => ({
        annotatorName: l.annotatorName,
        verdict: l.verdict,
        category: l.category,
        firstFailingStep: l.firstFailingStep,
        note: l.note,
        answers: l.answers,
        marks: l.marks,
        guidelineVersion: l.guidelineVersion,
        timeSpentMs: l.timeSpentMs,
        stepsOpened: l.stepsViewed?.length ?? null,
        revision: l.revision,
      })),
    consolidated: c
      ? {
          verdict: c.verdict,
          category: c.category,
          firstFailingStep: c.firstFailingStep,
          method: c.method,
          reason: c.reason,
          adjudicatorName: c.adjudicatorName,
          confidence: c.confidence,
          disagreementSource: c.disagreementSource,
          qaDecision: c.qaDecision,
          qaReviewerName: c.qaReviewerName,
        }
      : null,
  };
}

/** The item's trajectory for the QA page's player; annotators never see which agent made it. */
export async function qaItemTrajectory(db: Db, actor: Actor, campaignId: number, itemNo: number) {
  const { item } = await requireQaItemByNumber(db, actor, campaignId, itemNo);
  const t = await getTrajectoryForPlayer(db, item.trajectoryId);
  return hasRole(actor, "researcher") ? await hideAgentInTrajectory(db, actor.userId, t) : withAgentHidden(t);
}

const qaItemReads = itemPlayerReads(requireQaItemByNumber);
/** A window of the item's steps for the QA page's player, under the same check as the item. */
export const qaItemStepWindow = qaItemReads.stepWindow;
/** Queues the item's screenshots at the QA player's width. */
export const warmQaItemImages = qaItemReads.warmImages;

/** Records an item's QA review from the QA page (see submitQaReview); answers with the item number only. */
export async function submitQaItemReview(db: Db, actor: Actor, input: Omit<QaReviewInput, "trajectoryId"> & { itemNo: number }, now = Date.now()) {
  const { itemNo, ...rest } = input;
  const { item } = await requireQaItemByNumber(db, actor, input.campaignId, itemNo);
  const r = await submitQaReview(db, actor, { ...rest, trajectoryId: item.trajectoryId }, now);
  const c = r.consolidated;
  return {
    itemNo,
    qaStatus: r.qaStatus,
    decision: r.decision,
    consolidated: { verdict: c.verdict, category: c.category, firstFailingStep: c.firstFailingStep, method: c.method },
  };
}

export interface QaReviewInput {
  campaignId: number;
  trajectoryId: number;
  decision: QaDecision;
  /** For "corrected": the label the item should have. */
  verdict?: string;
  category?: string | null;
  firstFailingStep?: number | null;
  reason: string;
  confidence?: string | null;
  disagreementSource?: string | null;
}

/**
 * Records the QA review of an item: "confirmed" keeps the consolidated label (there must be one: a disputed item
 * needs a correction), "corrected" replaces it with the reviewer's label, which then counts as adjudicated.
 * Either way the item is QA done and its labels are frozen.
 */
export async function submitQaReview(db: Db, actor: Actor, input: QaReviewInput, now = Date.now()) {
  if (!(QA_DECISIONS as readonly string[]).includes(input.decision))
    throw new ValidationError(`decision: one of ${QA_DECISIONS.join(", ")}, got ${JSON.stringify(input.decision)}`);
  const reason = decisionReason(input.reason);
  const meta = decisionMeta(input);
  if (input.decision === "corrected" && !meta.disagreementSource)
    throw new ValidationError("disagreementSource: say where the labels went wrong (guideline_gap, ambiguous_task, annotator_error, edge_case)");
  return withTransaction(
    db,
    async () => {
      const campaign = await requireQaCampaign(db, actor, input.campaignId);
      const item = await requireQaItem(db, campaign, input.trajectoryId);
      if (item.qaReviewedAt) throw new ConflictError(`Item ${item.itemNo} already had its QA review`);
      const current = await getConsolidated(db, item.id);
      const active = await activeLabelsOfItem(db, item.id);
      const at = new Date(now);
      let values: LabelValues;
      if (input.decision === "confirmed") {
        if (!current)
          throw new ConflictError(
            `Item ${item.itemNo} has no consolidated label to confirm (its annotators disagree); correct it with the label it should have`,
          );
        values = { verdict: current.verdict, category: current.category, firstFailingStep: current.firstFailingStep, note: null };
        // Confirming keeps the label and who decided it; the review adds the reviewer's confidence and name.
        const { id: _id, updatedAt: _updatedAt, ...kept } = current;
        await upsertConsolidated(db, { ...kept, ...meta, qaDecision: "confirmed", qaReviewerName: actor.name });
      } else {
        try {
          values = validateLabel(
            campaign.labelSchema,
            { verdict: input.verdict ?? "", category: input.category, firstFailingStep: input.firstFailingStep, note: reason },
            (await trajectoryStepCount(db, item.trajectoryId)) ?? 0,
          );
        } catch (e) {
          if (e instanceof LabelValidationError) throw new ValidationError(e.message);
          throw e;
        }
        if (values.verdict === "unsure") throw new ValidationError("verdict: a QA correction must decide (success, failure or not executable)");
        await saveConsolidatedLabel(db, {
          campaignId: campaign.id,
          item,
          values,
          basedOn: basedOnOf(active),
          decision: { actor, reason, ...meta, qaDecision: "corrected" },
          at,
        });
        values = { ...values, note: null };
        await setItemState(db, item.id, "adjudicated");
      }
      await setItemQaReviewed(db, item.id, at);
      await insertConsolidationEvent(db, {
        campaignId: campaign.id,
        itemId: item.id,
        state: input.decision === "corrected" ? "adjudicated" : item.state,
        values,
        method: input.decision === "corrected" ? "adjudicated" : (current?.method ?? null),
        actorId: actor.userId,
        actorName: actor.name,
        reason,
        stage: "qa",
        qaDecision: input.decision,
        ...meta,
        createdAt: at,
      });
      return { itemId: item.id, qaStatus: "done" as const, decision: input.decision, consolidated: (await getConsolidated(db, item.id))! };
    },
    LABELLING_TRANSACTION,
  );
}
