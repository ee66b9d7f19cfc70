/**
 * Trajectories and their steps: every query on them lives here.
 */
import { and, asc, count, desc, eq, gt, gte, inArray, like, lte, or, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { Db } from "../client";
import { agentRuns, screenshots, steps, taskSets, tasks, trajectories, type StepRow } from "../schema/index";
import { annotatorTrajectoryIdsSql, blindedTrajectoryIdsSql } from "./blind-rule";
import { triageConditions, triageSortKey, type TriageFilter } from "./triage";

export type StepValues = Omit<typeof steps.$inferInsert, "id" | "trajectoryId">;

export interface TrajectoryValues {
  runId: number;
  taskId: number;
  attempt: number;
  finalAnswer: string | null;
  outcome: string;
  outcomeDetail: string | null;
  stepCount: number;
  sourceFormat: string;
  sourcePath: string | null;
  contentHash: string;
  steps: StepValues[];
}

const STEP_CHUNK = 200;

function insertSteps(db: Db, trajectoryId: number, rows: StepValues[]): void {
  for (let i = 0; i < rows.length; i += STEP_CHUNK) {
    db.insert(steps)
      .values(rows.slice(i, i + STEP_CHUNK).map((s) => ({ ...s, trajectoryId })))
      .run();
  }
}

/** Creates, replaces (content changed) or leaves alone (same content hash) one trajectory with its steps. */
export function saveTrajectory(db: Db, v: TrajectoryValues): { id: number; status: "created" | "updated" | "unchanged" } {
  const existing = db
    .select({ id: trajectories.id, contentHash: trajectories.contentHash })
    .from(trajectories)
    .where(and(eq(trajectories.runId, v.runId), eq(trajectories.taskId, v.taskId), eq(trajectories.attempt, v.attempt)))
    .get();
  const { steps: stepRows, ...row } = v;
  if (!existing) {
    const id = db.insert(trajectories).values(row).returning({ id: trajectories.id }).get().id;
    insertSteps(db, id, stepRows);
    return { id, status: "created" };
  }
  if (existing.contentHash === v.contentHash) return { id: existing.id, status: "unchanged" };
  db.update(trajectories)
    .set({ ...row, updatedAt: new Date() })
    .where(eq(trajectories.id, existing.id))
    .run();
  db.delete(steps).where(eq(steps.trajectoryId, existing.id)).run();
  insertSteps(db, existing.id, stepRows);
  return { id: existing.id, status: "updated" };
}

/** A trajectory with its task, task set and run, without its steps. */
export function getTrajectoryHead(db: Db, id: number) {
  return db
    .select({ trajectory: trajectories, task: tasks, taskSet: taskSets, run: agentRuns })
    .from(trajectories)
    .innerJoin(tasks, eq(tasks.id, trajectories.taskId))
    .innerJoin(taskSets, eq(taskSets.id, tasks.taskSetId))
    .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId))
    .where(eq(trajectories.id, id))
    .get();
}

export function getTrajectoryDetail(db: Db, id: number) {
  const head = getTrajectoryHead(db, id);
  if (!head) return undefined;
  return { ...head, steps: getSteps(db, id) };
}

export function getSteps(db: Db, trajectoryId: number): StepRow[] {
  return db.select().from(steps).where(eq(steps.trajectoryId, trajectoryId)).orderBy(asc(steps.index)).all();
}

const rawShots = alias(screenshots, "raw_shots");

/**
 * The light columns of a run of steps (no thought, no elements), with their screenshots' sizes and difference
 * hashes: what the player's step index is built from. Keyset-paged by step number (`afterIndex` exclusive, -1 for
 * the start) so a long trajectory can be read in slices, letting other requests run in between.
 */
export function getStepIndexRows(db: Db, trajectoryId: number, afterIndex: number, limit: number) {
  return db
    .select({
      index: steps.index,
      url: steps.url,
      action: steps.action,
      hasError: sql<number>`${steps.error} is not null`,
      shotHash: screenshots.hash,
      shotWidth: screenshots.width,
      shotHeight: screenshots.height,
      shotDhash: screenshots.dhash,
      rawHash: rawShots.hash,
      rawWidth: rawShots.width,
      rawHeight: rawShots.height,
      rawDhash: rawShots.dhash,
    })
    .from(steps)
    .leftJoin(screenshots, eq(screenshots.hash, steps.screenshotHash))
    .leftJoin(rawShots, eq(rawShots.hash, steps.rawScreenshotHash))
    .where(and(eq(steps.trajectoryId, trajectoryId), gt(steps.index, afterIndex)))
    .orderBy(asc(steps.index))
    .limit(limit)
    .all();
}

