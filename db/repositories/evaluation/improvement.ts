/**
 * Improving judges: alignment studies with their prompt versions, stress tests, and the reads they need from a
 * labelled campaign (its items with their tasks and consolidated labels, the annotators' notes) and from the
 * verdicts of a judge under several prompt versions.
 */
import { and, asc, count, desc, eq, inArray, max } from "drizzle-orm";
import type { SelectedFields } from "drizzle-orm/sqlite-core";
import { insertReturningId, first, rowBy, tablesOf, updateBy, type Db } from "../../database";
import { batchProgressColumns } from "./verdicts";
import { withItemTrajectory, withTask } from "../trajectory-joins";
import type { judgeAlignments, judgePromptVersions, judgeStressTests, JudgeAlignmentRow, JudgePromptVersionRow, JudgeStressTestRow } from "../../schema/index";

// ---- alignment studies ----

export type JudgeAlignmentValues = Omit<typeof judgeAlignments.$inferInsert, "id" | "createdAt">;

export async function insertAlignment(db: Db, v: JudgeAlignmentValues): Promise<number> {
  return insertReturningId(db, tablesOf(db).judgeAlignments, v);
}

export async function getAlignment(db: Db, id: number): Promise<JudgeAlignmentRow | undefined> {
  return rowBy(db, tablesOf(db).judgeAlignments, { id });
}

export async function getAlignmentByName(db: Db, name: string): Promise<JudgeAlignmentRow | undefined> {
  return rowBy(db, tablesOf(db).judgeAlignments, { name });
}

/** A study of a judge configuration against a campaign: an alignment study or a stress test. */
type Study = typeof judgeAlignments | typeof judgeStressTests;

/** What every list of studies shows of one: its own settings and its configuration's and campaign's names. */
function studyColumns<S extends Study>(db: Db, study: S) {
  const { judgeConfigs, annotationCampaigns } = tablesOf(db);
  return {
    id: study.id,
    judgeConfigId: study.judgeConfigId,
    configName: judgeConfigs.name,
    campaignId: study.campaignId,
    campaignName: annotationCampaigns.name,
    k: study.k,
    seed: study.seed,
    createdAt: study.createdAt,
  };
}

/** Studies of one kind, with `fields` beside what every list shows of them (`studyColumns`), joined to their configuration and campaign. */
function selectStudies<S extends Study, F extends SelectedFields>(db: Db, study: S, fields: F) {
  const { judgeConfigs, annotationCampaigns } = tablesOf(db);
  return db
    .select({ ...studyColumns(db, study), ...fields })
    .from(study as Study)
    .innerJoin(judgeConfigs, eq(judgeConfigs.id, study.judgeConfigId))
    .innerJoin(annotationCampaigns, eq(annotationCampaigns.id, study.campaignId))
    .$dynamic();
}

/** Studies, newest first, with their configuration's and campaign's names, part sizes and number of versions. */
export async function listAlignments(db: Db, limit = 100) {
  const { judgeAlignments, judgePromptVersions } = tablesOf(db);
  const rows = await selectStudies(db, judgeAlignments, {
    name: judgeAlignments.name,
    heldOutShare: judgeAlignments.heldOutShare,
    calibrationIds: judgeAlignments.calibrationIds,
    heldOutIds: judgeAlignments.heldOutIds,
  })
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
    .select({ ...batchProgressColumns(db), variants: judgeBatches.variants })
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
  await updateBy(db, tablesOf(db).judgeStressTests, { id }, patch);
}

export async function getStressTest(db: Db, id: number): Promise<JudgeStressTestRow | undefined> {
  return rowBy(db, tablesOf(db).judgeStressTests, { id });
}

/** Stress tests, newest first, with their configuration's and campaign's names and their batch's status. */
export async function listStressTests(db: Db, limit = 100) {
  const { judgeStressTests, judgeBatches } = tablesOf(db);
  const rows = await selectStudies(db, judgeStressTests, {
    promptVersionId: judgeStressTests.promptVersionId,
    perturbations: judgeStressTests.perturbations,
    trajectoryIds: judgeStressTests.trajectoryIds,
    batchId: judgeStressTests.batchId,
    batchStatus: judgeBatches.status,
  })
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
  return withTask(
    db,
    withItemTrajectory(
      db,
      db
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
        .$dynamic(),
    ),
  )
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
