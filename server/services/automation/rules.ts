/**
 * Automation rules as researchers keep them: list, create, edit, pause, delete, and each rule's runs. A rule acts
 * with its author's rights when it runs (./apply.ts), so who may write one is who may do what it does: researchers
 * and admins, and a filter on labels or verdicts only from someone who may see them.
 */
import {
  deleteRule as deleteStoredRule,
  getRule,
  getRuleByName,
  insertRule,
  listRuleRuns,
  listRules,
  updateRule as updateStoredRule,
} from "../../../db/repositories/automation/rules";
import { getCampaign } from "../../../db/repositories/annotation/campaigns";
import { getJudgeConfig } from "../../../db/repositories/evaluation/verdicts";
import { getUsers } from "../../../db/repositories/accounts/users";
import { withTransaction, type Db } from "../../../db/database";
import type { AutomationRuleRow, AutomationRuleRunRow } from "../../../db/schema/index";
import { requireRole, type Actor } from "../../domain/access/actor";
import { checkRuleDraft, parseRuleFilter, type RuleAction, type RuleDraft } from "../../domain/automation/rules";
import { usesTriage } from "../../domain/trajectory-list-query";
import { ConflictError, NotFoundError, ValidationError } from "../../errors";
import { assertMayTriage } from "../access";

/** Runs shown per rule: the newest first. */
export const RULE_RUNS_SHOWN = 50;

export interface RuleTargetView {
  kind: RuleAction["kind"];
  id: number;
  /** The campaign's or judge configuration's name; null when it is gone. */
  name: string | null;
  /** Why the rule cannot act now (campaign closed, configuration gone); null when it can. */
  problem: string | null;
}

export interface RuleView extends Omit<AutomationRuleRow, "createdBy"> {
  target: RuleTargetView;
  author: string | null;
  lastRun: Pick<AutomationRuleRunRow, "createdAt" | "outcome" | "acted" | "refusal"> | null;
}

async function targetOf(db: Db, action: RuleAction): Promise<RuleTargetView> {
  if (action.kind === "campaign") {
    const c = await getCampaign(db, action.campaignId);
    const problem = !c ? `campaign ${action.campaignId} is gone` : c.status === "closed" ? `campaign “${c.name}” is closed` : null;
    return { kind: "campaign", id: action.campaignId, name: c?.name ?? null, problem };
  }
  const config = await getJudgeConfig(db, action.judgeConfigId);
  return {
    kind: "judge",
    id: action.judgeConfigId,
    name: config?.name ?? null,
    problem: config ? null : `judge configuration ${action.judgeConfigId} is gone`,
  };
}

export async function listRuleViews(db: Db, actor: Actor): Promise<RuleView[]> {
  requireRole(actor, "researcher", "see automation rules");
  const rows = await listRules(db);
  const authors = new Map((await getUsers(db, [...new Set(rows.flatMap((r) => (r.createdBy ? [r.createdBy] : [])))])).map((u) => [u.id, u.name]));
  const out: RuleView[] = [];
  for (const { createdBy, ...r } of rows) {
    const [last] = await listRuleRuns(db, r.id, 1);
    out.push({
      ...r,
      target: await targetOf(db, r.action),
      author: createdBy ? (authors.get(createdBy) ?? null) : null,
      lastRun: last ? { createdAt: last.createdAt, outcome: last.outcome, acted: last.acted, refusal: last.refusal } : null,
    });
  }
  return out;
}

async function requireRule(db: Db, id: number): Promise<AutomationRuleRow> {
  const rule = await getRule(db, id);
  if (!rule) throw new NotFoundError("automation rule", id);
  return rule;
}

/** A draft checked against what exists: its target must be there to act on, and its filter the author's to use. */
async function checkedDraft(db: Db, actor: Actor, draft: RuleDraft) {
  const rule = checkRuleDraft(draft);
  if (usesTriage(parseRuleFilter(rule.filterText).filter)) await assertMayTriage(db, actor);
  const target = await targetOf(db, rule.action);
  const field = rule.action.kind === "campaign" ? "campaign" : "judge";
  if (target.problem) throw new ValidationError(`${field}: ${target.problem}`, field);
  return rule;
}

export async function createRule(db: Db, actor: Actor, draft: RuleDraft): Promise<RuleView> {
  requireRole(actor, "researcher", "write automation rules");
  const rule = await checkedDraft(db, actor, draft);
  const id = await withTransaction(db, async () => {
    if (await getRuleByName(db, rule.name)) throw new ConflictError(`A rule named ${JSON.stringify(rule.name)} already exists`);
    return insertRule(db, { ...rule, createdBy: actor.userId });
  });
  return (await listRuleViews(db, actor)).find((r) => r.id === id)!;
}

/** Replaces a rule's definition. Its runs stay, and so do the trajectories it acted on: an edit never acts on them again. */
export async function editRule(db: Db, actor: Actor, id: number, draft: RuleDraft): Promise<RuleView> {
  requireRole(actor, "researcher", "change automation rules");
  const rule = await checkedDraft(db, actor, draft);
  await withTransaction(db, async () => {
    await requireRule(db, id);
    const named = await getRuleByName(db, rule.name);
    if (named && named.id !== id) throw new ConflictError(`A rule named ${JSON.stringify(rule.name)} already exists`);
    await updateStoredRule(db, id, rule);
  });
  return (await listRuleViews(db, actor)).find((r) => r.id === id)!;
}

/** Pauses (or resumes) a rule: a paused rule does not look at arrivals. */
export async function setRuleEnabled(db: Db, actor: Actor, id: number, enabled: boolean): Promise<void> {
  requireRole(actor, "researcher", "pause or resume automation rules");
  await requireRule(db, id);
  await updateStoredRule(db, id, { enabled });
}

export async function deleteRule(db: Db, actor: Actor, id: number): Promise<void> {
  requireRole(actor, "researcher", "delete automation rules");
  await requireRule(db, id);
  await deleteStoredRule(db, id);
}

export async function ruleRuns(db: Db, actor: Actor, id: number): Promise<AutomationRuleRunRow[]> {
  requireRole(actor, "researcher", "see automation rules");
  await requireRule(db, id);
  return listRuleRuns(db, id, RULE_RUNS_SHOWN);
}
