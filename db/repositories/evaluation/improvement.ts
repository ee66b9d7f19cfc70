/**
 * Improving judges: alignment studies with their prompt versions, stress tests, and the reads they need from a
 * labelled campaign (its items with their tasks and consolidated labels, the annotators' notes) and from the
 * verdicts of a judge under several prompt versions.
 */
import { and, asc, count, desc, eq, inArray, max } from "drizzle-orm";
import { insertReturningId, first, tablesOf, type Db } from "../../database";
import type { judgeAlignments, judgePromptVersions, judgeStressTests, JudgeAlignmentRow, JudgePromptVersionRow, JudgeStressTestRow } from "../../schema/index";

// ---- alignment studies ----

export type JudgeAlignmentValues = Omit<typeof judgeAlignments.$inferInsert, "id" | "createdAt">;

export async function insertAlignment(db: Db, v: JudgeAlignmentValues): Promise<number> {
  return insertReturningId(db, tablesOf(db).judgeAlignments, v);
}

export async function getAlignment(db: Db, id: number): Promise<JudgeAlignmentRow | undefined> {
  const { judgeAlignments } = tablesOf(db);
  return first(db.select().from(judgeAlignments).where(eq(judgeAlignments.id, id)).limit(1));
}

export async function getAlignmentByName(db: Db, name: string): Promise<JudgeAlignmentRow | undefined> {
  const { judgeAlignments } = tablesOf(db);
  return first(db.select().from(judgeAlignments).where(eq(judgeAlignments.name, name)).limit(1));
}

/** Studies, newest first, with their configuration's and campaign's names, part sizes and number of versions. */
export async function listAlignments(db: Db, limit = 100) {
  const { judgeAlignments, judgeConfigs, annotationCampaigns, judgePromptVersions } = tablesOf(db);
  const rows = await db
    .select({
      id: judgeAlignments.id,
      name: judgeAlignments.name,
      judgeConfigId: judgeAlignments.judgeConfigId,
      configName: judgeConfigs.name,
      campaignId: judgeAlignments.campaignId,
      campaignName: annotationCampaigns.name,
      k: judgeAlignments.k,
      heldOutShare: judgeAlignments.heldOutShare,
      seed: judgeAlignments.seed,
      calibrationIds: judgeAlignments.calibrationIds,
      heldOutIds: judgeAlignments.heldOutIds,
      createdAt: judgeAlignments.createdAt,
    })
    .from(judgeAlignments)
    .innerJoin(judgeConfigs, eq(judgeConfigs.id, judgeAlignments.judgeConfigId))
    .innerJoin(annotationCampaigns, eq(annotationCampaigns.id, judgeAlignments.campaignId))
    .orderBy(desc(judgeAlignments.id))
    .limit(limit);
  const ids = rows.map((r) => r.id);
  const versions = ids.length
    ? await db
        .select({ alignmentId: judgePromptVersions.alignmentId, n: count() })
        .from(judgePromptVersions)
        .where(inArray(judgePromptVersions.alignmentId, ids))
        .groupBy(judgePromptVersions.alignmentId)
    : [];
  const versionCount = new Map(versions.map((v) => [v.alignmentId, Number(v.n)]));
  return rows.map(({ calibrationIds, heldOutIds, ...r }) => ({
    ...r,
    calibration: calibrationIds.length,
    heldOut: heldOutIds.length,
    versions: versionCount.get(r.id) ?? 0,
  }));
}

// ---- prompt versions ----

export type JudgePromptVersionValues = Omit<typeof judgePromptVersions.$inferInsert, "id" | "createdAt">;

export async function insertPromptVersion(db: Db, v: JudgePromptVersionValues): Promise<number> {
  return insertReturningId(db, tablesOf(db).judgePromptVersions, v);
}

