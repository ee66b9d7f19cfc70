/**
 * Gold items, the queue reads the assignment strategies need, and the per-annotator label facts the annotator
 * quality view is computed from. Plain SQL through prepared statements cached per connection: "next" runs these
 * on every call.
 */
import type Database from "better-sqlite3";
import type { Db } from "../client";
import type { GoldSource } from "../../server/domain/annotation/assignment";
import type { LabelVerdict } from "../../server/domain/annotation/label-schema";
import type { GoldItemRow } from "../schema/index";

const statementCache = new WeakMap<object, Map<string, Database.Statement>>();
function stmt(db: Db, text: string): Database.Statement {
  let cache = statementCache.get(db.$client);
  if (!cache) statementCache.set(db.$client, (cache = new Map()));
  let s = cache.get(text);
  if (!s) {
    s = db.$client.prepare(text);
    cache.set(text, s);
  }
  return s;
}

/** (item id XOR salt) × 2654435761 mod 2³², the annotator's shuffled order (as in nextCandidates). */
const ORDER = (id: string) => `((((${id} | @salt) - (${id} & @salt)) * 2654435761) % 4294967296)`;

// ---------------------------------------------------------------- gold items

interface GoldRaw {
  item_id: number;
  campaign_id: number;
  verdict: LabelVerdict;
  category: string | null;
  source: GoldSource;
  note: string | null;
  created_by: string | null;
  created_at: number;
}

function goldRow(r: GoldRaw): GoldItemRow {
  return { itemId: r.item_id, campaignId: r.campaign_id, verdict: r.verdict, category: r.category, source: r.source, note: r.note, createdBy: r.created_by, createdAt: new Date(r.created_at) };
}

export function upsertGoldItem(db: Db, v: { itemId: number; campaignId: number; verdict: LabelVerdict; category: string | null; source: GoldSource; note: string | null; createdBy: string | null; createdAt: Date }): void {
  stmt(
    db,
    `insert into gold_items (item_id, campaign_id, verdict, category, source, note, created_by, created_at) values (?, ?, ?, ?, ?, ?, ?, ?)
     on conflict(item_id) do update set verdict = excluded.verdict, category = excluded.category, source = excluded.source, note = excluded.note, created_by = excluded.created_by, created_at = excluded.created_at`,
  ).run(v.itemId, v.campaignId, v.verdict, v.category, v.source, v.note, v.createdBy, v.createdAt.getTime());
}

export function deleteGoldItem(db: Db, itemId: number): boolean {
  return stmt(db, "delete from gold_items where item_id = ?").run(itemId).changes > 0;
}

export function getGoldItem(db: Db, itemId: number): GoldItemRow | undefined {
  const r = stmt(db, "select * from gold_items where item_id = ?").get(itemId) as GoldRaw | undefined;
  return r ? goldRow(r) : undefined;
}

export function isGoldItem(db: Db, itemId: number): boolean {
  return stmt(db, "select 1 from gold_items where item_id = ?").get(itemId) !== undefined;
}

/** A campaign's gold items with their trajectory and item number, in item order. */
export function goldItemsOfCampaign(db: Db, campaignId: number) {
  const rows = stmt(
    db,
    `select g.*, ci.trajectory_id, ci.item_no, t.external_id as task_id, t.intent
       from gold_items g join campaign_items ci on ci.id = g.item_id join trajectories tr on tr.id = ci.trajectory_id join tasks t on t.id = tr.task_id
      where g.campaign_id = ? order by ci.item_no, g.item_id`,
  ).all(campaignId) as (GoldRaw & { trajectory_id: number; item_no: number | null; task_id: string; intent: string })[];
  return rows.map((r) => ({ ...goldRow(r), trajectoryId: r.trajectory_id, itemNo: r.item_no ?? 0, taskId: r.task_id, intent: r.intent }));
}

export function goldItemIds(db: Db, campaignId: number): Set<number> {
  return new Set((stmt(db, "select item_id from gold_items where campaign_id = ?").pluck().all(campaignId) as number[]));
}

/**
 * The user's next gold item: one they have no active label on, in their own shuffled order; items they skipped
 * only when no other is left.
 */
export function nextGoldCandidate(db: Db, campaignId: number, userId: string, salt: number): { itemId: number; trajectoryId: number } | undefined {
  return stmt(
    db,
    `select ci.id as itemId, ci.trajectory_id as trajectoryId
       from gold_items g join campaign_items ci on ci.id = g.item_id
      where g.campaign_id = @campaignId
        and not exists (select 1 from labels m where m.item_id = ci.id and m.annotator_key = @key and m.status = 'active')
      order by exists (select 1 from reservations s where s.item_id = ci.id and s.user_id = @userId and s.status = 'skipped'), ${ORDER("ci.id")}
      limit 1`,
  ).get({ campaignId, key: `user:${userId}`, userId, salt }) as { itemId: number; trajectoryId: number } | undefined;
}

/** Gold items the user has not labelled yet (part of what "remaining" counts for them). */
export function goldRemainingForUser(db: Db, campaignId: number, userId: string): number {
  return (
    stmt(
      db,
      `select count(*) from gold_items g where g.campaign_id = ? and not exists (select 1 from labels m where m.item_id = g.item_id and m.annotator_key = ? and m.status = 'active')`,
    )
      .pluck()
      .get(campaignId, `user:${userId}`) as number
  );
}

