/**
 * The look-ups behind the blind rule and an annotator's scope: which trajectories a user still labels blind (an
 * annotator of a blind campaign holding the trajectory, with no active label of theirs on it there), which ones
 * their campaigns hold, and the record of evaluations shown to annotators (reveals), which flags the labels they
 * submit afterwards.
 *
 * The SQL is written once for both engines: `c.blind` is a boolean on PostgreSQL and 0/1 on SQLite, and either
 * is a condition as it stands.
 */
import { sql, type SQL } from "drizzle-orm";
import { preparedRowBy, rawAll, rawGet, tablesOf, type Db } from "../../database";
import { userAnnotatorKey } from "../annotation/campaigns";

/** The user has no active label on item `ci` (an alias in the enclosing query). */
function notLabelledBy(userId: string): SQL {
  return sql`not exists (select 1 from labels l where l.item_id = ci.id and l.annotator_key = ${userAnnotatorKey(userId)} and l.status = 'active')`;
}

/**
 * In a campaign `c` that reveals an evaluator after the blind label: the user has labelled item `ci` but not yet
 * decided on the reveal (kept or revised). Until then the one evaluator the campaign reveals is all they may see of
 * the trajectory's evaluations (through the reveal panel): other judges' verdicts or other annotators' labels would
 * colour the informed stage the campaign measures. Before the reveal is shown this holds too, so the evaluations
 * cannot be read between the blind submit and the reveal; when the evaluator has no verdict on the trajectory
 * nothing is ever decided, and its evaluations stay hidden from this annotator until a researcher lifts the blind.
 */
function revealUndecidedBy(userId: string): SQL {
  return sql`(c.reveal_evaluator is not null and exists (select 1 from labels l where l.item_id = ci.id and l.annotator_key = ${userAnnotatorKey(userId)} and l.status = 'active'
    and not exists (select 1 from label_reveals r where r.label_id = l.id and r.decided_at is not null)))`;
}

/** The blind rule on item `ci` of campaign `c`: not labelled yet, or labelled but the reveal not decided. */
function stillBlind(userId: string): SQL {
  return sql`(${notLabelledBy(userId)} or ${revealUndecidedBy(userId)})`;
}

/**
 * Trajectories whose evaluations a user may not see yet: they are an annotator of a blind campaign that contains
 * the trajectory and have no active label on it there (or, in a campaign that reveals an evaluator, have not decided
 * on the reveal yet). Closed campaigns count too: closing a campaign does not show its evaluations to someone who
 * never labelled (a researcher lifts the blind by turning `blind` off). As an SQL subquery, for list queries.
 */
export function blindedTrajectoryIdsSql(userId: string): SQL {
  return blindCampaignTrajectories(userId, stillBlind(userId));
}

/**
 * Trajectories the user may still be handed to label blind: open items of blind campaigns that are not closed,
 * where they annotate and have no active label yet. While one of these is on a task, every other attempt at that
 * task keeps its agent from them too: a labelled attempt's run, and so its id (ids follow import order, a few
 * revealed runs give each run's id range), would tell by elimination which agent made the one still to label.
 */
function stillToLabelBlindSql(userId: string): SQL {
  return sql`(select ci.trajectory_id from campaign_items ci
    join annotation_campaigns c on c.id = ci.campaign_id and c.blind and c.status <> 'closed'
    join campaign_annotators ca on ca.campaign_id = c.id and ca.user_id = ${userId}
    where ci.state = 'open' and ${notLabelledBy(userId)})`;
}

/** Tasks with an attempt the user may still be handed to label blind. */
export function tasksStillLabelledBlindSql(userId: string): SQL {
  return sql`(select t2.task_id from trajectories t2 where t2.id in ${stillToLabelBlindSql(userId)})`;
}

/**
 * A condition for list queries: true for trajectories the user may reach by id, with their agent: neither hidden by
 * the blind rule nor an attempt at a task they still label blind.
 */
export function browsableByIdSql(idColumn: SQL | { getSQL(): SQL }, taskIdColumn: SQL | { getSQL(): SQL }, userId: string): SQL {
  return sql`(${idColumn} not in ${blindedTrajectoryIdsSql(userId)} and ${taskIdColumn} not in ${tasksStillLabelledBlindSql(userId)})`;
}