export async function getPromptVersion(db: Db, id: number): Promise<(JudgePromptVersionRow & { judgeConfigId: number }) | undefined> {
  const { judgePromptVersions, judgeAlignments } = tablesOf(db);
  const row = await first(
    db
      .select({ version: judgePromptVersions, judgeConfigId: judgeAlignments.judgeConfigId })
      .from(judgePromptVersions)
      .innerJoin(judgeAlignments, eq(judgeAlignments.id, judgePromptVersions.alignmentId))
      .where(eq(judgePromptVersions.id, id))
      .limit(1),
  );
  return row ? { ...row.version, judgeConfigId: row.judgeConfigId } : undefined;
}

export async function listPromptVersions(db: Db, alignmentId: number): Promise<JudgePromptVersionRow[]> {
  const { judgePromptVersions } = tablesOf(db);
  return db.select().from(judgePromptVersions).where(eq(judgePromptVersions.alignmentId, alignmentId)).orderBy(asc(judgePromptVersions.number));
}

/** The number the next version of a study gets (1 for the first). */
export async function nextPromptVersionNumber(db: Db, alignmentId: number): Promise<number> {
  const { judgePromptVersions } = tablesOf(db);
  const row = await first(
    db
      .select({ n: max(judgePromptVersions.number) })
      .from(judgePromptVersions)
      .where(eq(judgePromptVersions.alignmentId, alignmentId))
      .limit(1),
  );
  return Number(row?.n ?? 0) + 1;
}

/** The batches run for a study, newest first. */
export async function alignmentBatches(db: Db, alignmentId: number) {
  const { judgeBatches } = tablesOf(db);
  return db
    .select({
      id: judgeBatches.id,
      variants: judgeBatches.variants,
      selectionLabel: judgeBatches.selectionLabel,
      status: judgeBatches.status,
      totalPairs: judgeBatches.totalPairs,
      succeeded: judgeBatches.succeeded,
      failed: judgeBatches.failed,
      cancelled: judgeBatches.cancelled,
      createdAt: judgeBatches.createdAt,
    })
    .from(judgeBatches)
    .where(eq(judgeBatches.alignmentId, alignmentId))
    .orderBy(desc(judgeBatches.id));
}

// ---- stress tests ----

export type JudgeStressTestValues = Omit<typeof judgeStressTests.$inferInsert, "id" | "createdAt">;

export async function insertStressTest(db: Db, v: JudgeStressTestValues): Promise<number> {
  return insertReturningId(db, tablesOf(db).judgeStressTests, v);
}

export async function updateStressTest(db: Db, id: number, patch: Partial<JudgeStressTestValues>): Promise<void> {
  const { judgeStressTests } = tablesOf(db);
  await db.update(judgeStressTests).set(patch).where(eq(judgeStressTests.id, id));
}

export async function getStressTest(db: Db, id: number): Promise<JudgeStressTestRow | undefined> {
  const { judgeStressTests } = tablesOf(db);
  return first(db.select().from(judgeStressTests).where(eq(judgeStressTests.id, id)).limit(1));
}

/** Stress tests, newest first, with their configuration's and campaign's names and their batch's status. */
export async function listStressTests(db: Db, limit = 100) {
  const { judgeStressTests, judgeConfigs, annotationCampaigns, judgeBatches } = tablesOf(db);
  const rows = await db
    .select({
      id: judgeStressTests.id,
      judgeConfigId: judgeStressTests.judgeConfigId,
      configName: judgeConfigs.name,
      campaignId: judgeStressTests.campaignId,
      campaignName: annotationCampaigns.name,
      promptVersionId: judgeStressTests.promptVersionId,
      k: judgeStressTests.k,
      seed: judgeStressTests.seed,
      perturbations: judgeStressTests.perturbations,
      trajectoryIds: judgeStressTests.trajectoryIds,
      batchId: judgeStressTests.batchId,
      batchStatus: judgeBatches.status,
      createdAt: judgeStressTests.createdAt,
    })
    .from(judgeStressTests)
    .innerJoin(judgeConfigs, eq(judgeConfigs.id, judgeStressTests.judgeConfigId))
    .innerJoin(annotationCampaigns, eq(annotationCampaigns.id, judgeStressTests.campaignId))
    .leftJoin(judgeBatches, eq(judgeBatches.id, judgeStressTests.batchId))
    .orderBy(desc(judgeStressTests.id))
    .limit(limit);
  return rows.map(({ trajectoryIds, ...r }) => ({ ...r, trajectories: trajectoryIds.length }));
}

