/**
 * An annotator's side: "next" hands out a trajectory and reserves it, "submit" stores a label (or a revision of
 * one) with its history, "undo" reverts the last submit.
 *
 * Safety:
 * - every operation is one transaction that locks what it reads before writing (the campaign for "next", the item
 *   for a label write; see LABEL_WRITE_TRANSACTION), so "count coverage, then reserve" is atomic across processes
 *   and two annotators cannot take the last slot of an item;
 * - submits and undos carry a client-chosen idempotency key, stored unique with the revision: a repeated request
 *   (double click, retry after a lost response) returns the first result and changes nothing;
 * - an undo names the revision it reverts; if the label changed since (a submit won the race), it is refused
 *   instead of reverting the wrong thing. Labels are never deleted: an undone first submit is `withdrawn`.
 * - a late submit (reservation expired and the slot re-used) is still stored: a person's work is never dropped,
 *   the item just ends up with one label more than needed.
 */
import { pairwiseRemainingFor } from "../../../db/repositories/annotation/pairwise";
import type { Db } from "../../../db/database";
import {
  deleteReservation,
  findLiveReservation,
  getItemByNumber,
  getItemByTrajectory,
  getCampaignForMember,
  isCampaignAnnotator,
  lockItemForLabel,
  liveReservationCounts,
  nextCandidates,
  releaseReservations,
  remainingForUser,
  upsertReservation,
  userAnnotatorKey,
} from "../../../db/repositories/annotation/campaigns";
import {
  getLabel,
  getLabelByKey,
  getRevision,
  getRevisionByKey,
  getRevisionOfLabel,
  insertLabel,
  insertRevision,
  labelHistory,
  labelsOfUser,
  lastUndoableSubmit,
  markRevisionUndone,
  stepScreenshotSizes,
  updateLabel,
} from "../../../db/repositories/annotation/labels";
import { hasRevealed } from "../../../db/repositories/access/blind-rule";
import {
  goldItemIds,
  isGoldItem,
  labelTurnsOfUser,
  goldRemainingForUser,
  nextGoldCandidate,
  strataCoverage,
  strategyCandidates,
} from "../../../db/repositories/annotation/quality";
import type { CampaignItemRow, CampaignRow, LabelRevisionRow, LabelRow } from "../../../db/schema/index";
import type { Actor } from "../../domain/access/actor";
import {
  diffLabelValues,
  LabelValidationError,
  mergeStepsViewed,
  queueOrderSalt,
  validateLabel,
  type ItemState,
  type LabelSchema,
  type LabelValues,
} from "../../domain/annotation/label-schema";
import { checkRegionMarks, markLabelsOf, type RegionMark } from "../../domain/annotation/region-marks";
import { isGoldTurn, pickCandidate, type QueueCandidate, type StratumCoverage } from "../../domain/annotation/assignment";
import { AppError, ConflictError, NotFoundError, ValidationError } from "../../errors";
import { getTrajectoryForPlayer } from "../trajectory-views";
import { itemPlayerReads } from "./item-player";
import { hideAgentInTrajectory } from "../access";
import { assertBlindLabelOpen } from "./reveal";
import { assertCampaignVisible, listCampaignSummaries } from "./campaigns";
import { requireCampaign } from "./campaign-lookup";
import { labelAnswerOf, recomputeItem } from "./consolidation";
import { goldStandingOf } from "./gold";
import {
  assertQualificationAllows,
  assertQualificationSkippable,
  assertQualificationUndoable,
  isQualificationItem,
  NOT_QUALIFIED_MESSAGE,
  qualificationFeedback,
  qualificationOf,
} from "./qualification";
import { LABEL_WRITE_TRANSACTION } from "./transactions";
import { withTransaction } from "../../../db/database";

export interface Clock {
  now?: number;
}

/** The campaign, after the annotator checks; `lock`: locked for the rest of the transaction (see LABEL_WRITE_TRANSACTION). */
async function requireLabellingAllowed(db: Db, actor: Actor, campaignId: number, lock = false): Promise<CampaignRow> {
  return labellingAllowed(await getCampaignForMember(db, campaignId, actor.userId, lock), campaignId);
}

/** The campaign, if the actor annotates it (FORBIDDEN otherwise). */
async function requireAnnotatorOf(db: Db, actor: Actor, campaignId: number): Promise<CampaignRow> {
  return annotatorOf(await getCampaignForMember(db, campaignId, actor.userId), campaignId);
}

function annotatorOf(found: Awaited<ReturnType<typeof getCampaignForMember>>, campaignId: number): CampaignRow {
  if (!found) throw new NotFoundError("campaign", campaignId);
  if (!found.isAnnotator) throw new AppError("FORBIDDEN", `You are not an annotator of campaign ${JSON.stringify(found.campaign.name)}`);
  return found.campaign;
}

function labellingAllowed(found: Awaited<ReturnType<typeof getCampaignForMember>>, campaignId: number): CampaignRow {
  const campaign = annotatorOf(found, campaignId);
  if (campaign.status !== "active") throw new ConflictError(`Campaign ${JSON.stringify(campaign.name)} is closed`);
  return campaign;
}

/**
 * The least-covered item for a user, coverage = labels + other people's live reservations; ties go to fewer
 * labels, then the user's own order. Candidates come in (labels, order) order and live reservations are few, so
 * the scan stops at the first candidate whose label count alone reaches the best coverage found: nothing after
 * it can be better. Items the user skipped are considered only when nothing else is left.
 */
