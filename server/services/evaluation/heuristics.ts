/**
 * Heuristic verdicts on recorded trajectories: the free checks of server/domain/evaluation/heuristics (loop,
 * grounding mismatch, answer not grounded, no answer) run over stored steps and stored like rule verdicts, so every
 * agreement view lists them next to the paid judges.
 *
 * Each heuristic is its own evaluator (kind "rule", key "heuristic:<name>", its implementation version as prompt
 * version). The step a heuristic fires on is `details.step` (stored 0-based index, like a human's first failing
 * step), named in the rationale, and, when it fails the trajectory, its `first_failing_step`.
 *
 * Screenshots' perceptual hashes (dHash) are computed here with sharp the first time the loop heuristic needs them
 * and stored with the screenshot (screenshots.dhash), so no screenshot is ever decoded twice for this.
 * Trajectories still running are skipped: their verdict would be about a trajectory that is not finished.
 */
import { loadSharp } from "../images";
import { withTransaction, type Db } from "../../../db/database";
import { existingVerdictKeys, upsertVerdicts, type VerdictValues } from "../../../db/repositories/evaluation/verdicts";
import { getScreenshotDhashes, setScreenshotDhash } from "../../../db/repositories/screenshots";
import { getStepScreenshots, getTrajectoryDetail } from "../../../db/repositories/trajectories";
import { DHASH_HEIGHT, DHASH_WIDTH, dHashFromGrey } from "../../domain/evaluation/heuristics/dhash";
import { HEURISTIC_EVALUATORS, type HeuristicEvaluator, type HeuristicStep, type HeuristicTrajectory } from "../../domain/evaluation/heuristics/index";
import { LOOP_HEURISTIC } from "../../domain/evaluation/heuristics/loop";
import type { ScreenshotStore } from "../../storage/screenshot-store";

export interface HeuristicDeps {
  db: Db;
  store: ScreenshotStore;
}

export interface HeuristicRunRequest {
  trajectoryIds: number[];
  /** Recompute and replace verdicts already stored. */
  force?: boolean;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

type Counts = Record<"success" | "failure" | "not_evaluable", number>;

export interface HeuristicRunReport {
  considered: number;
  /** Trajectories that got at least one new verdict. */
  evaluated: number;
  /** Trajectories whose every heuristic verdict was already stored. */
  skippedExisting: number;
  /** Trajectories still running (no verdicts stored for them yet). */
  skippedRunning: number;
  /** Trajectory ids that no longer exist. */
  missing: number;
  /** New verdicts per heuristic evaluator key. */
  byEvaluator: Record<string, Counts>;
  /** Distinct screenshots whose perceptual hash was computed (and stored) by this run. */
  screenshotsHashed: number;
  /** Screenshots that could not be read or decoded (the loop check then compares their bytes only). */
  unreadableScreenshots: number;
}

/**
 * dHashes of stored screenshots by content hash: read from the screenshots table, else computed from the file and
 * stored. Null for files that cannot be read or decoded (remembered for the run, never stored).
 */
export class ScreenshotDhashes {
  private readonly known = new Map<string, string | null>();
  computed = 0;
  unreadable = 0;
  constructor(
    private readonly db: Db,
    private readonly store: ScreenshotStore,
  ) {}

  /** Reads the stored hashes of a trajectory's screenshots in one query. */
  async preload(hashes: string[]): Promise<void> {
    const wanted = hashes.filter((h) => !this.known.has(h));
    if (wanted.length) for (const [hash, dhash] of await getScreenshotDhashes(this.db, wanted)) this.known.set(hash, dhash);
  }

