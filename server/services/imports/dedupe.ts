/**
 * `dedupe`: trajectories stored more than once by imports made before identity by content (the same folder imported
 * from two places, the same zip uploaded twice) become one. Copies are the imported trajectories whose content
 * hashes are equal (server/domain/imports/identity.ts: run folder name, task, attempt, steps with their image
 * hashes, answer and outcome); rows stored by earlier versions get current hashes first. The oldest copy is kept and
 * everything the others hold moves to it, so no label or verdict is lost:
 * - a copy's campaign item moves to the kept trajectory; when both are items of one campaign, the copy's labels join
 *   the kept item and its consolidated label is worked out again from them all;
 * - an evaluator's verdict on a copy moves to the kept trajectory; one the kept trajectory already has with the same
 *   verdict is the same verdict and goes;
 * - who has seen the copy's verdicts has seen the kept trajectory's.
 * A copy whose holdings would clash is left as it is and reported with why (one annotator labelled both copies in
 * one campaign, one of two items was adjudicated or QA-reviewed or is a gold item, one evaluator gave the copies
 * different verdicts): a person decides. A dry run works out the same merge and rolls it back.
 */
import { withTransaction, type Db } from "../../../db/database";
import { deleteRunIfEmpty } from "../../../db/repositories/catalog";
import { getItem } from "../../../db/repositories/annotation/campaigns";
import { deleteTrajectory } from "../../../db/repositories/trajectories";
import {
  deleteVerdictById,
  duplicateContentGroups,
  foldItemInto,
  holdingsOf,
  moveEvaluationReveals,
  moveItemToTrajectory,
  moveVerdictToTrajectory,
  type TrajectoryHoldings,
} from "../../../db/repositories/imports/duplicates";
import { requireRole, type Actor } from "../../domain/access/actor";
import { IMPORTERS } from "../../importers/registry";
import { recomputeItem, requireCampaign } from "../annotation";
import { ensureTrajectoryIdentities } from "./identity-backfill";

export interface DedupeCopy {
  id: number;
  runId: number;
  run: string;
  source: string | null;
}

export interface DedupeGroup {
  /** The trajectory kept (the oldest copy). */
  kept: DedupeCopy;
  /** Copies folded into it and deleted. */
  merged: DedupeCopy[];
  /** Copies left as they are, with why. */
  left: (DedupeCopy & { reasons: string[] })[];
}

export interface DedupeReport {
  dryRun: boolean;
  /** Rows stored by earlier versions that got current identity hashes. */
  identitiesComputed: number;
  groups: DedupeGroup[];
  /** Trajectories deleted after their holdings moved. */
  merged: number;
  /** Copies left because their holdings clash. */
  left: number;
  moved: { items: number; itemsFolded: number; labels: number; verdicts: number; verdictsSame: number };
  /** Runs that held only copies and are gone with them. */
  runsRemoved: number;
}

const copyOf = (h: TrajectoryHoldings): DedupeCopy => ({ id: h.id, runId: h.runId, run: h.runName, source: h.sourcePath });

/** Why a copy cannot be folded into the kept trajectory as they stand; empty when it can. */
function clashes(keep: TrajectoryHoldings, copy: TrajectoryHoldings): string[] {
  const reasons: string[] = [];
  for (const item of copy.items) {
    const other = keep.items.find((i) => i.campaignId === item.campaignId);
    if (!other) continue;
    const both = item.annotators.filter((a) => other.annotators.includes(a));
    if (both.length)
      reasons.push(
        `campaign ${item.campaignId}: ${both.length === 1 ? "an annotator" : `${both.length} annotators`} labelled both copies (${both.join(", ")})`,
      );
    for (const [i, which] of [
      [item, "the copy's"],
      [other, "the kept trajectory's"],
    ] as const) {
      if (i.state === "adjudicated") reasons.push(`campaign ${item.campaignId}: ${which} item is adjudicated`);
      else if (i.qaReviewed) reasons.push(`campaign ${item.campaignId}: ${which} item was QA-reviewed`);
    }
    if (item.gold && !other.gold) reasons.push(`campaign ${item.campaignId}: the copy's item is a gold item and the kept trajectory's is not`);
  }
  for (const v of copy.verdicts) {
    const same = keep.verdicts.find((k) => k.evaluatorKey === v.evaluatorKey && k.k === v.k && k.promptVersion === v.promptVersion);
    if (same && same.verdict !== v.verdict) reasons.push(`${v.evaluatorName} said ${same.verdict} of the kept trajectory and ${v.verdict} of the copy`);
  }
  return reasons;
}

