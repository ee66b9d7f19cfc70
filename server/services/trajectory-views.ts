/**
 * Read models the browser and the player render: assembled from repository queries, shaped so the client
 * never needs a second round trip (screenshot sizes come with the steps so the overlay can be laid out
 * before any image has loaded).
 */
import type { Db } from "../../db/client";
import {
  getTaskSet,
  getTask,
  getRun,
  listRunSummaries,
  listTaskSetSummaries,
  listTasksOfSet,
  listTaskSets,
  listRuns,
  sitesOfSet,
} from "../../db/repositories/catalog";
import {
  distinctModels,
  distinctOutcomes,
  distinctSites,
  getStepScreenshots,
  firstStepImages,
  getSteps,
  trajectoryIds,
  getTrajectoryDetail,
  listTrajectories,
  listTrajectoriesPage,
  outcomeCounts,
  siteBreakdown,
  type TrajectoryFilter,
  type TrajectorySort,
} from "../../db/repositories/trajectories";
import { FIRST_VIEW_THUMBNAILS, FIRST_VIEW_WIDTHS, snapVariantWidth, THUMBNAIL_WIDTH } from "../domain/image-variants";
import type { ParsedAction, SomElement } from "../domain/types";
import { NotFoundError } from "../errors";
import { warmVariants, type ImageDeps } from "./images";

export interface ImageMeta {
  hash: string;
  width: number;
  height: number;
  /** Difference hash once computed: the player's loop markers then see near-identical screens as the same. */
  dhash: string | null;
}

export interface PlayerStep {
  index: number;
  url: string | null;
  thought: string | null;
  actionRaw: string | null;
  action: ParsedAction;
  /** Null when the source recorded no element list for this step (not the same as an empty list). */
  elements: SomElement[] | null;
  error: string | null;
  durationMs: number | null;
  marksBurnedIn: boolean;
  screenshot: ImageMeta | null;
  rawScreenshot: ImageMeta | null;
}

export function getTrajectoryForPlayer(db: Db, id: number) {
  const detail = getTrajectoryDetail(db, id);
  if (!detail) throw new NotFoundError("trajectory", id);
  const images = getStepScreenshots(db, id);
  const meta = (hash: string | null): ImageMeta | null => {
    if (!hash) return null;
    const img = images.get(hash);
    // A step row pointing at a hash with no screenshot row is a broken import; show it as missing, not crash.
    return img ? { hash, width: img.width, height: img.height, dhash: img.dhash } : null;
  };
  const steps: PlayerStep[] = detail.steps.map((s) => ({
    index: s.index,
    url: s.url,
    thought: s.thought,
    actionRaw: s.actionRaw,
    action: s.action,
    elements: s.elements ?? null,
    error: s.error,
    durationMs: s.durationMs,
    marksBurnedIn: s.marksBurnedIn,
    screenshot: meta(s.screenshotHash),
    rawScreenshot: meta(s.rawScreenshotHash),
  }));
  const { trajectory: t, task, taskSet, run } = detail;
  return {
    trajectory: {
      id: t.id,
      attempt: t.attempt,
      finalAnswer: t.finalAnswer,
      outcome: t.outcome,
      outcomeDetail: t.outcomeDetail,
      stepCount: t.stepCount,
      sourceFormat: t.sourceFormat,
      sourcePath: t.sourcePath,
      createdAt: t.createdAt,
      updatedAt: t.updatedAt,
    },
    task: {
      id: task.id,
      externalId: task.externalId,
      site: task.site,
      intent: task.intent,
      startUrl: task.startUrl,
      inputImages: task.inputImages,
      referenceAnswers: task.referenceAnswers,
      difficulty: task.difficulty,
      tags: task.tags,
      hasEvaluatorConfig: task.evaluatorConfig !== null && task.evaluatorConfig !== undefined,
    },
    taskSet: { id: taskSet.id, name: taskSet.name, benchmark: taskSet.benchmark },
    run: { id: run.id, name: run.name, agentName: run.agentName, model: run.model, sourceSystem: run.sourceSystem },
    /** True when the blind rule hides the run from the viewer (set by the router, server/services/annotation/blind.ts). */
    agentHidden: false as boolean,
    steps,
  };
}

export type PlayerTrajectory = ReturnType<typeof getTrajectoryForPlayer>;

/**
 * Queues the WebP variants the player will show, at its snapped display width, from `fromStep` onwards and
 * then the steps before it. Returns how many images were queued.
 */
