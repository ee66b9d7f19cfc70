/**
 * Evaluation: automatic evaluators and their verdicts. LMM judges (their endpoints, configurations, batches and
 * alignment studies), benchmark rules, heuristics, scanners, stress tests and verdicts recorded from outside.
 * Routers, the CLI, the job runtime and other areas (live runs judge with a judge configuration) import from here.
 */
export {
  alignmentSplitItems,
  alignmentVersions,
  calibrationDisagreements,
  compareAlignmentVersions,
  createAlignment,
  createPromptVersion,
  estimateAlignmentRun,
  listAlignments,
  requireAlignment,
  startAlignmentRun,
  suggestRubric,
  type AlignmentView,
} from "./alignment-studies";
export { judgeCriteriaOfSetting, criteriaReport, type CriteriaReport } from "./criteria-report";
export { externalVerdictInput, recordExternalVerdict } from "./external-verdicts";
export { evaluateHeuristicVerdicts } from "./heuristics";
export {
  runJudgeBatch,
  batchGroupKey,
  createJudgeBatch,
  cancelJudgeBatch,
  estimateJudgeBatch,
  judgeBatchFailures,
  judgeBatchProgress,
  listBatches,
  resumeJudgeBatch,
  requireBatch,
  type BatchProgress,
  runJudgeWorker,
} from "./judge-batches";
export { createJudgeClient, type ChatMessage, type JudgeClient, type JudgeEndpoint, type RetryPolicy } from "./judge-client";
export {
  createJudgeConfig,
  deleteJudgeConfig,
  listJudgeConfigViews,
  requireJudgeConfig,
  setStoredApiKey,
  toView,
  updateJudgeConfig,
  type JudgeConfigInput,
  resolveApiKey,
  type Env,
  endpointErrorText,
  judgeEndpointOf,
} from "./judge-configs";
export { testJudgeEndpoint } from "./judge-endpoint-test";
export { judgeEndpointSettingsView, saveJudgeEndpointSettingsFor } from "./judge-endpoints";
export { MAX_JUDGE_SAMPLES } from "./judge-verdict";
export { evaluateRuleVerdicts, type RuleRunReport, describeEvaluation } from "./rules";
export { scannerRunJobHandler } from "./scanner-job";
export { scannerRunJob, startScannerRun, SCANNER_RUN_JOB_TYPE } from "./scanner-jobs";
export { createScanner, removeScanner, scannerDetail, scannerSummaries, trajectoryScannerMatches, updateScanner } from "./scanners";
export { createStressTest, listStressTests, planStressTest, stressTestReport, requireStressTest, type StressTestReport } from "./stress-tests";
export { evaluatorSummaries, trajectoryEvaluations, verdictsOfTrajectory } from "./trajectory-evaluations";
