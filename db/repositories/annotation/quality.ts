/**
 * Gold items, the queue reads the assignment strategies need, and the per-annotator label facts the annotator
 * quality view is computed from. "next" runs the queue reads on every call.
 */
import { and, asc, desc, eq, sql } from "drizzle-orm";
import { affectedRows, rawAll, rawGet, tablesOf, type Db } from "../../database";
import type { GoldSource } from "../../../server/domain/annotation/assignment";
import type { LabelVerdict } from "../../../server/domain/annotation/label-schema";
import type { LabelAnswers } from "../../../server/domain/annotation/questions";
import type { GoldItemRow } from "../../schema/index";
import { userAnnotatorKey } from "./campaigns";
import { withItemTrajectory, withTask } from "../trajectory-joins";

/** (item id XOR salt) × 2654435761 mod 2³², the annotator's shuffled order (as in nextCandidates). */
const order = (salt: number) => sql`((((ci.id | ${salt}) - (ci.id & ${salt})) * 2654435761) % 4294967296)`;

/** The user has no active label on item `ci`. */
const notLabelledBy = (userId: string) =>
  sql`not exists (select 1 from labels m where m.item_id = ci.id and m.annotator_key = ${userAnnotatorKey(userId)} and m.status = 'active')`;

// ---------------------------------------------------------------- gold items

export async function upsertGoldItem(
  db: Db,
  v: {
    itemId: number;
    campaignId: number;
    verdict: LabelVerdict;
    category: string | null;
    firstFailingStep: number | null;
    answers: LabelAnswers | null;
    source: GoldSource;
    note: string | null;
    createdBy: string | null;
    createdAt: Date;
    /** Left as it was when not given (marking an item gold again keeps it in or out of the qualification). */
    qualification?: boolean;
  },
): Promise<void> {
  const { goldItems } = tablesOf(db);
  await db
    .insert(goldItems)
    .values(v)
    .onConflictDoUpdate({
      target: goldItems.itemId,
      set: {
        verdict: v.verdict,
        category: v.category,
        firstFailingStep: v.firstFailingStep,
        answers: v.answers,
        source: v.source,
        note: v.note,
        createdBy: v.createdBy,
        createdAt: v.createdAt,
        ...(v.qualification === undefined ? {} : { qualification: v.qualification }),
      },
    });
}

export async function deleteGoldItem(db: Db, itemId: number): Promise<boolean> {
  const { goldItems } = tablesOf(db);
  return affectedRows(await db.delete(goldItems).where(eq(goldItems.itemId, itemId))) > 0;
}

export async function getGoldItem(db: Db, itemId: number): Promise<GoldItemRow | undefined> {
  const { goldItems } = tablesOf(db);
  const [row] = await db.select().from(goldItems).where(eq(goldItems.itemId, itemId)).limit(1);
  return row;
}

export async function isGoldItem(db: Db, itemId: number): Promise<boolean> {
  const { goldItems } = tablesOf(db);
  const rows = await db.select({ itemId: goldItems.itemId }).from(goldItems).where(eq(goldItems.itemId, itemId)).limit(1);
  return rows.length > 0;
}

/** A campaign's gold items with their trajectory and item number, in item order. */
export async function goldItemsOfCampaign(db: Db, campaignId: number) {
  const { goldItems, campaignItems, tasks } = tablesOf(db);
  const rows = await withTask(
    db,
    withItemTrajectory(
      db,
      db
        .select({ gold: goldItems, trajectoryId: campaignItems.trajectoryId, itemNo: campaignItems.itemNo, taskId: tasks.externalId, intent: tasks.intent })
        .from(goldItems)
        .innerJoin(campaignItems, eq(campaignItems.id, goldItems.itemId))
        .$dynamic(),
    ),
  )
    .where(eq(goldItems.campaignId, campaignId))
    .orderBy(asc(campaignItems.itemNo), asc(goldItems.itemId));
  return rows.map((r) => ({ ...r.gold, trajectoryId: r.trajectoryId, itemNo: r.itemNo ?? 0, taskId: r.taskId, intent: r.intent }));
}

/** The campaigns a trajectory is an item of, with the item and its gold answer if it has one (newest campaign first). */
export async function campaignsOfTrajectory(db: Db, trajectoryId: number) {
  const { annotationCampaigns, campaignItems, goldItems } = tablesOf(db);
  return db
    .select({ campaign: annotationCampaigns, itemNo: campaignItems.itemNo, gold: goldItems })
    .from(campaignItems)
    .innerJoin(annotationCampaigns, eq(annotationCampaigns.id, campaignItems.campaignId))
    .leftJoin(goldItems, eq(goldItems.itemId, campaignItems.id))
    .where(eq(campaignItems.trajectoryId, trajectoryId))
    .orderBy(desc(annotationCampaigns.id));
}

export async function goldItemIds(db: Db, campaignId: number): Promise<Set<number>> {
  const { goldItems } = tablesOf(db);
  const rows = await db.select({ itemId: goldItems.itemId }).from(goldItems).where(eq(goldItems.campaignId, campaignId));
  return new Set(rows.map((r) => r.itemId));
}

