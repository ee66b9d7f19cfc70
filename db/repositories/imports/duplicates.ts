/**
 * Imported trajectories stored more than once (imports made before identity by content: the same folder from two
 * places, the same zip uploaded twice) and the moves that fold a copy into the one kept: what hangs on a copy (its
 * campaign items with their labels, its evaluators' verdicts, who has seen its verdicts) is re-pointed at the kept
 * trajectory before the copy is deleted. Deciding which moves are safe is the service's (server/services/imports/dedupe.ts).
 */
import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import { tablesOf, type Db } from "../../database";
import { verdictSummaryColumns } from "../evaluation/verdicts";

/** Groups of imported trajectories (of these source formats) with equal content hashes, ids ascending. */
export async function duplicateContentGroups(db: Db, formats: string[]): Promise<{ contentHash: string; ids: number[] }[]> {
  const { trajectories } = tablesOf(db);
  const repeated = db
    .select({ contentHash: trajectories.contentHash })
    .from(trajectories)
    .where(inArray(trajectories.sourceFormat, formats))
    .groupBy(trajectories.contentHash)
    .having(sql`count(*) > 1`);
  const rows = await db
    .select({ id: trajectories.id, contentHash: trajectories.contentHash })
    .from(trajectories)
    .where(and(inArray(trajectories.sourceFormat, formats), inArray(trajectories.contentHash, repeated)))
    .orderBy(asc(trajectories.contentHash), asc(trajectories.id));
  const groups = new Map<string, number[]>();
  for (const r of rows) groups.set(r.contentHash, [...(groups.get(r.contentHash) ?? []), r.id]);
  return [...groups].map(([contentHash, ids]) => ({ contentHash, ids }));
}

export interface TrajectoryHoldings {
  id: number;
  runId: number;
  runName: string;
  sourcePath: string | null;
  items: { id: number; campaignId: number; state: string; qaReviewed: boolean; gold: boolean; annotators: string[] }[];
  verdicts: { id: number; evaluatorKey: string; evaluatorName: string; k: string; promptVersion: string; verdict: string }[];
  labels: number;
}

/** What hangs on each of these trajectories, for deciding whether and how they merge. */
export async function holdingsOf(db: Db, ids: number[]): Promise<Map<number, TrajectoryHoldings>> {
  const { trajectories, agentRuns, campaignItems, labels, goldItems, evaluatorVerdicts } = tablesOf(db);
  const out = new Map<number, TrajectoryHoldings>();
  if (!ids.length) return out;
  const base = await db
    .select({ id: trajectories.id, runId: trajectories.runId, runName: agentRuns.name, sourcePath: trajectories.sourcePath })
    .from(trajectories)
    .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId))
    .where(inArray(trajectories.id, ids));
  for (const b of base) out.set(b.id, { ...b, items: [], verdicts: [], labels: 0 });
  const items = await db
    .select({
      id: campaignItems.id,
      trajectoryId: campaignItems.trajectoryId,
      campaignId: campaignItems.campaignId,
      state: campaignItems.state,
      qaReviewedAt: campaignItems.qaReviewedAt,
      gold: goldItems.itemId,
    })
    .from(campaignItems)
    .leftJoin(goldItems, eq(goldItems.itemId, campaignItems.id))
    .where(inArray(campaignItems.trajectoryId, ids))
    .orderBy(asc(campaignItems.id));
  const itemLabels = await db
    .select({ itemId: labels.itemId, annotatorKey: labels.annotatorKey })
    .from(labels)
    .where(inArray(labels.trajectoryId, ids))
    .orderBy(asc(labels.id));
  for (const i of items) {
    out.get(i.trajectoryId)?.items.push({
      id: i.id,
      campaignId: i.campaignId,
      state: i.state,
      qaReviewed: i.qaReviewedAt !== null,
      gold: i.gold !== null,
      annotators: itemLabels.filter((l) => l.itemId === i.id).map((l) => l.annotatorKey),
    });
  }
  const labelCounts = await db
    .select({ trajectoryId: labels.trajectoryId, n: count() })
    .from(labels)
    .where(inArray(labels.trajectoryId, ids))
    .groupBy(labels.trajectoryId);
  for (const c of labelCounts) out.get(c.trajectoryId)!.labels = Number(c.n);
  const verdicts = await db
    .select({ id: evaluatorVerdicts.id, ...verdictSummaryColumns(db) })
    .from(evaluatorVerdicts)
    .where(inArray(evaluatorVerdicts.trajectoryId, ids))
    .orderBy(asc(evaluatorVerdicts.id));
  for (const v of verdicts) out.get(v.trajectoryId)?.verdicts.push(v);
  return out;
}

