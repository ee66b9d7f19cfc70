/**
 * Pairwise campaigns (annotation_campaigns.kind = "pairwise"): each item is two attempts at one task by different
 * agents, A the lower trajectory id, with the seed the side A is shown on is drawn from (see
 * server/domain/annotation/pairwise-pairs.ts). Annotators answer which attempt is better; the answer is stored in
 * terms of A and B, never of left and right, one per annotator per item, revised in place with every revision kept.
 */
import type { PairwiseOutcome } from "../../server/domain/annotation/pairwise-pairs";
import { annotationCampaigns } from "./annotation";
import { users } from "./auth";
import { tasks, trajectories } from "./core";
import { sqliteKit, timestamps, type SchemaKit, type TableRefs } from "./columns";

/** The tables this module's tables reference, of the dialect being declared. */
export type PairwiseRefs = TableRefs<"annotationCampaigns" | "users" | "tasks" | "trajectories">;

/** The tables of this module, declared once for both dialects (db/schema/columns.ts). */
export function pairwiseTables(k: SchemaKit, { annotationCampaigns, users, tasks, trajectories }: PairwiseRefs) {
  const pairwiseItems = k.table(
    "pairwise_items",
    {
      id: k.id(),
      campaignId: k.cascadeId("campaign_id", () => annotationCampaigns.id),
      /** The item's number in its campaign, drawn in a shuffled order: the only id annotators see. */
      itemNo: k.integer("item_no").notNull(),
      taskId: k.cascadeId("task_id", () => tasks.id),
      trajectoryA: k.cascadeId("trajectory_a", () => trajectories.id),
      trajectoryB: k.cascadeId("trajectory_b", () => trajectories.id),
      /** Which side A is shown on follows from this seed; kept so the page always shows the pair the same way round. */
      sideSeed: k.bigint("side_seed").notNull(),
      /** Answers given so far, kept by the transaction that stores an answer, so "next" need not count them. */
      answerCount: k.integer("answer_count").notNull().default(0),
      createdAt: k.stamp("created_at"),
    },
    (t) => [
      k.uniqueIndex("pairwise_items_campaign_pair_uq").on(t.campaignId, t.trajectoryA, t.trajectoryB),
      k.uniqueIndex("pairwise_items_campaign_item_no_uq").on(t.campaignId, t.itemNo),
      k.index("pairwise_items_queue_idx").on(t.campaignId, t.answerCount),
    ],
  );

  const pairwiseAnswers = k.table(
    "pairwise_answers",
    {
      id: k.id(),
      campaignId: k.cascadeId("campaign_id", () => annotationCampaigns.id),
      itemId: k.cascadeId("item_id", () => pairwiseItems.id),
      userId: k.cascadeKey("user_id", () => users.id),
      annotatorName: k.text("annotator_name").notNull(),
      outcome: k.text("outcome").$type<PairwiseOutcome>().notNull(),
      /** Milliseconds spent on the pair (summed over revisions). */
      timeSpentMs: k.bigint("time_spent_ms"),
      revision: k.integer("revision").notNull().default(1),
      ...timestamps(k),
    },
    (t) => [k.uniqueIndex("pairwise_answers_item_user_uq").on(t.itemId, t.userId), k.index("pairwise_answers_campaign_idx").on(t.campaignId, t.userId)],
  );

  /** Every answer and every change of it: append-only. */
  const pairwiseAnswerRevisions = k.table(
    "pairwise_answer_revisions",
    {
      id: k.id(),
      answerId: k.cascadeId("answer_id", () => pairwiseAnswers.id),
      campaignId: k.cascadeId("campaign_id", () => annotationCampaigns.id),
      revision: k.integer("revision").notNull(),
      outcome: k.text("outcome").$type<PairwiseOutcome>().notNull(),
      actorId: k.text("actor_id").references(() => users.id, { onDelete: "set null" }),
      createdAt: k.stamp("created_at"),
    },
    (t) => [k.uniqueIndex("pairwise_answer_revisions_answer_revision_uq").on(t.answerId, t.revision)],
  );
  return { pairwiseItems, pairwiseAnswers, pairwiseAnswerRevisions };
}

export const { pairwiseItems, pairwiseAnswers, pairwiseAnswerRevisions } = pairwiseTables(sqliteKit, { annotationCampaigns, users, tasks, trajectories });