/**
 * Steps at positions `from`..`from+count-1` (in step order): only those rows are read. The action and the elements
 * come as their stored JSON text, for callers that send them on as JSON without parsing them.
 */
export function getStepRange(db: Db, trajectoryId: number, from: number, count: number) {
  return db
    .select({
      index: steps.index,
      url: steps.url,
      thought: steps.thought,
      actionRaw: steps.actionRaw,
      actionJson: sql<string>`${steps.action}`,
      elementsJson: sql<string | null>`${steps.elements}`,
      error: steps.error,
      durationMs: steps.durationMs,
      marksBurnedIn: steps.marksBurnedIn,
      screenshotHash: steps.screenshotHash,
      rawScreenshotHash: steps.rawScreenshotHash,
    })
    .from(steps)
    .where(eq(steps.trajectoryId, trajectoryId))
    .orderBy(asc(steps.index))
    .limit(count)
    .offset(from)
    .all();
}

/** The screenshot hashes of every step, in order (the first columns of a step row: cheap even for 10,000 steps). */
export function getStepScreenshotHashes(db: Db, trajectoryId: number) {
  return db
    .select({ screenshotHash: steps.screenshotHash, rawScreenshotHash: steps.rawScreenshotHash })
    .from(steps)
    .where(eq(steps.trajectoryId, trajectoryId))
    .orderBy(asc(steps.index))
    .all();
}

/** How many steps a trajectory has stored (counted on the steps' index, not read). */
export function countSteps(db: Db, trajectoryId: number): number {
  return db.select({ n: count() }).from(steps).where(eq(steps.trajectoryId, trajectoryId)).get()!.n;
}

export function trajectoryIds(db: Db, where: { runId?: number } = {}): number[] {
  const q = db.select({ id: trajectories.id }).from(trajectories);
  const rows = where.runId !== undefined ? q.where(eq(trajectories.runId, where.runId)).all() : q.all();
  return rows.map((r) => r.id);
}

export interface TrajectoryFilter extends TriageFilter {
  taskSetId?: number;
  runId?: number;
  taskId?: number;
  site?: string;
  model?: string;
  outcome?: string;
  minSteps?: number;
  maxSteps?: number;
  hasAnswer?: boolean;
  q?: string;
  ids?: number[];
  /** Only trajectories in the campaigns this user labels in (an annotator's view), as a subquery: no id list. */
  visibleToAnnotator?: string;
  /** Leaves out the trajectories this user labels blind and has not labelled yet (see the blind rule). */
  notBlindFor?: string;
}

export type TrajectorySort = "id" | "steps" | "task" | "site" | "updated" | "human" | "verdict";