async function pickItem(db: Db, campaignId: number, userId: string, needed: number, now: number, except: ReadonlySet<number> = NO_ITEMS) {
  const reserved = await liveReservationCounts(db, campaignId, userId, now);
  const salt = queueOrderSalt(userId);
  for (const skipped of [false, true]) {
    let best: { itemId: number; trajectoryId: number; coverage: number } | undefined;
    const pageSize = 64;
    scan: for (let offset = 0; ; offset += pageSize) {
      const page = await nextCandidates(db, { campaignId, userId, needed, salt, skipped, offset, limit: pageSize });
      for (const c of page) {
        if (except.has(c.itemId)) continue;
        if (best && c.labelCount >= best.coverage) break scan;
        const coverage = c.labelCount + (reserved.get(c.itemId) ?? 0);
        if (coverage < needed && (!best || coverage < best.coverage)) best = { itemId: c.itemId, trajectoryId: c.trajectoryId, coverage };
      }
      if (page.length < pageSize) break;
    }
    if (best) return best;
  }
  return undefined;
}

/**
 * The next item under a strategy other than least covered: every candidate is read (a campaign's open items, a
 * few thousand) and the pure rule picks; skipped items only when nothing else is left.
 */
async function pickByStrategy(db: Db, campaign: CampaignRow, userId: string, now: number, ahead?: LookAheadFrom) {
  const strategy = campaign.assignmentStrategy;
  const stratum: "site" | "run" | null = strategy === "by_site" ? "site" : strategy === "by_run" ? "run" : null;
  const reserved = await liveReservationCounts(db, campaign.id, userId, now);
  // Looking ahead from an item, its stratum counts the label about to be stored there (and on the items still being submitted).
  const strata = stratum ? await strataCoverage(db, campaign.id, stratum, ahead?.newLabelOn) : undefined;
  const except = ahead?.itemIds ?? NO_ITEMS;
  const salt = queueOrderSalt(userId);
  for (const skipped of [false, true]) {
    const query = {
      campaignId: campaign.id,
      userId,
      needed: campaign.annotatorsPerItem,
      salt,
      skipped,
      stratum,
      withDisputed: strategy === "disputed_first",
      withVerdicts: strategy === "disputed_first",
    };
    if (strategy === "random") {
      // The annotator's own order alone decides: read it a page at a time and stop at the first item not full.
      const pageSize = 64;
      for (let offset = 0; ; offset += pageSize) {
        const page = await strategyCandidates(db, { ...query, page: { offset, limit: pageSize } });
        const best = pickCandidate(
          "random",
          page.filter((r) => !except.has(r.itemId)).map((r) => ({ ...r, disputed: false, reserved: reserved.get(r.itemId) ?? 0 })),
          campaign.annotatorsPerItem,
        );
        if (best) return { itemId: best.itemId, trajectoryId: best.trajectoryId };
        if (page.length < pageSize) break;
      }
      continue;
    }
    if (stratum && strata) {
      const best = await pickByStratum(db, query, strata, campaign.annotatorsPerItem, reserved, except);
      if (best) return { itemId: best.itemId, trajectoryId: best.trajectoryId };
      continue;
    }
    const rows = await strategyCandidates(db, query);
    const candidates: QueueCandidate[] = rows
      .filter((r) => !except.has(r.itemId))
      .map((r) => ({ ...r, disputed: r.disputed === 1, reserved: reserved.get(r.itemId) ?? 0 }));
    const best = pickCandidate(strategy, candidates, campaign.annotatorsPerItem, strata);
    if (best) return { itemId: best.itemId, trajectoryId: best.trajectoryId };
  }
  return undefined;
}

/**
 * by_site / by_run without reading every open item: strata in order of the share of their needed labels they hold,
 * and in each only its least covered items, a page at a time (as least covered does over the whole campaign). Strata
 * with the same share are weighed together, so the pick is the one pickCandidate makes over every candidate.
 */
async function pickByStratum(
  db: Db,
  query: Parameters<typeof strategyCandidates>[1],
  strata: ReadonlyMap<string, StratumCoverage>,
  needed: number,
  reserved: ReadonlyMap<number, number>,
  except: ReadonlySet<number>,
): Promise<QueueCandidate | undefined> {
  const share = (s: StratumCoverage) => (s.items > 0 ? s.labels / (s.items * needed) : 0);
  const ordered = [...strata.entries()].sort((a, b) => share(a[1]) - share(b[1]));
  const pageSize = 64;
  for (let i = 0; i < ordered.length;) {
    let j = i;
    while (j < ordered.length && share(ordered[j]![1]) === share(ordered[i]![1])) j++;
    const bests: QueueCandidate[] = [];
    for (const [value] of ordered.slice(i, j)) {
      let best: QueueCandidate | undefined;
      scan: for (let offset = 0; ; offset += pageSize) {
        const page = await strategyCandidates(db, { ...query, inStratum: { value, offset, limit: pageSize } });
        for (const r of page) {
          if (except.has(r.itemId)) continue;
          const c: QueueCandidate = { ...r, disputed: r.disputed === 1, reserved: reserved.get(r.itemId) ?? 0 };
          if (best && c.labelCount >= best.labelCount + best.reserved) break scan;
          if (c.labelCount + c.reserved < needed && (!best || c.labelCount + c.reserved < best.labelCount + best.reserved)) best = c;
        }
        if (page.length < pageSize) break;
      }
      if (best) bests.push(best);
    }
    const pick = pickCandidate(query.stratum === "site" ? "by_site" : "by_run", bests, needed, strata);
    if (pick) return pick;
    i = j;
  }
  return undefined;
}

/** Said to an annotator whose accuracy on the campaign's quality checks fell below the block threshold. */
export const BLOCKED_MESSAGE =
  "Your recent labels in this campaign did not pass its quality checks often enough, so no more trajectories will be handed to you here. The researcher has been told; they can talk it through with you and unblock you.";