/**
 * The user's next gold item: one they have no active label on, in their own shuffled order; items they skipped
 * only when no other is left.
 */
export async function nextGoldCandidate(
  db: Db,
  campaignId: number,
  userId: string,
  salt: number,
  /** Items left out (a look-ahead from them: their labels are about to be stored). */
  exceptItemIds: readonly number[] = [],
): Promise<{ itemId: number; trajectoryId: number } | undefined> {
  const row = await rawGet<{ itemId: number; trajectoryId: number }>(
    db,
    sql`select ci.id as "itemId", ci.trajectory_id as "trajectoryId"
       from gold_items g join campaign_items ci on ci.id = g.item_id
      where g.campaign_id = ${campaignId} and ${notLabelledBy(userId)}${
        exceptItemIds.length
          ? sql` and ci.id not in (${sql.join(
              exceptItemIds.map((id) => sql`${id}`),
              sql`, `,
            )})`
          : sql``
      }
      order by exists (select 1 from reservations s where s.item_id = ci.id and s.user_id = ${userId} and s.status = 'skipped'), ${order(salt)}, ci.id
      limit 1`,
  );
  return row ? { itemId: Number(row.itemId), trajectoryId: Number(row.trajectoryId) } : undefined;
}

/** Gold items the user has not labelled yet (part of what "remaining" counts for them). */
export async function goldRemainingForUser(db: Db, campaignId: number, userId: string): Promise<number> {
  const row = await rawGet<{ n: number | string }>(
    db,
    sql`select count(*) as n from gold_items g join campaign_items ci on ci.id = g.item_id where g.campaign_id = ${campaignId} and ${notLabelledBy(userId)}`,
  );
  return Number(row?.n ?? 0);
}

/** Labels the annotator has made in the campaign (active or withdrawn): their turn number for gold mixing. */
export async function labelTurnsOfUser(db: Db, campaignId: number, userId: string): Promise<number> {
  // Status spelled out so the count walks labels_campaign_analytics_idx (campaign, status, annotator) for this
  // annotator only, not every label of the campaign.
  const row = await rawGet<{ n: number | string }>(
    db,
    sql`select count(*) as n from labels where campaign_id = ${campaignId} and status in ('active', 'withdrawn') and annotator_key = ${userAnnotatorKey(userId)}`,
  );
  return Number(row?.n ?? 0);
}

/** The annotators' active labels on gold items with the known answers (every annotator, or one). */
export async function goldAnswers(db: Db, campaignId: number, annotatorKey?: string) {
  const { labels, goldItems } = tablesOf(db);
  return db
    .select({
      annotatorKey: labels.annotatorKey,
      annotatorName: labels.annotatorName,
      itemId: labels.itemId,
      verdict: labels.verdict,
      category: labels.category,
      goldVerdict: goldItems.verdict,
      goldCategory: goldItems.category,
    })
    .from(labels)
    .innerJoin(goldItems, eq(goldItems.itemId, labels.itemId))
    .where(and(eq(labels.campaignId, campaignId), eq(labels.status, "active"), annotatorKey === undefined ? undefined : eq(labels.annotatorKey, annotatorKey)))
    .orderBy(asc(labels.annotatorKey), asc(labels.itemId));
}

// ---------------------------------------------------------------- queue reads for the strategies

export interface StrategyCandidateRow {
  itemId: number;
  trajectoryId: number;
  labelCount: number;
  order: number;
  stratum: string | null;
  verdicts: number;
  disputed: number;
}

/**
 * Every item the user could be handed (not gold, not labelled by them), skipped ones apart: open items short of
 * `needed`, plus disputed items when `withDisputed`. With the stratum (site or run name) and the number of
 * distinct verdicts among active labels when asked.
 */
