/** Automation rules on PostgreSQL; see db/schema/automation.ts for their meaning. */
import { boolean, doublePrecision, index, integer, json, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { RuleAction, RuleTrigger } from "../../server/domain/automation/rules";
import { users } from "./auth";
import { trajectories } from "./core";
import { cascadeId, epochMs, nowMs } from "./columns";

export const automationRules = pgTable("automation_rules", {
  id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
  name: text("name").notNull().unique(),
  filterText: text("filter_text").notNull(),
  triggers: json("triggers").$type<RuleTrigger[]>().notNull(),
  action: json("action").$type<RuleAction>().notNull(),
  sharePercent: doublePrecision("share_percent").notNull(),
  seed: integer("seed").notNull(),
  enabled: boolean("enabled").notNull().default(true),
  createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
  createdAt: epochMs("created_at").notNull().default(nowMs),
  updatedAt: epochMs("updated_at").notNull().default(nowMs),
});

export const automationRuleRuns = pgTable(
  "automation_rule_runs",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    ruleId: cascadeId("rule_id", () => automationRules.id),
    trigger: text("trigger").$type<RuleTrigger>().notNull(),
    arrival: text("arrival").notNull(),
    arrived: integer("arrived").notNull(),
    matched: integer("matched").notNull(),
    sampled: integer("sampled").notNull(),
    acted: integer("acted").notNull(),
    alreadyDone: integer("already_done").notNull(),
    outcome: text("outcome").$type<"acted" | "nothing" | "refused">().notNull(),
    refusal: text("refusal"),
    judgeBatchId: integer("judge_batch_id"),
    trajectoryIds: json("trajectory_ids").$type<number[]>().notNull(),
    createdAt: epochMs("created_at").notNull().default(nowMs),
  },
  (t) => [index("automation_rule_runs_rule_idx").on(t.ruleId, t.id)],
);

export const automationRuleHits = pgTable(
  "automation_rule_hits",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    ruleId: cascadeId("rule_id", () => automationRules.id),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    runId: integer("run_id").notNull(),
  },
  (t) => [uniqueIndex("automation_rule_hits_rule_trajectory_uq").on(t.ruleId, t.trajectoryId)],
);
