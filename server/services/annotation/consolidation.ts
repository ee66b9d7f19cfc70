/**
 * Consolidation and adjudication. After every change to an item's labels the item is re-evaluated: open until
 * it has k labels, then agreed (consolidated automatically) or disputed (queued for adjudication). A researcher
 * settles a disputed item with a consolidated label and a reason; the annotators' labels are never changed by
 * this, so agreement statistics keep the pre-discussion labels, and the consolidated label is what judges are
 * compared against. Once adjudicated, an item's labels are frozen.
 */
import { isDeepStrictEqual } from "node:util";
import type { Db } from "../../../db/database";
import { getItemByTrajectory, listItemsInStates, setItemQaReviewed, setItemState, trajectoryStepCount } from "../../../db/repositories/annotation/campaigns";
import {
  activeLabelsOfItem,
  activeLabelsOfItems,
  consolidationHistory,
  deleteConsolidated,
  getConsolidated,
  insertConsolidationEvent,
  itemHistory,
  labelsOfItem,
} from "../../../db/repositories/annotation/labels";
import { upsertConsolidated } from "../../../db/repositories/annotation/labels";
import { isGoldItem } from "../../../db/repositories/annotation/quality";
import type { CampaignItemRow, CampaignRow, LabelRow } from "../../../db/schema/index";
import { requireRole, type Actor } from "../../domain/access/actor";
import { consolidate, LabelValidationError, validateLabel, type ItemState, type LabelValues } from "../../domain/annotation/label-schema";
import { parseConfidence, parseDisagreementSource, type DecisionConfidence, type DisagreementSource } from "../../domain/annotation/protocols";
import { ConflictError, NotFoundError, ValidationError } from "../../errors";
import { assertMayViewEvaluations, visibleEvaluationFilter } from "../access";
import { requireCampaign } from "./campaign-lookup";
import { withTransaction } from "../../../db/database";

function valuesOf(l: Pick<LabelRow, "verdict" | "category" | "firstFailingStep" | "note">): LabelValues {
  return { verdict: l.verdict, category: l.category, firstFailingStep: l.firstFailingStep, note: l.note };
}

/**
 * A label's answer as the item pages show it (the annotator's own label, the labels side by side): its values, its
 * answers to the campaign's questions and its region marks (empty when none), and the guideline version it was given under.
 */
export function labelAnswerOf(l: Pick<LabelRow, "verdict" | "category" | "firstFailingStep" | "note" | "answers" | "marks" | "guidelineVersion">) {
  return { ...valuesOf(l), answers: l.answers ?? {}, marks: l.marks ?? [], guidelineVersion: l.guidelineVersion };
}

/** Who settled a consolidated label other than by the annotators' agreement, and on what grounds. */
export interface ConsolidationDecision {
  /** The adjudicator, QA reviewer or researcher setting a gold answer. */
  actor: Pick<Actor, "userId" | "name">;
  reason: string;
  confidence?: DecisionConfidence | null;
  disagreementSource?: DisagreementSource | null;
  /** Set when the decision is a QA reviewer's correction. */
  qaDecision?: "corrected";
}

/** The active labels a consolidated label rests on, as `labelId@revision` (a later revision makes it stale). */
export function basedOnOf(active: readonly Pick<LabelRow, "id" | "revision">[]): string[] {
  return active.map((l) => `${l.id}@${l.revision}`);
}

/**
 * Writes an item's consolidated label, the one place that does: by the annotators' agreement ("unanimous", no
 * decision) or by a person's decision ("adjudicated": adjudication, a QA correction, a gold answer). Replaces
 * the item's previous consolidated label.
 */
export async function saveConsolidatedLabel(
  db: Db,
  v: {
    campaignId: number;
    item: { id: number; trajectoryId: number };
    values: Pick<LabelValues, "verdict" | "category" | "firstFailingStep">;
    basedOn: string[];
    decision: ConsolidationDecision | null;
    at: Date;
  },
): Promise<void> {
  const d = v.decision;
  await upsertConsolidated(db, {
    campaignId: v.campaignId,
    itemId: v.item.id,
    trajectoryId: v.item.trajectoryId,
    verdict: v.values.verdict,
    category: v.values.category,
    firstFailingStep: v.values.firstFailingStep,
    method: d ? "adjudicated" : "unanimous",
    adjudicatorId: d ? d.actor.userId : null,
    adjudicatorName: d ? d.actor.name : null,
    reason: d ? d.reason : null,
    confidence: d?.confidence ?? null,
    disagreementSource: d?.disagreementSource ?? null,
    qaDecision: d?.qaDecision ?? null,
    qaReviewerName: d?.qaDecision ? d.actor.name : null,
    basedOn: v.basedOn,
    createdAt: v.at,
  });
}

