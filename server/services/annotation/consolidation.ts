/**
 * Consolidation and adjudication. After every change to an item's labels the item is re-evaluated: open until
 * it has k labels, then agreed (consolidated automatically) or disputed (queued for adjudication). A researcher
 * settles a disputed item with a consolidated label and a reason; the annotators' labels are never changed by
 * this, so agreement statistics keep the pre-discussion labels, and the consolidated label is what judges are
 * compared against. Once adjudicated, an item's labels are frozen.
 */
import { isDeepStrictEqual } from "node:util";
import type { Db } from "../../../db/client";
import {
  activeLabelsOfItem,
  activeLabelsOfItems,
  consolidationHistory,
  deleteConsolidated,
  getConsolidated,
  getItemByTrajectory,
  insertConsolidationEvent,
  itemHistory,
  labelsOfItem,
  listItemsInStates,
  setItemQaReviewed,
  setItemState,
  trajectoryStepCount,
  upsertConsolidated,
} from "../../../db/repositories/annotation";
import { isGoldItem } from "../../../db/repositories/annotation-quality";
import type { CampaignItemRow, CampaignRow, LabelRow } from "../../../db/schema/index";
import { requireRole, type Actor } from "../../auth/roles";
import { consolidate, LabelValidationError, validateLabel, type ItemState, type LabelValues } from "../../domain/annotation/label-schema";
import { parseConfidence, parseDisagreementSource, type DecisionConfidence, type DisagreementSource } from "../../domain/annotation/protocols";
import { ConflictError, NotFoundError, ValidationError } from "../../errors";
import { assertMayViewEvaluations, visibleEvaluationFilter } from "./blind";
import { requireCampaign } from "./campaigns";
import { inTransaction } from "./tx";

function valuesOf(l: Pick<LabelRow, "verdict" | "category" | "firstFailingStep" | "note">): LabelValues {
  return { verdict: l.verdict, category: l.category, firstFailingStep: l.firstFailingStep, note: l.note };
}

/**
 * Re-evaluates one item from its active labels (call inside the transaction that changed them). Adjudicated
 * items keep their decision. Writes an event only when the state or the consolidated label changes.
 */