// ---- a labelled campaign, as judges are compared against it ----

/**
 * Every item of a campaign with its trajectory's task, site and final answer, and the item's consolidated label
 * (verdict and the adjudicator's reason) when it has one, in trajectory order.
 */
export async function campaignItemsWithLabels(db: Db, campaignId: number) {
  const { campaignItems, consolidatedLabels, trajectories, tasks } = tablesOf(db);
  return db
    .select({
      trajectoryId: campaignItems.trajectoryId,
      itemNo: campaignItems.itemNo,
      taskId: tasks.id,
      taskExternalId: tasks.externalId,
      intent: tasks.intent,
      site: tasks.site,
      finalAnswer: trajectories.finalAnswer,
      verdict: consolidatedLabels.verdict,
      reason: consolidatedLabels.reason,
    })
    .from(campaignItems)
    .innerJoin(trajectories, eq(trajectories.id, campaignItems.trajectoryId))
    .innerJoin(tasks, eq(tasks.id, trajectories.taskId))
    .leftJoin(consolidatedLabels, eq(consolidatedLabels.itemId, campaignItems.id))
    .where(eq(campaignItems.campaignId, campaignId))
    .orderBy(asc(campaignItems.trajectoryId));
}

/** The notes annotators wrote on their active labels of a campaign's trajectories, by trajectory. */
export async function labelNotes(db: Db, campaignId: number, trajectoryIds: number[]): Promise<Map<number, string[]>> {
  const { labels } = tablesOf(db);
  const out = new Map<number, string[]>();
  for (let i = 0; i < trajectoryIds.length; i += 500) {
    const rows = await db
      .select({ trajectoryId: labels.trajectoryId, note: labels.note })
      .from(labels)
      .where(and(eq(labels.campaignId, campaignId), eq(labels.status, "active"), inArray(labels.trajectoryId, trajectoryIds.slice(i, i + 500))))
      .orderBy(asc(labels.trajectoryId), asc(labels.id));
    for (const r of rows) {
      if (!r.note || !r.note.trim()) continue;
      const list = out.get(r.trajectoryId) ?? [];
      list.push(r.note.trim());
      out.set(r.trajectoryId, list);
    }
  }
  return out;
}

/** A judge's verdicts at one k under several prompt versions, on the given trajectories. */
export async function judgeVerdictsUnder(db: Db, evaluatorKey: string, k: string, promptVersions: string[], trajectoryIds: number[]) {
  const { evaluatorVerdicts } = tablesOf(db);
  const out: { trajectoryId: number; promptVersion: string; verdict: string; rationale: string | null }[] = [];
  if (!promptVersions.length) return out;
  for (let i = 0; i < trajectoryIds.length; i += 500) {
    out.push(
      ...(await db
        .select({
          trajectoryId: evaluatorVerdicts.trajectoryId,
          promptVersion: evaluatorVerdicts.promptVersion,
          verdict: evaluatorVerdicts.verdict,
          rationale: evaluatorVerdicts.rationale,
        })
        .from(evaluatorVerdicts)
        .where(
          and(
            eq(evaluatorVerdicts.evaluatorKey, evaluatorKey),
            eq(evaluatorVerdicts.k, k),
            inArray(evaluatorVerdicts.promptVersion, promptVersions),
            inArray(evaluatorVerdicts.trajectoryId, trajectoryIds.slice(i, i + 500)),
          ),
        )),
    );
  }
  return out;
}