/**
 * Whether the user is blocked in this campaign: their accuracy on its gold items is below the block threshold
 * (after the minimum number of gold answers). Researchers see it flagged on the annotator quality view.
 */
export async function isBlockedInCampaign(db: Db, campaign: CampaignRow, userId: string): Promise<boolean> {
  if (campaign.goldBlockBelow === null) return false;
  return (await goldStandingOf(db, campaign, userAnnotatorKey(userId))).status === "blocked";
}

/**
 * The item to hand out next: on a gold turn (see isGoldTurn) a gold item the user has not labelled yet, otherwise
 * an item chosen by the campaign's strategy; when the regular queue is empty, the gold items left (each annotator
 * labels every gold item once, so "remaining" counts them and never gives them away by standing still).
 */
async function pickNext(db: Db, campaign: CampaignRow, userId: string, now: number, ahead?: LookAheadFrom) {
  // A qualification phase comes before everything else, its items in order.
  const qualification = await qualificationOf(db, campaign, userAnnotatorKey(userId), userId);
  if (qualification.status === "in_progress") return ahead ? undefined : qualification.next;
  const salt = queueOrderSalt(userId);
  const except = ahead?.itemIds ?? NO_ITEMS;
  // Looking ahead, the turn is the one after the labels about to be stored (a first label on an item adds a turn).
  const turn = (await labelTurnsOfUser(db, campaign.id, userId)) + (ahead?.newLabelOn.length ?? 0);
  if (isGoldTurn(userId, campaign.id, turn, campaign.goldRate)) {
    const gold = await nextGoldCandidate(db, campaign.id, userId, salt, [...except]);
    if (gold) return gold;
  }
  const regular =
    campaign.assignmentStrategy === "least_covered" || !campaign.assignmentStrategy
      ? await pickItem(db, campaign.id, userId, campaign.annotatorsPerItem, now, except)
      : await pickByStrategy(db, campaign, userId, now, ahead);
  if (regular) return regular;
  return await nextGoldCandidate(db, campaign.id, userId, salt, [...except]);
}

/**
 * The items a look-ahead is asked from: the one on screen and those whose submit the page has sent but not yet seen
 * stored (left out of the pick), and among them those where the submit will be the annotator's first label.
 */
interface LookAheadFrom {
  itemIds: ReadonlySet<number>;
  newLabelOn: number[];
}

const NO_ITEMS: ReadonlySet<number> = new Set();

/**
 * The item `nextAssignment` would most likely hand this annotator once their labels on `from` and on `pending` (items
 * whose submit is still on its way: the page showed the next item before the server answered) are stored, reserving
 * nothing and writing nothing: another annotator may take it meanwhile, and the submit's own assignment decides. It
 * reads as `nextAssignment` does, with those items left out: a live reservation held on another item, else the
 * campaign's pick. Null when there is nothing to look ahead to: nothing left, a training phase under way (its items
 * stay on screen after a submit), or the annotator blocked or failed.
 */
async function lookAheadAssignment(db: Db, actor: Actor, campaign: CampaignRow, from: CampaignItemRow, now: number, pending: CampaignItemRow[] = []) {
  if (campaign.status !== "active") return null;
  if ((await isBlockedInCampaign(db, campaign, actor.userId)) || (await failedQualification(db, campaign, actor.userId))) return null;
  const itemIds = new Set([from.id, ...pending.map((i) => i.id)]);
  const held = await findLiveReservation(db, campaign.id, actor.userId, now);
  if (held && !itemIds.has(held.itemId)) return held;
  // A pending submit already stored counts as the label it is: no turn added for it twice.
  const newLabelOn: number[] = [];
  for (const id of itemIds) if (!(await getLabelByKey(db, id, userAnnotatorKey(actor.userId)))) newLabelOn.push(id);
  return (await pickNext(db, campaign, actor.userId, now, { itemIds, newLabelOn })) ?? null;
}

export interface Assignment {
  campaignId: number;
  itemId: number;
  trajectoryId: number;
  reservedAt: Date;
  expiresAt: Date;
  /** True when the reservation already existed (resumed after a reload), false when just handed out. */
  resumed: boolean;
}

/**
 * The trajectory an annotator should label next, reserved for them. A live reservation they already hold is
 * resumed (and extended). Null when nothing is left for them.
 */
export async function nextAssignment(db: Db, actor: Actor, campaignId: number, clock: Clock = {}): Promise<Assignment | null> {
  const now = clock.now ?? Date.now();
  const assignment = await withTransaction(
    db,
    async (): Promise<Assignment | null | "blocked" | "unqualified"> => {
      const campaign = await requireLabellingAllowed(db, actor, campaignId, true);
      const refusal = (await isBlockedInCampaign(db, campaign, actor.userId)) ? "blocked" : await failedQualification(db, campaign, actor.userId);
      if (refusal) {
        // Their reservations go back to the others; refused only once that is stored (a throw here would undo it).
        await releaseReservations(db, campaignId, actor.userId);
        return refusal;
      }
      const ttl = campaign.reservationMinutes * 60_000;
      const held = await findLiveReservation(db, campaignId, actor.userId, now);
      const expiresAt = new Date(now + ttl);
      if (held) {
        await upsertReservation(db, { campaignId, itemId: held.itemId, userId: actor.userId, status: "active", reservedAt: held.reservedAt, expiresAt });
        return {
          campaignId,
          itemId: held.itemId,
          trajectoryId: held.trajectoryId,
          reservedAt: held.reservedAt,
          expiresAt,
          resumed: true,
        };
      }
      const picked = await pickNext(db, campaign, actor.userId, now);
      if (!picked) return null;
      const reservedAt = new Date(now);
      await upsertReservation(db, { campaignId, itemId: picked.itemId, userId: actor.userId, status: "active", reservedAt, expiresAt });
      return {
        campaignId,
        itemId: picked.itemId,
        trajectoryId: picked.trajectoryId,
        reservedAt,
        expiresAt,
        resumed: false,
      };
    },
    LABEL_WRITE_TRANSACTION,
  );
  if (assignment === "blocked") throw new AppError("FORBIDDEN", BLOCKED_MESSAGE);
  if (assignment === "unqualified") throw new AppError("FORBIDDEN", NOT_QUALIFIED_MESSAGE);
  return assignment;
}

