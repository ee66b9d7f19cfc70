/**
 * Automation rules: a filter over arriving trajectories and an action on a seeded share of the matches (add them to
 * a campaign, or start a judge batch), run by a worker after each arrival, with every run logged.
 */
export * from "./rules";
export { applyRules, enqueueRulesApply, RULES_APPLY_JOB_TYPE, rulesApplyJobHandler, runRule, type RuleRunSummary, type RulesApplyPayload } from "./apply";
