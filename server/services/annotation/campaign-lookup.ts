/**
 * Finding a campaign by id, refused with a not-found error when there is none. Every annotation service starts
 * here, so it stands below them all: campaigns, consolidation and reveals import it without importing each other.
 */
import type { Db } from "../../../db/database";
import { getCampaign } from "../../../db/repositories/annotation/campaigns";
import type { CampaignRow } from "../../../db/schema/index";
import { requireRole, type Actor } from "../../domain/access/actor";
import { NotFoundError } from "../../errors";
import { assertNotLabellingBlind } from "../access";

export async function requireCampaign(db: Db, id: number): Promise<CampaignRow> {
  const c = await getCampaign(db, id);
  if (!c) throw new NotFoundError("campaign", id);
  return c;
}

/**
 * A campaign whose labels a researcher exports (every export of labels starts here: the role, the campaign, the
 * blind), with the name its files start with: the campaign's name in lower-case words joined by "-".
 */
export async function campaignForExport(db: Db, actor: Actor, campaignId: number): Promise<{ campaign: CampaignRow; slug: string }> {
  requireRole(actor, "researcher", "export labels");
  const campaign = await requireCampaign(db, campaignId);
  await assertNotLabellingBlind(db, actor.userId);
  const slug =
    campaign.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || `campaign-${campaign.id}`;
  return { campaign, slug };
}

/** A CSV or JSONL export file named `<slug>-<what>.csv|jsonl`; only the chosen format's body is built. */
export function csvOrJsonlFile(
  slug: string,
  what: string,
  format: "csv" | "jsonl",
  body: { csv: () => string; jsonl: () => string },
): { fileName: string; contentType: string; body: string } {
  return format === "csv"
    ? { fileName: `${slug}-${what}.csv`, contentType: "text/csv; charset=utf-8", body: body.csv() }
    : { fileName: `${slug}-${what}.jsonl`, contentType: "application/x-ndjson; charset=utf-8", body: body.jsonl() };
}