/**
 * Re-evaluates one item from its active labels (call inside the transaction that changed them). Adjudicated
 * items keep their decision. Writes an event only when the state or the consolidated label changes.
 */
export async function recomputeItem(
  db: Db,
  campaign: CampaignRow,
  item: { id: number; trajectoryId: number; state: ItemState; labelCount: number; qaReviewedAt?: Date | null },
  at: Date,
): Promise<ItemState> {
  const active = await activeLabelsOfItem(db, item.id);
  // A decision stands: an adjudicated item, or one a QA reviewer confirmed, keeps its consolidated label when the
  // campaign's settings (k, agreement rule) change.
  if (item.state === "adjudicated" || item.qaReviewedAt) {
    if (active.length !== item.labelCount) await setItemState(db, item.id, item.state, active.length);
    return item.state;
  }
  const result = consolidate(active.map(valuesOf), campaign.annotatorsPerItem, campaign.labelSchema);
  const previous = await getConsolidated(db, item.id);
  if (result.state === "agreed") {
    const basedOn = basedOnOf(active);
    const valuesChanged = !previous || previous.method !== "unanimous" || !isDeepStrictEqual(valuesOf({ ...previous, note: null }), result.values);
    if (valuesChanged || !isDeepStrictEqual(previous.basedOn, basedOn)) {
      await saveConsolidatedLabel(db, { campaignId: campaign.id, item, values: result.values, basedOn, decision: null, at });
    }
    if (valuesChanged || item.state !== "agreed") {
      await insertConsolidationEvent(db, {
        campaignId: campaign.id,
        itemId: item.id,
        state: "agreed",
        values: result.values,
        method: "unanimous",
        createdAt: at,
      });
    }
  } else if (previous) {
    await deleteConsolidated(db, item.id);
  }
  if (result.state !== item.state || active.length !== item.labelCount) await setItemState(db, item.id, result.state, active.length);
  if (result.state !== item.state) {
    if (result.state !== "agreed") {
      await insertConsolidationEvent(db, {
        campaignId: campaign.id,
        itemId: item.id,
        state: result.state,
        values: null,
        reason: result.state === "disputed" ? result.reason : null,
        createdAt: at,
      });
    }
  }
  return result.state;
}

export interface AdjudicationInput {
  campaignId: number;
  trajectoryId: number;
  verdict: "success" | "failure" | "not_executable";
  category?: string | null;
  firstFailingStep?: number | null;
  reason: string;
  /** How sure the adjudicator is (low, medium, high); tallied in the human-agreement view. */
  confidence?: string | null;
  /** Why the annotators disagreed: guideline_gap, ambiguous_task, annotator_error, edge_case. */
  disagreementSource?: string | null;
}

/** Confidence and disagreement source of a decision, checked; either may be left out (null). */
export function decisionMeta(input: { confidence?: string | null; disagreementSource?: string | null }): {
  confidence: DecisionConfidence | null;
  disagreementSource: DisagreementSource | null;
} {
  try {
    return {
      confidence: input.confidence === undefined || input.confidence === null ? null : parseConfidence(input.confidence),
      disagreementSource:
        input.disagreementSource === undefined || input.disagreementSource === null ? null : parseDisagreementSource(input.disagreementSource),
    };
  } catch (e) {
    throw new ValidationError((e as Error).message);
  }
}

/**
 * Stores a consolidated label set by decision (an adjudication, a gold item's known answer): the label, the item's
 * state "adjudicated" and the event in the item's history, with the decision's confidence and source when given.
 */
