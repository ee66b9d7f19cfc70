/**
 * Annotation campaigns, reservations, labels and their history, consolidated labels, and the blind rule's
 * look-ups: every query on the annotation tables lives here. Multi-statement changes are made atomic by the
 * service (server/services/annotation), which calls these inside one immediate transaction.
 */
import { and, asc, count, desc, eq, gt, inArray, isNull, ne, sql, type SQL } from "drizzle-orm";
import type { Db } from "../client";
import {
  agentRuns,
  annotationCampaigns,
  campaignAnnotators,
  campaignQaReviewers,
  campaignItems,
  consolidatedLabels,
  consolidationEvents,
  evaluationReveals,
  labelRevisions,
  labels,
  reservations,
  taskSets,
  tasks,
  trajectories,
  users,
  type CampaignRow,
  type CampaignItemRow,
  type ConsolidatedLabelRow,
  type LabelRevisionRow,
  type LabelRow,
} from "../schema/index";
import type { ItemState } from "../../server/domain/annotation/label-schema";

const CHUNK = 500;

/**
 * Prepared statements for the queries every "next" and "submit" runs, built once per connection: drizzle
 * otherwise rebuilds the SQL text and SQLite recompiles it on each call, which is most of their cost.
 */
const statementCache = new WeakMap<Db, Map<string, unknown>>();
function prepared<T>(db: Db, key: string, build: () => T): T {
  let forDb = statementCache.get(db);
  if (!forDb) statementCache.set(db, (forDb = new Map()));
  let stmt = forDb.get(key) as T | undefined;
  if (!stmt) {
    stmt = build();
    forDb.set(key, stmt);
  }
  return stmt;
}
const P = sql.placeholder;

export function userAnnotatorKey(userId: string): string {
  return `user:${userId}`;
}

export function importedAnnotatorKey(name: string): string {
  return `import:${name}`;
}

// ---------------------------------------------------------------- campaigns

export type CampaignValues = typeof annotationCampaigns.$inferInsert;

export function insertCampaign(db: Db, v: CampaignValues): number {
  return db.insert(annotationCampaigns).values(v).returning({ id: annotationCampaigns.id }).get().id;
}

export function updateCampaign(db: Db, id: number, patch: Partial<CampaignValues>): void {
  db.update(annotationCampaigns)
    .set({ ...patch, updatedAt: new Date() })
    .where(eq(annotationCampaigns.id, id))
    .run();
}

export function getCampaign(db: Db, id: number): CampaignRow | undefined {
  return prepared(db, "getCampaign", () => db.select().from(annotationCampaigns).where(eq(annotationCampaigns.id, P("id"))).prepare()).get({ id });
}

export function getCampaignByName(db: Db, name: string): CampaignRow | undefined {
  return db.select().from(annotationCampaigns).where(eq(annotationCampaigns.name, name)).get();
}

export function deleteCampaign(db: Db, id: number): void {
  db.delete(annotationCampaigns).where(eq(annotationCampaigns.id, id)).run();
}

export interface CampaignCounts {
  items: number;
  open: number;
  agreed: number;
  disputed: number;
  adjudicated: number;
  labels: number;
  annotators: number;
}

/** Item counts per state, label and annotator counts, for every campaign (or those listed). */
export function campaignCounts(db: Db, campaignIds?: number[]): Map<number, CampaignCounts> {
  const out = new Map<number, CampaignCounts>();
  const blank = (): CampaignCounts => ({ items: 0, open: 0, agreed: 0, disputed: 0, adjudicated: 0, labels: 0, annotators: 0 });
  const get = (id: number) => {
    let c = out.get(id);
    if (!c) out.set(id, (c = blank()));
    return c;
  };
  for (const id of campaignIds ?? []) get(id);
  const itemWhere = campaignIds ? inArray(campaignItems.campaignId, campaignIds) : undefined;
  for (const r of db
    .select({ campaignId: campaignItems.campaignId, state: campaignItems.state, n: count() })
    .from(campaignItems)
    .where(itemWhere)
    .groupBy(campaignItems.campaignId, campaignItems.state)
    .all()) {
    const c = get(r.campaignId);
    c.items += r.n;
    c[r.state] += r.n;
  }
  for (const r of db
    .select({ campaignId: labels.campaignId, n: count() })
    .from(labels)
    .where(and(eq(labels.status, "active"), campaignIds ? inArray(labels.campaignId, campaignIds) : undefined))
    .groupBy(labels.campaignId)
    .all()) {
    get(r.campaignId).labels = r.n;
  }
  for (const r of db
    .select({ campaignId: campaignAnnotators.campaignId, n: count() })
    .from(campaignAnnotators)
    .where(campaignIds ? inArray(campaignAnnotators.campaignId, campaignIds) : undefined)
    .groupBy(campaignAnnotators.campaignId)
    .all()) {
    get(r.campaignId).annotators = r.n;
  }
  return out;
}

export function listCampaigns(db: Db): CampaignRow[] {
  return db.select().from(annotationCampaigns).orderBy(desc(annotationCampaigns.id)).all();
}

/** Campaigns a user may label in. */
export function listCampaignsOfAnnotator(db: Db, userId: string): CampaignRow[] {
  return db
    .select({ c: annotationCampaigns })
    .from(annotationCampaigns)
    .innerJoin(campaignAnnotators, eq(campaignAnnotators.campaignId, annotationCampaigns.id))
    .where(eq(campaignAnnotators.userId, userId))
    .orderBy(desc(annotationCampaigns.id))
    .all()
    .map((r) => r.c);
}

