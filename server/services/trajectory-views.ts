/**
 * Read models the browser and the player render: assembled from repository queries, shaped so the client
 * never needs a second round trip (screenshot sizes come with the steps so the overlay can be laid out
 * before any image has loaded).
 */
import { LRUCache } from "lru-cache";
import { linkKeyOf } from "../domain/trajectories/step-links";
import type { Db } from "../../db/database";
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
import { searchHits, type ScopedSearch } from "../../db/repositories/search";
import { consolidatedCategories, triageColumnsOf, type TriageColumns } from "../../db/repositories/triage";
import { currentFlagsOf } from "../../db/repositories/catalog/task-flags";
import { listEvaluatorIdentities } from "../../db/repositories/evaluation/verdicts";
import {
  countTrajectories,
  sampleCandidates,
  distinctModels,
  distinctOutcomes,
  distinctSites,
  countSteps,
  getScreenshotsByHash,
  getStepIndexRows,
  getStepRange,
  getStepScreenshotHashes,
  getTrajectoryHead,
  trajectoryIds,
  listTrajectories,
  listTrajectoriesPage,
  outcomeCounts,
  siteBreakdown,
  type StepRangeRow,
  type TrajectoryFilter,
  type TrajectorySort,
} from "../../db/repositories/trajectories";
import { FIRST_VIEW_THUMBNAILS, FIRST_VIEW_WIDTHS, snapVariantWidth, THUMBNAIL_WIDTH } from "../domain/image-variants";
import { shortAction } from "../domain/player/action-text";
import { createLoopDetector } from "../domain/player/loops";
import { createStepIndexPacker, STEP_WINDOW, stepWindowProblem, toJsonText, type JsonText, type PackedStepIndex } from "../domain/player/paging";
import { seededSample } from "../domain/sampling";
import { highlightSnippet, positiveClauses, type SearchField, type SearchHit } from "../domain/trajectories/search-query";
import { formatEvaluatorRef } from "../domain/trajectory-list-query";
import type { Actor } from "../domain/access/actor";
import type { StepContent } from "../domain/types";
import { NotFoundError, ValidationError } from "../errors";
import { warmVariants, type ImageDeps } from "./images";
import { currentScannerHashes, scopeSearch, taskViewOf } from "./access";

export interface ImageMeta {
  hash: string;
  width: number;
  height: number;
  /** Difference hash once computed: the player's loop markers then see near-identical screens as the same. */
  dhash: string | null;
}

export interface PlayerStep extends StepContent {
  index: number;
  durationMs: number | null;
  marksBurnedIn: boolean;
  screenshot: ImageMeta | null;
  rawScreenshot: ImageMeta | null;
}

/**
 * The player's full details of some steps, with their screenshots' sizes, as JSON text. The action and elements are
 * spliced in as stored (already JSON): parsing and re-serialising 50 steps × 30 elements was most of a window's cost.
 */
async function playerStepsText(db: Db, rows: StepRangeRow[]): Promise<JsonText<PlayerStep[]>> {
  const images = await getScreenshotsByHash(
    db,
    rows.flatMap((s) => [s.screenshotHash, s.rawScreenshotHash].filter((h): h is string => !!h)),
  );
  const meta = (hash: string | null): ImageMeta | null => {
    if (!hash) return null;
    const img = images.get(hash);
    // A step row pointing at a hash with no screenshot row is a broken import; show it as missing, not crash.
    return img ? { hash, width: img.width, height: img.height, dhash: img.dhash } : null;
  };
  const texts = rows.map((s) => {
    const rest: Omit<PlayerStep, "action" | "elements"> = {
      index: s.index,
      url: s.url,
      thought: s.thought,
      actionRaw: s.actionRaw,
      error: s.error,
      durationMs: s.durationMs,
      marksBurnedIn: s.marksBurnedIn,
      screenshot: meta(s.screenshotHash),
      rawScreenshot: meta(s.rawScreenshotHash),
    };
    return `${JSON.stringify(rest).slice(0, -1)},"action":${s.actionJson},"elements":${s.elementsJson ?? "null"}}`;
  });
  return `[${texts.join(",")}]` as JsonText<PlayerStep[]>;
}

/** A window of steps: positions `from` onwards, as the player shows them (as JSON text: see JsonText). */
export interface StepWindow {
  from: number;
  steps: JsonText<PlayerStep[]>;
}

