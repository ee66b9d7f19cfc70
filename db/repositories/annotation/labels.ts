/**
 * Labels and what is made of them: each annotator's label on an item with its revisions (the history undo walks),
 * the consolidated label of an item with the events that set it, and the rows label files are exported from.
 */
import { and, asc, count, desc, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import { first, preparedRowBy, rowBy, tablesOf, type Db } from "../../database";
import type { ConsolidatedLabelRow, LabelRevisionRow, LabelRow } from "../../schema/index";
import type {
  consolidatedLabels as ConsolidatedTable,
  consolidationEvents as EventsTable,
  labelRevisions as RevisionsTable,
  labels as LabelsTable,
} from "../../schema/index";
import { executePrepared } from "../prepared";
import type { RegionMark } from "../../../server/domain/annotation/region-marks";
import { userAnnotatorKey } from "./campaigns";
import { withTaskSetAndRun } from "../trajectory-joins";

const CHUNK = 500;
const P = sql.placeholder;

// ---------------------------------------------------------------- labels

export async function getLabelByKey(db: Db, itemId: number, annotatorKey: string): Promise<LabelRow | undefined> {
  return preparedRowBy(db, "getLabelByKey", tablesOf(db).labels, { itemId, annotatorKey });
}

export async function getLabel(db: Db, id: number): Promise<LabelRow | undefined> {
  return preparedRowBy(db, "getLabel", tablesOf(db).labels, { id });
}

export async function insertLabel(db: Db, v: typeof LabelsTable.$inferInsert): Promise<LabelRow> {
  const { labels } = tablesOf(db);
  const [row] = await db.insert(labels).values(v).returning();
  return row!;
}

export async function updateLabel(db: Db, id: number, patch: Partial<typeof LabelsTable.$inferInsert>): Promise<LabelRow> {
  const { labels } = tablesOf(db);
  const [row] = await db
    .update(labels)
    .set({ ...patch, updatedAt: new Date() })
    .where(eq(labels.id, id))
    .returning();
  return row!;
}

export async function activeLabelsOfItem(db: Db, itemId: number): Promise<LabelRow[]> {
  const { labels } = tablesOf(db);
  return executePrepared(
    db,
    "activeLabelsOfItem",
    () =>
      db
        .select()
        .from(labels)
        .where(and(eq(labels.itemId, P("itemId")), eq(labels.status, "active")))
        .orderBy(asc(labels.id)),
    { itemId },
  );
}

/** Active labels of many items at once (adjudication and QA queue summaries). */
export async function activeLabelsOfItems(db: Db, itemIds: number[]): Promise<LabelRow[]> {
  const { labels } = tablesOf(db);
  const out: LabelRow[] = [];
  for (let i = 0; i < itemIds.length; i += CHUNK) {
    out.push(
      ...(await db
        .select()
        .from(labels)
        .where(and(inArray(labels.itemId, itemIds.slice(i, i + CHUNK)), eq(labels.status, "active")))
        .orderBy(asc(labels.id))),
    );
  }
  return out;
}

export async function labelsOfItem(db: Db, itemId: number): Promise<LabelRow[]> {
  const { labels } = tablesOf(db);
  return db.select().from(labels).where(eq(labels.itemId, itemId)).orderBy(asc(labels.id));
}

/** Active labels on a trajectory in every campaign, with the campaign's name and blind flag. */
export async function labelsOfTrajectory(db: Db, trajectoryId: number) {
  const { labels, annotationCampaigns } = tablesOf(db);
  return db
    .select({ label: labels, campaignName: annotationCampaigns.name, blind: annotationCampaigns.blind })
    .from(labels)
    .innerJoin(annotationCampaigns, eq(annotationCampaigns.id, labels.campaignId))
    .where(and(eq(labels.trajectoryId, trajectoryId), eq(labels.status, "active")))
    .orderBy(asc(labels.campaignId), asc(labels.id));
}

/** A user's labels in a campaign, newest first (their "done" list). */
export async function labelsOfUser(db: Db, campaignId: number, userId: string, limit: number) {
  const { labels, campaignItems, trajectories, tasks } = tablesOf(db);
  return db
    .select({ label: labels, itemNo: campaignItems.itemNo, externalTaskId: tasks.externalId, intent: tasks.intent, itemState: campaignItems.state })
    .from(labels)
    .innerJoin(campaignItems, eq(campaignItems.id, labels.itemId))
    .innerJoin(trajectories, eq(trajectories.id, labels.trajectoryId))
    .innerJoin(tasks, eq(tasks.id, trajectories.taskId))
    .where(and(eq(labels.campaignId, campaignId), eq(labels.annotatorKey, userAnnotatorKey(userId)), eq(labels.status, "active")))
    .orderBy(desc(labels.updatedAt), desc(labels.id))
    .limit(limit);
}

/** How many active labels the user has in each of the given campaigns (their own progress). */
export async function ownLabelCounts(db: Db, userId: string, campaignIds: number[]): Promise<Map<number, number>> {
  if (!campaignIds.length) return new Map();
  const { labels } = tablesOf(db);
  const rows = await db
    .select({ campaignId: labels.campaignId, n: count() })
    .from(labels)
    .where(and(inArray(labels.campaignId, campaignIds), eq(labels.annotatorKey, userAnnotatorKey(userId)), eq(labels.status, "active")))
    .groupBy(labels.campaignId);
  return new Map(rows.map((r) => [r.campaignId, r.n]));
}

/** Active labels of a campaign per guideline version they were made under. */
export async function labelGuidelineVersionCounts(db: Db, campaignId: number): Promise<{ version: number | null; labels: number }[]> {
  const { labels } = tablesOf(db);
  return db
    .select({ version: labels.guidelineVersion, labels: count() })
    .from(labels)
    .where(and(eq(labels.campaignId, campaignId), eq(labels.status, "active")))
    .groupBy(labels.guidelineVersion)
    .orderBy(sql`${labels.guidelineVersion} asc nulls first`);
}

// ---------------------------------------------------------------- revisions

export async function insertRevision(db: Db, v: typeof RevisionsTable.$inferInsert): Promise<LabelRevisionRow> {
  const { labelRevisions } = tablesOf(db);
  const [row] = await db.insert(labelRevisions).values(v).returning();
  return row!;
}

export async function getRevision(db: Db, id: number): Promise<LabelRevisionRow | undefined> {
  return rowBy(db, tablesOf(db).labelRevisions, { id });
}

export async function getRevisionByKey(db: Db, idempotencyKey: string): Promise<LabelRevisionRow | undefined> {
  return preparedRowBy(db, "getRevisionByKey", tablesOf(db).labelRevisions, { idempotencyKey });
}

export async function getRevisionOfLabel(db: Db, labelId: number, revision: number): Promise<LabelRevisionRow | undefined> {
  return rowBy(db, tablesOf(db).labelRevisions, { labelId, revision });
}

export async function markRevisionUndone(db: Db, id: number, undoneBy: number): Promise<void> {
  const { labelRevisions } = tablesOf(db);
  await db.update(labelRevisions).set({ undoneByRevisionId: undoneBy }).where(eq(labelRevisions.id, id));
}

/** A user's most recent submit in a campaign that no undo has reverted yet. */
export async function lastUndoableSubmit(db: Db, campaignId: number, userId: string): Promise<LabelRevisionRow | undefined> {
  const { labelRevisions } = tablesOf(db);
  return first(
    db
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
      .limit(1),
  );
}

export async function labelHistory(db: Db, labelId: number): Promise<LabelRevisionRow[]> {
  const { labelRevisions } = tablesOf(db);
  return db.select().from(labelRevisions).where(eq(labelRevisions.labelId, labelId)).orderBy(asc(labelRevisions.revision));
}

/** Every revision of every label on an item, oldest first. */
export async function itemHistory(db: Db, itemId: number): Promise<LabelRevisionRow[]> {
  const { labelRevisions, labels } = tablesOf(db);
  const rows = await db
    .select({ r: labelRevisions })
    .from(labelRevisions)
    .innerJoin(labels, eq(labels.id, labelRevisions.labelId))
    .where(eq(labels.itemId, itemId))
    .orderBy(asc(labelRevisions.id));
  return rows.map((x) => x.r);
}

// ---------------------------------------------------------------- consolidated labels

export async function getConsolidated(db: Db, itemId: number): Promise<ConsolidatedLabelRow | undefined> {
  return preparedRowBy(db, "getConsolidated", tablesOf(db).consolidatedLabels, { itemId });
}

export async function upsertConsolidated(db: Db, v: typeof ConsolidatedTable.$inferInsert): Promise<void> {
  const { consolidatedLabels } = tablesOf(db);
  await db
    .insert(consolidatedLabels)
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
    });
}

