/**
 * Human annotation: labelling campaigns over a selection of trajectories, the people allowed to label them,
 * reservations that hand each annotator one trajectory at a time, the labels with every revision, and the
 * consolidated label of each trajectory (automatic when the annotators agree, set by an adjudicator otherwise).
 *
 * Invariants the constraints hold, so no code path can break them:
 * - a trajectory appears once per campaign (`campaign_items_campaign_trajectory_uq`);
 * - an annotator has one label per campaign item (`labels_item_annotator_uq`); revising updates it and appends
 *   to `label_revisions`, whose idempotency key makes a repeated submit a no-op;
 * - an annotator holds at most one reservation per item (`reservations_item_user_uq`);
 * - an item has at most one consolidated label (`consolidated_labels_item_uq`), with its history kept apart.
 * Labels are never deleted by the application: an undone first submit is marked `withdrawn`, not removed.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { AssignmentStrategy, GoldSource } from "../../server/domain/annotation/assignment";
import type { ConsolidationMethod, FieldChange, ItemState, LabelSchema, LabelValues, LabelVerdict } from "../../server/domain/annotation/label-schema";
import type { DecisionConfidence, DisagreementSource, QaDecision } from "../../server/domain/annotation/protocols";
import type { LabelAnswers } from "../../server/domain/annotation/questions";
import type { RegionMark } from "../../server/domain/annotation/region-marks";
import { users } from "./auth";
import { trajectories } from "./core";

const nowMs = sql`(unixepoch('subsec') * 1000)`;

import type { CampaignStatus } from "../../server/domain/annotation/campaign-status";
import { cascadeId, cascadeKey } from "./columns";

export { CAMPAIGN_STATUSES, type CampaignStatus } from "../../server/domain/annotation/campaign-status";

/** What a campaign's items are: one trajectory to label, or a pair of attempts at one task to compare. */
export type CampaignKind = "label" | "pairwise";

/** Where a campaign's labels come from: people labelling here, or a file of labels made elsewhere. */
export type CampaignOrigin = "native" | "import";

export interface CampaignSelection {
  /** Human description: "site = Allrecipes, model = gpt-4o", "42 trajectories". */
  description: string;
  /** The trajectory-list filter the selection was made from, when it was; kept for display and re-use. */
  filter?: Record<string, unknown>;
}

export const annotationCampaigns = sqliteTable("annotation_campaigns", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull().unique(),
  /** Guidelines (markdown) shown to annotators on the labelling page (key `g`) and on the campaign page. */
  instructions: text("instructions").notNull().default(""),
  /** Bumped each time the guidelines are edited; every label records the version it was made under. */
  guidelineVersion: integer("guideline_version").notNull().default(1),
  /** The protocol template the campaign was created from (null before templates existed, and for imports). */
  templateId: text("template_id"),
  templateVersion: integer("template_version"),
  labelSchema: text("label_schema", { mode: "json" }).$type<LabelSchema>().notNull(),
  /** How many annotators label each trajectory before it is consolidated. */
  annotatorsPerItem: integer("annotators_per_item").notNull(),
  /** Blind: until an annotator has labelled a trajectory, no API shows them its judge verdicts or others' labels. */
  blind: integer("blind", { mode: "boolean" }).notNull().default(true),
  /** How long "next" keeps a trajectory reserved for the annotator it was handed to. */
  reservationMinutes: integer("reservation_minutes").notNull().default(30),
  status: text("status").$type<CampaignStatus>().notNull().default("active"),
  origin: text("origin").$type<CampaignOrigin>().notNull().default("native"),
  selection: text("selection", { mode: "json" }).$type<CampaignSelection>().notNull(),
  /** The order "next" hands out trajectories in (see server/domain/annotation/assignment.ts). */
  assignmentStrategy: text("assignment_strategy").$type<AssignmentStrategy>().notNull().default("least_covered"),
  /** Share (0–1) of each annotator's assignments that are gold items, mixed in silently; 0 = none. */
  goldRate: real("gold_rate").notNull().default(0),
  /** Accuracy on gold below which the researcher is warned about an annotator (null = no warning). */
  goldWarnBelow: real("gold_warn_below"),
  /** Accuracy on gold below which an annotator gets no more items in this campaign (null = never blocked). */
  goldBlockBelow: real("gold_block_below"),
  /** Gold items an annotator must have answered before the thresholds apply. */
  goldMinAnswered: integer("gold_min_answered").notNull().default(5),
  /**
   * The share (0–1) of the qualification items an annotator must answer right before their labels count; null = no
   * qualification phase. The qualification items are the gold items marked `qualification`, handed out first.
   */
  qualificationPassAt: real("qualification_pass_at"),
  /**
   * Blind → reveal → revise: the evaluator (an analytics evaluator id, "key|k|prompt version") whose verdict is shown
   * to each annotator right after their blind submit, asking them to keep or revise (see db/schema/reveal.ts).
   * Null = no reveal.
   */
  revealEvaluator: text("reveal_evaluator"),
  /** label: one trajectory per item, labelled with the schema; pairwise: two attempts at a task per item (db/schema/pairwise.ts). */
  kind: text("kind").$type<CampaignKind>().notNull().default("label"),
  createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
});

