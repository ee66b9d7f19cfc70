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
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { AssignmentStrategy, GoldSource } from "../../server/domain/annotation/assignment";
import type { ConsolidationMethod, FieldChange, ItemState, LabelSchema, LabelValues, LabelVerdict } from "../../server/domain/annotation/label-schema";
import type { DecisionConfidence, DisagreementSource, QaDecision } from "../../server/domain/annotation/protocols";
import type { LabelAnswers } from "../../server/domain/annotation/questions";
import type { RegionMark } from "../../server/domain/annotation/region-marks";
import type { CampaignStatus } from "../../server/domain/annotation/campaign-status";
import { users } from "./auth";
import { trajectories } from "./core";
import { sqliteKit, timestamps, type SchemaKit, type TableRefs } from "./columns";

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

export type LabelOrigin = "verdict" | "import";

export type RevisionAction = "submit" | "undo" | "import";

/** The tables this module's tables reference, of the dialect being declared. */
export type AnnotationRefs = TableRefs<"users" | "trajectories">;

/** Campaigns, the people allowed to label or review them, their items and the reservations handing items out. */
function campaignTables(k: SchemaKit, { users, trajectories }: Pick<AnnotationRefs, "users" | "trajectories">) {
  const annotationCampaigns = k.table("annotation_campaigns", {
    id: k.id(),
    name: k.text("name").notNull().unique(),
    /** Guidelines (markdown) shown to annotators on the labelling page (key `g`) and on the campaign page. */
    instructions: k.text("instructions").notNull().default(""),
    /** Bumped each time the guidelines are edited; every label records the version it was made under. */
    guidelineVersion: k.integer("guideline_version").notNull().default(1),
    /** The protocol template the campaign was created from (null before templates existed, and for imports). */
    templateId: k.text("template_id"),
    templateVersion: k.integer("template_version"),
    labelSchema: k.json("label_schema").$type<LabelSchema>().notNull(),
    /** How many annotators label each trajectory before it is consolidated. */
    annotatorsPerItem: k.integer("annotators_per_item").notNull(),
    /** Blind: until an annotator has labelled a trajectory, no API shows them its judge verdicts or others' labels. */
    blind: k.flag("blind").notNull().default(true),
    /** How long "next" keeps a trajectory reserved for the annotator it was handed to. */
    reservationMinutes: k.integer("reservation_minutes").notNull().default(30),
    status: k.text("status").$type<CampaignStatus>().notNull().default("active"),
    origin: k.text("origin").$type<CampaignOrigin>().notNull().default("native"),
    selection: k.json("selection").$type<CampaignSelection>().notNull(),
    /** The order "next" hands out trajectories in (see server/domain/annotation/assignment.ts). */
    assignmentStrategy: k.text("assignment_strategy").$type<AssignmentStrategy>().notNull().default("least_covered"),
    /** Share (0–1) of each annotator's assignments that are gold items, mixed in silently; 0 = none. */
    goldRate: k.real("gold_rate").notNull().default(0),
    /** Accuracy on gold below which the researcher is warned about an annotator (null = no warning). */
    goldWarnBelow: k.real("gold_warn_below"),
    /** Accuracy on gold below which an annotator gets no more items in this campaign (null = never blocked). */
    goldBlockBelow: k.real("gold_block_below"),
    /** Gold items an annotator must have answered before the thresholds apply. */
    goldMinAnswered: k.integer("gold_min_answered").notNull().default(5),
    /**
     * The share (0–1) of the qualification items an annotator must answer right before their labels count; null = no
     * qualification phase. The qualification items are the gold items marked `qualification`, handed out first.
     */
    qualificationPassAt: k.real("qualification_pass_at"),
    /**
     * Blind → reveal → revise: the evaluator (an analytics evaluator id, "key|k|prompt version") whose verdict is shown
     * to each annotator right after their blind submit, asking them to keep or revise (see db/schema/reveal.ts).
     * Null = no reveal.
     */
    revealEvaluator: k.text("reveal_evaluator"),
    /** label: one trajectory per item, labelled with the schema; pairwise: two attempts at a task per item (db/schema/pairwise.ts). */
    kind: k.text("kind").$type<CampaignKind>().notNull().default("label"),
    createdBy: k.text("created_by").references(() => users.id, { onDelete: "set null" }),
    ...timestamps(k),
  });

  /** The people of one role in a campaign, one row each: deleting the campaign or the user removes it. */
  const memberTable = <N extends string>(name: N) =>
    k.table(
      name,
      {
        campaignId: k.cascadeId("campaign_id", () => annotationCampaigns.id),
        userId: k.cascadeKey("user_id", () => users.id),
        addedAt: k.stamp("added_at"),
      },
      (t) => [k.primaryKey({ columns: [t.campaignId, t.userId] }), k.index(`${name}_user_idx`).on(t.userId)],
    );

  /** Annotators designated as QA reviewers of a campaign (researchers and admins may review without this). */
  const campaignQaReviewers = memberTable("campaign_qa_reviewers");

  /** Who may label in a campaign. */
  const campaignAnnotators = memberTable("campaign_annotators");

  const campaignItems = k.table(
    "campaign_items",
    {
      id: k.id(),
      campaignId: k.cascadeId("campaign_id", () => annotationCampaigns.id),
      trajectoryId: k.cascadeId("trajectory_id", () => trajectories.id),
      /** open (needs labels) | agreed (unanimous, consolidated automatically) | disputed (awaits adjudication) | adjudicated */
      state: k.text("state").$type<ItemState>().notNull().default("open"),
      /**
       * Active labels on the item, kept by the same transaction that changes them (see recomputeItem) so "next"
       * can walk the queue in coverage order through an index instead of counting labels for every item.
       */
      labelCount: k.integer("label_count").notNull().default(0),
      /**
       * The item's number within its campaign, the only id annotators see (URLs, API): drawn in a shuffled order
       * when the item is added, so it says nothing of which run or import the trajectory came from. Set on every
       * insert (nullable only so the column could be added to existing databases).
       */
      itemNo: k.integer("item_no"),
      /** When a QA reviewer confirmed or corrected the item's consolidated label (null: no QA review yet). */
      qaReviewedAt: k.time("qa_reviewed_at"),
      createdAt: k.stamp("created_at"),
    },
    (t) => [
      k.uniqueIndex("campaign_items_campaign_trajectory_uq").on(t.campaignId, t.trajectoryId),
      k.uniqueIndex("campaign_items_campaign_item_no_uq").on(t.campaignId, t.itemNo),
      k.index("campaign_items_queue_idx").on(t.campaignId, t.state, t.labelCount),
      // Serves look-ups by trajectory and the trajectory list's "state of the latest campaign" in one ordered pass.
      k.index("campaign_items_trajectory_latest_idx").on(t.trajectoryId, t.campaignId, t.state),
    ],
  );

  /**
   * A trajectory handed to an annotator by "next". Active until `expiresAt`; while active it counts towards the
   * item's coverage so the last slot is not handed to two people. `skipped` keeps an item out of that annotator's
   * queue until everything else is done. Deleted when the annotator submits their label for the item.
   */
  const reservations = k.table(
    "reservations",
    {
      id: k.id(),
      ...campaignItemColumns(k, { annotationCampaigns, campaignItems }),
      userId: k.cascadeKey("user_id", () => users.id),
      status: k.text("status").$type<"active" | "skipped">().notNull().default("active"),
      reservedAt: k.time("reserved_at").notNull(),
      expiresAt: k.time("expires_at").notNull(),
    },
    (t) => [k.uniqueIndex("reservations_item_user_uq").on(t.itemId, t.userId), k.index("reservations_campaign_user_idx").on(t.campaignId, t.userId)],
  );
  return { annotationCampaigns, campaignQaReviewers, campaignAnnotators, campaignItems, reservations };
}