export async function deleteConsolidated(db: Db, itemId: number): Promise<boolean> {
  const { consolidatedLabels } = tablesOf(db);
  const deleted = await db.delete(consolidatedLabels).where(eq(consolidatedLabels.itemId, itemId)).returning({ id: consolidatedLabels.id });
  return deleted.length > 0;
}

/** Consolidated labels of a campaign (or of every campaign), keyed by trajectory for comparisons with judges. */
export async function listConsolidated(db: Db, campaignId?: number): Promise<ConsolidatedLabelRow[]> {
  const { consolidatedLabels } = tablesOf(db);
  return db
    .select()
    .from(consolidatedLabels)
    .where(campaignId !== undefined ? eq(consolidatedLabels.campaignId, campaignId) : undefined)
    .orderBy(asc(consolidatedLabels.itemId));
}

/** The consolidated labels of a trajectory in every campaign, with the campaign's name and the item's state. */
export async function consolidatedOfTrajectory(db: Db, trajectoryId: number) {
  const { consolidatedLabels, annotationCampaigns, campaignItems } = tablesOf(db);
  return db
    .select({ consolidated: consolidatedLabels, campaignName: annotationCampaigns.name, itemState: campaignItems.state })
    .from(consolidatedLabels)
    .innerJoin(annotationCampaigns, eq(annotationCampaigns.id, consolidatedLabels.campaignId))
    .innerJoin(campaignItems, eq(campaignItems.id, consolidatedLabels.itemId))
    .where(eq(consolidatedLabels.trajectoryId, trajectoryId))
    .orderBy(asc(consolidatedLabels.campaignId));
}

