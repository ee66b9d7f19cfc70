/**
 * Human annotation on PostgreSQL: campaigns, their annotators and items, reservations, labels with every
 * revision, consolidated labels and their history, and evaluation reveals. Declared once in
 * db/schema/annotation.ts, which documents the invariants the unique indexes hold.
 */
import { annotationTables } from "../schema/annotation";
import { users } from "./auth";
import { trajectories } from "./core";
import { pgKit } from "./columns";

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
} = annotationTables(pgKit, { users, trajectories });