/** What the label tables reference: the users and trajectories, and the campaigns and their items. */
type CampaignItemRefs = AnnotationRefs & Pick<ReturnType<typeof campaignTables>, "annotationCampaigns" | "campaignItems">;

/**
 * The campaign and item a row is of (a reservation, a label, a consolidation event, a reveal); deleting either
 * deletes it.
 */
export function campaignItemColumns(k: SchemaKit, refs: { annotationCampaigns: { id: AnySQLiteColumn }; campaignItems: { id: AnySQLiteColumn } }) {
  return {
    campaignId: k.cascadeId("campaign_id", () => refs.annotationCampaigns.id),
    itemId: k.cascadeId("item_id", () => refs.campaignItems.id),
  };
}

/** The campaign, item and trajectory a label (or its consolidated label) is of; deleting any of them deletes it. */
function itemRefColumns(k: SchemaKit, refs: CampaignItemRefs) {
  return { ...campaignItemColumns(k, refs), trajectoryId: k.cascadeId("trajectory_id", () => refs.trajectories.id) };
}

/** What a label says of a trajectory: its verdict, the failure category and the first failing step, if any. */
function verdictColumns(k: SchemaKit) {
  return {
    verdict: k.text("verdict").$type<LabelVerdict>().notNull(),
    category: k.text("category"),
    firstFailingStep: k.integer("first_failing_step"),
  };
}

