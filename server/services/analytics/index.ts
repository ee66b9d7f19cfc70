/**
 * Analytics services: success rates, judge and human agreement, error analysis, drill-down and CSV agreement.
 * Each takes the database and a plain input and returns plain data (numbers with their n and the selection behind
 * them); routers and pages only pass them on.
 */
import type { Db } from "../../../db/database";
import { listTaskSetNames } from "../../../db/repositories/analytics";
import { runNames } from "./common";
import { getCampaignLabels, getFacts, type TrajectoryFacts } from "./dataset";
import { campaignList } from "./humans";
import { annotatorsByCampaign } from "./references";
import { splitKeyOptions } from "./splits";

export { analyticsOverview, HUMAN_EVALUATOR_ID, type OverviewInput, type OverviewResult, type OverviewColumn, type RateRow } from "./overview";
export {
  judgeAgreementList,
  judgeAgreementDetail,
  judgeDisagreements,
  type AgreementStats,
  type DisagreementRow,
  type JudgeDetailResult,
  type JudgeListResult,
  type ReferenceRow,
  type SplitRow,
} from "./evaluator-agreement";
export { referenceAnnotators, resolveAnnotator } from "./references";
export { resolveSplitKey, splitKeyOptions, type SplitKeyOption } from "./splits";
export { campaignRegionAgreement, type RegionAgreementResult } from "./region-agreement";
export { failureStepAgreement, type FailureStepResult, type StepAgreement } from "./failure-steps";
export { judgeMeasures, type JudgeMeasuresResult, type EvaluatorMeasures, type SplitErrors, type RankRow } from "./evaluator-measures";
export {
  humanAgreement,
  humanConsensus,
  campaignList,
  type HumanAgreementResult,
  type HumanConsensusResult,
  type HumanSplitRow,
  type CampaignListEntry,
} from "./humans";
export { errorAnalysis, type ErrorAnalysisResult } from "./errors";
export { stepBudgets, BUDGET_GROUPINGS, type BudgetGrouping, type StepBudgetInput } from "./step-budget";
export { drillDown, selectionRows } from "./drill";
export {
  clusterRun,
  clusterRuns,
  computeFailureClusters,
  failureClustersJob,
  mergeClusterPair,
  renameCluster,
  saveFailureClusters,
  startFailureClusters,
  FAILURE_CLUSTERS_JOB_TYPE,
  type ClusterRunResult,
} from "./failure-clusters";
export { csvAgreement, csvAgreementJob, startCsvAgreement, CSV_AGREEMENT_JOB_TYPE, type CsvAgreementInput, type CsvAgreementResult } from "./csv-agreement";
export { revealAgreement, type RevealAgreementResult, type RevealEvaluatorMeasures } from "./reveal";
export { clearAnalyticsCache, type Scope } from "./dataset";
export type { RateCell } from "./common";

/** The facts rows of a campaign's labelled trajectories (what its human agreement views are computed over). */
async function campaignRows(db: Db, facts: TrajectoryFacts, campaignId: number): Promise<Int32Array> {
  const ids = (await getCampaignLabels(db, campaignId)).col.trajectoryId;
  const rows = new Set<number>();
  for (const id of ids) {
    const r = facts.rowOf(id);
    if (r >= 0) rows.add(r);
  }
  return Int32Array.from(rows);
}

/** Choices for the analytics filter bar; split keys counted over one campaign's trajectories when `campaignId` is given. */
export async function analyticsOptions(db: Db, scope: { campaignId?: number } = {}) {
  const facts = await getFacts(db);
  const sites = [...facts.sites].sort((a, b) => a.localeCompare(b));
  let noSite = false;
  for (const s of facts.site) if (s < 0) noSite = true;
  return {
    trajectories: facts.n,
    taskSets: await listTaskSetNames(db),
    runs: await runNames(db),
    sites,
    hasTrajectoriesWithoutSite: noSite,
    campaigns: await campaignList(db),
    /** What views can be split by: site, run, task set, difficulty dimensions and the task attributes sources carried. */
    splitKeys: splitKeyOptions(facts, scope.campaignId === undefined ? undefined : await campaignRows(db, facts, scope.campaignId)),
    /** Annotators with labels, and the campaigns they labelled in, for "against annotator X" references. */
    annotators: await annotatorsByCampaign(db),
  };
}
export { annotatorQuality, CONSENSUS_MODELS } from "./annotator-quality";
export { failureClustersJobHandler } from "./failure-clusters-job";
export { judgeRunConsistencies, type JudgeConsistencyView } from "./judge-consistency";
