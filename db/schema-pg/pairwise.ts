/** Pairwise campaign items and answers on PostgreSQL. Mirrors db/schema/pairwise.ts, which documents them. */
import { bigint, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { PairwiseOutcome } from "../../server/domain/annotation/pairwise-pairs";
import { annotationCampaigns } from "./annotation";
import { users } from "./auth";
import { cascadeId, cascadeKey, epochMs, nowMs } from "./columns";
import { tasks, trajectories } from "./core";

export const pairwiseItems = pgTable(
  "pairwise_items",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    itemNo: integer("item_no").notNull(),
    taskId: cascadeId("task_id", () => tasks.id),
    trajectoryA: cascadeId("trajectory_a", () => trajectories.id),
    trajectoryB: cascadeId("trajectory_b", () => trajectories.id),
    sideSeed: bigint("side_seed", { mode: "number" }).notNull(),
    answerCount: integer("answer_count").notNull().default(0),
    createdAt: epochMs("created_at").notNull().default(nowMs),
  },
  (t) => [
    uniqueIndex("pairwise_items_campaign_pair_uq").on(t.campaignId, t.trajectoryA, t.trajectoryB),
    uniqueIndex("pairwise_items_campaign_item_no_uq").on(t.campaignId, t.itemNo),
    index("pairwise_items_queue_idx").on(t.campaignId, t.answerCount),
  ],
);

export const pairwiseAnswers = pgTable(
  "pairwise_answers",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    itemId: cascadeId("item_id", () => pairwiseItems.id),
    userId: cascadeKey("user_id", () => users.id),
    annotatorName: text("annotator_name").notNull(),
    outcome: text("outcome").$type<PairwiseOutcome>().notNull(),
    timeSpentMs: bigint("time_spent_ms", { mode: "number" }),
    revision: integer("revision").notNull().default(1),
    createdAt: epochMs("created_at").notNull().default(nowMs),
    updatedAt: epochMs("updated_at").notNull().default(nowMs),
  },
  (t) => [uniqueIndex("pairwise_answers_item_user_uq").on(t.itemId, t.userId), index("pairwise_answers_campaign_idx").on(t.campaignId, t.userId)],
);

export const pairwiseAnswerRevisions = pgTable(
  "pairwise_answer_revisions",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    answerId: cascadeId("answer_id", () => pairwiseAnswers.id),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    revision: integer("revision").notNull(),
    outcome: text("outcome").$type<PairwiseOutcome>().notNull(),
    actorId: text("actor_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: epochMs("created_at").notNull().default(nowMs),
  },
  (t) => [uniqueIndex("pairwise_answer_revisions_answer_revision_uq").on(t.answerId, t.revision)],
);
