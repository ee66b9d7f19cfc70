/**
 * What a signed-in user may browse. Researchers and admins see every trajectory; annotators see only the
 * trajectories in the queues of the campaigns they label in (their work, nothing else).
 */
import type { Db } from "../../../db/client";
import { annotatorTrajectoryIds, isInAnnotatorCampaigns } from "../../../db/repositories/annotation";
import { hasRole, type Actor } from "../../auth/roles";
import { AppError } from "../../errors";

/** Null when the actor may see every trajectory, else the ids they may see. */
export function browsableTrajectoryIds(db: Db, actor: Actor): number[] | null {
  return hasRole(actor, "researcher") ? null : annotatorTrajectoryIds(db, actor.userId);
}

/**
 * A trajectory-list filter narrowed to what the actor may see: for annotators a condition on their campaigns that
 * the query evaluates itself (an id list would hit SQLite's parameter limit in a large campaign).
 */
export function scopeTrajectoryFilter<F extends object>(actor: Actor, filter: F): F & { visibleToAnnotator?: string } {
  return hasRole(actor, "researcher") ? filter : { ...filter, visibleToAnnotator: actor.userId };
}

export function assertTrajectoryBrowsable(db: Db, actor: Actor, trajectoryId: number): void {
  if (hasRole(actor, "researcher")) return;
  if (!isInAnnotatorCampaigns(db, actor.userId, trajectoryId)) {
    throw new AppError("FORBIDDEN", `Trajectory ${trajectoryId} is not in any of your labelling campaigns`);
  }
}
