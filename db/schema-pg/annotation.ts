/**
 * Human annotation on PostgreSQL: campaigns, their annotators and items, reservations, labels with every
 * revision, consolidated labels and their history, and evaluation reveals. Mirrors db/schema/annotation.ts,
 * which documents the invariants the unique indexes hold.
 */
import { sql } from "drizzle-orm";
import { bigint, boolean, doublePrecision, index, integer, json, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { AssignmentStrategy, GoldSource } from "../../server/domain/annotation/assignment";
import type { DecisionConfidence, DisagreementSource, QaDecision } from "../../server/domain/annotation/protocols";
import type { LabelAnswers } from "../../server/domain/annotation/questions";
import type { RegionMark } from "../../server/domain/annotation/region-marks";
import type { ConsolidationMethod, FieldChange, ItemState, LabelSchema, LabelValues, LabelVerdict } from "../../server/domain/annotation/label-schema";
import type { CampaignKind, CampaignOrigin, CampaignSelection, CampaignStatus, LabelOrigin, RevisionAction } from "../schema/annotation";
import { users } from "./auth";
import { cascadeId, cascadeKey, epochMs, nowMs } from "./columns";
import { trajectories } from "./core";

export const annotationCampaigns = pgTable("annotation_campaigns", {
  id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
  name: text("name").notNull().unique(),
  instructions: text("instructions").notNull().default(""),
  labelSchema: json("label_schema").$type<LabelSchema>().notNull(),
  annotatorsPerItem: integer("annotators_per_item").notNull(),
  blind: boolean("blind").notNull().default(true),
  reservationMinutes: integer("reservation_minutes").notNull().default(30),
  status: text("status").$type<CampaignStatus>().notNull().default("active"),
  origin: text("origin").$type<CampaignOrigin>().notNull().default("native"),
  selection: json("selection").$type<CampaignSelection>().notNull(),
  createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
  createdAt: epochMs("created_at").notNull().default(nowMs),
  updatedAt: epochMs("updated_at").notNull().default(nowMs),
  guidelineVersion: integer("guideline_version").notNull().default(1),
  templateId: text("template_id"),
  templateVersion: integer("template_version"),
  assignmentStrategy: text("assignment_strategy").$type<AssignmentStrategy>().notNull().default("least_covered"),
  goldRate: doublePrecision("gold_rate").notNull().default(0),
  goldWarnBelow: doublePrecision("gold_warn_below"),
  goldBlockBelow: doublePrecision("gold_block_below"),
  goldMinAnswered: integer("gold_min_answered").notNull().default(5),
  qualificationPassAt: doublePrecision("qualification_pass_at"),
  revealEvaluator: text("reveal_evaluator"),
  kind: text("kind").$type<CampaignKind>().notNull().default("label"),
});

export const campaignQaReviewers = pgTable(
  "campaign_qa_reviewers",
  {
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    userId: cascadeKey("user_id", () => users.id),
    addedAt: epochMs("added_at").notNull().default(nowMs),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.userId] }), index("campaign_qa_reviewers_user_idx").on(t.userId)],
);

export const campaignAnnotators = pgTable(
  "campaign_annotators",
  {
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    userId: cascadeKey("user_id", () => users.id),
    addedAt: epochMs("added_at").notNull().default(nowMs),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.userId] }), index("campaign_annotators_user_idx").on(t.userId)],
);

export const campaignItems = pgTable(
  "campaign_items",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    state: text("state").$type<ItemState>().notNull().default("open"),
    labelCount: integer("label_count").notNull().default(0),
    itemNo: integer("item_no"),
    createdAt: epochMs("created_at").notNull().default(nowMs),
    qaReviewedAt: epochMs("qa_reviewed_at"),
  },
  (t) => [
    uniqueIndex("campaign_items_campaign_trajectory_uq").on(t.campaignId, t.trajectoryId),
    uniqueIndex("campaign_items_campaign_item_no_uq").on(t.campaignId, t.itemNo),
    index("campaign_items_queue_idx").on(t.campaignId, t.state, t.labelCount),
    index("campaign_items_trajectory_latest_idx").on(t.trajectoryId, t.campaignId, t.state),
  ],
);