async function failedQualification(db: Db, campaign: CampaignRow, userId: string): Promise<"unqualified" | null> {
  if (campaign.qualificationPassAt === null) return null;
  return (await qualificationOf(db, campaign, userAnnotatorKey(userId))).status === "failed" ? "unqualified" : null;
}

/** Puts the current trajectory back and keeps it out of this annotator's queue until everything else is done. */
export async function skipAssignment(db: Db, actor: Actor, campaignId: number, trajectoryId: number, clock: Clock = {}): Promise<void> {
  const now = clock.now ?? Date.now();
  await withTransaction(
    db,
    async () => {
      const campaign = await requireLabellingAllowed(db, actor, campaignId);
      const item = await getItemByTrajectory(db, campaignId, trajectoryId);
      if (!item) throw new NotFoundError(`trajectory in campaign ${campaignId}`, trajectoryId);
      await assertQualificationSkippable(db, campaign, actor.userId, item.id);
      await upsertReservation(db, {
        campaignId,
        itemId: item.id,
        userId: actor.userId,
        status: "skipped",
        reservedAt: new Date(now),
        expiresAt: new Date(now),
      });
    },
    LABEL_WRITE_TRANSACTION,
  );
}

/** Gives up the annotator's live reservations in a campaign (leaving the queue). */
export async function releaseAssignments(db: Db, actor: Actor, campaignId: number): Promise<number> {
  return withTransaction(db, async () => await releaseReservations(db, campaignId, actor.userId), LABEL_WRITE_TRANSACTION);
}

export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_.:-]{8,128}$/;

function checkKey(key: string): void {
  if (typeof key !== "string" || !IDEMPOTENCY_KEY.test(key))
    throw new ValidationError("idempotencyKey: 8–128 characters of letters, digits and _ . : - (e.g. a UUID)");
}

export interface SubmitLabelInput {
  campaignId: number;
  trajectoryId: number;
  verdict: string;
  category?: string | null;
  firstFailingStep?: number | null;
  note?: string | null;
  /** Answers to the campaign's own questions, by question id (validated against its schema). */
  answers?: unknown;
  /** Boxes and points on the steps' screenshots (checked against their sizes and the campaign's mark labels). */
  marks?: unknown;
  /** Time the annotator spent on the trajectory in this sitting. */
  timeSpentMs?: number | null;
  /** Step indices opened in this sitting. */
  stepsViewed?: number[] | null;
  idempotencyKey: string;
  /** The revision the annotator was looking at when revising; a different current revision is a conflict. */
  baseRevision?: number | null;
}

export interface LabelResult {
  labelId: number;
  revisionId: number;
  revision: number;
  status: "active" | "withdrawn";
  values: LabelValues;
  itemId: number;
  trajectoryId: number;
  itemState: ItemState;
  /** True when this request repeated an earlier one (same idempotency key) and nothing was changed. */
  replayed: boolean;
}

/** The result of a label write; `itemState` when the caller has just computed it (no need to read the item again). */
async function resultOf(db: Db, rev: LabelRevisionRow, label: LabelRow, replayed: boolean, itemState?: ItemState): Promise<LabelResult> {
  const state = itemState ?? (await getItemByTrajectory(db, label.campaignId, label.trajectoryId))!.state;
  return {
    labelId: label.id,
    revisionId: rev.id,
    revision: rev.revision,
    status: rev.status,
    values: rev.values,
    itemId: label.itemId,
    trajectoryId: label.trajectoryId,
    itemState: state,
    replayed,
  };
}

/** A repeated request: the same actor, the same kind of action. Anything else reusing a key is a client bug. */
async function replay(db: Db, actor: Actor, key: string, action: "submit" | "undo"): Promise<LabelResult | null> {
  const prior = await getRevisionByKey(db, key);
  if (!prior) return null;
  if (prior.actorId !== actor.userId || prior.action !== action) throw new ConflictError(`idempotencyKey ${key} was already used for another request`);
  return await resultOf(db, prior, (await getLabel(db, prior.labelId))!, true);
}

function cleanSteps(steps: number[] | null | undefined, stepCount: number): number[] | null {
  if (steps === null || steps === undefined) return null;
  if (!Array.isArray(steps) || steps.some((s) => !Number.isInteger(s) || s < 0 || s >= Math.max(stepCount, 1))) {
    throw new ValidationError(`stepsViewed: step indices from 0 to ${Math.max(stepCount - 1, 0)}`);
  }
  return [...new Set(steps)].sort((a, b) => a - b);
}

/**
 * How messages name an item: by its number in the campaign, never by trajectory id (annotators must not learn which
 * trajectory an item is; ids follow import order and would line items up with runs).
 */
function itemName(item: Pick<CampaignItemRow, "itemNo">): string {
  return item.itemNo === null ? "this item" : `item ${item.itemNo}`;
}

/**
 * Refuses a label change on an item whose labels are frozen (adjudicated, QA reviewed). Someone without a label of
 * their own on it hears only that it takes no more labels: why (others disagreed and a researcher decided) is
 * other annotators' business, kept from them like the item's agreement state.
 */