export async function strategyCandidates(
  db: Db,
  q: {
    campaignId: number;
    userId: string;
    needed: number;
    salt: number;
    skipped: boolean;
    stratum: "site" | "run" | null;
    withDisputed: boolean;
    withVerdicts: boolean;
    /** A page in the annotator's own order (random strategy), instead of every candidate. */
    page?: { offset: number; limit: number };
    /**
     * Only this stratum's items ("" for items without one), paged by label count then the annotator's own order
     * (by_site / by_run: the least covered items of one stratum, without reading the others).
     */
    inStratum?: { value: string; offset: number; limit: number };
  },
): Promise<StrategyCandidateRow[]> {
  const stratumExpr =
    q.stratum === "site"
      ? sql`(select t.site from trajectories tr join tasks t on t.id = tr.task_id where tr.id = ci.trajectory_id)`
      : q.stratum === "run"
        ? sql`(select r.name from trajectories tr join agent_runs r on r.id = tr.run_id where tr.id = ci.trajectory_id)`
        : sql`cast(null as text)`;
  const verdictsExpr = q.withVerdicts ? sql`(select count(distinct v.verdict) from labels v where v.item_id = ci.id and v.status = 'active')` : sql`0`;
  const openShort = sql`(ci.state = 'open' and ci.label_count < ${q.needed})`;
  const stateCond = q.withDisputed ? sql`(${openShort} or ci.state = 'disputed')` : openShort;
  const skippedCond = sql`exists (select 1 from reservations s where s.item_id = ci.id and s.user_id = ${q.userId} and s.status = 'skipped')`;
  const rows = await rawAll<Record<keyof StrategyCandidateRow, unknown>>(
    db,
    sql`select ci.id as "itemId", ci.trajectory_id as "trajectoryId", ci.label_count as "labelCount", ${order(q.salt)} as "order",
            ${stratumExpr} as stratum, ${verdictsExpr} as verdicts, case when ci.state = 'disputed' then 1 else 0 end as disputed
       from campaign_items ci
      where ci.campaign_id = ${q.campaignId} and ${stateCond}
        and ${notLabelledBy(q.userId)}
        and not exists (select 1 from gold_items g where g.item_id = ci.id)
        and ${q.skipped ? skippedCond : sql`not ${skippedCond}`}
        ${q.inStratum ? sql`and coalesce(${stratumExpr}, '') = ${q.inStratum.value}` : sql``}
      ${q.page ? sql`order by "order", ci.id limit ${q.page.limit} offset ${q.page.offset}` : sql``}
      ${q.inStratum ? sql`order by ci.label_count, "order", ci.id limit ${q.inStratum.limit} offset ${q.inStratum.offset}` : sql``}`,
  );
  return rows.map((r) => ({
    itemId: Number(r.itemId),
    trajectoryId: Number(r.trajectoryId),
    labelCount: Number(r.labelCount),
    order: Number(r.order),
    stratum: r.stratum === null || r.stratum === undefined ? null : String(r.stratum),
    verdicts: Number(r.verdicts),
    disputed: Number(r.disputed),
  }));
}

/**
 * Per site (or run): the campaign's non-gold items and the active labels they hold; `plusOneOn`, items counted with
 * one label more each (a look-ahead from them: their labels are about to be stored).
 */
export async function strataCoverage(
  db: Db,
  campaignId: number,
  by: "site" | "run",
  plusOneOn: readonly number[] = [],
): Promise<Map<string, { items: number; labels: number }>> {
  const key = by === "site" ? sql`t.site` : sql`r.name`;
  const extra = plusOneOn.length
    ? sql` + case when ci.id in (${sql.join(
        plusOneOn.map((id) => sql`${id}`),
        sql`, `,
      )}) then 1 else 0 end`
    : sql``;
  const rows = await rawAll<{ stratum: string | null; items: number | string; labels: number | string | null }>(
    db,
    sql`select ${key} as stratum, count(*) as items, sum(ci.label_count${extra}) as labels
       from campaign_items ci join trajectories tr on tr.id = ci.trajectory_id join tasks t on t.id = tr.task_id join agent_runs r on r.id = tr.run_id
      where ci.campaign_id = ${campaignId} and not exists (select 1 from gold_items g where g.item_id = ci.id)
      group by ${key}`,
  );
  return new Map(rows.map((r) => [r.stratum ?? "", { items: Number(r.items), labels: Number(r.labels ?? 0) }]));
}

// ---------------------------------------------------------------- annotator quality facts

export interface QualityLabelRow {
  campaignId: number;
  itemId: number;
  trajectoryId: number;
  annotatorKey: string;
  annotatorName: string;
  verdict: string;
  category: string | null;
  timeSpentMs: number | null;
  stepsViewed: number | null;
  stepCount: number;
  createdAt: number;
  gold: number;
}

/** Active labels of one campaign or of all, with their step counts, oldest first. */
export async function qualityLabelRows(db: Db, campaignId: number | null): Promise<QualityLabelRow[]> {
  const rows = await rawAll<Record<keyof QualityLabelRow, unknown>>(
    db,
    sql`select l.campaign_id as "campaignId", l.item_id as "itemId", l.trajectory_id as "trajectoryId", l.annotator_key as "annotatorKey",
            l.annotator_name as "annotatorName", l.verdict, l.category, l.time_spent_ms as "timeSpentMs",
            json_array_length(l.steps_viewed) as "stepsViewed", tr.step_count as "stepCount", l.created_at as "createdAt",
            case when exists (select 1 from gold_items g where g.item_id = l.item_id) then 1 else 0 end as gold
       from labels l join trajectories tr on tr.id = l.trajectory_id
      where l.status = 'active' ${campaignId === null ? sql`` : sql`and l.campaign_id = ${campaignId}`}
      order by l.created_at, l.id`,
  );
  const numberOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return rows.map((r) => ({
    campaignId: Number(r.campaignId),
    itemId: Number(r.itemId),
    trajectoryId: Number(r.trajectoryId),
    annotatorKey: String(r.annotatorKey),
    annotatorName: String(r.annotatorName),
    verdict: String(r.verdict),
    category: r.category === null || r.category === undefined ? null : String(r.category),
    timeSpentMs: numberOrNull(r.timeSpentMs),
    stepsViewed: numberOrNull(r.stepsViewed),
    stepCount: Number(r.stepCount),
    createdAt: Number(r.createdAt),
    gold: Number(r.gold),
  }));
}