export async function recordAdjudication(
  db: Db,
  v: {
    campaignId: number;
    item: { id: number; trajectoryId: number };
    values: LabelValues;
    basedOn: string[];
    actor: Actor;
    reason: string;
    meta?: ReturnType<typeof decisionMeta>;
    at: Date;
  },
): Promise<void> {
  const { campaignId, item, values, actor, reason, meta, at } = v;
  await saveConsolidatedLabel(db, { campaignId, item, values, basedOn: v.basedOn, decision: { actor, reason, ...meta }, at });
  await setItemState(db, item.id, "adjudicated");
  await insertConsolidationEvent(db, {
    campaignId,
    itemId: item.id,
    state: "adjudicated",
    values,
    method: "adjudicated",
    actorId: actor.userId,
    actorName: actor.name,
    reason,
    ...meta,
    createdAt: at,
  });
}

/** A decision's reason: required, bounded. */
export function decisionReason(reason: string | undefined): string {
  const r = reason?.trim() ?? "";
  if (!r) throw new ValidationError("reason: say why this is the consolidated label");
  if (r.length > 5000) throw new ValidationError("reason: at most 5000 characters");
  return r;
}

/** Sets an item's consolidated label by decision (researchers and admins). Re-adjudicating replaces it. */
export async function adjudicate(db: Db, actor: Actor, input: AdjudicationInput, now = Date.now()) {
  requireRole(actor, "researcher", "adjudicate");
  const reason = decisionReason(input.reason);
  const meta = decisionMeta(input);
  if (input.verdict !== "success" && input.verdict !== "failure" && input.verdict !== "not_executable") {
    throw new ValidationError(`verdict: success, failure or not_executable, got ${JSON.stringify(input.verdict)}`);
  }
  return withTransaction(db, async () => {
    const campaign = await requireCampaign(db, input.campaignId);
    const item = await getItemByTrajectory(db, campaign.id, input.trajectoryId);
    if (!item) throw new NotFoundError(`trajectory in campaign ${campaign.id}`, input.trajectoryId);
    const active = await activeLabelsOfItem(db, item.id);
    if (!active.length) throw new ConflictError(`Trajectory ${input.trajectoryId} has no labels yet; there is nothing to adjudicate`);
    let values: LabelValues;
    try {
      values = validateLabel(campaign.labelSchema, { ...input, note: reason }, (await trajectoryStepCount(db, item.trajectoryId)) ?? 0);
    } catch (e) {
      if (e instanceof LabelValidationError) throw new ValidationError(e.message);
      throw e;
    }
    const at = new Date(now);
    await recordAdjudication(db, { campaignId: campaign.id, item, values, basedOn: basedOnOf(active), actor, reason, meta, at });
    return { itemId: item.id, state: "adjudicated" as const, consolidated: (await getConsolidated(db, item.id))! };
  });
}

/** Undoes an adjudication: the item goes back to what its labels say (agreed or disputed), and unfreezes. */
export async function reopenItem(db: Db, actor: Actor, input: { campaignId: number; trajectoryId: number; reason: string }, now = Date.now()) {
  requireRole(actor, "researcher", "reopen adjudicated items");
  return withTransaction(db, async () => {
    const campaign = await requireCampaign(db, input.campaignId);
    const item = await getItemByTrajectory(db, campaign.id, input.trajectoryId);
    if (!item) throw new NotFoundError(`trajectory in campaign ${campaign.id}`, input.trajectoryId);
    if (item.state !== "adjudicated") throw new ConflictError(`Trajectory ${input.trajectoryId} is not adjudicated`);
    // A gold item's consolidated label is its known answer; reopening would hand it out as an ordinary item.
    if (await isGoldItem(db, item.id)) throw new ConflictError(`Trajectory ${input.trajectoryId} is a gold item; take it out of gold first`);
    const at = new Date(now);
    await deleteConsolidated(db, item.id);
    // A reopened item is decided again, so its QA review (if any) no longer holds.
    await setItemQaReviewed(db, item.id, null);
    await insertConsolidationEvent(db, {
      campaignId: campaign.id,
      itemId: item.id,
      state: "open",
      values: null,
      actorId: actor.userId,
      actorName: actor.name,
      reason: input.reason || "reopened",
      createdAt: at,
    });
    await setItemState(db, item.id, "open");
    const state = await recomputeItem(db, campaign, { ...item, state: "open" }, at);
    return { itemId: item.id, state };
  });
}

/** A label as the adjudication and QA queues list it beside its item. */
export interface LabelInBrief {
  annotatorName: string;
  verdict: string;
  category: string | null;
  firstFailingStep: number | null;
}