async function assertLabelsMayChange(db: Db, item: CampaignItemRow, actor: Actor): Promise<void> {
  const adjudicated = item.state === "adjudicated" && !(await isGoldItem(db, item.id));
  if (!adjudicated && !item.qaReviewedAt) return;
  const own = await getLabelByKey(db, item.id, userAnnotatorKey(actor.userId));
  if (!own || own.status !== "active") throw new ConflictError(`${capitalise(itemName(item))} takes no more labels`);
  throw new ConflictError(`${capitalise(itemName(item))} ${adjudicated ? "was adjudicated" : "passed its QA review"}; its labels can no longer change`);
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A label's region marks as `LabelValues` hold them: absent when there are none, refused with every problem named. */
async function checkedMarks(db: Db, schema: LabelSchema, trajectoryId: number, raw: unknown): Promise<{ marks?: RegionMark[] }> {
  if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0)) return {};
  const checked = checkRegionMarks(raw, { screenshotSizes: await stepScreenshotSizes(db, trajectoryId), markLabels: markLabelsOf(schema.markLabels) });
  if (!checked.ok) throw new ValidationError(`marks: ${checked.problems.join("; ")}`, "marks");
  return { marks: checked.marks };
}

export async function submitLabel(db: Db, actor: Actor, input: SubmitLabelInput, clock: Clock = {}): Promise<LabelResult> {
  checkKey(input.idempotencyKey);
  if (input.timeSpentMs !== undefined && input.timeSpentMs !== null && (!Number.isFinite(input.timeSpentMs) || input.timeSpentMs < 0)) {
    throw new ValidationError("timeSpentMs: a non-negative number of milliseconds");
  }
  const now = clock.now ?? Date.now();
  return withTransaction(
    db,
    async () => {
      // The item first: a second submit with the same key waits here until the first is stored, then replays it.
      const locked = await lockItemForLabel(db, input.campaignId, input.trajectoryId);
      const replayed = await replay(db, actor, input.idempotencyKey, "submit");
      if (replayed) return replayed;

      const campaign = await requireLabellingAllowed(db, actor, input.campaignId);
      if (!locked) throw new NotFoundError(`trajectory in campaign ${campaign.id}`, input.trajectoryId);
      const { item, stepCount } = locked;
      // Gold items are frozen like adjudicated ones but stay open to every annotator's label.
      await assertLabelsMayChange(db, item, actor);
      await assertQualificationAllows(db, campaign, userAnnotatorKey(actor.userId), item.id);
      let values: LabelValues;
      try {
        values = {
          ...validateLabel(campaign.labelSchema, input, stepCount),
          ...(await checkedMarks(db, campaign.labelSchema, item.trajectoryId, input.marks)),
        };
      } catch (e) {
        if (e instanceof LabelValidationError) throw new ValidationError(e.message);
        throw e;
      }
      const steps = cleanSteps(input.stepsViewed, stepCount);
      const spent = input.timeSpentMs === undefined || input.timeSpentMs === null ? null : Math.round(input.timeSpentMs);
      const at = new Date(now);
      const key = userAnnotatorKey(actor.userId);
      const existing = await getLabelByKey(db, item.id, key);
      if (existing) await assertBlindLabelOpen(db, existing.id);
      if (
        existing &&
        existing.status === "active" &&
        input.baseRevision !== undefined &&
        input.baseRevision !== null &&
        input.baseRevision !== existing.revision
      ) {
        throw new ConflictError(
          `Your label on ${itemName(item)} changed since you opened it (revision ${existing.revision}, you had ${input.baseRevision}); reload it`,
        );
      }
      const before: LabelValues | null =
        existing && existing.status === "active"
          ? {
              verdict: existing.verdict,
              category: existing.category,
              firstFailingStep: existing.firstFailingStep,
              note: existing.note,
              ...(existing.answers ? { answers: existing.answers } : {}),
              ...(existing.marks ? { marks: existing.marks } : {}),
            }
          : null;
      let label: LabelRow;
      if (!existing) {
        label = await insertLabel(db, {
          campaignId: campaign.id,
          itemId: item.id,
          trajectoryId: item.trajectoryId,
          annotatorKey: key,
          userId: actor.userId,
          annotatorName: actor.name,
          origin: "verdict",
          status: "active",
          ...values,
          answers: values.answers ?? null,
          marks: values.marks ?? null,
          guidelineVersion: campaign.guidelineVersion,
          timeSpentMs: spent,
          stepsViewed: steps,
          revision: 1,
          createdAt: at,
          updatedAt: at,
        });
      } else {
        label = await updateLabel(db, existing.id, {
          status: "active",
          ...values,
          answers: values.answers ?? null,
          marks: values.marks ?? null,
          guidelineVersion: campaign.guidelineVersion,
          annotatorName: actor.name,
          timeSpentMs: spent === null ? existing.timeSpentMs : (existing.timeSpentMs ?? 0) + spent,
          stepsViewed: mergeStepsViewed(existing.stepsViewed, steps),
          revision: existing.revision + 1,
        });
      }
      const rev = await insertRevision(db, {
        labelId: label.id,
        campaignId: campaign.id,
        revision: label.revision,
        action: "submit",
        actorId: actor.userId,
        actorName: actor.name,
        status: "active",
        values,
        changes: diffLabelValues(before, values),
        guidelineVersion: campaign.guidelineVersion,
        timeSpentMs: spent,
        stepsViewed: steps,
        afterReveal: await hasRevealed(db, actor.userId, item.trajectoryId),
        idempotencyKey: input.idempotencyKey,
        createdAt: at,
      });
      await deleteReservation(db, item.id, actor.userId);
      const itemState = await recomputeItem(db, campaign, item, at);
      return await resultOf(db, rev, label, false, itemState);
    },
    LABEL_WRITE_TRANSACTION,
  );
}