/**
 * Adds trajectories to a campaign; ones already in it are left alone. New items take the numbers after the
 * campaign's highest, in the order `orderNumbers` puts them (the service shuffles them). Returns how many were added.
 */
export function insertCampaignItems(db: Db, campaignId: number, trajectoryIds: number[], orderNumbers: (numbers: number[]) => number[] = (n) => n): number {
  const present = new Set(
    db.select({ t: campaignItems.trajectoryId }).from(campaignItems).where(eq(campaignItems.campaignId, campaignId)).all().map((r) => r.t),
  );
  const fresh = [...new Set(trajectoryIds)].filter((t) => !present.has(t));
  const first = (db.get<{ n: number | null }>(sql`select max(item_no) as n from ${campaignItems} where campaign_id = ${campaignId}`)?.n ?? 0) + 1;
  const numbers = orderNumbers(fresh.map((_, i) => first + i));
  let added = 0;
  for (let i = 0; i < fresh.length; i += CHUNK) {
    added += db
      .insert(campaignItems)
      .values(fresh.slice(i, i + CHUNK).map((trajectoryId, j) => ({ campaignId, trajectoryId, itemNo: numbers[i + j]! })))
      .onConflictDoNothing()
      .run().changes;
  }
  return added;
}

/** An item by its campaign-local number (what annotators see instead of trajectory ids). */
export function getItemByNumber(db: Db, campaignId: number, itemNo: number): CampaignItemRow | undefined {
  return prepared(db, "getItemByNumber", () =>
    db
      .select()
      .from(campaignItems)
      .where(and(eq(campaignItems.campaignId, P("campaignId")), eq(campaignItems.itemNo, P("itemNo"))))
      .prepare(),
  ).get({ campaignId, itemNo });
}

export function getItem(db: Db, itemId: number): CampaignItemRow | undefined {
  return db.select().from(campaignItems).where(eq(campaignItems.id, itemId)).get();
}

export function getItemByTrajectory(db: Db, campaignId: number, trajectoryId: number): CampaignItemRow | undefined {
  return prepared(db, "getItemByTrajectory", () =>
    db
      .select()
      .from(campaignItems)
      .where(and(eq(campaignItems.campaignId, P("campaignId")), eq(campaignItems.trajectoryId, P("trajectoryId"))))
      .prepare(),
  ).get({ campaignId, trajectoryId });
}

export function campaignItemIds(db: Db, campaignId: number): { id: number; trajectoryId: number; state: ItemState; labelCount: number; qaReviewedAt: Date | null }[] {
  return db
    .select({ id: campaignItems.id, trajectoryId: campaignItems.trajectoryId, state: campaignItems.state, labelCount: campaignItems.labelCount, qaReviewedAt: campaignItems.qaReviewedAt })
    .from(campaignItems)
    .where(eq(campaignItems.campaignId, campaignId))
    .orderBy(asc(campaignItems.id))
    .all();
}

export function setItemState(db: Db, itemId: number, state: ItemState, labelCount?: number): void {
  if (labelCount === undefined) {
    db.update(campaignItems).set({ state }).where(eq(campaignItems.id, itemId)).run();
    return;
  }
  prepared(db, "setItemStateAndCount", () =>
    db
      .update(campaignItems)
      .set({ state: sql`${P("state")}`, labelCount: sql`${P("labelCount")}` })
      .where(eq(campaignItems.id, P("itemId")))
      .prepare(),
  ).run({ state, labelCount, itemId });
}

export function addCampaignAnnotators(db: Db, campaignId: number, userIds: string[]): number {
  if (!userIds.length) return 0;
  return db
    .insert(campaignAnnotators)
    .values(userIds.map((userId) => ({ campaignId, userId })))
    .onConflictDoNothing()
    .run().changes;
}

export function removeCampaignAnnotators(db: Db, campaignId: number, userIds: string[]): number {
  if (!userIds.length) return 0;
  return db
    .delete(campaignAnnotators)
    .where(and(eq(campaignAnnotators.campaignId, campaignId), inArray(campaignAnnotators.userId, userIds)))
    .run().changes;
}

export function isCampaignAnnotator(db: Db, campaignId: number, userId: string): boolean {
  return !!prepared(db, "isCampaignAnnotator", () =>
    db
      .select({ one: sql`1` })
      .from(campaignAnnotators)
      .where(and(eq(campaignAnnotators.campaignId, P("campaignId")), eq(campaignAnnotators.userId, P("userId"))))
      .prepare(),
  ).get({ campaignId, userId });
}

export function campaignAnnotatorList(db: Db, campaignId: number) {
  return db
    .select({ userId: users.id, name: users.name, email: users.email, role: users.role, addedAt: campaignAnnotators.addedAt })
    .from(campaignAnnotators)
    .innerJoin(users, eq(users.id, campaignAnnotators.userId))
    .where(eq(campaignAnnotators.campaignId, campaignId))
    .orderBy(asc(users.name))
    .all();
}

