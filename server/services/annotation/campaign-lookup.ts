/**
 * Finding a campaign by id, refused with a not-found error when there is none. Every annotation service starts
 * here, so it stands below them all: campaigns, consolidation and reveals import it without importing each other.
 */
import type { Db } from "../../../db/database";
import { getCampaign } from "../../../db/repositories/annotation/campaigns";
import type { CampaignRow } from "../../../db/schema/index";
import { NotFoundError } from "../../errors";

export async function requireCampaign(db: Db, id: number): Promise<CampaignRow> {
  const c = await getCampaign(db, id);
  if (!c) throw new NotFoundError("campaign", id);
  return c;
}
