/**
 * Blind → reveal → revise (CUAVerifierBench-style calibration of an evaluator): after an annotator's blind submit
 * in a campaign with a reveal evaluator, Verdict shows that evaluator's verdict and asks them to keep or revise
 * their label. One row per (annotator's label): the blind stage copied at the moment of the reveal (it can no
 * longer change), and the informed stage once they decide. The `labels` row keeps the blind label: consolidation
 * and every existing measure stay on what people said before seeing the evaluator.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { LabelVerdict } from "../../server/domain/annotation/label-schema";
import { annotationCampaigns, campaignItems, labels } from "./annotation";
import { users } from "./auth";
import { trajectories } from "./core";
import { cascadeId } from "./columns";

const nowMs = sql`(unixepoch('subsec') * 1000)`;

export type RevealDecision = "keep" | "revise";

export const labelReveals = sqliteTable(
  "label_reveals",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    itemId: cascadeId("item_id", () => campaignItems.id),
    labelId: cascadeId("label_id", () => labels.id),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    annotatorKey: text("annotator_key").notNull(),
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    annotatorName: text("annotator_name").notNull(),
    /** The evaluator shown (analytics evaluator id "key|k|prompt version") and what it said then. */
    evaluatorId: text("evaluator_id").notNull(),
    evaluatorName: text("evaluator_name").notNull(),
    evaluatorVerdict: text("evaluator_verdict").notNull(),
    evaluatorRationale: text("evaluator_rationale"),
    /** Blind stage: the label as submitted before the reveal, and when it was submitted. */
    blindVerdict: text("blind_verdict").$type<LabelVerdict>().notNull(),
    blindCategory: text("blind_category"),
    blindFirstFailingStep: integer("blind_first_failing_step"),
    blindNote: text("blind_note"),
    blindAt: integer("blind_at", { mode: "timestamp_ms" }).notNull(),
    revealedAt: integer("revealed_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
    /** Informed stage: null until the annotator keeps or revises. */
    decision: text("decision").$type<RevealDecision>(),
    informedVerdict: text("informed_verdict").$type<LabelVerdict>(),
    informedCategory: text("informed_category"),
    informedFirstFailingStep: integer("informed_first_failing_step"),
    reason: text("reason"),
    decidedAt: integer("decided_at", { mode: "timestamp_ms" }),
  },
  (t) => [uniqueIndex("label_reveals_label_uq").on(t.labelId), index("label_reveals_campaign_idx").on(t.campaignId, t.evaluatorId)],
);

export type LabelRevealRow = typeof labelReveals.$inferSelect;