/** Per annotator of a campaign: labels submitted, time spent, and whether they hold a live reservation. */
export function annotatorProgress(db: Db, campaignId: number, nowMs: number) {
  const done = db
    .select({
      annotatorKey: labels.annotatorKey,
      userId: labels.userId,
      name: labels.annotatorName,
      labelled: count(),
      success: sql<number>`sum(case when ${labels.verdict} = 'success' then 1 else 0 end)`,
      failure: sql<number>`sum(case when ${labels.verdict} = 'failure' then 1 else 0 end)`,
      unsure: sql<number>`sum(case when ${labels.verdict} = 'unsure' then 1 else 0 end)`,
      meanTimeMs: sql<number | null>`avg(${labels.timeSpentMs})`,
      lastAt: sql<number | null>`max(${labels.updatedAt})`,
    })
    .from(labels)
    .where(and(eq(labels.campaignId, campaignId), eq(labels.status, "active")))
    .groupBy(labels.annotatorKey)
    .all();
  const reserved = db
    .select({ userId: reservations.userId, n: count() })
    .from(reservations)
    .where(and(eq(reservations.campaignId, campaignId), eq(reservations.status, "active"), gt(reservations.expiresAt, new Date(nowMs))))
    .groupBy(reservations.userId)
    .all();
  return { done, reserved };
}

// ---------------------------------------------------------------- queue

/** The item a user holds a live reservation on and has not labelled yet, if any (oldest first). */
export function findLiveReservation(db: Db, campaignId: number, userId: string, nowMs: number): { itemId: number; trajectoryId: number; reservedAt: Date; expiresAt: Date } | undefined {
  return prepared(db, "findLiveReservation", () =>
    db
      .select({ itemId: reservations.itemId, trajectoryId: campaignItems.trajectoryId, reservedAt: reservations.reservedAt, expiresAt: reservations.expiresAt })
      .from(reservations)
      .innerJoin(campaignItems, eq(campaignItems.id, reservations.itemId))
      .where(
        and(
          eq(reservations.campaignId, P("campaignId")),
          eq(reservations.userId, P("userId")),
          eq(reservations.status, "active"),
          sql`${reservations.expiresAt} > ${P("nowMs")}`,
          eq(campaignItems.state, "open"),
          sql`not exists (select 1 from ${labels} where ${labels.itemId} = ${reservations.itemId} and ${labels.annotatorKey} = ${P("key")} and ${labels.status} = 'active')`,
        ),
      )
      .orderBy(asc(reservations.reservedAt))
      .limit(1)
      .prepare(),
  ).get({ campaignId, userId, nowMs, key: userAnnotatorKey(userId) });
}

/**
 * Candidates for a user's next item, in queue order: open, fewer than `needed` labels, not labelled by the user;
 * fewest labels first, then the user's own pseudo-random order (see queueOrderSalt). `skipped` chooses between
 * the items the user has not skipped and those they have. The caller adds live reservations (few) on top.
 */
export function nextCandidates(
  db: Db,
  q: { campaignId: number; userId: string; needed: number; salt: number; skipped: boolean; offset: number; limit: number },
): { itemId: number; trajectoryId: number; labelCount: number }[] {
  const build = (skipped: boolean) => {
    const skippedByUser = sql`exists (select 1 from ${reservations} s where s.item_id = ${campaignItems.id} and s.user_id = ${P("userId")} and s.status = 'skipped')`;
    // (id XOR salt) * 2654435761 mod 2^32; SQLite has no XOR, a ^ b = (a | b) - (a & b).
    const order = sql`((((${campaignItems.id} | ${P("salt")}) - (${campaignItems.id} & ${P("salt")})) * 2654435761) % 4294967296)`;
    return db
      .select({ itemId: campaignItems.id, trajectoryId: campaignItems.trajectoryId, labelCount: campaignItems.labelCount })
      .from(campaignItems)
      .where(
        and(
          eq(campaignItems.campaignId, P("campaignId")),
          eq(campaignItems.state, "open"),
          sql`${campaignItems.labelCount} < ${P("needed")}`,
          sql`not exists (select 1 from ${labels} m where m.item_id = ${campaignItems.id} and m.annotator_key = ${P("key")} and m.status = 'active')`,
          skipped ? skippedByUser : sql`not ${skippedByUser}`,
        ),
      )
      .orderBy(asc(campaignItems.labelCount), asc(order))
      .limit(P("limit"))
      .offset(P("offset"))
      .prepare();
  };
  return prepared(db, q.skipped ? "nextCandidates:skipped" : "nextCandidates", () => build(q.skipped)).all({
    campaignId: q.campaignId,
    userId: q.userId,
    key: userAnnotatorKey(q.userId),
    needed: q.needed,
    salt: q.salt,
    limit: q.limit,
    offset: q.offset,
  });
}

/** Live reservations of other users in a campaign, per item. */
export function liveReservationCounts(db: Db, campaignId: number, exceptUserId: string, nowMs: number): Map<number, number> {
  const rows = prepared(db, "liveReservationCounts", () =>
    db
      .select({ itemId: reservations.itemId, n: count() })
      .from(reservations)
      .where(
        and(
          eq(reservations.campaignId, P("campaignId")),
          eq(reservations.status, "active"),
          sql`${reservations.expiresAt} > ${P("nowMs")}`,
          ne(reservations.userId, P("userId")),
        ),
      )
      .groupBy(reservations.itemId)
      .prepare(),
  ).all({ campaignId, nowMs, userId: exceptUserId });
  return new Map(rows.map((r) => [r.itemId, r.n]));
}

export function upsertReservation(db: Db, v: { campaignId: number; itemId: number; userId: string; status: "active" | "skipped"; reservedAt: Date; expiresAt: Date }): void {
  db.insert(reservations)
    .values(v)
    .onConflictDoUpdate({
      target: [reservations.itemId, reservations.userId],
      set: { status: v.status, reservedAt: v.reservedAt, expiresAt: v.expiresAt },
    })
    .run();
}