export function trajectoryWhere(f: TrajectoryFilter): SQL | undefined {
  const conds: SQL[] = [];
  if (f.taskSetId !== undefined) conds.push(eq(tasks.taskSetId, f.taskSetId));
  if (f.runId !== undefined) conds.push(eq(trajectories.runId, f.runId));
  if (f.taskId !== undefined) conds.push(eq(trajectories.taskId, f.taskId));
  if (f.site) conds.push(eq(tasks.site, f.site));
  if (f.model) conds.push(eq(agentRuns.model, f.model));
  if (f.outcome) conds.push(eq(trajectories.outcome, f.outcome));
  if (f.minSteps !== undefined) conds.push(gte(trajectories.stepCount, f.minSteps));
  if (f.maxSteps !== undefined) conds.push(lte(trajectories.stepCount, f.maxSteps));
  if (f.hasAnswer === true) conds.push(sql`${trajectories.finalAnswer} is not null and ${trajectories.finalAnswer} <> ''`);
  if (f.hasAnswer === false) conds.push(sql`(${trajectories.finalAnswer} is null or ${trajectories.finalAnswer} = '')`);
  if (f.q && f.q.trim()) {
    const pattern = `%${f.q.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conds.push(
      or(
        sql`${tasks.intent} like ${pattern} escape '\\'`,
        sql`${trajectories.finalAnswer} like ${pattern} escape '\\'`,
        like(tasks.externalId, pattern),
      )!,
    );
  }
  if (f.ids) conds.push(f.ids.length ? inArray(trajectories.id, f.ids) : sql`0`);
  if (f.visibleToAnnotator !== undefined) conds.push(sql`${trajectories.id} in ${annotatorTrajectoryIdsSql(f.visibleToAnnotator)}`);
  if (f.notBlindFor !== undefined) conds.push(sql`${trajectories.id} not in ${blindedTrajectoryIdsSql(f.notBlindFor)}`);
  conds.push(...triageConditions(f));
  return conds.length ? and(...conds) : undefined;
}

export function listTrajectories(
  db: Db,
  f: TrajectoryFilter,
  page: { offset: number; limit: number; sort?: TrajectorySort; dir?: "asc" | "desc" },
) {
  const where = trajectoryWhere(f);
  const sort = page.sort ?? "id";
  const dir = page.dir === "asc" ? asc : desc;
  let order: SQL[];
  if (sort === "human" || sort === "verdict") {
    order = [dir(triageSortKey(sort, f, page.dir ?? "desc"))];
  } else {
    order = [dir({ id: trajectories.id, steps: trajectories.stepCount, task: tasks.externalId, site: tasks.site, updated: trajectories.updatedAt }[sort])];
  }
  const rows = db
    .select({
      id: trajectories.id,
      attempt: trajectories.attempt,
      outcome: trajectories.outcome,
      stepCount: trajectories.stepCount,
      finalAnswer: trajectories.finalAnswer,
      updatedAt: trajectories.updatedAt,
      taskId: tasks.id,
      externalTaskId: tasks.externalId,
      site: tasks.site,
      intent: tasks.intent,
      taskSetName: taskSets.name,
      runId: agentRuns.id,
      runName: agentRuns.name,
      agentName: agentRuns.agentName,
      model: agentRuns.model,
    })
    .from(trajectories)
    .innerJoin(tasks, eq(tasks.id, trajectories.taskId))
    .innerJoin(taskSets, eq(taskSets.id, tasks.taskSetId))
    .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId))
    .where(where)
    .orderBy(...order, desc(trajectories.id))
    .limit(page.limit)
    .offset(page.offset)
    .all();
  const total = db
    .select({ n: count() })
    .from(trajectories)
    .innerJoin(tasks, eq(tasks.id, trajectories.taskId))
    .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId))
    .where(where)
    .get()!.n;
  return { rows, total };
}

export function countTrajectoriesAndSteps(db: Db): { trajectories: number; steps: number } {
  return {
    trajectories: db.select({ n: count() }).from(trajectories).get()!.n,
    steps: db.select({ n: count() }).from(steps).get()!.n,
  };
}

export function distinctSites(db: Db): string[] {
  return db
    .selectDistinct({ site: tasks.site })
    .from(tasks)
    .where(sql`${tasks.site} is not null`)
    .orderBy(tasks.site)
    .all()
    .map((r) => r.site!);
}

export function distinctModels(db: Db): string[] {
  return db
    .selectDistinct({ model: agentRuns.model })
    .from(agentRuns)
    .where(sql`${agentRuns.model} is not null`)
    .orderBy(agentRuns.model)
    .all()
    .map((r) => r.model!);
}

// ---- Read models for the browser and the player ----

export interface StepScreenshot {
  hash: string;
  mime: string;
  width: number;
  height: number;
  bytes: number;
  /** Difference hash, once the loop heuristic has computed it. */
  dhash: string | null;
}

/** Pixel sizes of the given screenshots, keyed by hash (for a window of steps). */
export function getScreenshotsByHash(db: Db, hashes: readonly string[]): Map<string, StepScreenshot> {
  const rows: StepScreenshot[] = [];
  const unique = [...new Set(hashes)];
  // Under SQLite's bound-parameter limit per query.
  for (let i = 0; i < unique.length; i += 500) {
    rows.push(
      ...db
        .select({ hash: screenshots.hash, mime: screenshots.mime, width: screenshots.width, height: screenshots.height, bytes: screenshots.bytes, dhash: screenshots.dhash })
        .from(screenshots)
        .where(inArray(screenshots.hash, unique.slice(i, i + 500)))
        .all(),
    );
  }
  return new Map(rows.map((r) => [r.hash, r]));
}

/** Pixel sizes of every screenshot (marked and raw) a trajectory's steps show, keyed by hash. */
export function getStepScreenshots(db: Db, trajectoryId: number): Map<string, StepScreenshot> {
  const rows = db
    .select({
      hash: screenshots.hash,
      mime: screenshots.mime,
      width: screenshots.width,
      height: screenshots.height,
      bytes: screenshots.bytes,
      dhash: screenshots.dhash,
    })
    .from(screenshots)
    .where(
      // Table names are explicit: drizzle leaves single-table columns unqualified, ambiguous inside a subquery.
      sql`screenshots.hash in (select s.screenshot_hash from steps s where s.trajectory_id = ${trajectoryId}
        union select s.raw_screenshot_hash from steps s where s.trajectory_id = ${trajectoryId})`,
    )
    .all();
  return new Map(rows.map((r) => [r.hash, r]));
}

/** How many trajectories matching a filter ended each way. */
export function outcomeCounts(db: Db, f: TrajectoryFilter): Record<string, number> {
  const rows = db
    .select({ outcome: trajectories.outcome, n: count() })
    .from(trajectories)
    .innerJoin(tasks, eq(tasks.id, trajectories.taskId))
    .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId))
    .where(trajectoryWhere(f))
    .groupBy(trajectories.outcome)
    .all();
  return Object.fromEntries(rows.map((r) => [r.outcome, r.n]));
}

/** Per-site figures for the trajectories matching a filter: count, answered, mean steps. */
export function siteBreakdown(db: Db, f: TrajectoryFilter) {
  return db
    .select({
      site: tasks.site,
      trajectories: count(),
      answered: sql<number>`sum(case when ${trajectories.outcome} = 'answered' then 1 else 0 end)`,
      meanSteps: sql<number>`avg(${trajectories.stepCount})`,
    })
    .from(trajectories)
    .innerJoin(tasks, eq(tasks.id, trajectories.taskId))
    .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId))
    .where(trajectoryWhere(f))
    .groupBy(tasks.site)
    .orderBy(tasks.site)
    .all();
}

/** Distinct outcomes present, for the list's filter menu. */
export function distinctOutcomes(db: Db): string[] {
  return db
    .selectDistinct({ outcome: trajectories.outcome })
    .from(trajectories)
    .orderBy(trajectories.outcome)
    .all()
    .map((r) => r.outcome);
}

/**
 * The list's filter as conditions on `trajectories` alone: filters on task or run columns become semi-joins
 * (`task_id in (select id from tasks where …)`). Counting then never joins: at 100,000 trajectories the joined
 * count took ~90 ms, this one a few ms. Raw table names inside the subqueries (see getStepScreenshots).
 */
function trajectoryOnlyWhere(f: TrajectoryFilter): SQL | undefined {
  const conds: SQL[] = [];
  if (f.taskSetId !== undefined) conds.push(sql`trajectories.task_id in (select id from tasks where task_set_id = ${f.taskSetId})`);
  if (f.runId !== undefined) conds.push(eq(trajectories.runId, f.runId));
  if (f.taskId !== undefined) conds.push(eq(trajectories.taskId, f.taskId));
  if (f.site) conds.push(sql`trajectories.task_id in (select id from tasks where site = ${f.site})`);
  if (f.model) conds.push(sql`trajectories.run_id in (select id from agent_runs where model = ${f.model})`);
  if (f.outcome) conds.push(eq(trajectories.outcome, f.outcome));
  if (f.minSteps !== undefined) conds.push(gte(trajectories.stepCount, f.minSteps));
  if (f.maxSteps !== undefined) conds.push(lte(trajectories.stepCount, f.maxSteps));
  if (f.hasAnswer === true) conds.push(sql`trajectories.final_answer is not null and trajectories.final_answer <> ''`);
  if (f.hasAnswer === false) conds.push(sql`(trajectories.final_answer is null or trajectories.final_answer = '')`);
  if (f.q && f.q.trim()) {
    const pattern = `%${f.q.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conds.push(
      sql`(trajectories.final_answer like ${pattern} escape '\\' or trajectories.task_id in (select id from tasks where intent like ${pattern} escape '\\' or external_id like ${pattern} escape '\\'))`,
    );
  }
  if (f.ids) conds.push(f.ids.length ? inArray(trajectories.id, f.ids) : sql`0`);
  if (f.visibleToAnnotator !== undefined) conds.push(sql`${trajectories.id} in ${annotatorTrajectoryIdsSql(f.visibleToAnnotator)}`);
  if (f.notBlindFor !== undefined) conds.push(sql`${trajectories.id} not in ${blindedTrajectoryIdsSql(f.notBlindFor)}`);
  conds.push(...triageConditions(f));
  return conds.length ? and(...conds) : undefined;
}

/**
 * One page of the trajectory list, shaped like listTrajectories' rows, built for large stores: the page's ids
 * come from `trajectories` alone (its indexes serve the filters and most sorts), then only those rows are
 * joined for display; the total is a join-free count.
 */
export function listTrajectoriesPage(
  db: Db,
  f: TrajectoryFilter,
  page: { offset: number; limit: number; sort?: TrajectorySort; dir?: "asc" | "desc" },
) {
  const where = trajectoryOnlyWhere(f);
  const sort = page.sort ?? "id";
  const dir = page.dir === "asc" ? asc : desc;
  let idRows: { id: number }[];
  if (sort === "task" || sort === "site") {
    const col = sort === "task" ? tasks.externalId : tasks.site;
    idRows = db
      .select({ id: trajectories.id })
      .from(trajectories)
      .innerJoin(tasks, eq(tasks.id, trajectories.taskId))
      .where(where)
      .orderBy(dir(col), desc(trajectories.id))
      .limit(page.limit)
      .offset(page.offset)
      .all();
  } else if (sort === "human" || sort === "verdict") {
    // Trajectories without a label or verdict go last whichever way the column is sorted.
    idRows = db
      .select({ id: trajectories.id })
      .from(trajectories)
      .where(where)
      .orderBy(dir(triageSortKey(sort, f, page.dir ?? "desc")), desc(trajectories.id))
      .limit(page.limit)
      .offset(page.offset)
      .all();
  } else {
    const col = { id: trajectories.id, steps: trajectories.stepCount, updated: trajectories.updatedAt }[sort];
    idRows = db
      .select({ id: trajectories.id })
      .from(trajectories)
      .where(where)
      .orderBy(...(sort === "id" ? [dir(col)] : [dir(col), desc(trajectories.id)]))
      .limit(page.limit)
      .offset(page.offset)
      .all();
  }
  const total = db.select({ n: count() }).from(trajectories).where(where).get()!.n;
  if (!idRows.length) return { rows: [], total };
  const ids = idRows.map((r) => r.id);
  const found = listTrajectories(db, { ids }, { offset: 0, limit: ids.length }).rows;
  const byId = new Map(found.map((r) => [r.id, r]));
  return { rows: ids.map((id) => byId.get(id)!).filter(Boolean), total };
}

/** The screenshots of a trajectory's first `limit` steps, in step order (what a first view of it shows). */
export function firstStepImages(db: Db, trajectoryId: number, limit: number): { screenshotHash: string | null; rawScreenshotHash: string | null }[] {
  return db
    .select({ screenshotHash: steps.screenshotHash, rawScreenshotHash: steps.rawScreenshotHash })
    .from(steps)
    .where(eq(steps.trajectoryId, trajectoryId))
    .orderBy(asc(steps.index))
    .limit(limit)
    .all();
}

/** How many trajectories there are in all (within what a viewer may browse): the "of N" in "312 of 4,901 match". */
export function countTrajectories(db: Db, scope: Pick<TrajectoryFilter, "visibleToAnnotator" | "notBlindFor"> = {}): number {
  return db.select({ n: count() }).from(trajectories).where(trajectoryOnlyWhere(scope)).get()!.n;
}

/**
 * The trajectories a filter selects, ascending by id, each with its stratum for a stratified sample: the run's id
 * or the task's site (null when the task has none).
 */
export function sampleCandidates(db: Db, f: TrajectoryFilter, strata?: "run" | "site"): { id: number; stratum: string | null }[] {
  const stratum =
    strata === "run"
      ? sql<string | null>`cast(trajectories.run_id as text)`
      : strata === "site"
        ? sql<string | null>`(select site from tasks where tasks.id = trajectories.task_id)`
        : sql<string | null>`null`;
  return db.select({ id: trajectories.id, stratum }).from(trajectories).where(trajectoryOnlyWhere(f)).orderBy(asc(trajectories.id)).all();
}
