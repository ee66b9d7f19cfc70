/**
 * Automation rules (server/domain/automation/rules.ts): a filter over arriving trajectories and an action on a
 * seeded share of the matches. Each time a rule looks at an arrival it writes an `automation_rule_runs` row (what
 * arrived, matched, was acted on, or why it was refused); `automation_rule_hits` holds every trajectory a rule acted
 * on, so a rule run again over the same arrival acts on nothing twice.
 */
import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { RuleAction, RuleTrigger } from "../../server/domain/automation/rules";
import { users } from "./auth";
import { trajectories } from "./core";
import { cascadeId } from "./columns";

const nowMs = sql`(unixepoch('subsec') * 1000)`;

export const automationRules = sqliteTable("automation_rules", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull().unique(),
  /** The trajectory list's query text, as the researcher wrote it. */
  filterText: text("filter_text").notNull(),
  triggers: text("triggers", { mode: "json" }).$type<RuleTrigger[]>().notNull(),
  action: text("action", { mode: "json" }).$type<RuleAction>().notNull(),
  sharePercent: real("share_percent").notNull(),
  seed: integer("seed").notNull(),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  /** Whose rights the rule acts with; a rule whose author is gone is refused at its next run. */
  createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
});

export const automationRuleRuns = sqliteTable(
  "automation_rule_runs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ruleId: cascadeId("rule_id", () => automationRules.id),
    trigger: text("trigger").$type<RuleTrigger>().notNull(),
    /** The arrival as people know it: "import job 12 (results.zip)", "live run 4". */
    arrival: text("arrival").notNull(),
    arrived: integer("arrived").notNull(),
    matched: integer("matched").notNull(),
    sampled: integer("sampled").notNull(),
    /** Trajectories this run acted on (added to the campaign, or put in the judge batch). */
    acted: integer("acted").notNull(),
    /** Sampled trajectories an earlier run of this rule had already acted on. */
    alreadyDone: integer("already_done").notNull(),
    outcome: text("outcome").$type<"acted" | "nothing" | "refused">().notNull(),
    /** Why the rule could not act (campaign closed, judge configuration gone, the blind); null when it could. */
    refusal: text("refusal"),
    judgeBatchId: integer("judge_batch_id"),
    /** The ids acted on (or that would have been, when refused), ascending. */
    trajectoryIds: text("trajectory_ids", { mode: "json" }).$type<number[]>().notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [index("automation_rule_runs_rule_idx").on(t.ruleId, t.id)],
);

export const automationRuleHits = sqliteTable(
  "automation_rule_hits",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ruleId: cascadeId("rule_id", () => automationRules.id),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    runId: integer("run_id").notNull(),
  },
  (t) => [uniqueIndex("automation_rule_hits_rule_trajectory_uq").on(t.ruleId, t.trajectoryId)],
);

export type AutomationRuleRow = typeof automationRules.$inferSelect;
export type AutomationRuleRunRow = typeof automationRuleRuns.$inferSelect;
