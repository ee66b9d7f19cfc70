/**
 * Automatic evaluation on PostgreSQL: judge configurations (keys in their own table), endpoint settings, batches
 * and evaluator verdicts. Declared once in db/schema/evaluation.ts, where each column is documented.
 */
import { evaluationTables } from "../schema/evaluation";
import { annotationCampaigns } from "./annotation";
import { users } from "./auth";
import { trajectories } from "./core";
import { pgKit } from "./columns";

export const {
  judgeConfigs,
  judgeConfigSecrets,
  judgeEndpointSettings,
  judgeBatches,
  evaluatorVerdicts,
  verdictCriteria,
  verdictCitations,
  judgeAlignments,
  judgePromptVersions,
  judgeStressTests,
} = evaluationTables(pgKit, { annotationCampaigns, users, trajectories });