export function getReservation(db: Db, itemId: number, userId: string) {
  return db
    .select()
    .from(reservations)
    .where(and(eq(reservations.itemId, itemId), eq(reservations.userId, userId)))
    .get();
}

export function deleteReservation(db: Db, itemId: number, userId: string): void {
  prepared(db, "deleteReservation", () =>
    db
      .delete(reservations)
      .where(and(eq(reservations.itemId, P("itemId")), eq(reservations.userId, P("userId"))))
      .prepare(),
  ).run({ itemId, userId });
}

/** Ends a user's live reservations in a campaign (e.g. on leaving the queue). */
export function releaseReservations(db: Db, campaignId: number, userId: string): number {
  return db
    .delete(reservations)
    .where(and(eq(reservations.campaignId, campaignId), eq(reservations.userId, userId), eq(reservations.status, "active")))
    .run().changes;
}

/**
 * Items of a campaign the user could still label (open, short of labels, not labelled by them), for the queue
 * page's counter. Items other people hold right now are included: their reservations may lapse.
 */
export function remainingForUser(db: Db, campaignId: number, userId: string, needed: number): number {
  return prepared(db, "remainingForUser", () =>
    db
      .select({ n: count() })
      .from(campaignItems)
      .where(
        and(
          eq(campaignItems.campaignId, P("campaignId")),
          eq(campaignItems.state, "open"),
          sql`${campaignItems.labelCount} < ${P("needed")}`,
          sql`not exists (select 1 from ${labels} m where m.item_id = ${campaignItems.id} and m.annotator_key = ${P("key")} and m.status = 'active')`,
        ),
      )
      .prepare(),
  ).get({ campaignId, needed, key: userAnnotatorKey(userId) })!.n;
}

// ---------------------------------------------------------------- labels

export function getLabelByKey(db: Db, itemId: number, annotatorKey: string): LabelRow | undefined {
  return prepared(db, "getLabelByKey", () =>
    db
      .select()
      .from(labels)
      .where(and(eq(labels.itemId, P("itemId")), eq(labels.annotatorKey, P("annotatorKey"))))
      .prepare(),
  ).get({ itemId, annotatorKey });
}

export function getLabel(db: Db, id: number): LabelRow | undefined {
  return prepared(db, "getLabel", () => db.select().from(labels).where(eq(labels.id, P("id"))).prepare()).get({ id });
}

export function insertLabel(db: Db, v: typeof labels.$inferInsert): LabelRow {
  return db.insert(labels).values(v).returning().get();
}

export function updateLabel(db: Db, id: number, patch: Partial<typeof labels.$inferInsert>): LabelRow {
  return db
    .update(labels)
    .set({ ...patch, updatedAt: new Date() })
    .where(eq(labels.id, id))
    .returning()
    .get();
}

export function activeLabelsOfItem(db: Db, itemId: number): LabelRow[] {
  return prepared(db, "activeLabelsOfItem", () =>
    db
      .select()
      .from(labels)
      .where(and(eq(labels.itemId, P("itemId")), eq(labels.status, "active")))
      .orderBy(asc(labels.id))
      .prepare(),
  ).all({ itemId });
}

export function labelsOfItem(db: Db, itemId: number): LabelRow[] {
  return db.select().from(labels).where(eq(labels.itemId, itemId)).orderBy(asc(labels.id)).all();
}

/** Active labels on a trajectory in every campaign, with the campaign's name and blind flag. */
export function labelsOfTrajectory(db: Db, trajectoryId: number) {
  return db
    .select({ label: labels, campaignName: annotationCampaigns.name, blind: annotationCampaigns.blind })
    .from(labels)
    .innerJoin(annotationCampaigns, eq(annotationCampaigns.id, labels.campaignId))
    .where(and(eq(labels.trajectoryId, trajectoryId), eq(labels.status, "active")))
    .orderBy(asc(labels.campaignId), asc(labels.id))
    .all();
}

export function insertRevision(db: Db, v: typeof labelRevisions.$inferInsert): LabelRevisionRow {
  return db.insert(labelRevisions).values(v).returning().get();
}

export function getRevision(db: Db, id: number): LabelRevisionRow | undefined {
  return db.select().from(labelRevisions).where(eq(labelRevisions.id, id)).get();
}

export function getRevisionByKey(db: Db, idempotencyKey: string): LabelRevisionRow | undefined {
  return prepared(db, "getRevisionByKey", () =>
    db.select().from(labelRevisions).where(eq(labelRevisions.idempotencyKey, P("key"))).prepare(),
  ).get({ key: idempotencyKey });
}

export function getRevisionOfLabel(db: Db, labelId: number, revision: number): LabelRevisionRow | undefined {
  return db
    .select()
    .from(labelRevisions)
    .where(and(eq(labelRevisions.labelId, labelId), eq(labelRevisions.revision, revision)))
    .get();
}

export function markRevisionUndone(db: Db, id: number, undoneBy: number): void {
  db.update(labelRevisions).set({ undoneByRevisionId: undoneBy }).where(eq(labelRevisions.id, id)).run();
}