export interface UndoInput {
  campaignId: number;
  /** The submit revision to revert (from the submit's result). Omitted: the annotator's latest submit. */
  revisionId?: number | null;
  idempotencyKey: string;
}

/**
 * Reverts a submit: a revision goes back to the label's previous version, a first submit withdraws the label and
 * gives the annotator back the reservation so their slot is kept.
 */
export async function undoSubmit(db: Db, actor: Actor, input: UndoInput, clock: Clock = {}): Promise<LabelResult> {
  checkKey(input.idempotencyKey);
  const now = clock.now ?? Date.now();
  return withTransaction(
    db,
    async () => {
      // The campaign locked first: a withdrawn label gives its slot back as a reservation, which the queue must see
      // whole; a second undo with the same key waits here, then replays the first (also once the campaign closed).
      const member = await getCampaignForMember(db, input.campaignId, actor.userId, true);
      const replayed = await replay(db, actor, input.idempotencyKey, "undo");
      if (replayed) return replayed;
      const campaign = labellingAllowed(member, input.campaignId);

      let target: LabelRevisionRow | undefined;
      if (input.revisionId !== undefined && input.revisionId !== null) {
        target = await getRevision(db, input.revisionId);
        if (!target || target.campaignId !== campaign.id || target.actorId !== actor.userId || target.action !== "submit") {
          throw new NotFoundError("submit of yours in this campaign", input.revisionId);
        }
        if (target.undoneByRevisionId !== null) throw new ConflictError(`That submit was already undone`);
      } else {
        target = await lastUndoableSubmit(db, campaign.id, actor.userId);
        if (!target) throw new AppError("PRECONDITION_FAILED", "Nothing to undo: you have no submit in this campaign that is not undone");
      }
      // Then the item, and the label as it is once no other write to it is under way.
      const { item } = (await lockItemForLabel(db, campaign.id, (await getLabel(db, target.labelId))!.trajectoryId))!;
      await assertQualificationUndoable(db, item.id);
      target = (await getRevision(db, target.id))!;
      if (target.undoneByRevisionId !== null) throw new ConflictError(`That submit was already undone`);
      const label = (await getLabel(db, target.labelId))!;
      await assertBlindLabelOpen(db, label.id);
      // Later revisions are fine only if they were themselves undone (submits) or are those undos: then the label
      // is exactly as `target` left it. Any live later change means a newer submit won; reverting `target` would
      // throw that newer label away.
      const later = (await labelHistory(db, label.id)).filter((r) => r.revision > target.revision);
      if (later.some((r) => !(r.action === "undo" || (r.action === "submit" && r.undoneByRevisionId !== null)))) {
        throw new ConflictError(`Your label on ${itemName(item)} changed after that submit (now revision ${label.revision}); undo the latest change instead`);
      }
      await assertLabelsMayChange(db, item, actor);

      const previous = target.revision > 1 ? await getRevisionOfLabel(db, label.id, target.revision - 1) : undefined;
      const status = previous ? previous.status : "withdrawn";
      const values = previous ? previous.values : target.values;
      const at = new Date(now);
      const updated = await updateLabel(db, label.id, {
        status,
        ...values,
        answers: values.answers ?? null,
        marks: values.marks ?? null,
        // Back to the guideline version the restored revision was made under.
        guidelineVersion: previous ? previous.guidelineVersion : label.guidelineVersion,
        timeSpentMs: label.timeSpentMs === null ? null : Math.max(0, label.timeSpentMs - (target.timeSpentMs ?? 0)),
        revision: label.revision + 1,
      });
      const before = label.status === "active" ? target.values : null;
      const rev = await insertRevision(db, {
        labelId: label.id,
        campaignId: campaign.id,
        revision: updated.revision,
        action: "undo",
        actorId: actor.userId,
        actorName: actor.name,
        status,
        values,
        changes: diffLabelValues(before, status === "active" ? values : null),
        undoesRevisionId: target.id,
        idempotencyKey: input.idempotencyKey,
        createdAt: at,
      });
      await markRevisionUndone(db, target.id, rev.id);
      if (status === "withdrawn") {
        await upsertReservation(db, {
          campaignId: campaign.id,
          itemId: item.id,
          userId: actor.userId,
          status: "active",
          reservedAt: at,
          expiresAt: new Date(now + campaign.reservationMinutes * 60_000),
        });
      }
      const itemState = await recomputeItem(db, campaign, item, at);
      return await resultOf(db, rev, updated, false, itemState);
    },
    LABEL_WRITE_TRANSACTION,
  );
}

/**
 * An item's state as its annotator may see it. In a blind campaign, "agreed" or "disputed" before their own
 * label would tell them what the others said; they see "open" until they have labelled ("adjudicated" is shown:
 * it means the item can no longer be labelled, and says nothing of the verdict).
 */
function itemStateFor(campaign: CampaignRow, state: ItemState, labelledByViewer: boolean, gold = false): ItemState {
  // A gold item is frozen ("adjudicated") for the researcher; to the annotator it is an item like any other.
  if (gold) return "open";
  if (!campaign.blind || labelledByViewer || state === "adjudicated") return state;
  return "open";
}