/** Steps read per slice while building an index; between slices other requests get the event loop. */
const INDEX_SLICE = 250;
/** Recently built indexes: reopening a long trajectory (or its labelling item) does not rebuild its index. */
const indexCache = new LRUCache<string, JsonText<PackedStepIndex>>({ max: 16 });
/** A number per open database, so that two installations in one process (tests) never share cached indexes. */
const databaseKeys = new WeakMap<Db, number>();
let nextDatabaseKey = 0;

function databaseKey(db: Db): number {
  let key = databaseKeys.get(db);
  if (key === undefined) databaseKeys.set(db, (key = ++nextDatabaseKey));
  return key;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The compact index of every step (see server/domain/player/paging.ts), read from the steps' light columns only,
 * in slices so a 10,000-step trajectory never holds the event loop for long. Loop marks are computed here, from the
 * same inputs as the loop heuristic evaluator, so both agree.
 */
async function stepIndexOf(db: Db, t: { id: number; updatedAt: Date }): Promise<JsonText<PackedStepIndex>> {
  // A re-import changes updatedAt; a live trajectory's steps change the count.
  const key = `${databaseKey(db)}:${t.id}:${t.updatedAt.getTime()}:${await countSteps(db, t.id)}`;
  const cached = indexCache.get(key);
  if (cached) return cached;
  // Loop marks and packing go slice by slice too: over 10,000 steps at once each took tens of milliseconds.
  const loops = createLoopDetector();
  const packer = createStepIndexPacker();
  for (let after = -1; ;) {
    const slice = await getStepIndexRows(db, t.id, after, INDEX_SLICE);
    for (const r of slice) {
      const marks = loops.next({ action: r.action, url: r.url, screenshotHash: r.shotHash, screenshotDhash: r.rawHash ? r.rawDhash : r.shotDhash });
      const shot = r.shotHash
        ? { hash: r.shotHash, width: r.shotWidth!, height: r.shotHeight! }
        : r.rawHash
          ? { hash: r.rawHash, width: r.rawWidth!, height: r.rawHeight! }
          : null;
      packer.add({ shot, action: shortAction(r.action), hasError: !!r.hasError, loops: marks });
    }
    await yieldToEventLoop();
    if (slice.length < INDEX_SLICE) break;
    after = slice[slice.length - 1]!.index;
  }
  const packed = toJsonText(packer.result());
  indexCache.set(key, packed);
  return packed;
}

/**
 * What the player opens with: the trajectory's header, the index of every step, and the full details of the first
 * window only; the rest comes window by window (getStepWindow). A 10,000-step trajectory opens with well under 1 MB.
 */
export async function getTrajectoryForPlayer(db: Db, id: number) {
  const detail = await getTrajectoryHead(db, id);
  if (!detail) throw new NotFoundError("trajectory", id);
  const { trajectory: t, task, taskSet, run } = detail;
  const index = await stepIndexOf(db, t);
  const first: StepWindow = { from: 0, steps: await playerStepsText(db, await getStepRange(db, id, 0, STEP_WINDOW)) };
  const stepCount = await countSteps(db, id);
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
      /** The stable link key (server/domain/trajectories/step-links.ts). */
      linkKey: linkKeyOf(t.contentHash),
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
    /** True when the blind rule hides the run from the viewer (set by the router, server/services/access/blind.ts). */
    agentHidden: false as boolean,
    /** Every step, compactly (JSON text of a PackedStepIndex): the filmstrip and the playhead's range. */
    index,
    stepCount,
    /** Full details of the steps from position 0 (STEP_WINDOW of them). */
    window: first,
  };
}

/**
 * The full details of `count` steps from position `from` (0-based), read from the database as that range only.
 * A window starting past the last step is a clear error; one reaching past it is cut short.
 */
export async function getStepWindow(db: Db, id: number, from: number, count: number = STEP_WINDOW): Promise<StepWindow> {
  const head = await getTrajectoryHead(db, id);
  if (!head) throw new NotFoundError("trajectory", id);
  // Counted, not the header's stepCount: a live trajectory's steps arrive before its header is updated.
  const problem = stepWindowProblem(from, count, await countSteps(db, id));
  if (problem) throw new ValidationError(problem);
  return { from, steps: await playerStepsText(db, await getStepRange(db, id, from, count)) };
}

export type PlayerTrajectory = Awaited<ReturnType<typeof getTrajectoryForPlayer>>;

/** How many steps ahead of the playhead (and behind it) one warm request queues: a long trajectory is not queued whole. */
const WARM_AHEAD = 500;
const WARM_BEHIND = 100;