export const reservations = pgTable(
  "reservations",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    itemId: cascadeId("item_id", () => campaignItems.id),
    userId: cascadeKey("user_id", () => users.id),
    status: text("status").$type<"active" | "skipped">().notNull().default("active"),
    reservedAt: epochMs("reserved_at").notNull(),
    expiresAt: epochMs("expires_at").notNull(),
  },
  (t) => [uniqueIndex("reservations_item_user_uq").on(t.itemId, t.userId), index("reservations_campaign_user_idx").on(t.campaignId, t.userId)],
);

export const labels = pgTable(
  "labels",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    itemId: cascadeId("item_id", () => campaignItems.id),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    annotatorKey: text("annotator_key").notNull(),
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    annotatorName: text("annotator_name").notNull(),
    origin: text("origin").$type<LabelOrigin>().notNull(),
    status: text("status").$type<"active" | "withdrawn">().notNull().default("active"),
    verdict: text("verdict").$type<LabelVerdict>().notNull(),
    category: text("category"),
    firstFailingStep: integer("first_failing_step"),
    note: text("note"),
    // bigint: a label sums its revisions' times, which can pass the 24.8 days an integer holds.
    timeSpentMs: bigint("time_spent_ms", { mode: "number" }),
    stepsViewed: json("steps_viewed").$type<number[]>(),
    revision: integer("revision").notNull().default(1),
    createdAt: epochMs("created_at").notNull().default(nowMs),
    updatedAt: epochMs("updated_at").notNull().default(nowMs),
    /** As on SQLite: the labels change counter of the row's last counted write, set by its triggers. */
    changeVersion: bigint("change_version", { mode: "number" }).notNull().default(0),
    answers: json("answers").$type<LabelAnswers>(),
    guidelineVersion: integer("guideline_version"),
    marks: json("marks").$type<RegionMark[]>(),
  },
  (t) => [
    uniqueIndex("labels_item_annotator_uq").on(t.itemId, t.annotatorKey),
    // Covers the analytics read of a campaign's labels, id included: a PostgreSQL index holds no row id of its own
    // (SQLite's does), so without it every label is looked up in the wide table (an index scan, not index-only).
    index("labels_campaign_analytics_idx").on(
      t.campaignId,
      t.status,
      t.annotatorKey,
      t.verdict,
      t.category,
      t.itemId,
      t.trajectoryId,
      t.firstFailingStep,
      t.id,
    ),
    index("labels_change_idx").on(t.changeVersion),
    index("labels_trajectory_idx").on(t.trajectoryId),
    index("labels_user_idx").on(t.userId),
  ],
);

export const labelRevisions = pgTable(
  "label_revisions",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    labelId: cascadeId("label_id", () => labels.id),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    revision: integer("revision").notNull(),
    action: text("action").$type<RevisionAction>().notNull(),
    actorId: text("actor_id").references(() => users.id, { onDelete: "set null" }),
    actorName: text("actor_name").notNull(),
    status: text("status").$type<"active" | "withdrawn">().notNull(),
    values: json("values").$type<LabelValues>().notNull(),
    changes: json("changes").$type<FieldChange[]>().notNull(),
    timeSpentMs: bigint("time_spent_ms", { mode: "number" }),
    stepsViewed: json("steps_viewed").$type<number[]>(),
    afterReveal: boolean("after_reveal").notNull().default(false),
    idempotencyKey: text("idempotency_key").unique(),
    undoesRevisionId: integer("undoes_revision_id"),
    undoneByRevisionId: integer("undone_by_revision_id"),
    createdAt: epochMs("created_at").notNull().default(nowMs),
    guidelineVersion: integer("guideline_version"),
  },
  (t) => [uniqueIndex("label_revisions_label_revision_uq").on(t.labelId, t.revision), index("label_revisions_actor_idx").on(t.campaignId, t.actorId, t.id)],
);