/** The active labels of these items in brief, by item, oldest first. */
export async function labelsInBrief(db: Db, itemIds: number[]): Promise<Map<number, LabelInBrief[]>> {
  const byItem = new Map<number, LabelInBrief[]>();
  for (const l of await activeLabelsOfItems(db, itemIds)) {
    const list = byItem.get(l.itemId) ?? [];
    list.push({ annotatorName: l.annotatorName, verdict: l.verdict, category: l.category, firstFailingStep: l.firstFailingStep });
    byItem.set(l.itemId, list);
  }
  return byItem;
}

/** Items waiting for a decision (disputed), or already decided, with their labels in brief. */
export async function adjudicationQueue(db: Db, actor: Actor, q: { campaignId: number; states?: ItemState[]; page?: number; pageSize?: number }) {
  requireRole(actor, "researcher", "see the adjudication queue");
  const campaign = await requireCampaign(db, q.campaignId);
  const page = q.page ?? 1;
  const pageSize = Math.min(q.pageSize ?? 50, 500);
  const { rows, total } = await listItemsInStates(db, campaign.id, q.states ?? ["disputed"], { offset: (page - 1) * pageSize, limit: pageSize });
  // A researcher who also labels blind in this campaign does not get the labels of trajectories still ahead of them.
  const visible = await visibleEvaluationFilter(db, actor.userId);
  const byItem = await labelsInBrief(
    db,
    rows.map((r) => r.itemId),
  );
  return {
    campaign: { id: campaign.id, name: campaign.name },
    total,
    page,
    pageSize,
    items: rows.map((r) => ({
      ...r,
      labels: visible.isVisible(r.trajectoryId) ? (byItem.get(r.itemId) ?? []) : [],
      hiddenByBlind: !visible.isVisible(r.trajectoryId),
    })),
  };
}

/**
 * Everything an adjudicator needs for one trajectory: every label side by side (with notes, time spent, steps
 * viewed, how often it was revised and whether evaluations had been shown first), the consolidated label, and
 * the full history of labels and decisions.
 */
export async function itemReview(db: Db, actor: Actor, campaignId: number, trajectoryId: number) {
  requireRole(actor, "researcher", "review labels");
  await assertMayViewEvaluations(db, actor.userId, trajectoryId);
  const campaign = await requireCampaign(db, campaignId);
  const item = await getItemByTrajectory(db, campaign.id, trajectoryId);
  if (!item) throw new NotFoundError(`trajectory in campaign ${campaign.id}`, trajectoryId);
  return await reviewOfItem(db, campaign, item);
}

/** The labels, consolidated label and histories of one item (the caller has checked who may see them). */
export async function reviewOfItem(db: Db, campaign: CampaignRow, item: CampaignItemRow) {
  const history = await itemHistory(db, item.id);
  const labelRows = await labelsOfItem(db, item.id);
  return {
    campaign: {
      id: campaign.id,
      name: campaign.name,
      labelSchema: campaign.labelSchema,
      annotatorsPerItem: campaign.annotatorsPerItem,
      blind: campaign.blind,
      qaReview: campaign.labelSchema.qaReview ?? false,
      guidelineVersion: campaign.guidelineVersion,
    },
    item: { id: item.id, trajectoryId: item.trajectoryId, state: item.state, qaReviewedAt: item.qaReviewedAt },
    labels: labelRows.map((l) => {
      const revs = history.filter((h) => h.labelId === l.id);
      return {
        id: l.id,
        annotatorName: l.annotatorName,
        userId: l.userId,
        origin: l.origin,
        status: l.status,
        ...labelAnswerOf(l),
        timeSpentMs: l.timeSpentMs,
        stepsViewed: l.stepsViewed,
        revision: l.revision,
        revisedAfterReveal: revs.some((r) => r.afterReveal && r.action === "submit" && r.revision > 1),
        createdAt: l.createdAt,
        updatedAt: l.updatedAt,
      };
    }),
    consolidated: (await getConsolidated(db, item.id)) ?? null,
    labelHistory: history.map((h) => ({
      id: h.id,
      labelId: h.labelId,
      revision: h.revision,
      action: h.action,
      actorName: h.actorName,
      status: h.status,
      values: h.values,
      changes: h.changes,
      afterReveal: h.afterReveal,
      undone: h.undoneByRevisionId !== null,
      createdAt: h.createdAt,
    })),
    consolidationHistory: await consolidationHistory(db, item.id),
  };
}