/**
 * Queues the WebP variants the player will show, at its snapped display width, from `fromStep` onwards and
 * then the steps before it (at most WARM_AHEAD / WARM_BEHIND of them). Returns how many images were queued.
 */
export async function warmTrajectoryImages(deps: ImageDeps, q: { id: number; width: number; fromStep: number; raw: boolean }): Promise<number> {
  const steps = await getStepScreenshotHashes(deps.db, q.id);
  if (!steps.length) throw new NotFoundError("trajectory", q.id);
  const shown = (s: (typeof steps)[number]) => (q.raw ? (s.rawScreenshotHash ?? s.screenshotHash) : (s.screenshotHash ?? s.rawScreenshotHash));
  const from = Math.min(q.fromStep, steps.length - 1);
  const ordered = [...steps.slice(from, from + WARM_AHEAD), ...steps.slice(Math.max(0, from - WARM_BEHIND), from).reverse()]
    .map(shown)
    .filter((h): h is string => !!h);
  return warmVariants(deps, ordered, { kind: "variant", width: snapVariantWidth(q.width), format: "webp" });
}

/**
 * Queues what the first view of newly imported trajectories shows: the first step's screenshot at the stage
 * widths desktop windows ask for, and the first thumbnails of the filmstrip, so opening a trajectory right after
 * its import finds them encoded. Runs in the background (see warmingSettled); returns how many were queued.
 * Trajectories later in the list are warmed last, and when the queue overflows the earliest are dropped first,
 * so the most recently imported are the ones kept.
 */
export async function warmFirstViews(deps: ImageDeps, trajectoryIds: readonly number[]): Promise<number> {
  let queued = 0;
  for (const id of trajectoryIds) {
    const first = await getStepScreenshotHashes(deps.db, id, FIRST_VIEW_THUMBNAILS);
    const shown = first.map((s) => s.screenshotHash ?? s.rawScreenshotHash).filter((h): h is string => !!h);
    if (!shown.length) continue;
    for (const width of FIRST_VIEW_WIDTHS) queued += await warmVariants(deps, [shown[0]!], { kind: "variant", width, format: "webp" });
    queued += await warmVariants(deps, shown, { kind: "variant", width: THUMBNAIL_WIDTH, format: "webp" });
  }
  return queued;
}

/** A seeded random sample of what a filter selects (see server/domain/sampling.ts). */
/** The hits of each listed trajectory, with the matched words marked. */
async function hitsOf(db: Db, trajectoryIds: readonly number[], scope: ScopedSearch): Promise<Map<number, SearchHit[]>> {
  const clauses = positiveClauses(scope.query);
  const out = new Map<number, SearchHit[]>();
  for (const row of await searchHits(db, trajectoryIds, scope)) {
    const list = out.get(row.trajectoryId) ?? [];
    list.push({ stepIndex: row.stepIndex, field: row.field as SearchField, parts: highlightSnippet(row.body, clauses) });
    out.set(row.trajectoryId, list);
  }
  return out;
}

export interface SampleSpec {
  sample?: number;
  seed?: number;
  strata?: "run" | "site";
}

/** The seed a sample uses when the link names none. */
export const DEFAULT_SAMPLE_SEED = 1;

/** `search`: a behaviour search as typed; it selects once parsed into `textSearch` (scopeTrajectoryFilter does, with the viewer's scope). */
export type SelectionFilter = TrajectoryFilter & SampleSpec & { search?: string };

export interface TrajectoryListQuery extends SelectionFilter {
  sort: TrajectorySort;
  dir: "asc" | "desc";
  page: number;
  pageSize: number;
}

function checkTriageFilter(f: TrajectoryFilter): void {
  if (f.evaluator === undefined && (f.verdict !== undefined || f.agreement !== undefined)) {
    throw new ValidationError(`${f.verdict !== undefined ? "verdict" : "agreement"}: choose the evaluator it is about (evaluator)`);
  }
}

/** The ids of a seeded sample of what `filter` selects, ascending, and how many it was drawn from. */
async function drawSample(db: Db, filter: TrajectoryFilter, spec: Required<Pick<SampleSpec, "sample">> & SampleSpec) {
  const candidates = await sampleCandidates(db, filter, spec.strata);
  const ids = seededSample(candidates, spec.sample, spec.seed ?? DEFAULT_SAMPLE_SEED, { stratified: spec.strata !== undefined });
  return { ids, from: candidates.length };
}