export function warmTrajectoryImages(deps: ImageDeps, q: { id: number; width: number; fromStep: number; raw: boolean }): number {
  const steps = getSteps(deps.db, q.id);
  if (!steps.length) throw new NotFoundError("trajectory", q.id);
  const shown = (s: (typeof steps)[number]) => (q.raw ? (s.rawScreenshotHash ?? s.screenshotHash) : (s.screenshotHash ?? s.rawScreenshotHash));
  const from = Math.min(q.fromStep, steps.length - 1);
  const ordered = [...steps.slice(from), ...steps.slice(0, from).reverse()].map(shown).filter((h): h is string => !!h);
  return warmVariants(deps, ordered, { kind: "variant", width: snapVariantWidth(q.width), format: "webp" });
}

/**
 * Queues what the first view of newly imported trajectories shows: the first step's screenshot at the stage
 * widths desktop windows ask for, and the first thumbnails of the filmstrip, so opening a trajectory right after
 * its import finds them encoded. Runs in the background (see warmingSettled); returns how many were queued.
 * Trajectories later in the list are warmed last, and when the queue overflows the earliest are dropped first,
 * so the most recently imported are the ones kept.
 */
export function warmFirstViews(deps: ImageDeps, trajectoryIds: readonly number[]): number {
  let queued = 0;
  for (const id of trajectoryIds) {
    const first = firstStepImages(deps.db, id, FIRST_VIEW_THUMBNAILS);
    const shown = first.map((s) => s.screenshotHash ?? s.rawScreenshotHash).filter((h): h is string => !!h);
    if (!shown.length) continue;
    for (const width of FIRST_VIEW_WIDTHS) queued += warmVariants(deps, [shown[0]!], { kind: "variant", width, format: "webp" });
    queued += warmVariants(deps, shown, { kind: "variant", width: THUMBNAIL_WIDTH, format: "webp" });
  }
  return queued;
}

export interface TrajectoryListQuery extends TrajectoryFilter {
  sort: TrajectorySort;
  dir: "asc" | "desc";
  page: number;
  pageSize: number;
}

export function listTrajectoryPage(db: Db, q: TrajectoryListQuery) {
  const { sort, dir, page, pageSize, ...filter } = q;
  const { rows, total } = listTrajectoriesPage(db, filter, { offset: (page - 1) * pageSize, limit: pageSize, sort, dir });
  return { rows, total, page, pageSize, pageCount: Math.max(1, Math.ceil(total / pageSize)) };
}

/** Choices for the list's filter menus. */
export function trajectoryFilterOptions(db: Db) {
  return {
    taskSets: listTaskSets(db).map((s) => ({ id: s.id, name: s.name })),
    runs: listRuns(db).map((r) => ({ id: r.id, name: r.name, model: r.model })),
    sites: distinctSites(db),
    models: distinctModels(db),
    outcomes: distinctOutcomes(db),
  };
}

export function taskSetOverview(db: Db, id: number, page: { q?: string; site?: string; page: number; pageSize: number }) {
  const set = getTaskSet(db, id);
  if (!set) throw new NotFoundError("task set", id);
  const tasksPage = listTasksOfSet(db, id, {
    q: page.q,
    site: page.site,
    offset: (page.page - 1) * page.pageSize,
    limit: page.pageSize,
  });
  return {
    taskSet: set,
    sites: sitesOfSet(db, id),
    outcomes: outcomeCounts(db, { taskSetId: id }),
    tasks: { ...tasksPage, page: page.page, pageSize: page.pageSize, pageCount: Math.max(1, Math.ceil(tasksPage.total / page.pageSize)) },
  };
}

export function taskSetList(db: Db) {
  return listTaskSetSummaries(db);
}

export function runList(db: Db) {
  return listRunSummaries(db);
}

export function runOverview(db: Db, id: number) {
  const run = getRun(db, id);
  if (!run) throw new NotFoundError("agent run", id);
  return { run, outcomes: outcomeCounts(db, { runId: id }), sites: siteBreakdown(db, { runId: id }) };
}

/** A task with its trajectories and their outcomes; `scope` narrows both to what the viewer may browse. */
export function taskOverview(db: Db, id: number, scope: TrajectoryFilter = {}) {
  const found = getTask(db, id);
  if (!found) throw new NotFoundError("task", id);
  const filter = { ...scope, taskId: id };
  const { rows } = listTrajectories(db, filter, { offset: 0, limit: 500, sort: "id", dir: "asc" });
  return { task: found.task, taskSet: found.taskSet, outcomes: outcomeCounts(db, filter), trajectories: rows };
}

/** Ids of every trajectory, or of one run's, in id order (for exports and batches chosen on the command line). */
export function trajectoryIdsOf(db: Db, where: { runId?: number } = {}): number[] {
  if (where.runId !== undefined && !getRun(db, where.runId)) throw new NotFoundError("run", where.runId);
  return trajectoryIds(db, where);
}