export const consolidatedLabels = pgTable(
  "consolidated_labels",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    itemId: cascadeId("item_id", () => campaignItems.id),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    verdict: text("verdict").$type<LabelVerdict>().notNull(),
    category: text("category"),
    firstFailingStep: integer("first_failing_step"),
    method: text("method").$type<ConsolidationMethod>().notNull(),
    adjudicatorId: text("adjudicator_id").references(() => users.id, { onDelete: "set null" }),
    adjudicatorName: text("adjudicator_name"),
    reason: text("reason"),
    basedOn: json("based_on").$type<string[]>().notNull(),
    createdAt: epochMs("created_at").notNull().default(nowMs),
    updatedAt: epochMs("updated_at").notNull().default(nowMs),
    confidence: text("confidence").$type<DecisionConfidence>(),
    disagreementSource: text("disagreement_source").$type<DisagreementSource>(),
    qaDecision: text("qa_decision").$type<QaDecision>(),
    qaReviewerName: text("qa_reviewer_name"),
  },
  (t) => [
    uniqueIndex("consolidated_labels_item_uq").on(t.itemId),
    // Covers the analytics read of consolidated labels, id included (see labels_campaign_analytics_idx).
    index("consolidated_labels_campaign_analytics_idx").on(t.campaignId, t.verdict, t.category, t.trajectoryId, t.firstFailingStep, t.id),
    // Only the decided labels (adjudicated or QA-reviewed, a third of a big campaign's), with what the Human agreement
    // page tallies of them: the tally reads these entries alone instead of every consolidated label of the campaign.
    index("consolidated_labels_decisions_idx")
      .on(t.campaignId, t.method, t.qaDecision, t.confidence, t.disagreementSource)
      .where(sql`${t.method} = 'adjudicated' or ${t.qaDecision} is not null`),
    index("consolidated_labels_trajectory_latest_idx").on(t.trajectoryId, t.campaignId, t.verdict, t.category),
  ],
);

export const consolidationEvents = pgTable(
  "consolidation_events",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    itemId: cascadeId("item_id", () => campaignItems.id),
    state: text("state").$type<ItemState>().notNull(),
    values: json("values").$type<LabelValues | null>(),
    method: text("method").$type<ConsolidationMethod>(),
    actorId: text("actor_id").references(() => users.id, { onDelete: "set null" }),
    actorName: text("actor_name"),
    reason: text("reason"),
    createdAt: epochMs("created_at").notNull().default(nowMs),
    stage: text("stage").$type<"qa">(),
    confidence: text("confidence").$type<DecisionConfidence>(),
    disagreementSource: text("disagreement_source").$type<DisagreementSource>(),
    qaDecision: text("qa_decision").$type<QaDecision>(),
  },
  (t) => [index("consolidation_events_item_idx").on(t.itemId, t.id)],
);

export const goldItems = pgTable(
  "gold_items",
  {
    itemId: integer("item_id")
      .primaryKey()
      .references(() => campaignItems.id, { onDelete: "cascade" }),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    verdict: text("verdict").$type<LabelVerdict>().notNull(),
    category: text("category"),
    firstFailingStep: integer("first_failing_step"),
    answers: json("answers").$type<LabelAnswers>(),
    source: text("source").$type<GoldSource>().notNull(),
    note: text("note"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: epochMs("created_at").notNull().default(nowMs),
    qualification: boolean("qualification").notNull().default(false),
  },
  (t) => [index("gold_items_campaign_idx").on(t.campaignId, t.itemId)],
);

export const evaluationReveals = pgTable(
  "evaluation_reveals",
  {
    userId: cascadeKey("user_id", () => users.id),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    revealedAt: epochMs("revealed_at").notNull().default(nowMs),
  },
  (t) => [primaryKey({ columns: [t.userId, t.trajectoryId] })],
);
