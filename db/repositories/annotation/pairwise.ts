/** Pairwise campaigns' items and answers: the queries server/services/annotation/pairwise.ts runs. */
import { and, asc, count, eq, inArray, notExists, sql } from "drizzle-orm";
import { first, rowBy, tablesOf, type Db } from "../../database";
import type { PairwiseOutcome } from "../../../server/domain/annotation/pairwise-pairs";

export interface PairwiseItemRow {
  id: number;
  campaignId: number;
  itemNo: number;
  taskId: number;
  trajectoryA: number;
  trajectoryB: number;
  sideSeed: number;
  answerCount: number;
}

const CHUNK = 200;

/** Task and run (the agent) of each trajectory, for planning pairs. */
export async function pairCandidatesOf(db: Db, trajectoryIds: number[]): Promise<{ trajectoryId: number; taskId: number; agentId: number }[]> {
  const { trajectories } = tablesOf(db);
  const out: { trajectoryId: number; taskId: number; agentId: number }[] = [];
  for (let i = 0; i < trajectoryIds.length; i += CHUNK) {
    out.push(
      ...(await db
        .select({ trajectoryId: trajectories.id, taskId: trajectories.taskId, agentId: trajectories.runId })
        .from(trajectories)
        .where(inArray(trajectories.id, trajectoryIds.slice(i, i + CHUNK)))),
    );
  }
  return out;
}

export async function insertPairwiseItems(db: Db, rows: Omit<PairwiseItemRow, "id" | "answerCount">[]): Promise<void> {
  const { pairwiseItems } = tablesOf(db);
  for (let i = 0; i < rows.length; i += CHUNK) await db.insert(pairwiseItems).values(rows.slice(i, i + CHUNK));
}

export async function pairwiseItemByNumber(db: Db, campaignId: number, itemNo: number): Promise<PairwiseItemRow | undefined> {
  return rowBy(db, tablesOf(db).pairwiseItems, { campaignId, itemNo });
}

/** Items of a campaign short of their answers that the user has not answered: what they may still be given. */
function openToUser(db: Db, campaignId: number, userId: string, answersPerItem: number) {
  const { pairwiseItems, pairwiseAnswers } = tablesOf(db);
  const answeredByUser = db
    .select({ one: sql`1` })
    .from(pairwiseAnswers)
    .where(and(eq(pairwiseAnswers.itemId, pairwiseItems.id), eq(pairwiseAnswers.userId, userId)));
  return and(eq(pairwiseItems.campaignId, campaignId), sql`${pairwiseItems.answerCount} < ${answersPerItem}`, notExists(answeredByUser));
}

/** The item the user should answer next: not answered by them, fewest answers first, then by item number. */
export async function nextPairwiseItemFor(db: Db, campaignId: number, userId: string, answersPerItem: number): Promise<PairwiseItemRow | undefined> {
  const { pairwiseItems } = tablesOf(db);
  return first(
    db
      .select()
      .from(pairwiseItems)
      .where(openToUser(db, campaignId, userId, answersPerItem))
      .orderBy(asc(pairwiseItems.answerCount), asc(pairwiseItems.itemNo))
      .limit(1),
  );
}

/** How many pairs the user can still answer: items short of their answers that the user has not answered. */
export async function pairwiseRemainingFor(db: Db, campaignId: number, userId: string, answersPerItem: number): Promise<number> {
  const { pairwiseItems } = tablesOf(db);
  const row = await first(
    db
      .select({ n: count() })
      .from(pairwiseItems)
      .where(openToUser(db, campaignId, userId, answersPerItem)),
  );
  return Number(row?.n ?? 0);
}

export interface PairwiseAnswerRow {
  id: number;
  itemId: number;
  userId: string;
  outcome: PairwiseOutcome;
  revision: number;
  timeSpentMs: number | null;
  updatedAt: Date;
}

export async function pairwiseAnswerOf(db: Db, itemId: number, userId: string): Promise<PairwiseAnswerRow | undefined> {
  const columns = ["id", "itemId", "userId", "outcome", "revision", "timeSpentMs", "updatedAt"] as const;
  return rowBy(db, tablesOf(db).pairwiseAnswers, { itemId, userId }, columns);
}

/** Stores a first answer or a revision of it, with its revision row; a first answer bumps the item's count. Run inside a transaction. */
export async function savePairwiseAnswer(
  db: Db,
  v: { campaignId: number; itemId: number; userId: string; annotatorName: string; outcome: PairwiseOutcome; timeSpentMs: number | null; at: Date },
): Promise<{ revision: number }> {
  const { pairwiseAnswers, pairwiseAnswerRevisions, pairwiseItems } = tablesOf(db);
  const prior = await pairwiseAnswerOf(db, v.itemId, v.userId);
  let answerId: number;
  let revision = 1;
  if (prior) {
    revision = prior.revision + 1;
    answerId = prior.id;
    const spent = v.timeSpentMs === null ? prior.timeSpentMs : (prior.timeSpentMs ?? 0) + v.timeSpentMs;
    await db.update(pairwiseAnswers).set({ outcome: v.outcome, revision, timeSpentMs: spent, updatedAt: v.at }).where(eq(pairwiseAnswers.id, prior.id));
  } else {
    const [row] = await db
      .insert(pairwiseAnswers)
      .values({
        campaignId: v.campaignId,
        itemId: v.itemId,
        userId: v.userId,
        annotatorName: v.annotatorName,
        outcome: v.outcome,
        timeSpentMs: v.timeSpentMs,
        createdAt: v.at,
        updatedAt: v.at,
      })
      .returning({ id: pairwiseAnswers.id });
    answerId = row!.id;
    await db
      .update(pairwiseItems)
      .set({ answerCount: sql`${pairwiseItems.answerCount} + 1` })
      .where(eq(pairwiseItems.id, v.itemId));
  }
  await db.insert(pairwiseAnswerRevisions).values({ answerId, campaignId: v.campaignId, revision, outcome: v.outcome, actorId: v.userId, createdAt: v.at });
  return { revision };
}

