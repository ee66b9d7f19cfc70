/**
 * Pairwise campaigns (annotation_campaigns.kind = "pairwise"): each item is two attempts at one task by different
 * agents, A the lower trajectory id, with the seed the side A is shown on is drawn from (see
 * server/domain/annotation/pairwise-pairs.ts). Annotators answer which attempt is better; the answer is stored in
 * terms of A and B, never of left and right, one per annotator per item, revised in place with every revision kept.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { PairwiseOutcome } from "../../server/domain/annotation/pairwise-pairs";
import { annotationCampaigns } from "./annotation";
import { users } from "./auth";
import { tasks, trajectories } from "./core";
import { cascadeId, cascadeKey } from "./columns";

const nowMs = sql`(unixepoch('subsec') * 1000)`;

export const pairwiseItems = sqliteTable(
  "pairwise_items",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    /** The item's number in its campaign, drawn in a shuffled order: the only id annotators see. */
    itemNo: integer("item_no").notNull(),
    taskId: cascadeId("task_id", () => tasks.id),
    trajectoryA: cascadeId("trajectory_a", () => trajectories.id),
    trajectoryB: cascadeId("trajectory_b", () => trajectories.id),
    /** Which side A is shown on follows from this seed; kept so the page always shows the pair the same way round. */
    sideSeed: integer("side_seed").notNull(),
    /** Answers given so far, kept by the transaction that stores an answer, so "next" need not count them. */
    answerCount: integer("answer_count").notNull().default(0),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [
    uniqueIndex("pairwise_items_campaign_pair_uq").on(t.campaignId, t.trajectoryA, t.trajectoryB),
    uniqueIndex("pairwise_items_campaign_item_no_uq").on(t.campaignId, t.itemNo),
    index("pairwise_items_queue_idx").on(t.campaignId, t.answerCount),
  ],
);

export const pairwiseAnswers = sqliteTable(
  "pairwise_answers",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    itemId: cascadeId("item_id", () => pairwiseItems.id),
    userId: cascadeKey("user_id", () => users.id),
    annotatorName: text("annotator_name").notNull(),
    outcome: text("outcome").$type<PairwiseOutcome>().notNull(),
    /** Milliseconds spent on the pair (summed over revisions). */
    timeSpentMs: integer("time_spent_ms"),
    revision: integer("revision").notNull().default(1),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [uniqueIndex("pairwise_answers_item_user_uq").on(t.itemId, t.userId), index("pairwise_answers_campaign_idx").on(t.campaignId, t.userId)],
);

/** Every answer and every change of it: append-only. */
export const pairwiseAnswerRevisions = sqliteTable(
  "pairwise_answer_revisions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    answerId: cascadeId("answer_id", () => pairwiseAnswers.id),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    revision: integer("revision").notNull(),
    outcome: text("outcome").$type<PairwiseOutcome>().notNull(),
    actorId: text("actor_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [uniqueIndex("pairwise_answer_revisions_answer_revision_uq").on(t.answerId, t.revision)],
);
