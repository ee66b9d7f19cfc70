/**
 * Annotation campaigns and what they hand out: the campaigns themselves, their items (the trajectories they hold,
 * by campaign-local number), their annotators and QA reviewers, and the reservations that make up each
 * annotator's queue. Multi-statement changes are made atomic by the service (server/services/annotation), which
 * calls these inside one `withTransaction`.
 */
import { and, asc, count, desc, eq, gt, inArray, isNull, max, ne, sql } from "drizzle-orm";
import { insertReturningId, affectedRows, dialectOf, first, preparedRowBy, rawGet, rawRun, rowBy, tablesOf, updateBy, type Db } from "../../database";
import type { CampaignItemRow, CampaignRow } from "../../schema/index";
import type { annotationCampaigns } from "../../schema/index";
import type { ItemState } from "../../../server/domain/annotation/label-schema";
import { executePrepared } from "../prepared";
import { withItemTrajectory, withTaskAndRun, withTaskSetAndRun } from "../trajectory-joins";

const CHUNK = 500;
const P = sql.placeholder;

/** How a Verdict user is recorded as the author of labels. */
export function userAnnotatorKey(userId: string): string {
  return `user:${userId}`;
}

/** How an annotator named in an imported label file is recorded as the author of its labels. */
export function importedAnnotatorKey(name: string): string {
  return `import:${name}`;
}

// ---------------------------------------------------------------- campaigns

export type CampaignValues = typeof annotationCampaigns.$inferInsert;

export async function insertCampaign(db: Db, v: CampaignValues): Promise<number> {
  return insertReturningId(db, tablesOf(db).annotationCampaigns, v);
}

export async function updateCampaign(db: Db, id: number, patch: Partial<CampaignValues>): Promise<void> {
  await updateBy(db, tablesOf(db).annotationCampaigns, { id }, { ...patch, updatedAt: new Date() });
}

export async function getCampaign(db: Db, id: number): Promise<CampaignRow | undefined> {
  return preparedRowBy(db, "getCampaign", tablesOf(db).annotationCampaigns, { id });
}

/**
 * Locks on PostgreSQL for the labelling transactions that run READ COMMITTED (server/services/annotation/
 * transactions.ts): `for no key update` holds off another such transaction on the same row until this one ends,
 * without blocking inserts that only reference the row (labels, reservations). `of`: the one table of a join whose
 * row is locked. SQLite runs one transaction at a time and needs none: the same query runs without it.
 */
function lockedOnPostgres<Q>(db: Db, query: Q, of?: object): Q {
  if (dialectOf(db) !== "postgres") return query;
  return (query as unknown as { for(strength: "no key update", config?: { of: object }): Q }).for("no key update", of ? { of } : undefined);
}

/**
 * The campaign and whether the user annotates it, in one query (both are checked before every label write).
 * `lock`: the campaign row locked until the transaction ends, so annotators' queue reads of one campaign take turns.
 */
export async function getCampaignForMember(
  db: Db,
  campaignId: number,
  userId: string,
  lock = false,
): Promise<{ campaign: CampaignRow; isAnnotator: boolean } | undefined> {
  const { annotationCampaigns, campaignAnnotators } = tablesOf(db);
  const build = () =>
    db
      .select({ campaign: annotationCampaigns, member: campaignAnnotators.userId })
      .from(annotationCampaigns)
      .leftJoin(campaignAnnotators, and(eq(campaignAnnotators.campaignId, annotationCampaigns.id), eq(campaignAnnotators.userId, P("userId"))))
      .where(eq(annotationCampaigns.id, P("campaignId")));
  const rows = lock
    ? await executePrepared(db, "getCampaignForMemberLocked", () => lockedOnPostgres(db, build(), annotationCampaigns), { campaignId, userId })
    : await executePrepared(db, "getCampaignForMember", build, { campaignId, userId });
  const row = rows[0];
  return row ? { campaign: row.campaign, isAnnotator: row.member !== null } : undefined;
}

export async function getCampaignByName(db: Db, name: string): Promise<CampaignRow | undefined> {
  return rowBy(db, tablesOf(db).annotationCampaigns, { name });
}

