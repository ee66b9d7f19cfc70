/**
 * Rows imported before identity by content: their content hashes covered the absolute run folder (and, for an
 * upload, the server's temporary folder), so nothing imported since could recognise them. Before an import or a
 * dedupe reads hashes, those rows get the current content hash, computed from what they store
 * (server/domain/imports/identity.ts), and an upload's temporary folder in their source and run name becomes the
 * uploaded zip's name. A database whose rows are all current costs one query (a scan of the trajectories).
 */
import path from "node:path";
import { withTransaction, type Db } from "../../../db/database";
import { renameRun } from "../../../db/repositories/catalog";
import { listRecentJobsOfType } from "../../../db/repositories/jobs";
import { setTrajectoryHashes, stepsOf, trajectoriesWithOldContentHash } from "../../../db/repositories/trajectories";
import { CONTENT_HASH_VERSION, identityStep, trajectoryContentHash } from "../../domain/imports/identity";
import { IMPORTERS } from "../../importers/registry";

const PAGE = 200;

/** The unpacked folder of an upload ("upload-<time>-<hex>.zip.d") as it appears in a stored path. */
const UPLOAD_DIR = /(?:^|[\\/])((?:upload-\d+-[0-9a-f]+\.zip|[^\\/]+\.zip)\.d)(?:[\\/](.*))?$/;

/** Upload folders of earlier import jobs, by folder name, with the name of the zip the person uploaded. */
async function uploadNames(db: Db): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const job of await listRecentJobsOfType(db, "import.source", 100_000)) {
    const source = (job.payload as { source?: { kind?: string; file?: string; name?: string; staged?: string } } | null)?.source;
    if (source?.kind !== "upload" || !source.name) continue;
    if (source.file) out.set(`${path.basename(source.file)}.d`, source.name);
    if (source.staged) out.set(`${source.staged}.d`, source.name);
  }
  return out;
}

/** A stored path inside an upload's unpacked folder, as the person knows it ("study.zip: results/taskA"). */
function shownUploadPath(stored: string, names: Map<string, string>): string | null {
  const m = UPLOAD_DIR.exec(stored);
  const zip = m ? names.get(m[1]!) : undefined;
  if (!m || !zip) return null;
  return m[2] ? `${zip}: ${m[2].split(/[\\/]/).join("/")}` : zip;
}

/** The run key as identity reads it: an upload's unpacked folder stands for the zip's name without ".zip". */
function keyForIdentity(runKey: string, names: Map<string, string>): string {
  const m = UPLOAD_DIR.exec(runKey);
  const zip = m && !m[2] ? names.get(m[1]!) : undefined;
  return zip ? `${runKey.slice(0, runKey.indexOf(":") + 1)}${zip.replace(/\.zip$/i, "")}` : runKey;
}

export async function ensureTrajectoryIdentities(db: Db): Promise<{ rows: number }> {
  const formats = IMPORTERS.map((i) => i.format);
  let names: Map<string, string> | null = null;
  let rows = 0;
  let after = 0;
  const renamed = new Set<number>();
  for (;;) {
    const page = await trajectoriesWithOldContentHash(db, formats, CONTENT_HASH_VERSION, after, PAGE);
    if (!page.length) break;
    names ??= await uploadNames(db);
    const steps = await stepsOf(
      db,
      page.map((t) => t.id),
    );
    const byTrajectory = new Map<number, typeof steps>();
    for (const s of steps) byTrajectory.set(s.trajectoryId, [...(byTrajectory.get(s.trajectoryId) ?? []), s]);
    await withTransaction(db, async () => {
      for (const t of page) {
        const contentHash = trajectoryContentHash({
          runKey: keyForIdentity(t.runKey, names!),
          taskSet: t.taskSet,
          externalTaskId: t.externalTaskId,
          attempt: t.attempt,
          finalAnswer: t.finalAnswer,
          outcome: t.outcome,
          outcomeDetail: t.outcomeDetail,
          steps: (byTrajectory.get(t.id) ?? []).map(identityStep),
        });
        const shown = t.sourcePath ? shownUploadPath(t.sourcePath, names!) : null;
        await setTrajectoryHashes(db, t.id, { contentHash, ...(shown ? { sourcePath: shown } : {}) });
        if (!renamed.has(t.runId)) {
          renamed.add(t.runId);
          // A run named by the upload's unpacked folder is named by the zip instead.
          const m = UPLOAD_DIR.exec(t.runName);
          const zip = m ? names!.get(m[1]!) : undefined;
          if (zip) await renameRun(db, t.runId, [zip.replace(/\.zip$/i, ""), ...(m![2] ? [m![2].split(/[\\/]/).join("/")] : [])].join("/"));
        }
      }
    });
    rows += page.length;
    after = page.at(-1)!.id;
  }
  return { rows };
}