/** A user's most recent submit in a campaign that no undo has reverted yet. */
export function lastUndoableSubmit(db: Db, campaignId: number, userId: string): LabelRevisionRow | undefined {
  return db
    .select()
    .from(labelRevisions)
    .where(
      and(
        eq(labelRevisions.campaignId, campaignId),
        eq(labelRevisions.actorId, userId),
        eq(labelRevisions.action, "submit"),
        isNull(labelRevisions.undoneByRevisionId),
      ),
    )
    .orderBy(desc(labelRevisions.id))
    .limit(1)
    .get();
}

export function labelHistory(db: Db, labelId: number): LabelRevisionRow[] {
  return db.select().from(labelRevisions).where(eq(labelRevisions.labelId, labelId)).orderBy(asc(labelRevisions.revision)).all();
}

/** Every revision of every label on an item, oldest first. */
export function itemHistory(db: Db, itemId: number): LabelRevisionRow[] {
  return db
    .select({ r: labelRevisions })
    .from(labelRevisions)
    .innerJoin(labels, eq(labels.id, labelRevisions.labelId))
    .where(eq(labels.itemId, itemId))
    .orderBy(asc(labelRevisions.id))
    .all()
    .map((x) => x.r);
}

/** A user's labels in a campaign, newest first (their "done" list). */
export function labelsOfUser(db: Db, campaignId: number, userId: string, limit: number) {
  return db
    .select({ label: labels, itemNo: campaignItems.itemNo, externalTaskId: tasks.externalId, intent: tasks.intent, itemState: campaignItems.state })
    .from(labels)
    .innerJoin(campaignItems, eq(campaignItems.id, labels.itemId))
    .innerJoin(trajectories, eq(trajectories.id, labels.trajectoryId))
    .innerJoin(tasks, eq(tasks.id, trajectories.taskId))
    .where(and(eq(labels.campaignId, campaignId), eq(labels.annotatorKey, userAnnotatorKey(userId)), eq(labels.status, "active")))
    .orderBy(desc(labels.updatedAt))
    .limit(limit)
    .all();
}

// ---------------------------------------------------------------- consolidation

export function getConsolidated(db: Db, itemId: number): ConsolidatedLabelRow | undefined {
  return prepared(db, "getConsolidated", () =>
    db.select().from(consolidatedLabels).where(eq(consolidatedLabels.itemId, P("itemId"))).prepare(),
  ).get({ itemId });
}

export function upsertConsolidated(db: Db, v: typeof consolidatedLabels.$inferInsert): void {
  db.insert(consolidatedLabels)
    .values(v)
    .onConflictDoUpdate({
      target: consolidatedLabels.itemId,
      set: {
        verdict: v.verdict,
        category: v.category ?? null,
        firstFailingStep: v.firstFailingStep ?? null,
        method: v.method,
        adjudicatorId: v.adjudicatorId ?? null,
        adjudicatorName: v.adjudicatorName ?? null,
        reason: v.reason ?? null,
        confidence: v.confidence ?? null,
        disagreementSource: v.disagreementSource ?? null,
        qaDecision: v.qaDecision ?? null,
        qaReviewerName: v.qaReviewerName ?? null,
        basedOn: v.basedOn,
        updatedAt: new Date(),
      },
    })
    .run();
}

/** Marks an item QA-reviewed at `at`, or (null) not reviewed: a reopened item needs QA again. */
export function setItemQaReviewed(db: Db, itemId: number, at: Date | null): void {
  db.update(campaignItems).set({ qaReviewedAt: at }).where(eq(campaignItems.id, itemId)).run();
}

/** What protocol compliance is computed from: each item's label count, state and QA review. */
export function complianceItems(db: Db, campaignId: number): { labelCount: number; state: ItemState; qaDone: boolean }[] {
  return db
    .select({ labelCount: campaignItems.labelCount, state: campaignItems.state, qaReviewedAt: campaignItems.qaReviewedAt })
    .from(campaignItems)
    .where(eq(campaignItems.campaignId, campaignId))
    .all()
    .map((r) => ({ labelCount: r.labelCount, state: r.state, qaDone: r.qaReviewedAt !== null }));
}

/** Active labels of a campaign per guideline version they were made under. */
export function labelGuidelineVersionCounts(db: Db, campaignId: number): { version: number | null; labels: number }[] {
  return db
    .select({ version: labels.guidelineVersion, labels: count() })
    .from(labels)
    .where(and(eq(labels.campaignId, campaignId), eq(labels.status, "active")))
    .groupBy(labels.guidelineVersion)
    .all();
}

/** Adjudicated or QA-reviewed consolidated labels of campaigns, for the tallies of confidence and disagreement source. */
export function decisionTallies(db: Db, campaignIds: number[]) {
  if (!campaignIds.length) return [];
  return db
    .select({
      method: consolidatedLabels.method,
      qaDecision: consolidatedLabels.qaDecision,
      confidence: consolidatedLabels.confidence,
      disagreementSource: consolidatedLabels.disagreementSource,
      n: count(),
    })
    .from(consolidatedLabels)
    .where(and(inArray(consolidatedLabels.campaignId, campaignIds), sql`(${consolidatedLabels.method} = 'adjudicated' or ${consolidatedLabels.qaDecision} is not null)`))
    .groupBy(consolidatedLabels.method, consolidatedLabels.qaDecision, consolidatedLabels.confidence, consolidatedLabels.disagreementSource)
    .all();
}

// ---------------------------------------------------------------- QA reviewers

export function addQaReviewers(db: Db, campaignId: number, userIds: string[]): number {
  let n = 0;
  for (const userId of userIds) n += db.insert(campaignQaReviewers).values({ campaignId, userId }).onConflictDoNothing().run().changes;
  return n;
}