/** How sure a decider (adjudicator, QA reviewer) was, why the labels disagreed, and the QA decision. */
function decisionColumns(k: SchemaKit) {
  return {
    confidence: k.text("confidence").$type<DecisionConfidence>(),
    disagreementSource: k.text("disagreement_source").$type<DisagreementSource>(),
    qaDecision: k.text("qa_decision").$type<QaDecision>(),
  };
}

/** Labels and every revision of them. */
function labelTables(k: SchemaKit, refs: CampaignItemRefs) {
  const { users, annotationCampaigns } = refs;
  /** The current label of one annotator on one campaign item. */
  const labels = k.table(
    "labels",
    {
      id: k.id(),
      ...itemRefColumns(k, refs),
      /** "user:<user id>" for labels made here, "import:<name>" for imported ones: one label per annotator per item. */
      annotatorKey: k.text("annotator_key").notNull(),
      /** Null for imported labels (their annotators have no account). */
      userId: k.text("user_id").references(() => users.id, { onDelete: "set null" }),
      /** The annotator's name when the label was made (imported labels have only this). */
      annotatorName: k.text("annotator_name").notNull(),
      origin: k.text("origin").$type<LabelOrigin>().notNull(),
      /** active, or withdrawn after its first submit was undone (kept, never deleted). */
      status: k.text("status").$type<"active" | "withdrawn">().notNull().default("active"),
      ...verdictColumns(k),
      note: k.text("note"),
      /** Answers to the campaign's own questions, by question id (null when it asks none). */
      answers: k.json("answers").$type<LabelAnswers>(),
      /** Boxes and points drawn on the steps' screenshots, in their own pixels (null when none). */
      marks: k.json("marks").$type<RegionMark[]>(),
      /** The campaign's guideline version when the label was last submitted (null for imported labels). */
      guidelineVersion: k.integer("guideline_version"),
      /** Milliseconds the annotator spent on the trajectory (summed over revisions). */
      timeSpentMs: k.bigint("time_spent_ms"),
      /** Step indices the annotator opened before submitting (union over revisions), ascending. */
      stepsViewed: k.json("steps_viewed").$type<number[]>(),
      revision: k.integer("revision").notNull().default(1),
      ...timestamps(k),
      /**
       * The labels change counter (db/schema/changes.ts) of the row's last counted write, set by its triggers: the
       * analytics read only the labels written since their copy and patch them in.
       */
      changeVersion: k.bigint("change_version").notNull().default(0),
    },
    (t) => [
      k.uniqueIndex("labels_item_annotator_uq").on(t.itemId, t.annotatorKey),
      k.index("labels_change_idx").on(t.changeVersion),
      // Covers the analytics read of a campaign's labels (db/repositories/analytics.ts): one index range, already
      // grouped by annotator, verdict and category, without visiting the table. Also serves look-ups by campaign.
      k
        .index("labels_campaign_analytics_idx")
        .on(t.campaignId, t.status, t.annotatorKey, t.verdict, t.category, t.itemId, t.trajectoryId, t.firstFailingStep, t.id),
      k.index("labels_trajectory_idx").on(t.trajectoryId),
      k.index("labels_user_idx").on(t.userId),
    ],
  );

  /** Every change to a label: who, when, what it became and which fields changed. Append-only. */
  const labelRevisions = k.table(
    "label_revisions",
    {
      id: k.id(),
      labelId: k.cascadeId("label_id", () => labels.id),
      campaignId: k.cascadeId("campaign_id", () => annotationCampaigns.id),
      /** The label's revision number after this change (1, 2, …). */
      revision: k.integer("revision").notNull(),
      action: k.text("action").$type<RevisionAction>().notNull(),
      actorId: k.text("actor_id").references(() => users.id, { onDelete: "set null" }),
      actorName: k.text("actor_name").notNull(),
      /** The label's status and values after the change. */
      status: k.text("status").$type<"active" | "withdrawn">().notNull(),
      values: k.json("values").$type<LabelValues>().notNull(),
      changes: k.json("changes").$type<FieldChange[]>().notNull(),
      /** Submits: time spent and steps viewed in this sitting. */
      timeSpentMs: k.bigint("time_spent_ms"),
      stepsViewed: k.json("steps_viewed").$type<number[]>(),
      /** The campaign's guideline version at this change. */
      guidelineVersion: k.integer("guideline_version"),
      /** True when the annotator had already been shown evaluations of the trajectory (anchoring measure). */
      afterReveal: k.flag("after_reveal").notNull().default(false),
      /** Client-chosen key of the request; a repeated request with the same key returns this revision. */
      idempotencyKey: k.text("idempotency_key").unique(),
      /** Undo revisions: the revision they reverted. */
      undoesRevisionId: k.integer("undoes_revision_id"),
      /** Set on a submit revision once an undo reverted it. */
      undoneByRevisionId: k.integer("undone_by_revision_id"),
      createdAt: k.stamp("created_at"),
    },
    (t) => [
      k.uniqueIndex("label_revisions_label_revision_uq").on(t.labelId, t.revision),
      k.index("label_revisions_actor_idx").on(t.campaignId, t.actorId, t.id),
    ],
  );
  return { labels, labelRevisions };
}

