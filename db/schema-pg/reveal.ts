/** Blind → reveal → revise on PostgreSQL. Declared once in db/schema/reveal.ts, which documents it. */
import { revealTables } from "../schema/reveal";
import { annotationCampaigns, campaignItems, labels } from "./annotation";
import { users } from "./auth";
import { trajectories } from "./core";
import { pgKit } from "./columns";

export const { labelReveals } = revealTables(pgKit, { annotationCampaigns, campaignItems, labels, users, trajectories });