/** Labels the annotator has made in the campaign (active or withdrawn): their turn number for gold mixing. */
export function labelTurnsOfUser(db: Db, campaignId: number, userId: string): number {
  // Status spelled out so the count walks labels_campaign_analytics_idx (campaign, status, annotator) for this
  // annotator only, not every label of the campaign.
  return stmt(db, "select count(*) from labels where campaign_id = ? and status in ('active', 'withdrawn') and annotator_key = ?").pluck().get(campaignId, `user:${userId}`) as number;
}

/** The annotators' active labels on gold items with the known answers (every annotator, or one). */
export function goldAnswers(db: Db, campaignId: number, annotatorKey?: string) {
  return stmt(
    db,
    `select l.annotator_key as annotatorKey, l.annotator_name as annotatorName, l.item_id as itemId, l.verdict, l.category,
            g.verdict as goldVerdict, g.category as goldCategory
       from labels l join gold_items g on g.item_id = l.item_id
      where l.campaign_id = @campaignId and l.status = 'active' ${annotatorKey === undefined ? "" : "and l.annotator_key = @key"}
      order by l.annotator_key, l.item_id`,
  ).all(annotatorKey === undefined ? { campaignId } : { campaignId, key: annotatorKey }) as {
    annotatorKey: string;
    annotatorName: string;
    itemId: number;
    verdict: string;
    category: string | null;
    goldVerdict: LabelVerdict;
    goldCategory: string | null;
  }[];
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
export function strategyCandidates(
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
  },
): StrategyCandidateRow[] {
  const stratumExpr =
    q.stratum === "site"
      ? "(select t.site from trajectories tr join tasks t on t.id = tr.task_id where tr.id = ci.trajectory_id)"
      : q.stratum === "run"
        ? "(select r.name from trajectories tr join agent_runs r on r.id = tr.run_id where tr.id = ci.trajectory_id)"
        : "null";
  const verdictsExpr = q.withVerdicts ? "(select count(distinct v.verdict) from labels v where v.item_id = ci.id and v.status = 'active')" : "0";
  const stateCond = q.withDisputed ? "((ci.state = 'open' and ci.label_count < @needed) or ci.state = 'disputed')" : "(ci.state = 'open' and ci.label_count < @needed)";
  const skippedCond = `exists (select 1 from reservations s where s.item_id = ci.id and s.user_id = @userId and s.status = 'skipped')`;
  return stmt(
    db,
    `select ci.id as itemId, ci.trajectory_id as trajectoryId, ci.label_count as labelCount, ${ORDER("ci.id")} as "order",
            ${stratumExpr} as stratum, ${verdictsExpr} as verdicts, (ci.state = 'disputed') as disputed
       from campaign_items ci
      where ci.campaign_id = @campaignId and ${stateCond}
        and not exists (select 1 from labels m where m.item_id = ci.id and m.annotator_key = @key and m.status = 'active')
        and not exists (select 1 from gold_items g where g.item_id = ci.id)
        and ${q.skipped ? "" : "not "}${skippedCond}
      ${q.page ? `order by "order" limit @limit offset @offset` : ""}`,
  ).all({ campaignId: q.campaignId, userId: q.userId, key: `user:${q.userId}`, needed: q.needed, salt: q.salt, ...(q.page ?? {}) }) as StrategyCandidateRow[];
}

/** Per site (or run): the campaign's non-gold items and the active labels they hold. */
export function strataCoverage(db: Db, campaignId: number, by: "site" | "run"): Map<string, { items: number; labels: number }> {
  const key = by === "site" ? "t.site" : "r.name";
  const rows = stmt(
    db,
    `select ${key} as stratum, count(*) as items, sum(ci.label_count) as labels
       from campaign_items ci join trajectories tr on tr.id = ci.trajectory_id join tasks t on t.id = tr.task_id join agent_runs r on r.id = tr.run_id
      where ci.campaign_id = ? and not exists (select 1 from gold_items g where g.item_id = ci.id)
      group by ${key}`,
  ).all(campaignId) as { stratum: string | null; items: number; labels: number }[];
  return new Map(rows.map((r) => [r.stratum ?? "", { items: r.items, labels: r.labels }]));
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
export function qualityLabelRows(db: Db, campaignId: number | null): QualityLabelRow[] {
  return stmt(
    db,
    `select l.campaign_id as campaignId, l.item_id as itemId, l.trajectory_id as trajectoryId, l.annotator_key as annotatorKey,
            l.annotator_name as annotatorName, l.verdict, l.category, l.time_spent_ms as timeSpentMs,
            json_array_length(l.steps_viewed) as stepsViewed, tr.step_count as stepCount, l.created_at as createdAt,
            exists (select 1 from gold_items g where g.item_id = l.item_id) as gold
       from labels l join trajectories tr on tr.id = l.trajectory_id
      where l.status = 'active' and (@campaignId is null or l.campaign_id = @campaignId)
      order by l.created_at, l.id`,
  ).all({ campaignId }) as QualityLabelRow[];
}