/** Consolidated labels and their history, gold items, and the reveals of evaluations after labelling. */
function consolidationTables(k: SchemaKit, refs: CampaignItemRefs) {
  const { users, trajectories, annotationCampaigns, campaignItems } = refs;
  /** The label each campaign item ends with: what judges are compared against. */
  const consolidatedLabels = k.table(
    "consolidated_labels",
    {
      id: k.id(),
      ...itemRefColumns(k, refs),
      ...verdictColumns(k),
      method: k.text("method").$type<ConsolidationMethod>().notNull(),
      adjudicatorId: k.text("adjudicator_id").references(() => users.id, { onDelete: "set null" }),
      adjudicatorName: k.text("adjudicator_name"),
      reason: k.text("reason"),
      /**
       * Adjudications and QA reviews: how sure the decider was, and why the labels disagreed (or were corrected); the
       * QA decision is set once a QA reviewer confirmed or corrected this label.
       */
      ...decisionColumns(k),
      qaReviewerName: k.text("qa_reviewer_name"),
      /** The labels (id@revision) the decision was made from. */
      basedOn: k.json("based_on").$type<string[]>().notNull(),
      ...timestamps(k),
    },
    (t) => [
      k.uniqueIndex("consolidated_labels_item_uq").on(t.itemId),
      // Covers the analytics read of consolidated labels, grouped by campaign, verdict and category.
      k.index("consolidated_labels_campaign_analytics_idx").on(t.campaignId, t.verdict, t.category, t.trajectoryId, t.firstFailingStep, t.id),
      // Only the decided labels (adjudicated or QA-reviewed, a third of a big campaign's), with what the Human agreement
      // page tallies of them: the tally reads these entries alone instead of every consolidated label of the campaign.
      k
        .index("consolidated_labels_decisions_idx")
        .on(t.campaignId, t.method, t.qaDecision, t.confidence, t.disagreementSource)
        .where(sql`${t.method} = 'adjudicated' or ${t.qaDecision} is not null`),
      // Serves look-ups by trajectory and the trajectory list's "latest consolidated label" in one ordered pass.
      k.index("consolidated_labels_trajectory_latest_idx").on(t.trajectoryId, t.campaignId, t.verdict, t.category),
    ],
  );

  /** Every change of an item's consolidated label (automatic or adjudicated), append-only. */
  const consolidationEvents = k.table(
    "consolidation_events",
    {
      id: k.id(),
      ...campaignItemColumns(k, { annotationCampaigns, campaignItems }),
      /** State the item moved to. */
      state: k.text("state").$type<ItemState>().notNull(),
      /** The consolidated label after the event; null when the item lost it (labels changed, back to open/disputed). */
      values: k.json("values").$type<LabelValues | null>(),
      method: k.text("method").$type<ConsolidationMethod>(),
      actorId: k.text("actor_id").references(() => users.id, { onDelete: "set null" }),
      actorName: k.text("actor_name"),
      reason: k.text("reason"),
      /** "qa" for QA reviews; null for automatic consolidation and adjudication. */
      stage: k.text("stage").$type<"qa">(),
      ...decisionColumns(k),
      createdAt: k.stamp("created_at"),
    },
    (t) => [k.index("consolidation_events_item_idx").on(t.itemId, t.id)],
  );

  /**
   * Campaign items with a known answer, used to measure annotators. A researcher marks an item gold with its answer
   * or promotes an item whose labels were unanimous or adjudicated. Gold items are handed to every annotator of the
   * campaign (mixed into their queue at the campaign's gold rate) and never shown to them as gold.
   */
  const goldItems = k.table(
    "gold_items",
    {
      itemId: k.primaryCascadeId("item_id", () => campaignItems.id),
      campaignId: k.cascadeId("campaign_id", () => annotationCampaigns.id),
      /**
       * The known answer: a failure answer must also name its category, when set, to count as correct; its failure
       * point and answers to the campaign's questions are as the protocol asks them.
       */
      ...verdictColumns(k),
      answers: k.json("answers").$type<LabelAnswers>(),
      source: k.text("source").$type<GoldSource>().notNull(),
      note: k.text("note"),
      createdBy: k.text("created_by").references(() => users.id, { onDelete: "set null" }),
      createdAt: k.stamp("created_at"),
      /** Part of the campaign's qualification phase: handed out first, with the known answer shown after the submit. */
      qualification: k.flag("qualification").notNull().default(false),
    },
    (t) => [k.index("gold_items_campaign_idx").on(t.campaignId, t.itemId)],
  );

  /**
   * The first time an annotator was shown evaluations (judge verdicts, rule results, others' labels) of a
   * trajectory of a blind campaign they label, so later revisions can be flagged as possibly anchored.
   */
  const evaluationReveals = k.table(
    "evaluation_reveals",
    {
      userId: k.cascadeKey("user_id", () => users.id),
      trajectoryId: k.cascadeId("trajectory_id", () => trajectories.id),
      revealedAt: k.stamp("revealed_at"),
    },
    (t) => [k.primaryKey({ columns: [t.userId, t.trajectoryId] })],
  );
  return { consolidatedLabels, consolidationEvents, goldItems, evaluationReveals };
}

/** The tables of this module, declared once for both dialects (db/schema/columns.ts). */
export function annotationTables(k: SchemaKit, refs: AnnotationRefs) {
  const campaign = campaignTables(k, refs);
  const label = labelTables(k, { ...refs, ...campaign });
  const consolidation = consolidationTables(k, { ...refs, ...campaign, ...label });
  return { ...campaign, ...label, ...consolidation };
}

export const {
  annotationCampaigns,
  campaignQaReviewers,
  campaignAnnotators,
  campaignItems,
  reservations,
  labels,
  labelRevisions,
  consolidatedLabels,
  consolidationEvents,
  goldItems,
  evaluationReveals,
} = annotationTables(sqliteKit, { users, trajectories });

export type CampaignRow = typeof annotationCampaigns.$inferSelect;
export type CampaignItemRow = typeof campaignItems.$inferSelect;
export type LabelRow = typeof labels.$inferSelect;
export type LabelRevisionRow = typeof labelRevisions.$inferSelect;
export type ConsolidatedLabelRow = typeof consolidatedLabels.$inferSelect;
export type ReservationRow = typeof reservations.$inferSelect;
export type GoldItemRow = typeof goldItems.$inferSelect;
