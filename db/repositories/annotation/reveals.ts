/**
 * Blind → reveal → revise: each annotator label's two stages (see db/schema/reveal.ts), and what the reveal shows
 * (the screenshots the evaluator's verdict recorded).
 */
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { affectedRows, first, tablesOf, type Db } from "../../database";
import type { LabelRevealRow, labelReveals as RevealsTable } from "../../schema/index";
import { withTaskAndRun } from "../trajectory-joins";

export async function revealOfLabel(db: Db, labelId: number): Promise<LabelRevealRow | undefined> {
  const { labelReveals } = tablesOf(db);
  return first(db.select().from(labelReveals).where(eq(labelReveals.labelId, labelId)).limit(1));
}

/** Records a reveal once per label: a second call (reload, double click) leaves the first, blind stage untouched. */
export async function insertRevealOnce(db: Db, v: typeof RevealsTable.$inferInsert): Promise<LabelRevealRow> {
  const { labelReveals } = tablesOf(db);
  await db.insert(labelReveals).values(v).onConflictDoNothing({ target: labelReveals.labelId });
  return (await revealOfLabel(db, v.labelId))!;
}

/** Stores the informed stage; false when it was already decided (the decision is made once). */
export async function setRevealDecision(
  db: Db,
  id: number,
  v: Pick<LabelRevealRow, "decision" | "informedVerdict" | "informedCategory" | "informedFirstFailingStep" | "reason" | "decidedAt">,
): Promise<boolean> {
  const { labelReveals } = tablesOf(db);
  return (
    affectedRows(
      await db
        .update(labelReveals)
        .set(v)
        .where(and(eq(labelReveals.id, id), isNull(labelReveals.decision))),
    ) > 0
  );
}

/** A campaign's reveals (every campaign's when none is given) with each trajectory's task and agent, in item order. */
export async function revealRowsOfCampaign(db: Db, campaignId?: number) {
  const { labelReveals, campaignItems, trajectories, tasks, agentRuns } = tablesOf(db);
  return withTaskAndRun(
    db,
    db
      .select({
        reveal: labelReveals,
        itemNo: campaignItems.itemNo,
        taskId: trajectories.taskId,
        externalTaskId: tasks.externalId,
        agentName: agentRuns.agentName,
        runName: agentRuns.name,
      })
      .from(labelReveals)
      .innerJoin(campaignItems, eq(campaignItems.id, labelReveals.itemId))
      .innerJoin(trajectories, eq(trajectories.id, labelReveals.trajectoryId))
      .$dynamic(),
  )
    .where(campaignId === undefined ? undefined : eq(labelReveals.campaignId, campaignId))
    .orderBy(asc(labelReveals.campaignId), asc(labelReveals.itemId), asc(labelReveals.id));
}

/** Screenshots of the given steps of a trajectory (the ones an evaluator was sent), in step order. */
export async function stepScreenshotsAt(db: Db, trajectoryId: number, indices: number[]) {
  if (!indices.length) return [];
  const { steps } = tablesOf(db);
  return db
    .select({ index: steps.index, screenshotHash: steps.screenshotHash, rawScreenshotHash: steps.rawScreenshotHash })
    .from(steps)
    .where(and(eq(steps.trajectoryId, trajectoryId), inArray(steps.index, indices.slice(0, 500))))
    .orderBy(asc(steps.index));
}

/** The task a trajectory belongs to (the reveal waits while the annotator labels another of its trajectories blind). */
export async function trajectoryTaskId(db: Db, trajectoryId: number): Promise<number | undefined> {
  const { trajectories } = tablesOf(db);
  return (await first(db.select({ taskId: trajectories.taskId }).from(trajectories).where(eq(trajectories.id, trajectoryId)).limit(1)))?.taskId;
}
