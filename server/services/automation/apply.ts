/**
 * Running automation rules on what arrived. An import job that finished, a push through the API and a live run that
 * ended each queue one `rules.apply` job (never inside the import's own transaction); the job runs every enabled
 * rule of that trigger on the arrived trajectories only, and writes one run row per rule: what arrived, matched, was
 * sampled, acted on, or why the rule could not act. A rule acts on a trajectory at most once (its hits), so a job
 * run again, or the same trajectories arriving again, adds nothing twice.
 */
import {
  endedTrajectoryIdsOfRun,
  enabledRulesFor,
  insertRuleHits,
  insertRuleRun,
  ruleHitIds,
  type RuleRunValues,
} from "../../../db/repositories/automation/rules";
import { labellingBlindCount } from "../../../db/repositories/access/blind-rule";
import { getCampaign } from "../../../db/repositories/annotation/campaigns";
import { getJudgeConfig } from "../../../db/repositories/evaluation/verdicts";
import { getUser } from "../../../db/repositories/accounts/users";
import { withTransaction, type Db } from "../../../db/database";
import type { AutomationRuleRow } from "../../../db/schema/index";
import { hasRole, type Actor } from "../../domain/access/actor";
import { parseRuleFilter, planRuleRun, type RulePlan, type RuleTrigger } from "../../domain/automation/rules";
import { parseK } from "../../domain/evaluation/verdicts";
import { MAX_IDS, usesTriage } from "../../domain/trajectory-list-query";
import { AppError } from "../../errors";
import { addTrajectoriesToCampaign } from "../annotation";
import { createJudgeBatch } from "../evaluation";
import { enqueueJobs, type JobHandler } from "../jobs";
import { matchingTrajectoryIds } from "../trajectory-views";

export const RULES_APPLY_JOB_TYPE = "rules.apply";

/** Judge batches a rule starts ask this many calls at once, as the Judges page's default. */
const RULE_BATCH_CONCURRENCY = 4;

export interface RulesApplyPayload {
  trigger: RuleTrigger;
  /** The arrival as people know it, for the run log: "import job 12 (results.zip)", "live run 4". */
  arrival: string;
  /** The trajectories that arrived; a live run's are read when the job runs (`liveRunId`). */
  trajectoryIds?: number[];
  liveRunId?: number;
}

export interface RuleRunSummary {
  ruleId: number;
  runId: number;
  outcome: RuleRunValues["outcome"];
  acted: number;
  refusal: string | null;
}

/**
 * Queues the rules' look at an arrival, when any enabled rule runs on its trigger; `key` names the arrival so that
 * queueing it twice queues one job. Resolves to whether a job was queued.
 */
export async function enqueueRulesApply(db: Db, arrival: RulesApplyPayload & { key: string }): Promise<boolean> {
  const { key, ...payload } = arrival;
  if (payload.trajectoryIds?.length === 0 || !(await enabledRulesFor(db, payload.trigger)).length) return false;
  const created = await enqueueJobs(db, [{ type: RULES_APPLY_JOB_TYPE, payload, groupKey: `rules:${key}`, dedupeKey: `rules.apply:${key}`, maxAttempts: 3 }]);
  return created > 0;
}

/** The arrived trajectories the filter matches, read in slices the list's id filter takes. */
async function matchedAmong(db: Db, filter: ReturnType<typeof parseRuleFilter>["filter"], arrived: number[]): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < arrived.length; i += MAX_IDS) out.push(...(await matchingTrajectoryIds(db, { ...filter, ids: arrived.slice(i, i + MAX_IDS) })));
  return out;
}

/** Why the rule's author may not act as the rule asks now; null when they may. */
async function authorProblem(db: Db, rule: AutomationRuleRow, triage: boolean): Promise<{ actor: Actor | null; problem: string | null }> {
  const author = rule.createdBy ? await getUser(db, rule.createdBy) : undefined;
  if (!author) return { actor: null, problem: "the rule's author no longer has an account; a researcher can save the rule again to take it over" };
  if (author.banned || !hasRole(author, "researcher")) {
    return { actor: null, problem: `the rule's author (${author.name}) is no longer a researcher; a researcher can save the rule again to take it over` };
  }
  const actor: Actor = { userId: author.id, name: author.name, role: author.role };
  const blind = triage ? await labellingBlindCount(db, author.id) : 0;
  if (blind) {
    return {
      actor,
      problem: `blind: the rule filters by labels or verdicts, and its author (${author.name}) labels ${blind} trajector${blind === 1 ? "y" : "ies"} blind; it acts again once they have labelled them`,
    };
  }
  return { actor, problem: null };
}