/** True when the blind rule hides the trajectory's agent (and id) from the user: see `browsableByIdSql`. */
export async function isAgentHiddenFor(db: Db, userId: string, trajectoryId: number): Promise<boolean> {
  if (await isBlindedFor(db, userId, trajectoryId)) return true;
  const row = await rawGet(
    db,
    sql`select 1 as one from trajectories t where t.id = ${trajectoryId} and t.task_id in ${tasksStillLabelledBlindSql(userId)} limit 1`,
  );
  return !!row;
}

/** Trajectories of the blind campaigns the user annotates whose item `ci` (of campaign `c`) satisfies `where`. */
function blindCampaignTrajectories(userId: string, where: SQL): SQL {
  return sql`(select ci.trajectory_id from campaign_items ci
    join annotation_campaigns c on c.id = ci.campaign_id and c.blind
    join campaign_annotators ca on ca.campaign_id = c.id and ca.user_id = ${userId}
    where ${where})`;
}

/** A condition for list queries: true for rows whose trajectory column the blind rule does not hide from the user. */
export function visibleToUserSql(trajectoryIdColumn: SQL | { getSQL(): SQL }, userId: string): SQL {
  return sql`${trajectoryIdColumn} not in ${blindedTrajectoryIdsSql(userId)}`;
}

export async function isBlindedFor(db: Db, userId: string, trajectoryId: number): Promise<boolean> {
  const row = await rawGet(
    db,
    sql`select 1 as one from campaign_items ci
      join annotation_campaigns c on c.id = ci.campaign_id and c.blind
      join campaign_annotators ca on ca.campaign_id = c.id and ca.user_id = ${userId}
      where ci.trajectory_id = ${trajectoryId} and ${stillBlind(userId)}
      limit 1`,
  );
  return !!row;
}

/**
 * The blind rule seen from one campaign's QA stage: trajectories the user labels blind in a campaign other than
 * `campaignId` (`trajectoryId` narrows to one). In the campaign itself an item whose labelling is over is no
 * longer in anyone's queue, so its QA reviewer may see its labels even if they label other items there.
 */
export async function blindedOutsideCampaign(db: Db, userId: string, campaignId: number, trajectoryId?: number): Promise<number[]> {
  const rows = await rawAll<{ trajectory_id: number }>(
    db,
    sql`select distinct ci.trajectory_id from campaign_items ci
      join annotation_campaigns c on c.id = ci.campaign_id and c.blind
      join campaign_annotators ca on ca.campaign_id = c.id and ca.user_id = ${userId}
      where ci.campaign_id <> ${campaignId} and ${notLabelledBy(userId)}${trajectoryId === undefined ? sql`` : sql` and ci.trajectory_id = ${trajectoryId}`}
      order by ci.trajectory_id`,
  );
  return rows.map((r) => Number(r.trajectory_id));
}

export async function blindedTrajectoryIds(db: Db, userId: string): Promise<number[]> {
  const rows = await rawAll<{ trajectory_id: number }>(db, sql`select distinct trajectory_id from ${blindedTrajectoryIdsSql(userId)} b order by trajectory_id`);
  return rows.map((r) => Number(r.trajectory_id));
}

/** Campaigns in which the user still has trajectories to label blind. */
export async function campaignsLabellingBlind(db: Db, userId: string): Promise<Set<number>> {
  const rows = await rawAll<{ campaign_id: number }>(
    db,
    sql`select distinct ci.campaign_id from campaign_items ci
      join annotation_campaigns c on c.id = ci.campaign_id and c.blind
      join campaign_annotators ca on ca.campaign_id = c.id and ca.user_id = ${userId}
      where ${notLabelledBy(userId)}`,
  );
  return new Set(rows.map((r) => Number(r.campaign_id)));
}

/** How many trajectories the user has still to label blind (0: the blind rule hides nothing from them). */
export async function labellingBlindCount(db: Db, userId: string): Promise<number> {
  const row = await rawGet<{ n: number | string }>(db, sql`select count(distinct trajectory_id) as n from ${blindedTrajectoryIdsSql(userId)} b`);
  return Number(row?.n ?? 0);
}

/** True when the user labels the trajectory in some blind campaign (revealing it to them is worth noting). */
export async function labelsInBlindCampaign(db: Db, userId: string, trajectoryId: number): Promise<boolean> {
  const row = await rawGet(
    db,
    sql`select 1 as one from labels l join annotation_campaigns c on c.id = l.campaign_id and c.blind
      where l.trajectory_id = ${trajectoryId} and l.annotator_key = ${userAnnotatorKey(userId)} and l.status = 'active' limit 1`,
  );
  return !!row;
}

