import type { Db } from "../../../db/database";
import type { Actor } from "../../domain/access/actor";
import type { ImageDeps } from "../images";
import { getStepWindow, warmTrajectoryImages } from "../trajectory-views";

/** Finds a campaign item by number for this actor, refusing as the page's own check does (labelling or QA). */
type ItemCheck = (db: Db, actor: Actor, campaignId: number, itemNo: number) => Promise<{ item: { trajectoryId: number } }>;

/**
 * The player's reads of a campaign item by number, under `check`, the same check as the item page itself: a window
 * of its steps (they carry nothing the blind rule hides: no trajectory id, run or model) and warming its screenshots
 * at the player's width (see warmTrajectoryImages).
 */
export function itemPlayerReads(check: ItemCheck) {
  return {
    async stepWindow(db: Db, actor: Actor, q: { campaignId: number; itemNo: number; from: number; count: number }) {
      const { item } = await check(db, actor, q.campaignId, q.itemNo);
      return await getStepWindow(db, item.trajectoryId, q.from, q.count);
    },
    async warmImages(deps: ImageDeps, actor: Actor, q: { campaignId: number; itemNo: number; width: number; fromStep: number; raw: boolean }): Promise<number> {
      const { item } = await check(deps.db, actor, q.campaignId, q.itemNo);
      return await warmTrajectoryImages(deps, { id: item.trajectoryId, width: q.width, fromStep: q.fromStep, raw: q.raw });
    },
  };
}

/** The player's reads of an item page (labelling or QA), as the routers serve them. */
export type ItemPlayerReads = ReturnType<typeof itemPlayerReads>;