export async function pairwiseAnswerHistory(db: Db, answerId: number): Promise<{ revision: number; outcome: PairwiseOutcome; createdAt: Date }[]> {
  const { pairwiseAnswerRevisions } = tablesOf(db);
  return db
    .select({ revision: pairwiseAnswerRevisions.revision, outcome: pairwiseAnswerRevisions.outcome, createdAt: pairwiseAnswerRevisions.createdAt })
    .from(pairwiseAnswerRevisions)
    .where(eq(pairwiseAnswerRevisions.answerId, answerId))
    .orderBy(asc(pairwiseAnswerRevisions.revision));
}

/** Items, items with k answers, and the user's answers in a campaign. */
export async function pairwiseProgress(db: Db, campaignId: number, userId: string, answersPerItem: number) {
  const { pairwiseItems, pairwiseAnswers } = tablesOf(db);
  const [items, complete, mine, answers] = await Promise.all([
    first(db.select({ n: count() }).from(pairwiseItems).where(eq(pairwiseItems.campaignId, campaignId))),
    first(
      db
        .select({ n: count() })
        .from(pairwiseItems)
        .where(and(eq(pairwiseItems.campaignId, campaignId), sql`${pairwiseItems.answerCount} >= ${answersPerItem}`)),
    ),
    first(
      db
        .select({ n: count() })
        .from(pairwiseAnswers)
        .where(and(eq(pairwiseAnswers.campaignId, campaignId), eq(pairwiseAnswers.userId, userId))),
    ),
    first(db.select({ n: count() }).from(pairwiseAnswers).where(eq(pairwiseAnswers.campaignId, campaignId))),
  ]);
  return { items: Number(items?.n ?? 0), complete: Number(complete?.n ?? 0), mine: Number(mine?.n ?? 0), answers: Number(answers?.n ?? 0) };
}

export interface PairwiseAnswerExportRow {
  itemNo: number;
  taskExternalId: string;
  trajectoryA: number;
  trajectoryB: number;
  runA: number;
  runB: number;
  runNameA: string;
  runNameB: string;
  outcome: PairwiseOutcome;
  annotatorName: string;
  revision: number;
}

/** Every answer of a campaign with its pair's task and runs, in item then annotator order. */
export async function pairwiseAnswersOfCampaign(db: Db, campaignId: number): Promise<PairwiseAnswerExportRow[]> {
  const { pairwiseItems, pairwiseAnswers, tasks } = tablesOf(db);
  const rows = await db
    .select({
      itemNo: pairwiseItems.itemNo,
      taskExternalId: tasks.externalId,
      trajectoryA: pairwiseItems.trajectoryA,
      trajectoryB: pairwiseItems.trajectoryB,
      outcome: pairwiseAnswers.outcome,
      annotatorName: pairwiseAnswers.annotatorName,
      revision: pairwiseAnswers.revision,
    })
    .from(pairwiseAnswers)
    .innerJoin(pairwiseItems, eq(pairwiseItems.id, pairwiseAnswers.itemId))
    .innerJoin(tasks, eq(tasks.id, pairwiseItems.taskId))
    .where(eq(pairwiseAnswers.campaignId, campaignId))
    .orderBy(asc(pairwiseItems.itemNo), asc(pairwiseAnswers.annotatorName), asc(pairwiseAnswers.id));
  const runs = await runsOfTrajectories(db, [...new Set(rows.flatMap((r) => [r.trajectoryA, r.trajectoryB]))]);
  return rows.map((r) => {
    const a = runs.get(r.trajectoryA)!;
    const b = runs.get(r.trajectoryB)!;
    return { ...r, runA: a.id, runB: b.id, runNameA: a.name, runNameB: b.name };
  });
}

async function runsOfTrajectories(db: Db, ids: number[]): Promise<Map<number, { id: number; name: string }>> {
  const { trajectories, agentRuns } = tablesOf(db);
  const out = new Map<number, { id: number; name: string }>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await db
      .select({ trajectoryId: trajectories.id, id: agentRuns.id, name: agentRuns.name })
      .from(trajectories)
      .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId))
      .where(inArray(trajectories.id, ids.slice(i, i + CHUNK)));
    for (const r of rows) out.set(r.trajectoryId, { id: r.id, name: r.name });
  }
  return out;
}