/** Adjudicated or QA-reviewed consolidated labels of campaigns, for the tallies of confidence and disagreement source. */
export async function decisionTallies(db: Db, campaignIds: number[]) {
  if (!campaignIds.length) return [];
  const { consolidatedLabels } = tablesOf(db);
  return db
    .select({
      method: consolidatedLabels.method,
      qaDecision: consolidatedLabels.qaDecision,
      confidence: consolidatedLabels.confidence,
      disagreementSource: consolidatedLabels.disagreementSource,
      n: count(),
    })
    .from(consolidatedLabels)
    .where(
      and(
        inArray(consolidatedLabels.campaignId, campaignIds),
        sql`(${consolidatedLabels.method} = 'adjudicated' or ${consolidatedLabels.qaDecision} is not null)`,
      ),
    )
    .groupBy(consolidatedLabels.method, consolidatedLabels.qaDecision, consolidatedLabels.confidence, consolidatedLabels.disagreementSource);
}

export async function insertConsolidationEvent(db: Db, v: typeof EventsTable.$inferInsert): Promise<void> {
  const { consolidationEvents } = tablesOf(db);
  await db.insert(consolidationEvents).values(v);
}

export async function consolidationHistory(db: Db, itemId: number) {
  const { consolidationEvents } = tablesOf(db);
  return db.select().from(consolidationEvents).where(eq(consolidationEvents.itemId, itemId)).orderBy(asc(consolidationEvents.id));
}

// ---------------------------------------------------------------- export rows