/**
 * Every trajectory id a selection holds, ascending: what the filter selects, or the seeded sample of it. Campaigns
 * and judge batches made "from the list" take exactly these. More than `limit`: a ValidationError naming the count.
 */
export async function matchingTrajectoryIds(db: Db, selection: SelectionFilter, limit = 1_000_000): Promise<number[]> {
  const { sample, seed, strata, search, ...asked } = selection;
  // As the researcher's list showed it: trajectories of flagged tasks left out unless included.
  const rest: TrajectoryFilter = { ...asked, flagged: asked.flagged === "include" ? undefined : (asked.flagged ?? "exclude") };
  // Campaigns and judge batches are made by researchers, who search everything.
  const filter: TrajectoryFilter =
    search && !rest.textSearch ? { ...rest, textSearch: scopeSearch(search, { wholeCatalog: true }, await currentScannerHashes(db)) } : rest;
  checkTriageFilter(filter);
  const ids = sample !== undefined ? (await drawSample(db, filter, { sample, seed, strata })).ids : (await sampleCandidates(db, filter)).map((c) => c.id);
  if (ids.length > limit) throw new ValidationError(`the selection holds ${ids.length} trajectories; at most ${limit} are allowed here`);
  return ids;
}

/**
 * A list row with, for researchers, its triage columns and its task's flag in the validity ledger, and with a
 * search, where the search matched it.
 */
export type TriagedRow<R> = R & { triage?: TriageColumns; hits?: SearchHit[]; taskFlag?: { status: string; reason: string } };

/**
 * The list's filter on the validity ledger, for researchers: trajectories of flagged tasks are left out unless the
 * query includes them, and the page says how many were. Annotators never see flags: no filter, no count.
 */
async function ledgerFilter(db: Db, filter: TrajectoryFilter, triage: boolean) {
  if (!triage) return { filter: { ...filter, flagged: undefined }, flaggedHidden: null };
  if (filter.flagged === "include") return { filter: { ...filter, flagged: undefined }, flaggedHidden: null };
  if (filter.flagged === "only") return { filter, flaggedHidden: null };
  return { filter: { ...filter, flagged: "exclude" as const }, flaggedHidden: await countTrajectories(db, { ...filter, flagged: "only" }) };
}

/** The current flag of each row's task, for researchers' rows (none for a task without a flag or cleared). */
async function taskFlagsOf(db: Db, taskIds: number[]): Promise<Map<number, { status: string; reason: string }>> {
  const flags = await currentFlagsOf(db, [...new Set(taskIds)]);
  return new Map(flags.filter((f) => f.status !== "valid").map((f) => [f.taskId, { status: f.status, reason: f.reason }]));
}

/**
 * One page of the list. With `triage` (researchers and admins), each row also carries its human label, item state,
 * rule results, heuristic flags and the chosen evaluator's verdict. `all` is every trajectory within the viewer's
 * scope, for "312 of 4,901 match"; `sample` says what a sample was drawn from and with which seed.
 */
export async function listTrajectoryPage(db: Db, q: TrajectoryListQuery, opts: { triage?: boolean } = {}) {
  const { sort, dir, page, pageSize, sample, seed, strata, search: _search, ...asked } = q;
  checkTriageFilter(asked);
  const { filter, flaggedHidden } = await ledgerFilter(db, asked, opts.triage === true);
  let pageFilter: TrajectoryFilter = filter;
  let drawn: { size: number; seed: number; strata: "run" | "site" | null; from: number } | null = null;
  if (sample !== undefined) {
    const { ids, from } = await drawSample(db, filter, { sample, seed, strata });
    // The sample was drawn under every filter (and the viewer's scope): its ids alone select the page.
    pageFilter = { ids };
    drawn = { size: sample, seed: seed ?? DEFAULT_SAMPLE_SEED, strata: strata ?? null, from };
  }
  const { rows, total } = await listTrajectoriesPage(db, pageFilter, { offset: (page - 1) * pageSize, limit: pageSize, sort, dir });
  const ids = rows.map((r) => r.id);
  const columns = opts.triage ? await triageColumnsOf(db, ids, filter.evaluator) : undefined;
  const all = await countTrajectories(db, { visibleToAnnotator: filter.visibleToAnnotator, notBlindFor: filter.notBlindFor });
  const flags = opts.triage
    ? await taskFlagsOf(
        db,
        rows.map((r) => r.taskId),
      )
    : undefined;
  const hits = filter.textSearch ? await hitsOf(db, ids, filter.textSearch) : undefined;
  return {
    rows: rows.map((r): TriagedRow<typeof r> => ({
      ...r,
      ...(columns ? { triage: columns.get(r.id) } : {}),
      ...(hits ? { hits: hits.get(r.id) ?? [] } : {}),
      ...(flags?.has(r.taskId) ? { taskFlag: flags.get(r.taskId) } : {}),
    })),
    total,
    flaggedHidden,
    all,
    sample: drawn,
    page,
    pageSize,
    pageCount: Math.max(1, Math.ceil(total / pageSize)),
  };
}