  async of(hash: string): Promise<string | null> {
    const hit = this.known.get(hash);
    if (hit !== undefined) return hit;
    let value: string | null;
    try {
      const sharp = await loadSharp();
      const grey = await sharp(this.store.localPath(hash) ?? (await this.store.read(hash)), { failOn: "none" })
        .greyscale()
        .resize(DHASH_WIDTH, DHASH_HEIGHT, { fit: "fill" })
        .raw()
        .toBuffer({ resolveWithObject: true });
      // greyscale() may still leave an alpha channel: keep the first channel of each pixel.
      const channels = grey.info.channels;
      const pixels = channels === 1 ? grey.data : grey.data.filter((_, i) => i % channels === 0);
      value = dHashFromGrey(pixels);
      await setScreenshotDhash(this.db, hash, value);
      this.computed++;
    } catch {
      value = null;
      this.unreadable++;
    }
    this.known.set(hash, value);
    return value;
  }
}

type Detail = NonNullable<Awaited<ReturnType<typeof getTrajectoryDetail>>>;

/** The recorded data the heuristics read, from a stored trajectory; dHashes when `dhashes` is given. */
export async function heuristicInput(db: Db, detail: Detail, dhashes: ScreenshotDhashes | null): Promise<HeuristicTrajectory> {
  const sizes = await getStepScreenshots(db, detail.trajectory.id);
  const steps: HeuristicStep[] = [];
  const forHash = (s: Detail["steps"][number]) => s.rawScreenshotHash ?? s.screenshotHash;
  await dhashes?.preload(detail.steps.map(forHash).filter((h): h is string => h !== null));
  for (const s of detail.steps) {
    const shown = (s.screenshotHash ? sizes.get(s.screenshotHash) : undefined) ?? (s.rawScreenshotHash ? sizes.get(s.rawScreenshotHash) : undefined);
    // The unmarked screenshot shows the page itself; marks drawn on top would only add noise to its hash.
    const hashed = forHash(s);
    steps.push({
      index: s.index,
      action: s.action,
      url: s.url,
      elements: s.elements,
      screenshotHash: s.screenshotHash,
      screenshotDhash: dhashes && hashed ? await dhashes.of(hashed) : null,
      screenshotSize: shown ? { width: shown.width, height: shown.height } : null,
    });
  }
  return { intent: detail.task.intent, finalAnswer: detail.trajectory.finalAnswer, outcome: detail.trajectory.outcome, steps };
}

/** One heuristic's verdict on a trajectory, as stored. */
function heuristicVerdictRow(trajectoryId: number, h: HeuristicEvaluator, input: HeuristicTrajectory): VerdictValues & { verdict: keyof Counts } {
  const v = h.evaluate(input);
  return {
    trajectoryId,
    evaluatorKey: h.key,
    evaluatorName: h.name,
    kind: "rule",
    origin: "verdict",
    k: "",
    promptVersion: h.version,
    verdict: v.verdict,
    score: v.verdict === "success" ? 1 : v.verdict === "failure" ? 0 : null,
    rationale: v.reason,
    details: { step: v.step, ...(v.facts ?? {}) },
    // A heuristic that fails a trajectory names the step it fired on: that is its first failing step, compared with
    // the humans' on the judge agreement page.
    firstFailingStep: v.verdict === "failure" && v.step != null ? v.step : null,
  };
}

/** Verdicts are written a few hundred trajectories at a time, in one transaction each. */
const WRITE_EVERY = 250;

/** Which heuristic evaluators each trajectory still lacks a verdict from (all of them when forced). */
async function missingEvaluators(db: Db, ids: number[], force: boolean): Promise<Map<number, HeuristicEvaluator[]>> {
  const out = new Map<number, HeuristicEvaluator[]>(ids.map((id) => [id, []]));
  for (const h of HEURISTIC_EVALUATORS) {
    const have = force ? new Set<string>() : await existingVerdictKeys(db, h.key, h.version, ids, [""]);
    for (const id of ids) if (!have.has(`${id}:`)) out.get(id)!.push(h);
  }
  return out;
}

export async function evaluateHeuristicVerdicts(deps: HeuristicDeps, req: HeuristicRunRequest): Promise<HeuristicRunReport> {
  const { db } = deps;
  const byEvaluator: Record<string, Counts> = {};
  for (const h of HEURISTIC_EVALUATORS) byEvaluator[h.key] = { success: 0, failure: 0, not_evaluable: 0 };
  const report: HeuristicRunReport = {
    considered: req.trajectoryIds.length,
    evaluated: 0,
    skippedExisting: 0,
    skippedRunning: 0,
    missing: 0,
    byEvaluator,
    screenshotsHashed: 0,
    unreadableScreenshots: 0,
  };
  const dhashes = new ScreenshotDhashes(db, deps.store);
  const todo = await missingEvaluators(db, req.trajectoryIds, !!req.force);
  let pending: VerdictValues[] = [];
  const flush = async () => {
    if (!pending.length) return;
    const rows = pending;
    pending = [];
    await withTransaction(db, async () => upsertVerdicts(db, rows));
  };
  let done = 0;
  for (const trajectoryId of req.trajectoryIds) {
    if (req.signal?.aborted) break;
    req.onProgress?.(done++, req.trajectoryIds.length);
    const evaluators = todo.get(trajectoryId)!;
    if (!evaluators.length) {
      report.skippedExisting++;
      continue;
    }
    const detail = await getTrajectoryDetail(db, trajectoryId);
    if (!detail) {
      report.missing++;
      continue;
    }
    if (detail.trajectory.outcome === "running") {
      report.skippedRunning++;
      continue;
    }
    const input = await heuristicInput(db, detail, evaluators.includes(LOOP_HEURISTIC) ? dhashes : null);
    for (const h of evaluators) {
      const row = heuristicVerdictRow(trajectoryId, h, input);
      byEvaluator[h.key]![row.verdict]++;
      pending.push(row);
    }
    report.evaluated++;
    if (report.evaluated % WRITE_EVERY === 0) await flush();
  }
  await flush();
  req.onProgress?.(done, req.trajectoryIds.length);
  report.screenshotsHashed = dhashes.computed;
  report.unreadableScreenshots = dhashes.unreadable;
  return report;
}
