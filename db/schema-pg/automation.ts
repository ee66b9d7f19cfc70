/** Automation rules on PostgreSQL, declared once in db/schema/automation.ts, which documents their meaning. */
import { automationTables } from "../schema/automation";
import { users } from "./auth";
import { trajectories } from "./core";
import { pgKit } from "./columns";

export const { automationRules, automationRuleRuns, automationRuleHits } = automationTables(pgKit, { users, trajectories });