/** The triage menus (researchers and admins): error categories in use and every evaluator with verdicts. */
export async function triageFilterOptions(db: Db) {
  return {
    categories: await consolidatedCategories(db),
    evaluators: (await listEvaluatorIdentities(db)).map((e) => ({
      ref: formatEvaluatorRef({ key: e.evaluatorKey, k: e.k, pv: e.promptVersion }),
      name: e.evaluatorName,
      kind: e.evaluatorKey.startsWith("heuristic:") ? ("heuristic" as const) : e.kind,
      k: e.k,
      promptVersion: e.promptVersion,
    })),
  };
}

/** Choices for the list's filter menus. */
export async function trajectoryFilterOptions(db: Db) {
  const [taskSets, runs, sites, models, outcomes] = await Promise.all([
    listTaskSets(db),
    listRuns(db),
    distinctSites(db),
    distinctModels(db),
    distinctOutcomes(db),
  ]);
  return {
    taskSets: taskSets.map((s) => ({ id: s.id, name: s.name })),
    runs: runs.map((r) => ({ id: r.id, name: r.name, model: r.model })),
    sites,
    models,
    outcomes,
  };
}

export async function taskSetOverview(db: Db, id: number, page: { q?: string; site?: string; page: number; pageSize: number }) {
  const set = await getTaskSet(db, id);
  if (!set) throw new NotFoundError("task set", id);
  const tasksPage = await listTasksOfSet(db, id, {
    q: page.q,
    site: page.site,
    offset: (page.page - 1) * page.pageSize,
    limit: page.pageSize,
  });
  return {
    taskSet: set,
    sites: await sitesOfSet(db, id),
    outcomes: await outcomeCounts(db, { taskSetId: id }),
    tasks: { ...tasksPage, page: page.page, pageSize: page.pageSize, pageCount: Math.max(1, Math.ceil(tasksPage.total / page.pageSize)) },
  };
}

export async function taskSetList(db: Db) {
  return listTaskSetSummaries(db);
}

export async function runList(db: Db) {
  return listRunSummaries(db);
}

export async function runOverview(db: Db, id: number) {
  const run = await getRun(db, id);
  if (!run) throw new NotFoundError("agent run", id);
  return { run, outcomes: await outcomeCounts(db, { runId: id }), sites: await siteBreakdown(db, { runId: id }) };
}

/** A task with its trajectories and their outcomes; `scope` narrows both to what the viewer may browse. */
export async function taskOverview(db: Db, id: number, scope: TrajectoryFilter = {}) {
  const found = await getTask(db, id);
  if (!found) throw new NotFoundError("task", id);
  const filter = { ...scope, taskId: id };
  const { rows } = await listTrajectories(db, filter, { offset: 0, limit: 500, sort: "id", dir: "asc" });
  return { task: found.task, taskSet: found.taskSet, outcomes: await outcomeCounts(db, filter), trajectories: rows };
}

/** A task as the viewer may see it (what they may see of it is access's rule: taskViewOf). */
export async function taskForViewer(db: Db, actor: Actor, taskId: number) {
  const view = await taskViewOf(db, actor, taskId);
  if (view.wholeCatalog) return await taskOverview(db, taskId);
  const overview = await taskOverview(db, taskId, view.scope);
  return {
    ...overview,
    task: { ...overview.task, evaluatorConfig: null, referenceAnswers: view.referenceWithheld ? [] : overview.task.referenceAnswers },
    referenceWithheld: view.referenceWithheld,
  };
}

/** Ids of every trajectory, or of one run's, in id order (for exports and batches chosen on the command line). */
export async function trajectoryIdsOf(db: Db, where: { runId?: number } = {}): Promise<number[]> {
  if (where.runId !== undefined && !(await getRun(db, where.runId))) throw new NotFoundError("run", where.runId);
  return trajectoryIds(db, where);
}
