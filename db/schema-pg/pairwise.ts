/** Pairwise campaign items and answers on PostgreSQL. Declared once in db/schema/pairwise.ts, which documents them. */
import { pairwiseTables } from "../schema/pairwise";
import { annotationCampaigns } from "./annotation";
import { users } from "./auth";
import { tasks, trajectories } from "./core";
import { pgKit } from "./columns";

export const { pairwiseItems, pairwiseAnswers, pairwiseAnswerRevisions } = pairwiseTables(pgKit, {
  annotationCampaigns,
  users,
  tasks,
  trajectories,
});