/** What the rule's target says against acting now; null when it may take the trajectories. */
async function targetProblem(db: Db, rule: AutomationRuleRow): Promise<string | null> {
  if (rule.action.kind === "campaign") {
    const c = await getCampaign(db, rule.action.campaignId);
    if (!c) return `campaign ${rule.action.campaignId} is gone`;
    return c.status === "closed" ? `campaign “${c.name}” is closed; reopen it or point the rule at another campaign` : null;
  }
  return (await getJudgeConfig(db, rule.action.judgeConfigId)) ? null : `judge configuration ${rule.action.judgeConfigId} is gone`;
}

/** Acts on the fresh trajectories and writes the run with its hits, together. */
async function act(
  db: Db,
  rule: AutomationRuleRow,
  actor: Actor,
  base: Omit<RuleRunValues, "outcome" | "refusal" | "judgeBatchId" | "acted">,
  fresh: number[],
) {
  return withTransaction(db, async () => {
    let judgeBatchId: number | null = null;
    if (rule.action.kind === "campaign") await addTrajectoriesToCampaign(db, actor, rule.action.campaignId, { trajectoryIds: fresh });
    else {
      const { batch } = await createJudgeBatch(db, {
        config: rule.action.judgeConfigId,
        trajectoryIds: fresh,
        kValues: [parseK(rule.action.k)],
        concurrency: RULE_BATCH_CONCURRENCY,
        selectionLabel: `rule “${rule.name}”: ${base.arrival}`.slice(0, 200),
      });
      judgeBatchId = batch.id;
    }
    const runId = await insertRuleRun(db, { ...base, acted: fresh.length, outcome: "acted", refusal: null, judgeBatchId });
    await insertRuleHits(db, rule.id, runId, fresh);
    return runId;
  });
}

/** One rule over one arrival: its run row says what happened. */
export async function runRule(
  db: Db,
  rule: AutomationRuleRow,
  arrival: { trigger: RuleTrigger; arrival: string; trajectoryIds: number[] },
): Promise<RuleRunSummary> {
  const record = async (plan: RulePlan | null, refusal: string | null): Promise<RuleRunSummary> => {
    const outcome = refusal ? "refused" : "nothing";
    const values: RuleRunValues = {
      ...runBase(rule, arrival, plan),
      acted: 0,
      outcome,
      refusal,
      judgeBatchId: null,
    };
    return { ruleId: rule.id, runId: await insertRuleRun(db, values), outcome, acted: 0, refusal };
  };
  let filter: ReturnType<typeof parseRuleFilter>["filter"];
  try {
    filter = parseRuleFilter(rule.filterText).filter;
  } catch (e) {
    return record(null, e instanceof Error ? e.message : String(e));
  }
  const author = await authorProblem(db, rule, usesTriage(filter));
  if (author.problem || !author.actor) return record(null, author.problem);
  const matched = await matchedAmong(db, filter, arrival.trajectoryIds);
  const plan = planRuleRun({
    arrived: arrival.trajectoryIds,
    matched,
    done: await ruleHitIds(db, rule.id, matched),
    sharePercent: rule.sharePercent,
    seed: rule.seed,
  });
  if (!plan.fresh.length) return record(plan, null);
  const refusal = await targetProblem(db, rule);
  if (refusal) return record(plan, refusal);
  try {
    const runId = await act(db, rule, author.actor, runBase(rule, arrival, plan), plan.fresh);
    return { ruleId: rule.id, runId, outcome: "acted", acted: plan.fresh.length, refusal: null };
  } catch (e) {
    // The campaign or configuration refused the trajectories (a rule the target no longer accepts): said, not retried.
    if (e instanceof AppError) return record(plan, e.message);
    throw e;
  }
}

function runBase(rule: AutomationRuleRow, arrival: { trigger: RuleTrigger; arrival: string; trajectoryIds: number[] }, plan: RulePlan | null) {
  return {
    ruleId: rule.id,
    trigger: arrival.trigger,
    arrival: arrival.arrival,
    arrived: new Set(arrival.trajectoryIds).size,
    matched: plan?.matched.length ?? 0,
    sampled: plan?.sampled.length ?? 0,
    alreadyDone: plan?.alreadyDone.length ?? 0,
    trajectoryIds: plan?.fresh ?? [],
  };
}

/** Every enabled rule of the arrival's trigger, oldest first, on the arrived trajectories. */
export async function applyRules(db: Db, payload: RulesApplyPayload): Promise<RuleRunSummary[]> {
  const trajectoryIds = payload.liveRunId !== undefined ? await endedTrajectoryIdsOfRun(db, payload.liveRunId) : [...new Set(payload.trajectoryIds ?? [])];
  const out: RuleRunSummary[] = [];
  if (!trajectoryIds.length) return out;
  for (const rule of await enabledRulesFor(db, payload.trigger))
    out.push(await runRule(db, rule, { trigger: payload.trigger, arrival: payload.arrival, trajectoryIds }));
  return out;
}

export function rulesApplyJobHandler(ctx: { db: Db }): JobHandler {
  return async ({ job }) => ({ runs: await applyRules(ctx.db, job.payload as RulesApplyPayload) });
}
