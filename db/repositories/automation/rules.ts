/**
 * Automation rules, their runs and the trajectories each rule acted on (db/schema/automation.ts), written once for
 * SQLite and PostgreSQL.
 */
import { and, asc, desc, eq, inArray, ne } from "drizzle-orm";
import type { RuleAction, RuleTrigger } from "../../../server/domain/automation/rules";
import { deleteBy, insertReturningId, rowBy, tablesOf, updateBy, type Db } from "../../database";
import type { AutomationRuleRow, AutomationRuleRunRow } from "../../schema/index";

export interface RuleValues {
  name: string;
  filterText: string;
  triggers: RuleTrigger[];
  action: RuleAction;
  sharePercent: number;
  seed: number;
  enabled: boolean;
}

export type RuleRunValues = Omit<AutomationRuleRunRow, "id" | "createdAt">;

/** Ids are read in chunks this long: well under both engines' limits on bound parameters. */
const CHUNK = 500;

export async function listRules(db: Db): Promise<AutomationRuleRow[]> {
  const { automationRules } = tablesOf(db);
  return db.select().from(automationRules).orderBy(asc(automationRules.name));
}

export async function getRule(db: Db, id: number): Promise<AutomationRuleRow | undefined> {
  return rowBy(db, tablesOf(db).automationRules, { id });
}

export async function getRuleByName(db: Db, name: string): Promise<AutomationRuleRow | undefined> {
  return rowBy(db, tablesOf(db).automationRules, { name });
}

export async function insertRule(db: Db, v: RuleValues & { createdBy: string | null }): Promise<number> {
  return insertReturningId(db, tablesOf(db).automationRules, v);
}

export async function updateRule(db: Db, id: number, patch: Partial<RuleValues>): Promise<void> {
  await updateBy(db, tablesOf(db).automationRules, { id }, { ...patch, updatedAt: new Date() });
}

/** Deletes the rule with its runs and hits (they cascade). */
export async function deleteRule(db: Db, id: number): Promise<void> {
  await deleteBy(db, tablesOf(db).automationRules, { id });
}

/** Enabled rules that run on this kind of arrival, oldest first. */
export async function enabledRulesFor(db: Db, trigger: RuleTrigger): Promise<AutomationRuleRow[]> {
  const { automationRules } = tablesOf(db);
  const rows = await db.select().from(automationRules).where(eq(automationRules.enabled, true)).orderBy(asc(automationRules.id));
  return rows.filter((r) => r.triggers.includes(trigger));
}

export async function insertRuleRun(db: Db, v: RuleRunValues): Promise<number> {
  return insertReturningId(db, tablesOf(db).automationRuleRuns, v);
}

/** A rule's runs, newest first. */
export async function listRuleRuns(db: Db, ruleId: number, limit: number): Promise<AutomationRuleRunRow[]> {
  const { automationRuleRuns } = tablesOf(db);
  return db.select().from(automationRuleRuns).where(eq(automationRuleRuns.ruleId, ruleId)).orderBy(desc(automationRuleRuns.id)).limit(limit);
}

/** Of these trajectories, the ones the rule has acted on before. */
export async function ruleHitIds(db: Db, ruleId: number, trajectoryIds: readonly number[]): Promise<Set<number>> {
  const { automationRuleHits } = tablesOf(db);
  const out = new Set<number>();
  for (let i = 0; i < trajectoryIds.length; i += CHUNK) {
    const rows = await db
      .select({ t: automationRuleHits.trajectoryId })
      .from(automationRuleHits)
      .where(and(eq(automationRuleHits.ruleId, ruleId), inArray(automationRuleHits.trajectoryId, trajectoryIds.slice(i, i + CHUNK))));
    for (const r of rows) out.add(r.t);
  }
  return out;
}

/** Records that the rule's run acted on these trajectories; ones recorded before stay as they were. */
export async function insertRuleHits(db: Db, ruleId: number, runId: number, trajectoryIds: readonly number[]): Promise<void> {
  const { automationRuleHits } = tablesOf(db);
  for (let i = 0; i < trajectoryIds.length; i += CHUNK) {
    const values = trajectoryIds.slice(i, i + CHUNK).map((trajectoryId) => ({ ruleId, trajectoryId, runId }));
    if (values.length) await db.insert(automationRuleHits).values(values).onConflictDoNothing();
  }
}

/** A live run's trajectories that have ended (none still recording), ascending. */
export async function endedTrajectoryIdsOfRun(db: Db, runId: number): Promise<number[]> {
  const { trajectories } = tablesOf(db);
  const rows = await db
    .select({ id: trajectories.id })
    .from(trajectories)
    .where(and(eq(trajectories.runId, runId), ne(trajectories.outcome, "running")))
    .orderBy(asc(trajectories.id));
  return rows.map((r) => r.id);
}