/** Labels of a campaign joined with trajectory identity and the item's consolidated label, in item order. */
export async function exportLabelRows(db: Db, campaignId: number) {
  const { labels, labelRevisions, campaignItems, trajectories } = tablesOf(db);
  // True when a submit that is still in effect on the label was made after its annotator had seen evaluations.
  const afterReveal =
    sql<boolean>`exists (select 1 from ${labelRevisions} r where r.label_id = ${labels.id} and r.action = 'submit' and r.after_reveal and r.undone_by_revision_id is null)`.mapWith(
      Boolean,
    );
  return withTaskSetAndRun(
    db,
    db
      .select({
        label: labels,
        itemState: campaignItems.state,
        itemNo: campaignItems.itemNo,
        trajectoryId: trajectories.id,
        afterReveal,
        ...exportedTrajectoryColumns(db),
      })
      .from(labels)
      .innerJoin(campaignItems, eq(campaignItems.id, labels.itemId))
      .innerJoin(trajectories, eq(trajectories.id, labels.trajectoryId))
      .$dynamic(),
  )
    .where(and(eq(labels.campaignId, campaignId), eq(labels.status, "active")))
    .orderBy(asc(labels.itemId), asc(labels.id));
}

export async function exportConsolidatedRows(db: Db, campaignId: number) {
  const { consolidatedLabels, campaignItems, trajectories } = tablesOf(db);
  return withTaskSetAndRun(
    db,
    db
      .select({ consolidated: consolidatedLabels, itemState: campaignItems.state, itemNo: campaignItems.itemNo, ...exportedTrajectoryColumns(db) })
      .from(consolidatedLabels)
      .innerJoin(campaignItems, eq(campaignItems.id, consolidatedLabels.itemId))
      .innerJoin(trajectories, eq(trajectories.id, consolidatedLabels.trajectoryId))
      .$dynamic(),
  )
    .where(eq(consolidatedLabels.campaignId, campaignId))
    .orderBy(asc(consolidatedLabels.itemId));
}

/** What an exported row says of its trajectory: task set, task and agent run (joined from trajectories). */
function exportedTrajectoryColumns(db: Db) {
  const { trajectories, tasks, taskSets, agentRuns } = tablesOf(db);
  return {
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
}

/** Each step's screenshot size (steps without one are absent), by 0-based step index: what region marks are checked against. */
export async function stepScreenshotSizes(db: Db, trajectoryId: number): Promise<Map<number, { width: number; height: number }>> {
  const { steps, screenshots } = tablesOf(db);
  const rows = await db
    .select({ index: steps.index, width: screenshots.width, height: screenshots.height })
    .from(steps)
    .innerJoin(screenshots, eq(screenshots.hash, steps.screenshotHash))
    .where(eq(steps.trajectoryId, trajectoryId));
  return new Map(rows.map((r) => [r.index, { width: r.width, height: r.height }]));
}

/**
 * Region marks of a campaign's active labels, for their agreement: every active label (its item, its annotator, user or
 * imported name, and its marks) of the items where at least one label carries marks, and how many active labels the
 * campaign has in all. Labels of items nobody marked are not read: two labels without marks compare to nothing.
 */
export async function regionMarkedLabels(
  db: Db,
  campaignId: number,
): Promise<{ rows: { itemId: number; annotatorKey: string; marks: RegionMark[] | null }[]; labels: number }> {
  const { labels } = tablesOf(db);
  const active = and(eq(labels.campaignId, campaignId), eq(labels.status, "active"));
  const marked = db
    .select({ itemId: labels.itemId })
    .from(labels)
    .where(and(active, isNotNull(labels.marks)));
  const [rows, total] = await Promise.all([
    db
      .select({ itemId: labels.itemId, annotatorKey: labels.annotatorKey, marks: labels.marks })
      .from(labels)
      .where(and(active, inArray(labels.itemId, marked)))
      .orderBy(asc(labels.itemId), asc(labels.annotatorKey)),
    db.select({ n: count() }).from(labels).where(active),
  ]);
  return { rows, labels: Number(total[0]?.n ?? 0) };
}