export function removeQaReviewers(db: Db, campaignId: number, userIds: string[]): number {
  if (!userIds.length) return 0;
  return db.delete(campaignQaReviewers).where(and(eq(campaignQaReviewers.campaignId, campaignId), inArray(campaignQaReviewers.userId, userIds))).run().changes;
}

export function isQaReviewer(db: Db, campaignId: number, userId: string): boolean {
  return !!db.select({ one: sql`1` }).from(campaignQaReviewers).where(and(eq(campaignQaReviewers.campaignId, campaignId), eq(campaignQaReviewers.userId, userId))).get();
}

export function qaReviewerList(db: Db, campaignId: number) {
  return db
    .select({ userId: users.id, name: users.name, email: users.email })
    .from(campaignQaReviewers)
    .innerJoin(users, eq(users.id, campaignQaReviewers.userId))
    .where(eq(campaignQaReviewers.campaignId, campaignId))
    .orderBy(asc(users.name))
    .all();
}

export function deleteConsolidated(db: Db, itemId: number): boolean {
  return db.delete(consolidatedLabels).where(eq(consolidatedLabels.itemId, itemId)).run().changes > 0;
}

export function insertConsolidationEvent(db: Db, v: typeof consolidationEvents.$inferInsert): void {
  db.insert(consolidationEvents).values(v).run();
}

export function consolidationHistory(db: Db, itemId: number) {
  return db.select().from(consolidationEvents).where(eq(consolidationEvents.itemId, itemId)).orderBy(asc(consolidationEvents.id)).all();
}

/** Items of a campaign in the given states, with task context, oldest first; for the adjudication queue. */
export function listItemsInStates(db: Db, campaignId: number, states: ItemState[], page: { offset: number; limit: number }, qa?: "pending" | "done") {
  const where = and(
    eq(campaignItems.campaignId, campaignId),
    inArray(campaignItems.state, states),
    qa === "pending" ? isNull(campaignItems.qaReviewedAt) : qa === "done" ? sql`${campaignItems.qaReviewedAt} is not null` : undefined,
  );
  const rows = db
    .select({
      itemId: campaignItems.id,
      trajectoryId: campaignItems.trajectoryId,
      state: campaignItems.state,
      itemNo: campaignItems.itemNo,
      qaReviewedAt: campaignItems.qaReviewedAt,
      externalTaskId: tasks.externalId,
      site: tasks.site,
      intent: tasks.intent,
      runName: agentRuns.name,
      model: agentRuns.model,
      stepCount: trajectories.stepCount,
    })
    .from(campaignItems)
    .innerJoin(trajectories, eq(trajectories.id, campaignItems.trajectoryId))
    .innerJoin(tasks, eq(tasks.id, trajectories.taskId))
    .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId))
    .where(where)
    .orderBy(asc(campaignItems.id))
    .limit(page.limit)
    .offset(page.offset)
    .all();
  const total = db.select({ n: count() }).from(campaignItems).where(where).get()!.n;
  return { rows, total };
}

/** Active labels of many items at once (adjudication queue summaries). */
export function activeLabelsOfItems(db: Db, itemIds: number[]): LabelRow[] {
  const out: LabelRow[] = [];
  for (let i = 0; i < itemIds.length; i += CHUNK) {
    out.push(
      ...db
        .select()
        .from(labels)
        .where(and(inArray(labels.itemId, itemIds.slice(i, i + CHUNK)), eq(labels.status, "active")))
        .orderBy(asc(labels.id))
        .all(),
    );
  }
  return out;
}

/** Consolidated labels of a campaign (or of every campaign), keyed by trajectory for comparisons with judges. */
export function listConsolidated(db: Db, campaignId?: number): ConsolidatedLabelRow[] {
  return db
    .select()
    .from(consolidatedLabels)
    .where(campaignId !== undefined ? eq(consolidatedLabels.campaignId, campaignId) : undefined)
    .orderBy(asc(consolidatedLabels.itemId))
    .all();
}

// ---------------------------------------------------------------- blind rule

/**
 * Trajectories whose evaluations a user may not see yet: they are an annotator of a blind campaign that contains
 * the trajectory and have no active label on it there. Closed campaigns count too: closing a campaign does not
 * show its evaluations to someone who never labelled (a researcher lifts the blind by turning `blind` off). As an
 * SQL subquery, for list queries.
 */
export function blindedTrajectoryIdsSql(userId: string): SQL {
  return sql`(select ci.trajectory_id from ${campaignItems} ci
    join ${annotationCampaigns} c on c.id = ci.campaign_id and c.blind = 1
    join ${campaignAnnotators} ca on ca.campaign_id = c.id and ca.user_id = ${userId}
    where not exists (select 1 from ${labels} l where l.item_id = ci.id and l.annotator_key = ${userAnnotatorKey(userId)} and l.status = 'active'))`;
}

export function isBlindedFor(db: Db, userId: string, trajectoryId: number): boolean {
  const row = db.get<{ one: number } | undefined>(
    sql`select 1 as one from ${campaignItems} ci
      join ${annotationCampaigns} c on c.id = ci.campaign_id and c.blind = 1
      join ${campaignAnnotators} ca on ca.campaign_id = c.id and ca.user_id = ${userId}
      where ci.trajectory_id = ${trajectoryId}
        and not exists (select 1 from ${labels} l where l.item_id = ci.id and l.annotator_key = ${userAnnotatorKey(userId)} and l.status = 'active')
      limit 1`,
  );
  return !!row;
}

