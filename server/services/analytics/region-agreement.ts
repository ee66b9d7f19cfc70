/**
 * Agreement on regions in one campaign: how far annotators who labelled the same trajectory put their boxes and
 * points in the same places (see regionAgreement in the domain for the method). Researchers' analytics.
 */
import type { Db } from "../../../db/database";
import { getCampaign } from "../../../db/repositories/annotation/campaigns";
import { regionMarkedLabels } from "../../../db/repositories/annotation/labels";
import { IOU_MATCH_THRESHOLD, POINT_MATCH_RADIUS, regionAgreement, type RegionAgreement } from "../../domain/annotation/region-marks";
import { NotFoundError } from "../../errors";

export interface RegionAgreementResult extends RegionAgreement {
  campaignId: number;
  /** Labels with at least one mark, and all active labels of the campaign. */
  markedLabels: number;
  labels: number;
  /** The thresholds the figures use, so the page can state its method. */
  iouThreshold: number;
  pointRadius: number;
}

export async function campaignRegionAgreement(db: Db, campaignId: number): Promise<RegionAgreementResult> {
  if (!(await getCampaign(db, campaignId))) throw new NotFoundError("campaign", campaignId);
  // Only the items someone marked: the labels of the others (most, often all) compare to nothing.
  const { rows, labels } = await regionMarkedLabels(db, campaignId);
  const agreement = regionAgreement(rows.map((r) => ({ item: r.itemId, annotator: r.annotatorKey, marks: r.marks ?? [] })));
  return {
    campaignId,
    ...agreement,
    markedLabels: rows.filter((r) => (r.marks?.length ?? 0) > 0).length,
    labels,
    iouThreshold: IOU_MATCH_THRESHOLD,
    pointRadius: POINT_MATCH_RADIUS,
  };
}