/** The annotator's own label on a trajectory of a campaign (for the label panel), with its history. */
export async function myLabel(db: Db, actor: Actor, campaignId: number, trajectoryId: number) {
  const campaign = await requireCampaign(db, campaignId);
  if (!(await isCampaignAnnotator(db, campaignId, actor.userId)))
    throw new AppError("FORBIDDEN", `You are not an annotator of campaign ${JSON.stringify(campaign.name)}`);
  const item = await getItemByTrajectory(db, campaignId, trajectoryId);
  if (!item) throw new NotFoundError(`trajectory in campaign ${campaignId}`, trajectoryId);
  const label = await getLabelByKey(db, item.id, userAnnotatorKey(actor.userId));
  const lastSubmit = await lastUndoableSubmit(db, campaignId, actor.userId);
  const lastLabel = lastSubmit ? await getLabel(db, lastSubmit.labelId) : undefined;
  // A training answer stays as given (assertQualificationUndoable), so it is never offered for undo.
  const undoable =
    lastSubmit && lastLabel && !(await isQualificationItem(db, lastLabel.itemId)) ? { revisionId: lastSubmit.id, trajectoryId: lastLabel.trajectoryId } : null;
  return {
    itemState: itemStateFor(campaign, item.state, !!label && label.status === "active", await isGoldItem(db, item.id)),
    label: label && label.status === "active" ? label : null,
    history: label
      ? (await labelHistory(db, label.id)).map((r) => ({
          revision: r.revision,
          action: r.action,
          values: r.values,
          status: r.status,
          changes: r.changes,
          createdAt: r.createdAt,
          undone: r.undoneByRevisionId !== null,
        }))
      : [],
    /** The revision "undo" would revert now (any trajectory of the campaign), so the UI can say what it undoes. */
    undoable,
  };
}

/** The campaigns a user labels in (native ones), with how many trajectories are left for them in each. */
export async function myCampaigns(db: Db, actor: Actor) {
  const native = (await listCampaignSummaries(db, { ...actor, role: "annotator" })).filter((c) => c.origin === "native");
  return Promise.all(
    native.map(async (c) => ({
      ...c,
      remaining:
        c.status !== "active"
          ? 0
          : c.kind === "pairwise"
            ? await pairwiseRemainingFor(db, c.id, actor.userId, c.annotatorsPerItem)
            : (await remainingForUser(db, c.id, actor.userId, c.annotatorsPerItem)) + (await goldRemainingForUser(db, c.id, actor.userId)),
    })),
  );
}

// ---------------------------------------------------------------- the annotator's API, by item number

/**
 * Annotators address a campaign's trajectories by item number (`/annotate/<campaign>/<item>`), never by
 * trajectory id: ids follow import order and would tell which items share a run. These wrap the functions above,
 * which work on trajectory ids for the CLI and researchers' tools, and answer without trajectory or item ids.
 */
async function requireItem(db: Db, actor: Actor, campaignId: number, itemNo: number) {
  const campaign = await requireAnnotatorOf(db, actor, campaignId);
  const item = await getItemByNumber(db, campaignId, itemNo);
  if (!item) throw new NotFoundError(`item of campaign ${campaignId}`, itemNo);
  return { campaign, item };
}

/**
 * The trajectory behind a campaign item, for the annotator's own campaign only (the same check as the labelling
 * page's): other services reach an item's trajectory this way and never hand its id back to the annotator.
 */
export async function itemTrajectoryId(db: Db, actor: Actor, campaignId: number, itemNo: number): Promise<number> {
  return (await requireItem(db, actor, campaignId, itemNo)).item.trajectoryId;
}

async function itemNoOf(db: Db, campaignId: number, trajectoryId: number): Promise<number> {
  return (await getItemByTrajectory(db, campaignId, trajectoryId))?.itemNo ?? 0;
}

/** A label result as its annotator sees it: the item number, not the trajectory and item ids. */
async function annotatorResult(db: Db, r: LabelResult, campaign: CampaignRow, itemNo: number) {
  return {
    itemNo,
    revisionId: r.revisionId,
    revision: r.revision,
    status: r.status,
    values: r.values,
    itemState: itemStateFor(campaign, r.itemState, r.status === "active", await isGoldItem(db, r.itemId)),
    replayed: r.replayed,
  };
}

export async function nextItem(db: Db, actor: Actor, campaignId: number, clock: Clock = {}) {
  const a = await nextAssignment(db, actor, campaignId, clock);
  return a
    ? { campaignId, itemNo: await itemNoOf(db, campaignId, a.trajectoryId), reservedAt: a.reservedAt, expiresAt: a.expiresAt, resumed: a.resumed }
    : null;
}

export async function skipItem(db: Db, actor: Actor, campaignId: number, itemNo: number, clock: Clock = {}): Promise<void> {
  const { item } = await requireItem(db, actor, campaignId, itemNo);
  await skipAssignment(db, actor, campaignId, item.trajectoryId, clock);
}

export async function submitItemLabel(db: Db, actor: Actor, input: Omit<SubmitLabelInput, "trajectoryId"> & { itemNo: number }, clock: Clock = {}) {
  const { itemNo, ...rest } = input;
  // The campaign as read before the submit only decides what the annotator may see of the item's state (blind).
  const { campaign, item } = await requireItem(db, actor, input.campaignId, itemNo);
  const r = await submitLabel(db, actor, { ...rest, trajectoryId: item.trajectoryId }, clock);
  // On a qualification item the known answer follows the stored answer, never before it.
  return {
    ...(await annotatorResult(db, r, campaign, itemNo)),
    qualification: await qualificationFeedback(db, campaign, userAnnotatorKey(actor.userId), item.id),
  };
}

/**
 * A submit from the labelling page. With `andNext` (Submit & next) the next item is reserved in the same call, as
 * `labelling.next` would (one round trip instead of two between Ctrl+Enter and the next item): `next` is null when
 * nothing is left, or when the annotator may not go on (blocked by the campaign's quality checks, failed its
 * qualification), and the queue page, where the client then goes, says why. The label is stored either way.
 */