export function blindedTrajectoryIds(db: Db, userId: string): number[] {
  return db.all<{ trajectory_id: number }>(sql`select distinct trajectory_id from ${blindedTrajectoryIdsSql(userId)}`).map((r) => r.trajectory_id);
}

/** Campaigns in which the user still has trajectories to label blind. */
export function campaignsLabellingBlind(db: Db, userId: string): Set<number> {
  return new Set(
    db
      .all<{ campaign_id: number }>(
        sql`select distinct ci.campaign_id from ${campaignItems} ci
          join ${annotationCampaigns} c on c.id = ci.campaign_id and c.blind = 1
          join ${campaignAnnotators} ca on ca.campaign_id = c.id and ca.user_id = ${userId}
          where not exists (select 1 from ${labels} l where l.item_id = ci.id and l.annotator_key = ${userAnnotatorKey(userId)} and l.status = 'active')`,
      )
      .map((r) => r.campaign_id),
  );
}

/** How many active labels the user has in each of the given campaigns (their own progress). */
export function ownLabelCounts(db: Db, userId: string, campaignIds: number[]): Map<number, number> {
  if (!campaignIds.length) return new Map();
  const rows = db
    .select({ campaignId: labels.campaignId, n: count() })
    .from(labels)
    .where(and(inArray(labels.campaignId, campaignIds), eq(labels.annotatorKey, userAnnotatorKey(userId)), eq(labels.status, "active")))
    .groupBy(labels.campaignId)
    .all();
  return new Map(rows.map((r) => [r.campaignId, r.n]));
}

/** How many trajectories the user has still to label blind (0: the blind rule hides nothing from them). */
export function labellingBlindCount(db: Db, userId: string): number {
  return db.get<{ n: number }>(sql`select count(distinct trajectory_id) as n from ${blindedTrajectoryIdsSql(userId)}`)!.n;
}

/** True when the user labels the trajectory in some blind campaign (revealing it to them is worth noting). */
export function labelsInBlindCampaign(db: Db, userId: string, trajectoryId: number): boolean {
  const row = db.get<{ one: number } | undefined>(
    sql`select 1 as one from ${labels} l join ${annotationCampaigns} c on c.id = l.campaign_id and c.blind = 1
      where l.trajectory_id = ${trajectoryId} and l.annotator_key = ${userAnnotatorKey(userId)} and l.status = 'active' limit 1`,
  );
  return !!row;
}

export function recordReveal(db: Db, userId: string, trajectoryId: number): void {
  db.insert(evaluationReveals).values({ userId, trajectoryId, revealedAt: new Date() }).onConflictDoNothing().run();
}

export function hasRevealed(db: Db, userId: string, trajectoryId: number): boolean {
  return !!prepared(db, "hasRevealed", () =>
    db
      .select({ one: sql`1` })
      .from(evaluationReveals)
      .where(and(eq(evaluationReveals.userId, P("userId")), eq(evaluationReveals.trajectoryId, P("trajectoryId"))))
      .prepare(),
  ).get({ userId, trajectoryId });
}

/** Trajectories in the queues of a user's campaigns: what an annotator may browse. */
export function annotatorTrajectoryIdsSql(userId: string): SQL {
  return sql`(select ci.trajectory_id from ${campaignItems} ci
    join ${campaignAnnotators} ca on ca.campaign_id = ci.campaign_id and ca.user_id = ${userId})`;
}

export function isInAnnotatorCampaigns(db: Db, userId: string, trajectoryId: number): boolean {
  const row = db.get<{ one: number } | undefined>(
    sql`select 1 as one from ${campaignItems} ci join ${campaignAnnotators} ca on ca.campaign_id = ci.campaign_id and ca.user_id = ${userId}
      where ci.trajectory_id = ${trajectoryId} limit 1`,
  );
  return !!row;
}

/** True when a trajectory of the task is in one of the user's campaigns. */
export function taskInAnnotatorCampaigns(db: Db, userId: string, taskId: number): boolean {
  return !!db.get<{ one: number } | undefined>(
    sql`select 1 as one from ${trajectories} t where t.task_id = ${taskId} and t.id in ${annotatorTrajectoryIdsSql(userId)} limit 1`,
  );
}

/** True when the user has a trajectory of the task still to label blind. */
export function taskLabelledBlindBy(db: Db, userId: string, taskId: number): boolean {
  return !!db.get<{ one: number } | undefined>(
    sql`select 1 as one from ${trajectories} t where t.task_id = ${taskId} and t.id in ${blindedTrajectoryIdsSql(userId)} limit 1`,
  );
}

/**
 * True when the screenshot is one the user may see: shown in a step of (or given as an input image of the task
 * of) a trajectory in their campaigns that the blind rule does not hide. Blind items' screenshots are allowed
 * too: the annotator sees them in the labelling player (by item number), and a content hash says nothing of the run.
 */
export function screenshotInAnnotatorCampaigns(db: Db, userId: string, hash: string): boolean {
  // Correlated per step (few share a hash), index searches only, rather than building the
  // user's whole campaign list on every image request; prepared once, as the player asks for many images.
  const statement = prepared(db, "screenshotInAnnotatorCampaigns", () =>
    db.$client.prepare(
      `select 1 as one where exists (select 1 from steps s where s.screenshot_hash = @hash and ${CAMPAIGN_HAS_STEP})
        or exists (select 1 from steps s where s.raw_screenshot_hash = @hash and ${CAMPAIGN_HAS_STEP})`,
    ),
  );
  return !!statement.get({ hash, userId });
}

