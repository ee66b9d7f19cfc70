/**
 * Automation rules (server/domain/automation/rules.ts): a filter over arriving trajectories and an action on a
 * seeded share of the matches. Each time a rule looks at an arrival it writes an `automation_rule_runs` row (what
 * arrived, matched, was acted on, or why it was refused); `automation_rule_hits` holds every trajectory a rule acted
 * on, so a rule run again over the same arrival acts on nothing twice.
 */
import type { RuleAction, RuleTrigger } from "../../server/domain/automation/rules";
import { users } from "./auth";
import { trajectories } from "./core";
import { sqliteKit, timestamps, type SchemaKit, type TableRefs } from "./columns";

/** The tables this module's tables reference, of the dialect being declared. */
export type AutomationRefs = TableRefs<"users" | "trajectories">;

/** The tables of this module, declared once for both dialects (db/schema/columns.ts). */
export function automationTables(k: SchemaKit, { users, trajectories }: AutomationRefs) {
  const automationRules = k.table("automation_rules", {
    id: k.id(),
    name: k.text("name").notNull().unique(),
    /** The trajectory list's query text, as the researcher wrote it. */
    filterText: k.text("filter_text").notNull(),
    triggers: k.json("triggers").$type<RuleTrigger[]>().notNull(),
    action: k.json("action").$type<RuleAction>().notNull(),
    sharePercent: k.real("share_percent").notNull(),
    seed: k.integer("seed").notNull(),
    enabled: k.flag("enabled").notNull().default(true),
    /** Whose rights the rule acts with; a rule whose author is gone is refused at its next run. */
    createdBy: k.text("created_by").references(() => users.id, { onDelete: "set null" }),
    ...timestamps(k),
  });

  const automationRuleRuns = k.table(
    "automation_rule_runs",
    {
      id: k.id(),
      ruleId: k.cascadeId("rule_id", () => automationRules.id),
      trigger: k.text("trigger").$type<RuleTrigger>().notNull(),
      /** The arrival as people know it: "import job 12 (results.zip)", "live run 4". */
      arrival: k.text("arrival").notNull(),
      arrived: k.integer("arrived").notNull(),
      matched: k.integer("matched").notNull(),
      sampled: k.integer("sampled").notNull(),
      /** Trajectories this run acted on (added to the campaign, or put in the judge batch). */
      acted: k.integer("acted").notNull(),
      /** Sampled trajectories an earlier run of this rule had already acted on. */
      alreadyDone: k.integer("already_done").notNull(),
      outcome: k.text("outcome").$type<"acted" | "nothing" | "refused">().notNull(),
      /** Why the rule could not act (campaign closed, judge configuration gone, the blind); null when it could. */
      refusal: k.text("refusal"),
      judgeBatchId: k.integer("judge_batch_id"),
      /** The ids acted on (or that would have been, when refused), ascending. */
      trajectoryIds: k.json("trajectory_ids").$type<number[]>().notNull(),
      createdAt: k.stamp("created_at"),
    },
    (t) => [k.index("automation_rule_runs_rule_idx").on(t.ruleId, t.id)],
  );

  const automationRuleHits = k.table(
    "automation_rule_hits",
    {
      id: k.id(),
      ruleId: k.cascadeId("rule_id", () => automationRules.id),
      trajectoryId: k.cascadeId("trajectory_id", () => trajectories.id),
      runId: k.integer("run_id").notNull(),
    },
    (t) => [k.uniqueIndex("automation_rule_hits_rule_trajectory_uq").on(t.ruleId, t.trajectoryId)],
  );
  return { automationRules, automationRuleRuns, automationRuleHits };
}

export const { automationRules, automationRuleRuns, automationRuleHits } = automationTables(sqliteKit, { users, trajectories });

export type AutomationRuleRow = typeof automationRules.$inferSelect;
export type AutomationRuleRunRow = typeof automationRuleRuns.$inferSelect;