export function recomputeItem(db: Db, campaign: CampaignRow, item: { id: number; trajectoryId: number; state: ItemState; labelCount: number; qaReviewedAt?: Date | null }, at: Date): ItemState {
  const active = activeLabelsOfItem(db, item.id);
  // A decision stands: an adjudicated item, or one a QA reviewer confirmed, keeps its consolidated label when the
  // campaign's settings (k, agreement rule) change.
  if (item.state === "adjudicated" || item.qaReviewedAt) {
    if (active.length !== item.labelCount) setItemState(db, item.id, item.state, active.length);
    return item.state;
  }
  const result = consolidate(active.map(valuesOf), campaign.annotatorsPerItem, campaign.labelSchema);
  const previous = getConsolidated(db, item.id);
  if (result.state === "agreed") {
    const basedOn = active.map((l) => `${l.id}@${l.revision}`);
    const valuesChanged = !previous || previous.method !== "unanimous" || !isDeepStrictEqual(valuesOf({ ...previous, note: null }), result.values);
    if (valuesChanged || !isDeepStrictEqual(previous.basedOn, basedOn)) {
      upsertConsolidated(db, {
        campaignId: campaign.id,
        itemId: item.id,
        trajectoryId: item.trajectoryId,
        verdict: result.values.verdict,
        category: result.values.category,
        firstFailingStep: result.values.firstFailingStep,
        method: "unanimous",
        adjudicatorId: null,
        adjudicatorName: null,
        reason: null,
        basedOn,
        createdAt: at,
      });
    }
    if (valuesChanged || item.state !== "agreed") {
      insertConsolidationEvent(db, { campaignId: campaign.id, itemId: item.id, state: "agreed", values: result.values, method: "unanimous", createdAt: at });
    }
  } else if (previous) {
    deleteConsolidated(db, item.id);
  }
  if (result.state !== item.state || active.length !== item.labelCount) setItemState(db, item.id, result.state, active.length);
  if (result.state !== item.state) {
    if (result.state !== "agreed") {
      insertConsolidationEvent(db, {
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
export function decisionMeta(input: { confidence?: string | null; disagreementSource?: string | null }): { confidence: DecisionConfidence | null; disagreementSource: DisagreementSource | null } {
  try {
    return {
      confidence: input.confidence === undefined || input.confidence === null ? null : parseConfidence(input.confidence),
      disagreementSource: input.disagreementSource === undefined || input.disagreementSource === null ? null : parseDisagreementSource(input.disagreementSource),
    };
  } catch (e) {
    throw new ValidationError((e as Error).message);
  }
}

/** A decision's reason: required, bounded. */
export function decisionReason(reason: string | undefined): string {
  const r = reason?.trim() ?? "";
  if (!r) throw new ValidationError("reason: say why this is the consolidated label");
  if (r.length > 5000) throw new ValidationError("reason: at most 5000 characters");
  return r;
}

/** Sets an item's consolidated label by decision (researchers and admins). Re-adjudicating replaces it. */
export function adjudicate(db: Db, actor: Actor, input: AdjudicationInput, now = Date.now()) {
  requireRole(actor, "researcher", "adjudicate");
  const reason = decisionReason(input.reason);
  const meta = decisionMeta(input);
  if (input.verdict !== "success" && input.verdict !== "failure" && input.verdict !== "not_executable") {
    throw new ValidationError(`verdict: success, failure or not_executable, got ${JSON.stringify(input.verdict)}`);
  }
  return inTransaction(db, () => {
    const campaign = requireCampaign(db, input.campaignId);
    const item = getItemByTrajectory(db, campaign.id, input.trajectoryId);
    if (!item) throw new NotFoundError(`trajectory in campaign ${campaign.id}`, input.trajectoryId);
    const active = activeLabelsOfItem(db, item.id);
    if (!active.length) throw new ConflictError(`Trajectory ${input.trajectoryId} has no labels yet; there is nothing to adjudicate`);
    let values: LabelValues;
    try {
      values = validateLabel(campaign.labelSchema, { ...input, note: reason }, trajectoryStepCount(db, item.trajectoryId) ?? 0);
    } catch (e) {
      if (e instanceof LabelValidationError) throw new ValidationError(e.message);
      throw e;
    }
    const at = new Date(now);
    upsertConsolidated(db, {
      campaignId: campaign.id,
      itemId: item.id,
      trajectoryId: item.trajectoryId,
      verdict: values.verdict,
      category: values.category,
      firstFailingStep: values.firstFailingStep,
      method: "adjudicated",
      adjudicatorId: actor.userId,
      adjudicatorName: actor.name,
      reason,
      ...meta,
      basedOn: active.map((l) => `${l.id}@${l.revision}`),
      createdAt: at,
    });
    setItemState(db, item.id, "adjudicated");
    insertConsolidationEvent(db, {
      campaignId: campaign.id,
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
    return { itemId: item.id, state: "adjudicated" as const, consolidated: getConsolidated(db, item.id)! };
  });
}

/** Undoes an adjudication: the item goes back to what its labels say (agreed or disputed), and unfreezes. */
export function reopenItem(db: Db, actor: Actor, input: { campaignId: number; trajectoryId: number; reason: string }, now = Date.now()) {
  requireRole(actor, "researcher", "reopen adjudicated items");
  return inTransaction(db, () => {
    const campaign = requireCampaign(db, input.campaignId);
    const item = getItemByTrajectory(db, campaign.id, input.trajectoryId);
    if (!item) throw new NotFoundError(`trajectory in campaign ${campaign.id}`, input.trajectoryId);
    if (item.state !== "adjudicated") throw new ConflictError(`Trajectory ${input.trajectoryId} is not adjudicated`);
    // A gold item's consolidated label is its known answer; reopening would hand it out as an ordinary item.
    if (isGoldItem(db, item.id)) throw new ConflictError(`Trajectory ${input.trajectoryId} is a gold item; take it out of gold first`);
    const at = new Date(now);
    deleteConsolidated(db, item.id);
    // A reopened item is decided again, so its QA review (if any) no longer holds.
    setItemQaReviewed(db, item.id, null);
    insertConsolidationEvent(db, { campaignId: campaign.id, itemId: item.id, state: "open", values: null, actorId: actor.userId, actorName: actor.name, reason: input.reason || "reopened", createdAt: at });
    setItemState(db, item.id, "open");
    const state = recomputeItem(db, campaign, { ...item, state: "open" }, at);
    return { itemId: item.id, state };
  });
}

/** Items waiting for a decision (disputed), or already decided, with their labels in brief. */
export function adjudicationQueue(db: Db, actor: Actor, q: { campaignId: number; states?: ItemState[]; page?: number; pageSize?: number }) {
  requireRole(actor, "researcher", "see the adjudication queue");
  const campaign = requireCampaign(db, q.campaignId);
  const page = q.page ?? 1;
  const pageSize = Math.min(q.pageSize ?? 50, 500);
  const { rows, total } = listItemsInStates(db, campaign.id, q.states ?? ["disputed"], { offset: (page - 1) * pageSize, limit: pageSize });
  // A researcher who also labels blind in this campaign does not get the labels of trajectories still ahead of them.
  const visible = visibleEvaluationFilter(db, actor.userId);
  const byItem = new Map<number, LabelRow[]>();
  for (const l of activeLabelsOfItems(db, rows.map((r) => r.itemId))) {
    const list = byItem.get(l.itemId) ?? [];
    list.push(l);
    byItem.set(l.itemId, list);
  }
  return {
    campaign: { id: campaign.id, name: campaign.name },
    total,
    page,
    pageSize,
    items: rows.map((r) => ({
      ...r,
      labels: visible.isVisible(r.trajectoryId)
        ? (byItem.get(r.itemId) ?? []).map((l) => ({ annotatorName: l.annotatorName, verdict: l.verdict, category: l.category, firstFailingStep: l.firstFailingStep }))
        : [],
      hiddenByBlind: !visible.isVisible(r.trajectoryId),
    })),
  };
}

/**
 * Everything an adjudicator needs for one trajectory: every label side by side (with notes, time spent, steps
 * viewed, how often it was revised and whether evaluations had been shown first), the consolidated label, and
 * the full history of labels and decisions.
 */
export function itemReview(db: Db, actor: Actor, campaignId: number, trajectoryId: number) {
  requireRole(actor, "researcher", "review labels");
  assertMayViewEvaluations(db, actor.userId, trajectoryId);
  const campaign = requireCampaign(db, campaignId);
  const item = getItemByTrajectory(db, campaign.id, trajectoryId);
  if (!item) throw new NotFoundError(`trajectory in campaign ${campaign.id}`, trajectoryId);
  return reviewOfItem(db, campaign, item);
}

/** The labels, consolidated label and histories of one item (the caller has checked who may see them). */
export function reviewOfItem(db: Db, campaign: CampaignRow, item: CampaignItemRow) {
  const history = itemHistory(db, item.id);
  const labelRows = labelsOfItem(db, item.id);
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
        verdict: l.verdict,
        category: l.category,
        firstFailingStep: l.firstFailingStep,
        note: l.note,
        answers: l.answers ?? {},
        guidelineVersion: l.guidelineVersion,
        timeSpentMs: l.timeSpentMs,
        stepsViewed: l.stepsViewed,
        revision: l.revision,
        revisedAfterReveal: revs.some((r) => r.afterReveal && r.action === "submit" && r.revision > 1),
        createdAt: l.createdAt,
        updatedAt: l.updatedAt,
      };
    }),
    consolidated: getConsolidated(db, item.id) ?? null,
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
    consolidationHistory: consolidationHistory(db, item.id),
  };
}