/** A campaign item (with its labels, consolidated label and reveals) now belongs to another trajectory. */
export async function moveItemToTrajectory(db: Db, itemId: number, trajectoryId: number): Promise<void> {
  const { campaignItems, labels, consolidatedLabels, labelReveals } = tablesOf(db);
  await db.update(campaignItems).set({ trajectoryId }).where(eq(campaignItems.id, itemId));
  await db.update(labels).set({ trajectoryId }).where(eq(labels.itemId, itemId));
  await db.update(consolidatedLabels).set({ trajectoryId }).where(eq(consolidatedLabels.itemId, itemId));
  await db.update(labelReveals).set({ trajectoryId }).where(eq(labelReveals.itemId, itemId));
}

/**
 * Folds one campaign item into another of the same campaign: its labels (with their history and reveals) and its
 * consolidation history move; what is recomputed from them (its consolidated label, its live reservations) goes.
 */
export async function foldItemInto(db: Db, fromItemId: number, into: { id: number; trajectoryId: number }): Promise<void> {
  const { campaignItems, labels, consolidatedLabels, consolidationEvents, labelReveals, reservations } = tablesOf(db);
  await db.update(labels).set({ itemId: into.id, trajectoryId: into.trajectoryId }).where(eq(labels.itemId, fromItemId));
  await db.update(labelReveals).set({ itemId: into.id, trajectoryId: into.trajectoryId }).where(eq(labelReveals.itemId, fromItemId));
  await db.update(consolidationEvents).set({ itemId: into.id }).where(eq(consolidationEvents.itemId, fromItemId));
  await db.delete(consolidatedLabels).where(eq(consolidatedLabels.itemId, fromItemId));
  await db.delete(reservations).where(eq(reservations.itemId, fromItemId));
  await db.delete(campaignItems).where(eq(campaignItems.id, fromItemId));
}

export async function moveVerdictToTrajectory(db: Db, verdictId: number, trajectoryId: number): Promise<void> {
  const { evaluatorVerdicts } = tablesOf(db);
  await db.update(evaluatorVerdicts).set({ trajectoryId }).where(eq(evaluatorVerdicts.id, verdictId));
}

/** Who has seen a trajectory's evaluations carries over to the kept copy (once per person). */
export async function moveEvaluationReveals(db: Db, fromTrajectoryId: number, toTrajectoryId: number): Promise<void> {
  const { evaluationReveals } = tablesOf(db);
  const seen = await db.select({ userId: evaluationReveals.userId }).from(evaluationReveals).where(eq(evaluationReveals.trajectoryId, toTrajectoryId));
  const already = seen.map((s) => s.userId);
  if (already.length)
    await db.delete(evaluationReveals).where(and(eq(evaluationReveals.trajectoryId, fromTrajectoryId), inArray(evaluationReveals.userId, already)));
  await db.update(evaluationReveals).set({ trajectoryId: toTrajectoryId }).where(eq(evaluationReveals.trajectoryId, fromTrajectoryId));
}

/** A copy's verdict that the kept trajectory already holds. */
export async function deleteVerdictById(db: Db, verdictId: number): Promise<void> {
  const { evaluatorVerdicts } = tablesOf(db);
  await db.delete(evaluatorVerdicts).where(eq(evaluatorVerdicts.id, verdictId));
}