export async function deleteCampaign(db: Db, id: number): Promise<void> {
  const { annotationCampaigns } = tablesOf(db);
  await db.delete(annotationCampaigns).where(eq(annotationCampaigns.id, id));
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
export async function campaignCounts(db: Db, campaignIds?: number[]): Promise<Map<number, CampaignCounts>> {
  const { campaignItems, labels, campaignAnnotators } = tablesOf(db);
  const out = new Map<number, CampaignCounts>();
  const blank = (): CampaignCounts => ({ items: 0, open: 0, agreed: 0, disputed: 0, adjudicated: 0, labels: 0, annotators: 0 });
  const get = (id: number) => {
    let c = out.get(id);
    if (!c) out.set(id, (c = blank()));
    return c;
  };
  for (const id of campaignIds ?? []) get(id);
  const [items, labelCounts, annotatorCounts] = await Promise.all([
    db
      .select({ campaignId: campaignItems.campaignId, state: campaignItems.state, n: count() })
      .from(campaignItems)
      .where(campaignIds ? inArray(campaignItems.campaignId, campaignIds) : undefined)
      .groupBy(campaignItems.campaignId, campaignItems.state),
    db
      .select({ campaignId: labels.campaignId, n: count() })
      .from(labels)
      .where(and(eq(labels.status, "active"), campaignIds ? inArray(labels.campaignId, campaignIds) : undefined))
      .groupBy(labels.campaignId),
    db
      .select({ campaignId: campaignAnnotators.campaignId, n: count() })
      .from(campaignAnnotators)
      .where(campaignIds ? inArray(campaignAnnotators.campaignId, campaignIds) : undefined)
      .groupBy(campaignAnnotators.campaignId),
  ]);
  for (const r of items) {
    const c = get(r.campaignId);
    c.items += r.n;
    c[r.state] += r.n;
  }
  for (const r of labelCounts) get(r.campaignId).labels = r.n;
  for (const r of annotatorCounts) get(r.campaignId).annotators = r.n;
  return out;
}

export async function listCampaigns(db: Db): Promise<CampaignRow[]> {
  const { annotationCampaigns } = tablesOf(db);
  return db.select().from(annotationCampaigns).orderBy(desc(annotationCampaigns.id));
}

/** Campaigns a user may label in, newest first. */
export async function listCampaignsOfAnnotator(db: Db, userId: string): Promise<CampaignRow[]> {
  return campaignsOfMember(db, "annotators", userId);
}

// ---------------------------------------------------------------- items

/**
 * Adds trajectories to a campaign; ones already in it are left alone. New items take the numbers after the
 * campaign's highest, in the order `orderNumbers` puts them (the service shuffles them). Returns how many were added.
 */
export async function insertCampaignItems(
  db: Db,
  campaignId: number,
  trajectoryIds: number[],
  orderNumbers: (numbers: number[]) => number[] = (n) => n,
): Promise<number> {
  const { campaignItems } = tablesOf(db);
  // Called inside the service's transaction: one query after the other.
  const presentRows = await db.select({ t: campaignItems.trajectoryId }).from(campaignItems).where(eq(campaignItems.campaignId, campaignId));
  const highest = await first(
    db
      .select({ n: max(campaignItems.itemNo) })
      .from(campaignItems)
      .where(eq(campaignItems.campaignId, campaignId))
      .limit(1),
  );
  const present = new Set(presentRows.map((r) => r.t));
  const fresh = [...new Set(trajectoryIds)].filter((t) => !present.has(t));
  const firstNo = Number(highest?.n ?? 0) + 1;
  const numbers = orderNumbers(fresh.map((_, i) => firstNo + i));
  let added = 0;
  for (let i = 0; i < fresh.length; i += CHUNK) {
    added += affectedRows(
      await db
        .insert(campaignItems)
        .values(fresh.slice(i, i + CHUNK).map((trajectoryId, j) => ({ campaignId, trajectoryId, itemNo: numbers[i + j]! })))
        .onConflictDoNothing(),
    );
  }
  if (added >= ANALYZE_AFTER_ITEMS && dialectOf(db) === "postgres") {
    // PostgreSQL plans an annotator's "next" from table statistics, which autovacuum refreshes only a minute or so
    // later. Until then it takes a campaign of thousands of new items for a handful and joins them by nested loops,
    // 40× slower on a 2,000-item campaign (45 ms instead of 1 ms) just when annotators start. The rows written by
    // this transaction count for ANALYZE, which samples a bounded number of rows however large the table.
    await rawRun(db, sql`analyze campaign_items`);
  }
  return added;
}

/** Items added at once from which PostgreSQL's statistics of campaign_items are refreshed straight away. */
const ANALYZE_AFTER_ITEMS = 200;

/** A campaign's item by a key unique within the campaign: its number or its trajectory (one prepared query each). */
async function campaignItemBy(db: Db, campaignId: number, key: "itemNo" | "trajectoryId", value: number): Promise<CampaignItemRow | undefined> {
  return preparedRowBy(db, `campaignItemBy_${key}`, tablesOf(db).campaignItems, { campaignId, [key]: value });
}

/** An item by its campaign-local number (what annotators see instead of trajectory ids). */
export async function getItemByNumber(db: Db, campaignId: number, itemNo: number): Promise<CampaignItemRow | undefined> {
  return campaignItemBy(db, campaignId, "itemNo", itemNo);
}

export async function getItem(db: Db, itemId: number): Promise<CampaignItemRow | undefined> {
  return rowBy(db, tablesOf(db).campaignItems, { id: itemId });
}

/**
 * The item as it is now and its trajectory's step count, the item locked until the transaction ends: label writes on
 * one item take turns on it.
 */
export async function lockItemForLabel(db: Db, campaignId: number, trajectoryId: number): Promise<{ item: CampaignItemRow; stepCount: number } | undefined> {
  const { campaignItems, trajectories } = tablesOf(db);
  const rows = await executePrepared(
    db,
    "lockItemForLabel",
    () =>
      lockedOnPostgres(
        db,
        withItemTrajectory(db, db.select({ item: campaignItems, stepCount: trajectories.stepCount }).from(campaignItems).$dynamic()).where(
          and(eq(campaignItems.campaignId, P("campaignId")), eq(campaignItems.trajectoryId, P("trajectoryId"))),
        ),
        campaignItems,
      ),
    { campaignId, trajectoryId },
  );
  return rows[0];
}

/** A campaign's item for a trajectory. */
export async function getItemByTrajectory(db: Db, campaignId: number, trajectoryId: number): Promise<CampaignItemRow | undefined> {
  return campaignItemBy(db, campaignId, "trajectoryId", trajectoryId);
}

export async function campaignItemIds(
  db: Db,
  campaignId: number,
): Promise<{ id: number; trajectoryId: number; state: ItemState; labelCount: number; qaReviewedAt: Date | null }[]> {
  const { campaignItems } = tablesOf(db);
  return db
    .select({
      id: campaignItems.id,
      trajectoryId: campaignItems.trajectoryId,
      state: campaignItems.state,
      labelCount: campaignItems.labelCount,
      qaReviewedAt: campaignItems.qaReviewedAt,
    })
    .from(campaignItems)
    .where(eq(campaignItems.campaignId, campaignId))
    .orderBy(asc(campaignItems.id));
}

export async function setItemState(db: Db, itemId: number, state: ItemState, labelCount?: number): Promise<void> {
  const { campaignItems } = tablesOf(db);
  if (labelCount === undefined) {
    await db.update(campaignItems).set({ state }).where(eq(campaignItems.id, itemId));
    return;
  }
  await executePrepared(
    db,
    "setItemStateAndCount",
    () =>
      db
        .update(campaignItems)
        .set({ state: sql`${P("state")}`, labelCount: sql`${P("labelCount")}` })
        .where(eq(campaignItems.id, P("itemId"))),
    { state, labelCount, itemId },
  );
}

/** Marks an item QA-reviewed at `at`, or (null) not reviewed: a reopened item needs QA again. */
export async function setItemQaReviewed(db: Db, itemId: number, at: Date | null): Promise<void> {
  const { campaignItems } = tablesOf(db);
  await db.update(campaignItems).set({ qaReviewedAt: at }).where(eq(campaignItems.id, itemId));
}

/** What protocol compliance is computed from: each item's label count, state and QA review. */
export async function complianceItems(db: Db, campaignId: number): Promise<{ labelCount: number; state: ItemState; qaDone: boolean }[]> {
  const items = await campaignItemIds(db, campaignId);
  return items.map((r) => ({ labelCount: r.labelCount, state: r.state, qaDone: r.qaReviewedAt !== null }));
}

/**
 * Items of a campaign in the given states, with task context, oldest first (disputed ones first with
 * `disputedFirst`, the QA queue under the disputed-first strategy); for the adjudication and QA queues.
 */
export async function listItemsInStates(
  db: Db,
  campaignId: number,
  states: ItemState[],
  page: { offset: number; limit: number },
  qa?: "pending" | "done",
  disputedFirst = false,
) {
  const { campaignItems, trajectories, tasks, agentRuns } = tablesOf(db);
  const where = and(
    eq(campaignItems.campaignId, campaignId),
    inArray(campaignItems.state, states),
    qa === "pending" ? isNull(campaignItems.qaReviewedAt) : qa === "done" ? sql`${campaignItems.qaReviewedAt} is not null` : undefined,
  );
  const [rows, total] = await Promise.all([
    withTaskAndRun(
      db,
      withItemTrajectory(
        db,
        db
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
          .$dynamic(),
      ),
    )
      .where(where)
      .orderBy(...(disputedFirst ? [sql`case when ${campaignItems.state} = 'disputed' then 0 else 1 end`] : []), asc(campaignItems.id))
      .limit(page.limit)
      .offset(page.offset),
    first(db.select({ n: count() }).from(campaignItems).where(where).limit(1)),
  ]);
  return { rows, total: total?.n ?? 0 };
}

// ---------------------------------------------------------------- annotators and QA reviewers

/** A campaign's members of one kind: its annotators, or its designated QA reviewers (two tables of the same columns). */
export type CampaignMemberKind = "annotators" | "qaReviewers";

function membersTable(db: Db, kind: CampaignMemberKind) {
  const { campaignAnnotators, campaignQaReviewers } = tablesOf(db);
  return kind === "annotators" ? campaignAnnotators : campaignQaReviewers;
}

export async function addCampaignMembers(db: Db, kind: CampaignMemberKind, campaignId: number, userIds: string[]): Promise<number> {
  if (!userIds.length) return 0;
  const members = membersTable(db, kind);
  return affectedRows(
    await db
      .insert(members)
      .values(userIds.map((userId) => ({ campaignId, userId })))
      .onConflictDoNothing(),
  );
}

export async function removeCampaignMembers(db: Db, kind: CampaignMemberKind, campaignId: number, userIds: string[]): Promise<number> {
  if (!userIds.length) return 0;
  const members = membersTable(db, kind);
  return affectedRows(await db.delete(members).where(and(eq(members.campaignId, campaignId), inArray(members.userId, userIds))));
}

/** Annotators added to a campaign (the seeding, import and test paths add them by this name). */
export const addCampaignAnnotators = (db: Db, campaignId: number, userIds: string[]) => addCampaignMembers(db, "annotators", campaignId, userIds);

/** The members of one kind with their accounts, by name. */
export async function campaignMemberList(db: Db, kind: CampaignMemberKind, campaignId: number) {
  const { users } = tablesOf(db);
  const members = membersTable(db, kind);
  return db
    .select({ userId: users.id, name: users.name, email: users.email, role: users.role, addedAt: members.addedAt })
    .from(members)
    .innerJoin(users, eq(users.id, members.userId))
    .where(eq(members.campaignId, campaignId))
    .orderBy(asc(users.name), asc(users.id));
}

/** True when the user is a member of that kind of the campaign (asked on every label and review: a prepared query). */
export async function isCampaignMember(db: Db, kind: CampaignMemberKind, campaignId: number, userId: string): Promise<boolean> {
  const members = membersTable(db, kind);
  const rows = await executePrepared(
    db,
    `isCampaignMember_${kind}`,
    () =>
      db
        .select({ userId: members.userId })
        .from(members)
        .where(and(eq(members.campaignId, P("campaignId")), eq(members.userId, P("userId"))))
        .limit(1),
    { campaignId, userId },
  );
  return rows.length > 0;
}

export const isCampaignAnnotator = (db: Db, campaignId: number, userId: string) => isCampaignMember(db, "annotators", campaignId, userId);
export const isQaReviewer = (db: Db, campaignId: number, userId: string) => isCampaignMember(db, "qaReviewers", campaignId, userId);

/** The campaigns a user is a member of that kind of, newest first. */
export async function campaignsOfMember(db: Db, kind: CampaignMemberKind, userId: string): Promise<CampaignRow[]> {
  const { annotationCampaigns } = tablesOf(db);
  const members = membersTable(db, kind);
  const rows = await db
    .select({ c: annotationCampaigns })
    .from(annotationCampaigns)
    .innerJoin(members, eq(members.campaignId, annotationCampaigns.id))
    .where(eq(members.userId, userId))
    .orderBy(desc(annotationCampaigns.id));
  return rows.map((r) => r.c);
}

/** Campaigns a user is a designated QA reviewer of, newest first. */
export async function listCampaignsOfQaReviewer(db: Db, userId: string): Promise<CampaignRow[]> {
  return campaignsOfMember(db, "qaReviewers", userId);
}

/** True when the user is a designated QA reviewer of any campaign (the nav shows them the QA page). */
export async function isQaReviewerAnywhere(db: Db, userId: string): Promise<boolean> {
  const { campaignQaReviewers } = tablesOf(db);
  return !!(await first(db.select({ userId: campaignQaReviewers.userId }).from(campaignQaReviewers).where(eq(campaignQaReviewers.userId, userId)).limit(1)));
}

/** Per campaign: items whose labelling is over and that wait for their QA review. */
export async function qaPendingCounts(db: Db, campaignIds: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>(campaignIds.map((id) => [id, 0]));
  if (!campaignIds.length) return out;
  const { campaignItems } = tablesOf(db);
  const rows = await db
    .select({ campaignId: campaignItems.campaignId, n: count() })
    .from(campaignItems)
    .where(and(inArray(campaignItems.campaignId, campaignIds), ne(campaignItems.state, "open"), isNull(campaignItems.qaReviewedAt)))
    .groupBy(campaignItems.campaignId);
  for (const r of rows) out.set(r.campaignId, Number(r.n));
  return out;
}

/**
 * True when the screenshot is shown in a step of an item the user may QA review: an item whose labelling is over,
 * in a campaign they are a designated QA reviewer of (the QA page's player shows them those steps).
 */
export async function screenshotInQaItems(db: Db, userId: string, hash: string): Promise<boolean> {
  const qaHasStep = sql`exists (select 1 from campaign_items ci join campaign_qa_reviewers qr on qr.campaign_id = ci.campaign_id and qr.user_id = ${userId}
    where ci.trajectory_id = s.trajectory_id and ci.state <> 'open')`;
  const row = await rawGet(
    db,
    sql`select 1 as one where exists (select 1 from steps s where s.screenshot_hash = ${hash} and ${qaHasStep})
      or exists (select 1 from steps s where s.raw_screenshot_hash = ${hash} and ${qaHasStep})`,
  );
  return !!row;
}

/** Per annotator of a campaign: labels submitted, time spent, and whether they hold a live reservation. */
export async function annotatorProgress(db: Db, campaignId: number, nowMs: number) {
  const { labels, reservations } = tablesOf(db);
  const [done, reserved] = await Promise.all([
    db
      .select({
        annotatorKey: labels.annotatorKey,
        // One annotator key is one person; max() only satisfies GROUP BY (the name follows their latest submit).
        userId: sql<string | null>`max(${labels.userId})`,
        name: sql<string>`max(${labels.annotatorName})`,
        labelled: count(),
        success: sql<number>`sum(case when ${labels.verdict} = 'success' then 1 else 0 end)`.mapWith(Number),
        failure: sql<number>`sum(case when ${labels.verdict} = 'failure' then 1 else 0 end)`.mapWith(Number),
        unsure: sql<number>`sum(case when ${labels.verdict} = 'unsure' then 1 else 0 end)`.mapWith(Number),
        meanTimeMs: sql<number | null>`avg(${labels.timeSpentMs})`.mapWith(Number),
        lastAt: sql<number | null>`max(${labels.updatedAt})`.mapWith(Number),
      })
      .from(labels)
      .where(and(eq(labels.campaignId, campaignId), eq(labels.status, "active")))
      .groupBy(labels.annotatorKey)
      .orderBy(asc(labels.annotatorKey)),
    db
      .select({ userId: reservations.userId, n: count() })
      .from(reservations)
      .where(and(eq(reservations.campaignId, campaignId), eq(reservations.status, "active"), gt(reservations.expiresAt, new Date(nowMs))))
      .groupBy(reservations.userId),
  ]);
  return { done, reserved };
}

// ---------------------------------------------------------------- the queue (reservations)

/** The item a user holds a live reservation on and has not labelled yet, if any (oldest first). */
export async function findLiveReservation(
  db: Db,
  campaignId: number,
  userId: string,
  nowMs: number,
): Promise<{ itemId: number; trajectoryId: number; reservedAt: Date; expiresAt: Date } | undefined> {
  const { reservations, campaignItems, labels } = tablesOf(db);
  const rows = await executePrepared(
    db,
    "findLiveReservation",
    () =>
      db
        .select({
          itemId: reservations.itemId,
          trajectoryId: campaignItems.trajectoryId,
          reservedAt: reservations.reservedAt,
          expiresAt: reservations.expiresAt,
        })
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
        .orderBy(asc(reservations.reservedAt), asc(reservations.itemId))
        .limit(1),
    { campaignId, userId, nowMs, key: userAnnotatorKey(userId) },
  );
  return rows[0];
}

/**
 * Candidates for a user's next item, in queue order: open, fewer than `needed` labels, not labelled by the user;
 * fewest labels first, then the user's own pseudo-random order (see queueOrderSalt). `skipped` chooses between
 * the items the user has not skipped and those they have. The caller adds live reservations (few) on top.
 */
export async function nextCandidates(
  db: Db,
  q: { campaignId: number; userId: string; needed: number; salt: number; skipped: boolean; offset: number; limit: number },
): Promise<{ itemId: number; trajectoryId: number; labelCount: number }[]> {
  const { campaignItems, reservations } = tablesOf(db);
  const build = (skipped: boolean) => {
    const skippedByUser = sql`exists (select 1 from ${reservations} s where s.item_id = ${campaignItems.id} and s.user_id = ${P("userId")} and s.status = 'skipped')`;
    // (id XOR salt) * 2654435761 mod 2^32; SQLite has no XOR, a ^ b = (a | b) - (a & b). The salt stays under 2^30
    // and ids under 2^31, so the product fits a 64-bit integer on both engines.
    const order = sql`((((${campaignItems.id} | ${P("salt")}) - (${campaignItems.id} & ${P("salt")})) * 2654435761) % 4294967296)`;
    return db
      .select({ itemId: campaignItems.id, trajectoryId: campaignItems.trajectoryId, labelCount: campaignItems.labelCount })
      .from(campaignItems)
      .where(and(openToAnnotator(db), skipped ? skippedByUser : sql`not ${skippedByUser}`))
      .orderBy(asc(campaignItems.labelCount), asc(order), asc(campaignItems.id))
      .limit(P("limit"))
      .offset(P("offset"));
  };
  return executePrepared(db, q.skipped ? "nextCandidatesSkipped" : "nextCandidates", () => build(q.skipped), {
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
export async function liveReservationCounts(db: Db, campaignId: number, exceptUserId: string, nowMs: number): Promise<Map<number, number>> {
  const { reservations } = tablesOf(db);
  const rows = await executePrepared(
    db,
    "liveReservationCounts",
    () =>
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
        .groupBy(reservations.itemId),
    { campaignId, nowMs, userId: exceptUserId },
  );
  return new Map(rows.map((r) => [r.itemId, Number(r.n)]));
}

export async function upsertReservation(
  db: Db,
  v: { campaignId: number; itemId: number; userId: string; status: "active" | "skipped"; reservedAt: Date; expiresAt: Date },
): Promise<void> {
  const { reservations } = tablesOf(db);
  await db
    .insert(reservations)
    .values(v)
    .onConflictDoUpdate({
      target: [reservations.itemId, reservations.userId],
      set: { status: v.status, reservedAt: v.reservedAt, expiresAt: v.expiresAt },
    });
}

export async function getReservation(db: Db, itemId: number, userId: string) {
  return rowBy(db, tablesOf(db).reservations, { itemId, userId });
}

/** The items of a campaign the user put back with Skip (and was not handed again since), with when they did. */
export async function skippedItemsOf(db: Db, campaignId: number, userId: string): Promise<Map<number, Date>> {
  const { reservations } = tablesOf(db);
  const rows = await db
    .select({ itemId: reservations.itemId, at: reservations.reservedAt })
    .from(reservations)
    .where(and(eq(reservations.campaignId, campaignId), eq(reservations.userId, userId), eq(reservations.status, "skipped")));
  return new Map(rows.map((r) => [r.itemId, r.at]));
}

export async function deleteReservation(db: Db, itemId: number, userId: string): Promise<void> {
  const { reservations } = tablesOf(db);
  await executePrepared(
    db,
    "deleteReservation",
    () => db.delete(reservations).where(and(eq(reservations.itemId, P("itemId")), eq(reservations.userId, P("userId")))),
    { itemId, userId },
  );
}

/** Ends a user's live reservations in a campaign (e.g. on leaving the queue). */
export async function releaseReservations(db: Db, campaignId: number, userId: string): Promise<number> {
  const { reservations } = tablesOf(db);
  return affectedRows(
    await db.delete(reservations).where(and(eq(reservations.campaignId, campaignId), eq(reservations.userId, userId), eq(reservations.status, "active"))),
  );
}

/**
 * Open items of a campaign short of labels that the annotator has no active label on, as a prepared statement's
 * condition: its placeholders are `campaignId`, `needed` (labels per item) and `key` (the annotator key).
 */
function openToAnnotator(db: Db) {
  const { campaignItems, labels } = tablesOf(db);
  return and(
    eq(campaignItems.campaignId, P("campaignId")),
    eq(campaignItems.state, "open"),
    sql`${campaignItems.labelCount} < ${P("needed")}`,
    sql`not exists (select 1 from ${labels} m where m.item_id = ${campaignItems.id} and m.annotator_key = ${P("key")} and m.status = 'active')`,
  );
}

/**
 * Items of a campaign the user could still label (open, short of labels, not labelled by them), for the queue
 * page's counter. Items other people hold right now are included: their reservations may lapse.
 */
export async function remainingForUser(db: Db, campaignId: number, userId: string, needed: number): Promise<number> {
  const { campaignItems } = tablesOf(db);
  const rows = await executePrepared(db, "remainingForUser", () => db.select({ n: count() }).from(campaignItems).where(openToAnnotator(db)), {
    campaignId,
    needed,
    key: userAnnotatorKey(userId),
  });
  return Number(rows[0]?.n ?? 0);
}

// ---------------------------------------------------------------- trajectories as campaigns select and number them

export async function trajectoryStepCount(db: Db, trajectoryId: number): Promise<number | undefined> {
  return (await preparedRowBy(db, "trajectoryStepCount", tablesOf(db).trajectories, { id: trajectoryId }, ["stepCount"]))?.stepCount;
}

/** What import matching needs to know about every trajectory. */
export async function trajectoryIdentities(db: Db) {
  const { trajectories, tasks, taskSets, agentRuns } = tablesOf(db);
  return withTaskSetAndRun(
    db,
    db
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
      .$dynamic(),
  ).orderBy(asc(trajectories.id));
}
