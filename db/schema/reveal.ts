/**
 * Blind → reveal → revise (CUAVerifierBench-style calibration of an evaluator): after an annotator's blind submit
 * in a campaign with a reveal evaluator, Verdict shows that evaluator's verdict and asks them to keep or revise
 * their label. One row per (annotator's label): the blind stage copied at the moment of the reveal (it can no
 * longer change), and the informed stage once they decide. The `labels` row keeps the blind label: consolidation
 * and every existing measure stay on what people said before seeing the evaluator.
 */
import type { LabelVerdict } from "../../server/domain/annotation/label-schema";
import { annotationCampaigns, campaignItemColumns, campaignItems, labels } from "./annotation";
import { users } from "./auth";
import { trajectories } from "./core";
import { sqliteKit, type SchemaKit, type TableRefs } from "./columns";

export type RevealDecision = "keep" | "revise";

/** The tables this module's tables reference, of the dialect being declared. */
export type RevealRefs = TableRefs<"annotationCampaigns" | "campaignItems" | "labels" | "users" | "trajectories">;

/** The tables of this module, declared once for both dialects (db/schema/columns.ts). */
export function revealTables(k: SchemaKit, { annotationCampaigns, campaignItems, labels, users, trajectories }: RevealRefs) {
  const labelReveals = k.table(
    "label_reveals",
    {
      id: k.id(),
      ...campaignItemColumns(k, { annotationCampaigns, campaignItems }),
      labelId: k.cascadeId("label_id", () => labels.id),
      trajectoryId: k.cascadeId("trajectory_id", () => trajectories.id),
      annotatorKey: k.text("annotator_key").notNull(),
      userId: k.text("user_id").references(() => users.id, { onDelete: "set null" }),
      annotatorName: k.text("annotator_name").notNull(),
      /** The evaluator shown (analytics evaluator id "key|k|prompt version") and what it said then. */
      evaluatorId: k.text("evaluator_id").notNull(),
      evaluatorName: k.text("evaluator_name").notNull(),
      evaluatorVerdict: k.text("evaluator_verdict").notNull(),
      evaluatorRationale: k.text("evaluator_rationale"),
      /** Blind stage: the label as submitted before the reveal, and when it was submitted. */
      blindVerdict: k.text("blind_verdict").$type<LabelVerdict>().notNull(),
      blindCategory: k.text("blind_category"),
      blindFirstFailingStep: k.integer("blind_first_failing_step"),
      blindNote: k.text("blind_note"),
      blindAt: k.time("blind_at").notNull(),
      revealedAt: k.stamp("revealed_at"),
      /** Informed stage: null until the annotator keeps or revises. */
      decision: k.text("decision").$type<RevealDecision>(),
      informedVerdict: k.text("informed_verdict").$type<LabelVerdict>(),
      informedCategory: k.text("informed_category"),
      informedFirstFailingStep: k.integer("informed_first_failing_step"),
      reason: k.text("reason"),
      decidedAt: k.time("decided_at"),
    },
    (t) => [k.uniqueIndex("label_reveals_label_uq").on(t.labelId), k.index("label_reveals_campaign_idx").on(t.campaignId, t.evaluatorId)],
  );
  return { labelReveals };
}

export const { labelReveals } = revealTables(sqliteKit, { annotationCampaigns, campaignItems, labels, users, trajectories });

export type LabelRevealRow = typeof labelReveals.$inferSelect;
