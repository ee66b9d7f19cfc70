/**
 * What a judge verdict rests on, beside the verdict: the criteria a staged protocol graded (verdict_criteria) and the
 * steps and regions the judge cited (verdict_citations). Written with their verdict, replaced when it is.
 */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { tablesOf, type Db } from "../../database";
import type { verdictCitations, verdictCriteria, VerdictCitationRow, VerdictCriterionRow } from "../../schema/index";
import { judgeSettingColumns, judgeSettingKey, ofJudgeSetting, type JudgeSetting } from "./verdicts";

export type CriterionValues = Omit<VerdictCriterionRow, "id" | "verdictId">;
export type CitationValues = Omit<VerdictCitationRow, "id" | "verdictId">;

/** Replaces a verdict's criteria and citations (a verdict judged again keeps its id; its evidence must not pile up). */
export async function replaceVerdictEvidence(db: Db, verdictId: number, criteria: CriterionValues[], citations: CitationValues[]): Promise<void> {
  const { verdictCriteria, verdictCitations } = tablesOf(db);
  await db.delete(verdictCriteria).where(eq(verdictCriteria.verdictId, verdictId));
  await db.delete(verdictCitations).where(eq(verdictCitations.verdictId, verdictId));
  if (criteria.length) await db.insert(verdictCriteria).values(criteria.map((c) => ({ ...c, verdictId })));
  if (citations.length) await db.insert(verdictCitations).values(citations.map((c) => ({ ...c, verdictId })));
}

export interface VerdictEvidence {
  criteria: VerdictCriterionRow[];
  citations: VerdictCitationRow[];
}

/** The criteria and citations of some verdicts, by verdict id (verdicts without any are absent). */
export async function evidenceOfVerdicts(db: Db, verdictIds: number[]): Promise<Map<number, VerdictEvidence>> {
  const out = new Map<number, VerdictEvidence>();
  if (verdictIds.length === 0) return out;
  const { verdictCriteria, verdictCitations } = tablesOf(db);
  const entry = (id: number) => out.get(id) ?? out.set(id, { criteria: [], citations: [] }).get(id)!;
  for (const c of await evidenceRows(db, verdictCriteria, verdictIds)) entry(c.verdictId).criteria.push(c);
  for (const c of await evidenceRows(db, verdictCitations, verdictIds)) entry(c.verdictId).citations.push(c);
  return out;
}

/** The rows of one kind of evidence (criteria or citations) of some verdicts, by verdict, each verdict's in their order. */
async function evidenceRows<T extends typeof verdictCriteria | typeof verdictCitations>(db: Db, table: T, verdictIds: number[]): Promise<T["$inferSelect"][]> {
  const evidence = table as typeof verdictCriteria;
  return db.select().from(evidence).where(inArray(evidence.verdictId, verdictIds)).orderBy(asc(evidence.verdictId), asc(evidence.position));
}

/** Per judge setting (evaluator, k, prompt version): verdicts with citations, citations, and how many could not be checked. */
export async function citationTotals(db: Db, evaluatorKey?: string) {
  const { verdictCitations, evaluatorVerdicts } = tablesOf(db);
  const setting = judgeSettingKey(db);
  return db
    .select({
      ...judgeSettingColumns(db),
      verdicts: sql<number>`count(distinct ${evaluatorVerdicts.id})`.mapWith(Number),
      citations: sql<number>`count(*)`.mapWith(Number),
      unverifiable: sql<number>`sum(case when ${verdictCitations.problem} is null then 0 else 1 end)`.mapWith(Number),
    })
    .from(verdictCitations)
    .innerJoin(evaluatorVerdicts, eq(evaluatorVerdicts.id, verdictCitations.verdictId))
    .where(evaluatorKey === undefined ? undefined : eq(evaluatorVerdicts.evaluatorKey, evaluatorKey))
    .groupBy(...setting)
    .orderBy(...setting.map((c) => asc(c)));
}

/** Every graded criterion of one judge setting, with its verdict's trajectory (for scoring criteria against people). */
export async function criteriaOfSetting(db: Db, setting: JudgeSetting) {
  const { verdictCriteria, evaluatorVerdicts } = tablesOf(db);
  return db
    .select({
      trajectoryId: evaluatorVerdicts.trajectoryId,
      verdict: evaluatorVerdicts.verdict,
      position: verdictCriteria.position,
      kind: verdictCriteria.kind,
      text: verdictCriteria.text,
      result: verdictCriteria.result,
    })
    .from(verdictCriteria)
    .innerJoin(evaluatorVerdicts, eq(evaluatorVerdicts.id, verdictCriteria.verdictId))
    .where(ofJudgeSetting(db, setting))
    .orderBy(asc(evaluatorVerdicts.trajectoryId), asc(verdictCriteria.position));
}

/**
 * Campaigns whose consolidated labels cover at least one trajectory a setting graded criteria on, newest first: where
 * a judge's criteria can be scored against people when no campaign is named.
 */
export async function campaignsOverCriteriaOf(db: Db, setting: JudgeSetting): Promise<number[]> {
  const { verdictCriteria, evaluatorVerdicts, campaignItems, consolidatedLabels } = tablesOf(db);
  const rows = await db
    .selectDistinct({ campaignId: campaignItems.campaignId })
    .from(evaluatorVerdicts)
    .innerJoin(campaignItems, eq(campaignItems.trajectoryId, evaluatorVerdicts.trajectoryId))
    .innerJoin(consolidatedLabels, eq(consolidatedLabels.itemId, campaignItems.id))
    .where(
      and(
        ofJudgeSetting(db, setting),
        inArray(consolidatedLabels.verdict, ["success", "failure"]),
        sql`exists (select 1 from ${verdictCriteria} where ${verdictCriteria.verdictId} = ${evaluatorVerdicts.id})`,
      ),
    );
  return rows.map((r) => r.campaignId).sort((a, b) => b - a);
}