/** Finds copies of imported trajectories and folds them together (see the module comment); `dryRun` writes nothing. */
export async function dedupeTrajectories(db: Db, actor: Actor, options: { dryRun?: boolean; now?: number } = {}): Promise<DedupeReport> {
  requireRole(actor, "admin", "merge duplicate trajectories");
  const dryRun = options.dryRun ?? false;
  const at = new Date(options.now ?? Date.now());
  const run = async (): Promise<DedupeReport> => {
    const report: DedupeReport = {
      dryRun,
      identitiesComputed: 0,
      groups: [],
      merged: 0,
      left: 0,
      moved: { items: 0, itemsFolded: 0, labels: 0, verdicts: 0, verdictsSame: 0 },
      runsRemoved: 0,
    };
    report.identitiesComputed = (await ensureTrajectoryIdentities(db)).rows;
    const formats = IMPORTERS.map((i) => i.format);
    const touchedItems = new Set<number>();
    for (const group of await duplicateContentGroups(db, formats)) {
      const [keepId, ...copyIds] = group.ids as [number, ...number[]];
      const holdings = await holdingsOf(db, group.ids);
      const out: DedupeGroup = { kept: copyOf(holdings.get(keepId)!), merged: [], left: [] };
      for (const copyId of copyIds) {
        // What the kept trajectory holds grows with each copy folded in: read it again.
        const keep = (await holdingsOf(db, [keepId])).get(keepId)!;
        const copy = holdings.get(copyId)!;
        const reasons = clashes(keep, copy);
        if (reasons.length) {
          out.left.push({ ...copyOf(copy), reasons });
          report.left++;
          continue;
        }
        for (const item of copy.items) {
          const other = keep.items.find((i) => i.campaignId === item.campaignId);
          report.moved.labels += item.annotators.length;
          if (other) {
            await foldItemInto(db, item.id, { id: other.id, trajectoryId: keepId });
            touchedItems.add(other.id);
            report.moved.itemsFolded++;
          } else {
            await moveItemToTrajectory(db, item.id, keepId);
            report.moved.items++;
          }
        }
        for (const v of copy.verdicts) {
          const same = keep.verdicts.find((k) => k.evaluatorKey === v.evaluatorKey && k.k === v.k && k.promptVersion === v.promptVersion);
          if (same) {
            await deleteVerdictById(db, v.id);
            report.moved.verdictsSame++;
          } else {
            await moveVerdictToTrajectory(db, v.id, keepId);
            report.moved.verdicts++;
          }
        }
        await moveEvaluationReveals(db, copyId, keepId);
        await deleteTrajectory(db, copyId);
        if (await deleteRunIfEmpty(db, copy.runId)) report.runsRemoved++;
        out.merged.push(copyOf(copy));
        report.merged++;
      }
      report.groups.push(out);
    }
    // Items that gained labels: their consolidated label and label count follow from all of them.
    for (const itemId of touchedItems) {
      const item = await getItem(db, itemId);
      if (!item) continue;
      await recomputeItem(db, await requireCampaign(db, item.campaignId), item, at);
    }
    report.groups.sort((x, y) => x.kept.id - y.kept.id);
    if (dryRun) throw new DryRunRolledBack(report);
    return report;
  };
  try {
    return await withTransaction(db, run);
  } catch (e) {
    if (e instanceof DryRunRolledBack) return e.report;
    throw e;
  }
}

/** Thrown at the end of a dry run so that everything it wrote is rolled back. */
class DryRunRolledBack extends Error {
  constructor(readonly report: DedupeReport) {
    super("dry run");
  }
}
