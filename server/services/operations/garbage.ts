/**
 * Removes stored screenshots no screenshot row refers to, and the variants of such screenshots. Live runs' HARs and
 * tasks' input images are stored objects too, kept while their rows name them.
 *
 * They come from imports whose trajectory then failed to commit (with a bucket, images are uploaded before the
 * rows are written), from a crash between a file move and its commit, or from deleted data. Objects younger than
 * `minAgeMs` (default a day) are kept whatever their rows say: an import still running may have uploaded them
 * and not committed yet, and removing them would leave its rows pointing at nothing.
 */
import type { Db } from "../../../db/database";
import { runnerObjectReferenced } from "../../../db/repositories/live/evidence";
import { getScreenshot } from "../../../db/repositories/screenshots";
import type { ScreenshotStore } from "../../storage/screenshot-store";

export const DEFAULT_GC_MIN_AGE_MS = 24 * 3600_000;

export interface GarbageReport {
  /** Original screenshots removed (their hashes). */
  removed: string[];
  /** Variants removed (their object names). */
  removedVariants: string[];
  /** Unreferenced objects kept because they are younger than minAgeMs. */
  keptYoung: number;
}

export async function collectUnreferencedObjects(
  deps: { db: Db; store: ScreenshotStore },
  options: { minAgeMs?: number; now?: number; dryRun?: boolean } = {},
): Promise<GarbageReport> {
  const minAgeMs = options.minAgeMs ?? DEFAULT_GC_MIN_AGE_MS;
  const now = options.now ?? Date.now();
  const report: GarbageReport = { removed: [], removedVariants: [], keptYoung: 0 };
  const referenced = async (hash: string) => (await getScreenshot(deps.db, hash)) !== undefined || (await runnerObjectReferenced(deps.db, hash));
  for (const [objects, out] of [
    [deps.store.originals, report.removed],
    [deps.store.variants, report.removedVariants],
  ] as const) {
    const doomed: string[] = [];
    for await (const o of objects.list()) {
      if (await referenced(o.name.slice(0, 64))) continue;
      if (now - o.modified.getTime() < minAgeMs) {
        report.keptYoung++;
        continue;
      }
      doomed.push(o.name);
    }
    for (const name of doomed) {
      // Checked again just before removal: a row committed during the listing keeps its object.
      if (await referenced(name.slice(0, 64))) continue;
      if (!options.dryRun) await objects.delete(name);
      out.push(name);
    }
  }
  return report;
}
