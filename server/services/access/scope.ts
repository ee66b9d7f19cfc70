/**
 * What a signed-in user may browse: one rule that every browsing procedure, page and the screenshot route apply.
 *
 * - Researchers and admins who label nothing blind see everything: every trajectory, run, task set and figure.
 * - Everyone else sees only the trajectories in the campaigns they label in, and of those, not the ones the blind
 *   rule hides from them: those they label blind and have not labelled yet, and every attempt at a task they still
 *   label blind in a campaign that is not closed (its agent, by elimination, would name the agent of the attempt
 *   still to label). Those are reached only as an item of the campaign (`/annotate/<campaign>/<item number>`),
 *   never by trajectory id, so nothing they browse can be lined up with them. Runs, task sets and per-run figures
 *   are not theirs to see.
 * - A trajectory they may not reach gets one answer, whether it is hidden, outside their campaigns or does not
 *   exist, and no message names its id: two answers would let a scan of ids list the blind queue.
 *
 * "Everyone else" includes researchers while they label blind: a researcher who could list other runs'
 * trajectories of the same task would know, by elimination, which agent made the one they are labelling.
 */
import type { Db } from "../../../db/database";
import {
  isAgentHiddenFor,
  isInAnnotatorCampaigns,
  labellingBlindCount,
  screenshotInAnnotatorCampaigns,
  screenshotInPairwiseItems,
  taskInAnnotatorCampaigns,
  taskLabelledBlindBy,
} from "../../../db/repositories/access/blind-rule";
import type { TrajectoryFilter } from "../../../db/repositories/trajectories";
import { screenshotInQaItems } from "../../../db/repositories/annotation/campaigns";
import { hasRole, type Actor } from "../../domain/access/actor";
import { AppError } from "../../errors";
import { currentScannerHashes, scopeSearch } from "./search-scope";

/** True when the actor sees the whole catalog (researchers and admins with nothing to label blind). */
export async function seesWholeCatalog(db: Db, actor: Actor): Promise<boolean> {
  return hasRole(actor, "researcher") && (await labellingBlindCount(db, actor.userId)) === 0;
}

/**
 * A trajectory-list filter narrowed to what the actor may browse, as conditions the query evaluates itself (an id
 * list would hit SQLite's parameter limit in a large campaign). A behaviour search in it is parsed and narrowed to
 * what the actor may search (./search-scope.ts).
 */
export async function scopeTrajectoryFilter<F extends TrajectoryFilter & { search?: string }>(db: Db, actor: Actor, filter: F): Promise<F> {
  if (await seesWholeCatalog(db, actor)) {
    return filter.search ? { ...filter, textSearch: scopeSearch(filter.search, { wholeCatalog: true }, await currentScannerHashes(db)) } : filter;
  }
  const scoped = { ...filter, visibleToAnnotator: actor.userId, notBlindFor: actor.userId };
  if (!filter.search) return scoped;
  const labellingBlind = await labellingBlindCount(db, actor.userId);
  return {
    ...scoped,
    textSearch: scopeSearch(filter.search, { wholeCatalog: false, userId: actor.userId, researcher: hasRole(actor, "researcher"), labellingBlind }),
  };
}

/**
 * Triage of the trajectory list (human labels, evaluator verdicts, agreement, samples of them) shows evaluations:
 * only for viewers of the whole catalog, never for annotators or anyone labelling blind.
 */
export async function assertMayTriage(db: Db, actor: Actor): Promise<void> {
  if (!hasRole(actor, "researcher")) throw new AppError("FORBIDDEN", "Filtering trajectories by labels and verdicts is for researchers and admins");
  const blind = await labellingBlindCount(db, actor.userId);
  if (blind) {
    throw new AppError(
      "FORBIDDEN",
      `You are labelling ${blind} trajector${blind === 1 ? "y" : "ies"} blind; labels and verdicts in the trajectory list open once you have labelled them`,
    );
  }
}

/** The one answer for a trajectory someone may not open by id, whatever the reason. */
export const NOT_BROWSABLE_MESSAGE =
  "This trajectory is not available to you: it is outside your labelling campaigns, or you label it (or another attempt at its task) blind. Open your items from your campaign's queue.";

export async function assertTrajectoryBrowsable(db: Db, actor: Actor, trajectoryId: number): Promise<void> {
  if (await seesWholeCatalog(db, actor)) return;
  if (!(await isInAnnotatorCampaigns(db, actor.userId, trajectoryId)) || (await isAgentHiddenFor(db, actor.userId, trajectoryId))) {
    throw new AppError("FORBIDDEN", NOT_BROWSABLE_MESSAGE);
  }
}

/**
 * Runs, task sets and per-run figures name agents and tell them apart: researchers' and admins' views, closed
 * to them too while they label blind.
 */
export async function assertSeesWholeCatalog(db: Db, actor: Actor, what: string): Promise<void> {
  if (!hasRole(actor, "researcher")) throw new AppError("FORBIDDEN", `Only researchers and admins can see ${what}`);
  const blind = await labellingBlindCount(db, actor.userId);
  if (blind) {
    throw new AppError("FORBIDDEN", `You are labelling ${blind} trajector${blind === 1 ? "y" : "ies"} blind; ${what} open once you have labelled them`);
  }
}

/**
 * How the viewer may see a task (the task page, server/services/trajectory-views.ts). Outside the whole catalog:
 * only tasks with a trajectory in the viewer's campaigns, with only the trajectories they may browse, and without
 * the benchmark's rule configuration and, while they label one of its trajectories blind, its reference answers (both
 * are evaluator information: with the final answer they give the rule's verdict away).
 */
export async function taskViewOf(
  db: Db,
  actor: Actor,
  taskId: number,
): Promise<{ wholeCatalog: true } | { wholeCatalog: false; scope: TrajectoryFilter; referenceWithheld: boolean }> {
  if (await seesWholeCatalog(db, actor)) return { wholeCatalog: true };
  if (!(await taskInAnnotatorCampaigns(db, actor.userId, taskId))) throw new AppError("FORBIDDEN", `Task ${taskId} is not in any of your labelling campaigns`);
  return {
    wholeCatalog: false,
    scope: { visibleToAnnotator: actor.userId, notBlindFor: actor.userId },
    referenceWithheld: await taskLabelledBlindBy(db, actor.userId, taskId),
  };
}

/**
 * Whether the viewer may fetch a stored screenshot: researchers and admins any; others only one shown in a step
 * of a trajectory in their campaigns (including their blind items, which they see in the labelling player), or of
 * an item they may QA review (the QA page's player), or of either attempt of a pair they answer in a pairwise campaign.
 * One indexed look-up per request; the route answers 404 otherwise, so the store cannot be probed for whether
 * a known image is in it.
 */
export async function mayFetchScreenshot(db: Db, actor: Pick<Actor, "userId" | "role">, hash: string): Promise<boolean> {
  return (
    hasRole(actor, "researcher") ||
    (await screenshotInAnnotatorCampaigns(db, actor.userId, hash)) ||
    (await screenshotInQaItems(db, actor.userId, hash)) ||
    (await screenshotInPairwiseItems(db, actor.userId, hash))
  );
}