/** Annotators designated as QA reviewers of a campaign (researchers and admins may review without this). */
export const campaignQaReviewers = sqliteTable(
  "campaign_qa_reviewers",
  {
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    userId: cascadeKey("user_id", () => users.id),
    addedAt: integer("added_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.userId] }), index("campaign_qa_reviewers_user_idx").on(t.userId)],
);

/** Who may label in a campaign. */
export const campaignAnnotators = sqliteTable(
  "campaign_annotators",
  {
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    userId: cascadeKey("user_id", () => users.id),
    addedAt: integer("added_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.userId] }), index("campaign_annotators_user_idx").on(t.userId)],
);

export const campaignItems = sqliteTable(
  "campaign_items",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    /** open (needs labels) | agreed (unanimous, consolidated automatically) | disputed (awaits adjudication) | adjudicated */
    state: text("state").$type<ItemState>().notNull().default("open"),
    /**
     * Active labels on the item, kept by the same transaction that changes them (see recomputeItem) so "next"
     * can walk the queue in coverage order through an index instead of counting labels for every item.
     */
    labelCount: integer("label_count").notNull().default(0),
    /**
     * The item's number within its campaign, the only id annotators see (URLs, API): drawn in a shuffled order
     * when the item is added, so it says nothing of which run or import the trajectory came from. Set on every
     * insert (nullable only so the column could be added to existing databases).
     */
    itemNo: integer("item_no"),
    /** When a QA reviewer confirmed or corrected the item's consolidated label (null: no QA review yet). */
    qaReviewedAt: integer("qa_reviewed_at", { mode: "timestamp_ms" }),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [
    uniqueIndex("campaign_items_campaign_trajectory_uq").on(t.campaignId, t.trajectoryId),
    uniqueIndex("campaign_items_campaign_item_no_uq").on(t.campaignId, t.itemNo),
    index("campaign_items_queue_idx").on(t.campaignId, t.state, t.labelCount),
    // Serves look-ups by trajectory and the trajectory list's "state of the latest campaign" in one ordered pass.
    index("campaign_items_trajectory_latest_idx").on(t.trajectoryId, t.campaignId, t.state),
  ],
);

/**
 * A trajectory handed to an annotator by "next". Active until `expiresAt`; while active it counts towards the
 * item's coverage so the last slot is not handed to two people. `skipped` keeps an item out of that annotator's
 * queue until everything else is done. Deleted when the annotator submits their label for the item.
 */
export const reservations = sqliteTable(
  "reservations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    itemId: cascadeId("item_id", () => campaignItems.id),
    userId: cascadeKey("user_id", () => users.id),
    status: text("status").$type<"active" | "skipped">().notNull().default("active"),
    reservedAt: integer("reserved_at", { mode: "timestamp_ms" }).notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [uniqueIndex("reservations_item_user_uq").on(t.itemId, t.userId), index("reservations_campaign_user_idx").on(t.campaignId, t.userId)],
);

export type LabelOrigin = "verdict" | "import";

/** The current label of one annotator on one campaign item. */
export const labels = sqliteTable(
  "labels",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    itemId: cascadeId("item_id", () => campaignItems.id),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    /** "user:<user id>" for labels made here, "import:<name>" for imported ones: one label per annotator per item. */
    annotatorKey: text("annotator_key").notNull(),
    /** Null for imported labels (their annotators have no account). */
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    /** The annotator's name when the label was made (imported labels have only this). */
    annotatorName: text("annotator_name").notNull(),
    origin: text("origin").$type<LabelOrigin>().notNull(),
    /** active, or withdrawn after its first submit was undone (kept, never deleted). */
    status: text("status").$type<"active" | "withdrawn">().notNull().default("active"),
    verdict: text("verdict").$type<LabelVerdict>().notNull(),
    category: text("category"),
    firstFailingStep: integer("first_failing_step"),
    note: text("note"),
    /** Answers to the campaign's own questions, by question id (null when it asks none). */
    answers: text("answers", { mode: "json" }).$type<LabelAnswers>(),
    /** Boxes and points drawn on the steps' screenshots, in their own pixels (null when none). */
    marks: text("marks", { mode: "json" }).$type<RegionMark[]>(),
    /** The campaign's guideline version when the label was last submitted (null for imported labels). */
    guidelineVersion: integer("guideline_version"),
    /** Milliseconds the annotator spent on the trajectory (summed over revisions). */
    timeSpentMs: integer("time_spent_ms"),
    /** Step indices the annotator opened before submitting (union over revisions), ascending. */
    stepsViewed: text("steps_viewed", { mode: "json" }).$type<number[]>(),
    revision: integer("revision").notNull().default(1),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
    /**
     * The labels change counter (db/schema/changes.ts) of the row's last counted write, set by its triggers: the
     * analytics read only the labels written since their copy and patch them in.
     */
    changeVersion: integer("change_version").notNull().default(0),
  },
  (t) => [
    uniqueIndex("labels_item_annotator_uq").on(t.itemId, t.annotatorKey),
    index("labels_change_idx").on(t.changeVersion),
    // Covers the analytics read of a campaign's labels (db/repositories/analytics.ts): one index range, already
    // grouped by annotator, verdict and category, without visiting the table. Also serves look-ups by campaign.
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
    index("labels_trajectory_idx").on(t.trajectoryId),
    index("labels_user_idx").on(t.userId),
  ],
);

export type RevisionAction = "submit" | "undo" | "import";

/** Every change to a label: who, when, what it became and which fields changed. Append-only. */
export const labelRevisions = sqliteTable(
  "label_revisions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    labelId: cascadeId("label_id", () => labels.id),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    /** The label's revision number after this change (1, 2, …). */
    revision: integer("revision").notNull(),
    action: text("action").$type<RevisionAction>().notNull(),
    actorId: text("actor_id").references(() => users.id, { onDelete: "set null" }),
    actorName: text("actor_name").notNull(),
    /** The label's status and values after the change. */
    status: text("status").$type<"active" | "withdrawn">().notNull(),
    values: text("values", { mode: "json" }).$type<LabelValues>().notNull(),
    changes: text("changes", { mode: "json" }).$type<FieldChange[]>().notNull(),
    /** Submits: time spent and steps viewed in this sitting. */
    timeSpentMs: integer("time_spent_ms"),
    stepsViewed: text("steps_viewed", { mode: "json" }).$type<number[]>(),
    /** The campaign's guideline version at this change. */
    guidelineVersion: integer("guideline_version"),
    /** True when the annotator had already been shown evaluations of the trajectory (anchoring measure). */
    afterReveal: integer("after_reveal", { mode: "boolean" }).notNull().default(false),
    /** Client-chosen key of the request; a repeated request with the same key returns this revision. */
    idempotencyKey: text("idempotency_key").unique(),
    /** Undo revisions: the revision they reverted. */
    undoesRevisionId: integer("undoes_revision_id"),
    /** Set on a submit revision once an undo reverted it. */
    undoneByRevisionId: integer("undone_by_revision_id"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [uniqueIndex("label_revisions_label_revision_uq").on(t.labelId, t.revision), index("label_revisions_actor_idx").on(t.campaignId, t.actorId, t.id)],
);

/** The label each campaign item ends with: what judges are compared against. */
export const consolidatedLabels = sqliteTable(
  "consolidated_labels",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
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
    /** Adjudications and QA reviews: how sure the decider was, and why the labels disagreed (or were corrected). */
    confidence: text("confidence").$type<DecisionConfidence>(),
    disagreementSource: text("disagreement_source").$type<DisagreementSource>(),
    /** Set once a QA reviewer confirmed or corrected this label. */
    qaDecision: text("qa_decision").$type<QaDecision>(),
    qaReviewerName: text("qa_reviewer_name"),
    /** The labels (id@revision) the decision was made from. */
    basedOn: text("based_on", { mode: "json" }).$type<string[]>().notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [
    uniqueIndex("consolidated_labels_item_uq").on(t.itemId),
    // Covers the analytics read of consolidated labels, grouped by campaign, verdict and category.
    index("consolidated_labels_campaign_analytics_idx").on(t.campaignId, t.verdict, t.category, t.trajectoryId, t.firstFailingStep, t.id),
    // Only the decided labels (adjudicated or QA-reviewed, a third of a big campaign's), with what the Human agreement
    // page tallies of them: the tally reads these entries alone instead of every consolidated label of the campaign.
    index("consolidated_labels_decisions_idx")
      .on(t.campaignId, t.method, t.qaDecision, t.confidence, t.disagreementSource)
      .where(sql`${t.method} = 'adjudicated' or ${t.qaDecision} is not null`),
    // Serves look-ups by trajectory and the trajectory list's "latest consolidated label" in one ordered pass.
    index("consolidated_labels_trajectory_latest_idx").on(t.trajectoryId, t.campaignId, t.verdict, t.category),
  ],
);

/** Every change of an item's consolidated label (automatic or adjudicated), append-only. */
export const consolidationEvents = sqliteTable(
  "consolidation_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    itemId: cascadeId("item_id", () => campaignItems.id),
    /** State the item moved to. */
    state: text("state").$type<ItemState>().notNull(),
    /** The consolidated label after the event; null when the item lost it (labels changed, back to open/disputed). */
    values: text("values", { mode: "json" }).$type<LabelValues | null>(),
    method: text("method").$type<ConsolidationMethod>(),
    actorId: text("actor_id").references(() => users.id, { onDelete: "set null" }),
    actorName: text("actor_name"),
    reason: text("reason"),
    /** "qa" for QA reviews; null for automatic consolidation and adjudication. */
    stage: text("stage").$type<"qa">(),
    confidence: text("confidence").$type<DecisionConfidence>(),
    disagreementSource: text("disagreement_source").$type<DisagreementSource>(),
    qaDecision: text("qa_decision").$type<QaDecision>(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [index("consolidation_events_item_idx").on(t.itemId, t.id)],
);

/**
 * Campaign items with a known answer, used to measure annotators. A researcher marks an item gold with its answer
 * or promotes an item whose labels were unanimous or adjudicated. Gold items are handed to every annotator of the
 * campaign (mixed into their queue at the campaign's gold rate) and never shown to them as gold.
 */
export const goldItems = sqliteTable(
  "gold_items",
  {
    itemId: integer("item_id")
      .primaryKey()
      .references(() => campaignItems.id, { onDelete: "cascade" }),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    verdict: text("verdict").$type<LabelVerdict>().notNull(),
    /** When set, a failure answer must also name this category to count as correct. */
    category: text("category"),
    /** The known answer's failure point and answers to the campaign's questions, as the protocol asks them. */
    firstFailingStep: integer("first_failing_step"),
    answers: text("answers", { mode: "json" }).$type<LabelAnswers>(),
    source: text("source").$type<GoldSource>().notNull(),
    note: text("note"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
    /** Part of the campaign's qualification phase: handed out first, with the known answer shown after the submit. */
    qualification: integer("qualification", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [index("gold_items_campaign_idx").on(t.campaignId, t.itemId)],
);

/**
 * The first time an annotator was shown evaluations (judge verdicts, rule results, others' labels) of a
 * trajectory of a blind campaign they label, so later revisions can be flagged as possibly anchored.
 */
export const evaluationReveals = sqliteTable(
  "evaluation_reveals",
  {
    userId: cascadeKey("user_id", () => users.id),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    revealedAt: integer("revealed_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [primaryKey({ columns: [t.userId, t.trajectoryId] })],
);

export type CampaignRow = typeof annotationCampaigns.$inferSelect;
export type CampaignItemRow = typeof campaignItems.$inferSelect;
export type LabelRow = typeof labels.$inferSelect;
export type LabelRevisionRow = typeof labelRevisions.$inferSelect;
export type ConsolidatedLabelRow = typeof consolidatedLabels.$inferSelect;
export type ReservationRow = typeof reservations.$inferSelect;
export type GoldItemRow = typeof goldItems.$inferSelect;