export async function recordReveal(db: Db, userId: string, trajectoryId: number): Promise<void> {
  const { evaluationReveals } = tablesOf(db);
  await db.insert(evaluationReveals).values({ userId, trajectoryId, revealedAt: new Date() }).onConflictDoNothing();
}

export async function hasRevealed(db: Db, userId: string, trajectoryId: number): Promise<boolean> {
  return !!(await preparedRowBy(db, "hasRevealed", tablesOf(db).evaluationReveals, { userId, trajectoryId }, ["userId"]));
}

// ---------------------------------------------------------------- an annotator's scope

/** Trajectories in the queues of a user's campaigns: what an annotator may browse. */
export function annotatorTrajectoryIdsSql(userId: string): SQL {
  return sql`(select ci.trajectory_id from campaign_items ci
    join campaign_annotators ca on ca.campaign_id = ci.campaign_id and ca.user_id = ${userId})`;
}

/** Trajectory ids in the campaigns a user labels in (what an annotator may browse), ascending. */
export async function annotatorTrajectoryIds(db: Db, userId: string): Promise<number[]> {
  const rows = await rawAll<{ trajectory_id: number }>(
    db,
    sql`select distinct trajectory_id from ${annotatorTrajectoryIdsSql(userId)} a order by trajectory_id`,
  );
  return rows.map((r) => Number(r.trajectory_id));
}

export async function isInAnnotatorCampaigns(db: Db, userId: string, trajectoryId: number): Promise<boolean> {
  const row = await rawGet(
    db,
    sql`select 1 as one from campaign_items ci join campaign_annotators ca on ca.campaign_id = ci.campaign_id and ca.user_id = ${userId}
      where ci.trajectory_id = ${trajectoryId} limit 1`,
  );
  return !!row;
}

/** True when a trajectory of the task is in one of the user's campaigns. */
export async function taskInAnnotatorCampaigns(db: Db, userId: string, taskId: number): Promise<boolean> {
  return !!(await rawGet(db, sql`select 1 as one from trajectories t where t.task_id = ${taskId} and t.id in ${annotatorTrajectoryIdsSql(userId)} limit 1`));
}

/** True when the user has a trajectory of the task still to label blind. */
export async function taskLabelledBlindBy(db: Db, userId: string, taskId: number): Promise<boolean> {
  // Still to be labelled, not merely hidden: a labelled sibling awaiting its own reveal decision does not hold this one.
  const toLabel = blindCampaignTrajectories(userId, notLabelledBy(userId));
  return !!(await rawGet(db, sql`select 1 as one from trajectories t where t.task_id = ${taskId} and t.id in ${toLabel} limit 1`));
}

/**
 * True when the screenshot is one the user may see: shown in a step of a trajectory in their campaigns. Blind
 * items' screenshots are allowed too: the annotator sees them in the labelling player (by item number), and a
 * content hash says nothing of the run. Correlated per step (few share a hash), index searches only, rather than
 * building the user's whole campaign list on every image request.
 */
export async function screenshotInAnnotatorCampaigns(db: Db, userId: string, hash: string): Promise<boolean> {
  const campaignHasStep = sql`exists (select 1 from campaign_items ci join campaign_annotators ca on ca.campaign_id = ci.campaign_id and ca.user_id = ${userId}
    where ci.trajectory_id = s.trajectory_id)`;
  const row = await rawGet(
    db,
    sql`select 1 as one where exists (select 1 from steps s where s.screenshot_hash = ${hash} and ${campaignHasStep})
      or exists (select 1 from steps s where s.raw_screenshot_hash = ${hash} and ${campaignHasStep})`,
  );
  return !!row;
}

/** Whether a screenshot belongs to either attempt of a pair in a pairwise campaign the user answers in. */
export async function screenshotInPairwiseItems(db: Db, userId: string, hash: string): Promise<boolean> {
  const pairHasStep = sql`exists (select 1 from pairwise_items pi join campaign_annotators ca on ca.campaign_id = pi.campaign_id and ca.user_id = ${userId}
    where pi.trajectory_a = s.trajectory_id or pi.trajectory_b = s.trajectory_id)`;
  const row = await rawGet(
    db,
    sql`select 1 as one where exists (select 1 from steps s where s.screenshot_hash = ${hash} and ${pairHasStep})
      or exists (select 1 from steps s where s.raw_screenshot_hash = ${hash} and ${pairHasStep})`,
  );
  return !!row;
}
