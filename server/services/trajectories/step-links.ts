/**
 * Stable step links (server/domain/trajectories/step-links.ts): which trajectory a link leads to now, for the
 * person opening it. Someone who may not browse the trajectory gets the player's own refusal, whether or not the
 * link leads anywhere, so a link tells them nothing about trajectories that are not theirs.
 */
import { findTrajectoryByContent, getTrajectoryHead } from "../../../db/repositories/trajectories";
import type { Db } from "../../../db/database";
import type { Actor } from "../../domain/access/actor";
import { contentHashesFor, pickLinkTarget } from "../../domain/trajectories/step-links";
import { AppError } from "../../errors";
import { assertTrajectoryBrowsable, NOT_BROWSABLE_MESSAGE, seesWholeCatalog } from "../access";

export async function resolveStepLink(db: Db, actor: Actor, link: { key: string; id?: number }): Promise<number> {
  const hashes = contentHashesFor(link.key) ?? [];
  let rowWithContent: { id: number } | null = null;
  for (const h of hashes) {
    rowWithContent = (await findTrajectoryByContent(db, h)) ?? null;
    if (rowWithContent) break;
  }
  const head = link.id ? await getTrajectoryHead(db, link.id) : undefined;
  const linkedRow = head ? { id: head.trajectory.id, contentHash: head.trajectory.contentHash } : null;
  const target = pickLinkTarget(linkedRow, rowWithContent, link.key);
  if (target === null) {
    if (await seesWholeCatalog(db, actor))
      throw new AppError("NOT_FOUND", "This link leads to a trajectory that is no longer stored here (it was deleted and not imported again).");
    throw new AppError("FORBIDDEN", NOT_BROWSABLE_MESSAGE);
  }
  await assertTrajectoryBrowsable(db, actor, target);
  return target;
}