export async function submitItemLabelAndNext(
  db: Db,
  actor: Actor,
  { andNext, ...input }: Omit<SubmitLabelInput, "trajectoryId"> & { itemNo: number; andNext?: boolean },
  clock: Clock = {},
): Promise<Awaited<ReturnType<typeof submitItemLabel>> & { next?: Awaited<ReturnType<typeof nextItem>> }> {
  const result = await submitItemLabel(db, actor, input, clock);
  if (!andNext) return result;
  let next: Awaited<ReturnType<typeof nextItem>> = null;
  try {
    next = await nextItem(db, actor, input.campaignId, clock);
  } catch (e) {
    if (!(e instanceof AppError && e.code === "FORBIDDEN")) throw e;
  }
  return { ...result, next };
}

export async function undoItemSubmit(db: Db, actor: Actor, input: UndoInput, clock: Clock = {}) {
  const r = await undoSubmit(db, actor, input, clock);
  return await annotatorResult(db, r, await requireCampaign(db, input.campaignId), await itemNoOf(db, input.campaignId, r.trajectoryId));
}

/**
 * Submit & next's look-ahead: while the annotator works on item `itemNo`, the item they would most likely be handed
 * next (see lookAheadAssignment) with what the labelling page shows of it, exactly as `itemTrajectory` and
 * `myItemLabel` answer for it, so the page can have it ready before the submit. Reserves nothing; null when there is
 * nothing to look ahead to.
 */
export async function lookAheadItem(db: Db, actor: Actor, campaignId: number, itemNo: number, clock: Clock = {}, pendingItemNos: number[] = []) {
  const { campaign, item } = await requireItem(db, actor, campaignId, itemNo);
  const pending = await Promise.all(pendingItemNos.filter((n) => n !== itemNo).map(async (n) => (await requireItem(db, actor, campaignId, n)).item));
  const next = await lookAheadAssignment(db, actor, campaign, item, clock.now ?? Date.now(), pending);
  if (!next) return null;
  const nextNo = await itemNoOf(db, campaignId, next.trajectoryId);
  const [trajectory, mine] = await Promise.all([itemTrajectory(db, actor, campaignId, nextNo), myItemLabel(db, actor, campaignId, nextNo)]);
  return { itemNo: nextNo, item: trajectory, mine };
}

/** The annotator's own label on an item, with its history and what "undo" would revert (by item number). */
export async function myItemLabel(db: Db, actor: Actor, campaignId: number, itemNo: number) {
  const { campaign, item } = await requireItem(db, actor, campaignId, itemNo);
  const mine = await myLabel(db, actor, campaignId, item.trajectoryId);
  const l = mine.label;
  return {
    itemState: mine.itemState,
    label: l
      ? {
          revision: l.revision,
          ...labelAnswerOf(l),
        }
      : null,
    history: mine.history,
    undoable: mine.undoable ? { revisionId: mine.undoable.revisionId, itemNo: await itemNoOf(db, campaignId, mine.undoable.trajectoryId) } : null,
    // A qualification item's feedback once this annotator's answer is stored (so it survives a reload), null before.
    qualification: await qualificationFeedback(db, campaign, userAnnotatorKey(actor.userId), item.id),
  };
}

/** The item's trajectory for the player, with what the blind rule hides from this annotator taken out. */
export async function itemTrajectory(db: Db, actor: Actor, campaignId: number, itemNo: number) {
  const { item } = await requireItem(db, actor, campaignId, itemNo);
  return await hideAgentInTrajectory(db, actor.userId, await getTrajectoryForPlayer(db, item.trajectoryId));
}

const itemReads = itemPlayerReads(requireItem);
/** A window of the item's steps, by item number, under the same check as the item itself. */
export const itemStepWindow = itemReads.stepWindow;
/** Queues the item's screenshots at the player's width. */
export const warmItemImages = itemReads.warmImages;

/** The annotator's most recent labels in a campaign, to go back and revise one. */
export async function myRecentLabels(db: Db, actor: Actor, campaignId: number, limit = 50) {
  const campaign = await requireCampaign(db, campaignId);
  await assertCampaignVisible(db, actor, campaign);
  const [rows, gold] = await Promise.all([labelsOfUser(db, campaignId, actor.userId, limit), goldItemIds(db, campaignId)]);
  return rows.map((r) => ({
    itemNo: r.itemNo ?? 0,
    externalTaskId: r.externalTaskId,
    intent: r.intent,
    verdict: r.label.verdict,
    category: r.label.category,
    revision: r.label.revision,
    updatedAt: r.label.updatedAt,
    itemState: gold.has(r.label.itemId) ? ("open" as const) : r.itemState,
  }));
}

/** What a campaign's annotator needs to label: instructions and the label schema (no progress of others). */
export async function campaignForAnnotator(db: Db, actor: Actor, campaignId: number) {
  const c = await requireCampaign(db, campaignId);
  await assertCampaignVisible(db, actor, c);
  return {
    id: c.id,
    name: c.name,
    /** label, or pairwise: a pairwise campaign's items are pairs, answered through the pairwise procedures. */
    kind: c.kind,
    instructions: c.instructions,
    guidelineVersion: c.guidelineVersion,
    templateId: c.templateId,
    templateVersion: c.templateVersion,
    labelSchema: c.labelSchema,
    blind: c.blind,
    /** True when the campaign shows an evaluator's verdict after each blind submit (which one is said then). */
    reveal: c.revealEvaluator !== null,
    status: c.status,
    annotatorsPerItem: c.annotatorsPerItem,
    reservationMinutes: c.reservationMinutes,
    isAnnotator: await isCampaignAnnotator(db, campaignId, actor.userId),
  };
}
