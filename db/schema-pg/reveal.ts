/** Blind → reveal → revise on PostgreSQL. Mirrors db/schema/reveal.ts, which documents it. */
import { index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { LabelVerdict } from "../../server/domain/annotation/label-schema";
import type { RevealDecision } from "../schema/reveal";
import { annotationCampaigns, campaignItems, labels } from "./annotation";
import { users } from "./auth";
import { cascadeId, epochMs, nowMs } from "./columns";
import { trajectories } from "./core";

export const labelReveals = pgTable(
  "label_reveals",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    campaignId: cascadeId("campaign_id", () => annotationCampaigns.id),
    itemId: cascadeId("item_id", () => campaignItems.id),
    labelId: cascadeId("label_id", () => labels.id),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    annotatorKey: text("annotator_key").notNull(),
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    annotatorName: text("annotator_name").notNull(),
    evaluatorId: text("evaluator_id").notNull(),
    evaluatorName: text("evaluator_name").notNull(),
    evaluatorVerdict: text("evaluator_verdict").notNull(),
    evaluatorRationale: text("evaluator_rationale"),
    blindVerdict: text("blind_verdict").$type<LabelVerdict>().notNull(),
    blindCategory: text("blind_category"),
    blindFirstFailingStep: integer("blind_first_failing_step"),
    blindNote: text("blind_note"),
    blindAt: epochMs("blind_at").notNull(),
    revealedAt: epochMs("revealed_at").notNull().default(nowMs),
    decision: text("decision").$type<RevealDecision>(),
    informedVerdict: text("informed_verdict").$type<LabelVerdict>(),
    informedCategory: text("informed_category"),
    informedFirstFailingStep: integer("informed_first_failing_step"),
    reason: text("reason"),
    decidedAt: epochMs("decided_at"),
  },
  (t) => [uniqueIndex("label_reveals_label_uq").on(t.labelId), index("label_reveals_campaign_idx").on(t.campaignId, t.evaluatorId)],
);