const CAMPAIGN_HAS_STEP = `exists (select 1 from campaign_items ci join campaign_annotators ca on ca.campaign_id = ci.campaign_id and ca.user_id = @userId
  where ci.trajectory_id = s.trajectory_id)`;

// ---------------------------------------------------------------- trajectories (look-ups for campaigns)

export function existingTrajectoryIds(db: Db, ids: number[]): Set<number> {
  const out = new Set<number>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    for (const r of db.select({ id: trajectories.id }).from(trajectories).where(inArray(trajectories.id, ids.slice(i, i + CHUNK))).all()) out.add(r.id);
  }
  return out;
}

export function trajectoryStepCount(db: Db, trajectoryId: number): number | undefined {
  return prepared(db, "trajectoryStepCount", () =>
    db.select({ n: trajectories.stepCount }).from(trajectories).where(eq(trajectories.id, P("id"))).prepare(),
  ).get({ id: trajectoryId })?.n;
}

/** What import matching needs to know about every trajectory. */
export function trajectoryIdentities(db: Db) {
  return db
    .select({
      id: trajectories.id,
      stepCount: trajectories.stepCount,
      externalTaskId: tasks.externalId,
      benchmark: taskSets.benchmark,
      taskSetName: taskSets.name,
      model: agentRuns.model,
      agentName: agentRuns.agentName,
      runName: agentRuns.name,
    })
    .from(trajectories)
    .innerJoin(tasks, eq(tasks.id, trajectories.taskId))
    .innerJoin(taskSets, eq(taskSets.id, tasks.taskSetId))
    .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId))
    .all();
}

// ---------------------------------------------------------------- export

/** What an exported row says of its trajectory: task set, task and agent run (joined from trajectories). */
const exportedTrajectoryColumns = {
  attempt: trajectories.attempt,
  taskSet: taskSets.name,
  benchmark: taskSets.benchmark,
  externalTaskId: tasks.externalId,
  site: tasks.site,
  runId: agentRuns.id,
  runName: agentRuns.name,
  agentName: agentRuns.agentName,
  model: agentRuns.model,
};

/** True when a submit that is still in effect on the label was made after its annotator had seen evaluations. */
const labelSubmittedAfterReveal = sql<number>`exists (select 1 from ${labelRevisions} r where r.label_id = ${labels.id} and r.action = 'submit' and r.after_reveal = 1 and r.undone_by_revision_id is null)`.mapWith(Boolean);

/** Labels of a campaign joined with trajectory identity and the item's consolidated label, in item order. */
export function exportLabelRows(db: Db, campaignId: number) {
  return db
    .select({ label: labels, itemState: campaignItems.state, itemNo: campaignItems.itemNo, trajectoryId: trajectories.id, afterReveal: labelSubmittedAfterReveal, ...exportedTrajectoryColumns })
    .from(labels)
    .innerJoin(campaignItems, eq(campaignItems.id, labels.itemId))
    .innerJoin(trajectories, eq(trajectories.id, labels.trajectoryId))
    .innerJoin(tasks, eq(tasks.id, trajectories.taskId))
    .innerJoin(taskSets, eq(taskSets.id, tasks.taskSetId))
    .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId))
    .where(and(eq(labels.campaignId, campaignId), eq(labels.status, "active")))
    .orderBy(asc(labels.itemId), asc(labels.id))
    .all();
}

export function exportConsolidatedRows(db: Db, campaignId: number) {
  return db
    .select({ consolidated: consolidatedLabels, itemState: campaignItems.state, itemNo: campaignItems.itemNo, ...exportedTrajectoryColumns })
    .from(consolidatedLabels)
    .innerJoin(campaignItems, eq(campaignItems.id, consolidatedLabels.itemId))
    .innerJoin(trajectories, eq(trajectories.id, consolidatedLabels.trajectoryId))
    .innerJoin(tasks, eq(tasks.id, trajectories.taskId))
    .innerJoin(taskSets, eq(taskSets.id, tasks.taskSetId))
    .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId))
    .where(eq(consolidatedLabels.campaignId, campaignId))
    .orderBy(asc(consolidatedLabels.itemId))
    .all();
}

/** Trajectory ids in the campaigns a user labels in (what an annotator may browse), ascending. */
export function annotatorTrajectoryIds(db: Db, userId: string): number[] {
  return db
    .all<{ trajectory_id: number }>(sql`select distinct trajectory_id from ${annotatorTrajectoryIdsSql(userId)} order by trajectory_id`)
    .map((r) => r.trajectory_id);
}

/** The consolidated labels of a trajectory in every campaign, with the campaign's name and the item's state. */
export function consolidatedOfTrajectory(db: Db, trajectoryId: number) {
  return db
    .select({ consolidated: consolidatedLabels, campaignName: annotationCampaigns.name, itemState: campaignItems.state })
    .from(consolidatedLabels)
    .innerJoin(annotationCampaigns, eq(annotationCampaigns.id, consolidatedLabels.campaignId))
    .innerJoin(campaignItems, eq(campaignItems.id, consolidatedLabels.itemId))
    .where(eq(consolidatedLabels.trajectoryId, trajectoryId))
    .orderBy(asc(consolidatedLabels.campaignId))
    .all();
}
