/**
 * Trajectories and their steps: every query on them lives here, written once for SQLite and PostgreSQL
 * (db/database.ts).
 */
import { and, asc, count, desc, eq, gt, gte, inArray, isNotNull, lte, or, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { alias, type SQLiteColumn, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { pickColumns, dialectOf, first, rawAll, tablesOf, type Db, type Dialect, type Tables } from "../database";
import * as staticTables from "../schema/index";
import type { StepRow, steps as stepsTable } from "../schema/index";
import { annotatorTrajectoryIdsSql, browsableByIdSql } from "./access/blind-rule";
import { ranksByRelevance, searchConditions, searchRelevanceTable, type ScopedSearch } from "./search";
import { withTask, withTaskAndRun, withTaskSetAndRun } from "./trajectory-joins";
import { triageConditions, triageSortKey, type TriageFilter } from "./triage";

export type StepValues = Omit<typeof stepsTable.$inferInsert, "id" | "trajectoryId">;

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
  /** Null or left out for trajectories that are not imported (fixtures, live runs). */
  identityHash?: string | null;
  steps: StepValues[];
}

/** Steps per multi-row INSERT: ~12 parameters a row stays far under either engine's bound-parameter limit. */
const STEP_CHUNK = 200;

async function insertSteps(db: Db, trajectoryId: number, rows: StepValues[]): Promise<void> {
  const { steps } = tablesOf(db);
  for (let i = 0; i < rows.length; i += STEP_CHUNK) {
    await db.insert(steps).values(rows.slice(i, i + STEP_CHUNK).map((s) => ({ ...s, trajectoryId })));
  }
}

/**
 * Creates, replaces (content changed) or leaves alone (same content hash) the trajectory at one place of a run
 * (run, task, attempt). Imports decide by identity instead (server/services/ingest.ts); this serves callers that
 * build trajectories themselves (benchmarks, fixtures).
 */
export async function saveTrajectory(db: Db, v: TrajectoryValues): Promise<{ id: number; status: "created" | "updated" | "unchanged" }> {
  const existing = await findTrajectoryAt(db, v.runId, v.taskId, v.attempt);
  if (!existing) return { id: await insertTrajectory(db, v), status: "created" };
  if (existing.contentHash === v.contentHash) return { id: existing.id, status: "unchanged" };
  await replaceTrajectoryContent(db, existing.id, v);
  return { id: existing.id, status: "updated" };
}

/** A stored trajectory as an import compares it with what it reads. */
export interface StoredTrajectoryRef {
  id: number;
  runId: number;
  taskId: number;
  attempt: number;
  contentHash: string;
  identityHash: string | null;
}

function refColumns(t: Tables["trajectories"]) {
  return { id: t.id, runId: t.runId, taskId: t.taskId, attempt: t.attempt, contentHash: t.contentHash, identityHash: t.identityHash };
}

/** The stored trajectories (50 at most) whose identity or content hash is this one: those in `preferRunId` first, then oldest first. */
async function trajectoriesWithHash(db: Db, kind: "identityHash" | "contentHash", hash: string, preferRunId?: number): Promise<StoredTrajectoryRef[]> {
  const { trajectories } = tablesOf(db);
  const rows = await db.select(refColumns(trajectories)).from(trajectories).where(eq(trajectories[kind], hash)).orderBy(asc(trajectories.id)).limit(50);
  return [...rows.filter((r) => r.runId === preferRunId), ...rows.filter((r) => r.runId !== preferRunId)];
}

/** The stored trajectories of this identity: those in `preferRunId` first, then oldest first. */
export async function findTrajectoriesByIdentity(db: Db, identityHash: string, preferRunId?: number): Promise<StoredTrajectoryRef[]> {
  return trajectoriesWithHash(db, "identityHash", identityHash, preferRunId);
}

/** A stored trajectory of this content hash (only imports compute comparable ones): in `preferRunId` first, else the oldest. */
export async function findTrajectoryByContent(db: Db, contentHash: string, preferRunId?: number): Promise<StoredTrajectoryRef | undefined> {
  return (await trajectoriesWithHash(db, "contentHash", contentHash, preferRunId))[0];
}

/** The trajectory at this place of a run (run, task, attempt is unique). */
export async function findTrajectoryAt(db: Db, runId: number, taskId: number, attempt: number): Promise<StoredTrajectoryRef | undefined> {
  const { trajectories } = tablesOf(db);
  return first(
    db
      .select(refColumns(trajectories))
      .from(trajectories)
      .where(and(eq(trajectories.runId, runId), eq(trajectories.taskId, taskId), eq(trajectories.attempt, attempt)))
      .limit(1),
  );
}

/**
 * Writes a new trajectory with its steps. Callers that need the trajectory and its steps to appear together run it
 * inside `withTransaction`.
 */
export async function insertTrajectory(db: Db, v: TrajectoryValues): Promise<number> {
  const { trajectories } = tablesOf(db);
  const { steps: stepRows, ...row } = v;
  const [created] = await db.insert(trajectories).values(row).returning({ id: trajectories.id });
  await insertSteps(db, created!.id, stepRows);
  return created!.id;
}

/** Replaces a stored trajectory's content and steps (its run, task and attempt stay). */
export async function replaceTrajectoryContent(db: Db, id: number, v: TrajectoryValues): Promise<void> {
  const { trajectories, steps } = tablesOf(db);
  const { steps: stepRows, runId: _runId, taskId: _taskId, attempt: _attempt, ...row } = v;
  await db
    .update(trajectories)
    .set({ ...row, updatedAt: new Date() })
    .where(eq(trajectories.id, id));
  await db.delete(steps).where(eq(steps.trajectoryId, id));
  await insertSteps(db, id, stepRows);
}

/** Sets the hashes an import or the identity backfill computed (and, for rows stored earlier, a readable source). */
export async function setTrajectoryHashes(db: Db, id: number, v: { contentHash?: string; identityHash?: string; sourcePath?: string | null }): Promise<void> {
  const { trajectories } = tablesOf(db);
  if (v.contentHash === undefined && v.identityHash === undefined && v.sourcePath === undefined) return;
  await db.update(trajectories).set(v).where(eq(trajectories.id, id));
}

/**
 * Gives trajectory `targetId` the content of trajectory `sourceId` (its columns, steps and imported verdicts) and
 * removes `sourceId`: the target keeps its id, run, place, labels and other evaluators' verdicts.
 */
export async function adoptTrajectoryContent(db: Db, targetId: number, sourceId: number): Promise<void> {
  const { trajectories, steps, evaluatorVerdicts } = tablesOf(db);
  const source = await first(db.select().from(trajectories).where(eq(trajectories.id, sourceId)).limit(1));
  if (!source) return;
  const { finalAnswer, outcome, outcomeDetail, stepCount, sourceFormat, sourcePath, contentHash, identityHash } = source;
  await db
    .update(trajectories)
    .set({ finalAnswer, outcome, outcomeDetail, stepCount, sourceFormat, sourcePath, contentHash, identityHash, updatedAt: new Date() })
    .where(eq(trajectories.id, targetId));
  await db.delete(steps).where(eq(steps.trajectoryId, targetId));
  await db.update(steps).set({ trajectoryId: targetId }).where(eq(steps.trajectoryId, sourceId));
  await db.delete(evaluatorVerdicts).where(and(eq(evaluatorVerdicts.trajectoryId, targetId), eq(evaluatorVerdicts.origin, "import")));
  await db
    .update(evaluatorVerdicts)
    .set({ trajectoryId: targetId })
    .where(and(eq(evaluatorVerdicts.trajectoryId, sourceId), eq(evaluatorVerdicts.origin, "import")));
  await db.delete(trajectories).where(eq(trajectories.id, sourceId));
}

/** Moves a trajectory to another run (its place there must be free). */
export async function moveTrajectoryToRun(db: Db, id: number, runId: number): Promise<void> {
  const { trajectories } = tablesOf(db);
  await db.update(trajectories).set({ runId, updatedAt: new Date() }).where(eq(trajectories.id, id));
}

/** Removes a trajectory with everything that hangs on it (steps, verdicts, campaign items: cascades). */
export async function deleteTrajectory(db: Db, id: number): Promise<void> {
  const { trajectories } = tablesOf(db);
  await db.delete(trajectories).where(eq(trajectories.id, id));
}

/**
 * A page of trajectories of these source formats (imports, not live runs) whose content hash is not of the current
 * kind (`version` prefix), oldest first: rows stored before identity by content.
 */
export async function trajectoriesWithOldContentHash(db: Db, formats: string[], version: string, afterId: number, limit: number) {
  const { trajectories, tasks, taskSets, agentRuns } = tablesOf(db);
  return withTaskSetAndRun(
    db,
    db
      .select({
        id: trajectories.id,
        attempt: trajectories.attempt,
        finalAnswer: trajectories.finalAnswer,
        outcome: trajectories.outcome,
        outcomeDetail: trajectories.outcomeDetail,
        sourceFormat: trajectories.sourceFormat,
        sourcePath: trajectories.sourcePath,
        externalTaskId: tasks.externalId,
        taskSet: taskSets.name,
        runId: agentRuns.id,
        runKey: agentRuns.runKey,
        runName: agentRuns.name,
      })
      .from(trajectories)
      .$dynamic(),
  )
    .where(
      and(
        gt(trajectories.id, afterId),
        inArray(trajectories.sourceFormat, formats),
        sql`${trajectories.contentHash} not like ${version + "%"}`,
        sql`${agentRuns.runKey} not like 'live:%'`,
      ),
    )
    .orderBy(asc(trajectories.id))
    .limit(limit);
}

/** The trajectory of a task stored from this exact source path by an import made before source identities. */
export async function findLegacyTrajectoryFrom(db: Db, taskId: number, sourcePath: string): Promise<StoredTrajectoryRef | undefined> {
  const { trajectories } = tablesOf(db);
  return first(
    db
      .select(refColumns(trajectories))
      .from(trajectories)
      .where(and(eq(trajectories.taskId, taskId), eq(trajectories.sourcePath, sourcePath), sql`${trajectories.identityHash} is null`))
      .orderBy(asc(trajectories.id))
      .limit(1),
  );
}

/** Steps of several trajectories, by trajectory then step. */
export async function stepsOf(db: Db, trajectoryIds: number[]): Promise<StepRow[]> {
  const { steps } = tablesOf(db);
  if (!trajectoryIds.length) return [];
  return db.select().from(steps).where(inArray(steps.trajectoryId, trajectoryIds)).orderBy(asc(steps.trajectoryId), asc(steps.index));
}

function headQuery(db: Db, id: number) {
  const { trajectories, tasks, taskSets, agentRuns } = tablesOf(db);
  return withTaskSetAndRun(db, db.select({ trajectory: trajectories, task: tasks, taskSet: taskSets, run: agentRuns }).from(trajectories).$dynamic())
    .where(eq(trajectories.id, id))
    .limit(1);
}

export type TrajectoryHead = Awaited<ReturnType<typeof headQuery>>[number];

/** A trajectory with its task, task set and run, without its steps. */
export async function getTrajectoryHead(db: Db, id: number): Promise<TrajectoryHead | undefined> {
  return first(headQuery(db, id));
}

export async function getTrajectoryDetail(db: Db, id: number): Promise<(TrajectoryHead & { steps: StepRow[] }) | undefined> {
  const head = await getTrajectoryHead(db, id);
  if (!head) return undefined;
  return { ...head, steps: await getSteps(db, id) };
}

export async function getSteps(db: Db, trajectoryId: number): Promise<StepRow[]> {
  const { steps } = tablesOf(db);
  return db.select().from(steps).where(eq(steps.trajectoryId, trajectoryId)).orderBy(asc(steps.index));
}

/**
 * The light columns of a run of steps (no thought, no elements), with their screenshots' sizes and difference
 * hashes: what the player's step index is built from. Keyset-paged by step number (`afterIndex` exclusive, -1 for
 * the start) so a long trajectory can be read in slices, letting other requests run in between.
 */
export async function getStepIndexRows(db: Db, trajectoryId: number, afterIndex: number, limit: number) {
  const { steps, screenshots } = tablesOf(db);
  const rawShots = alias(screenshots, "raw_shots");
  return db
    .select({
      index: steps.index,
      url: steps.url,
      action: steps.action,
      // A boolean on PostgreSQL, 0/1 on SQLite: read it as truthy.
      hasError: sql<boolean | number>`${steps.error} is not null`,
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
    .limit(limit);
}

export type StepRangeRow = Awaited<ReturnType<typeof getStepRange>>[number];

/**
 * Steps at positions `from`..`from+count-1` (in step order): only those rows are read. The action and the elements
 * come as their stored JSON text, for callers that send them on as JSON without parsing them.
 */
export async function getStepRange(db: Db, trajectoryId: number, from: number, count: number) {
  const { steps } = tablesOf(db);
  return db
    .select({
      index: steps.index,
      url: steps.url,
      thought: steps.thought,
      actionRaw: steps.actionRaw,
      // As text on both engines: node-postgres would otherwise parse a json column into an object.
      actionJson: sql<string>`cast(${steps.action} as text)`,
      elementsJson: sql<string | null>`cast(${steps.elements} as text)`,
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
    .offset(from);
}

/**
 * The screenshot hashes of a trajectory's steps, in order: every step, or the first `limit` (what a first view of
 * it shows). The first columns of a step row: cheap even for 10,000 steps.
 */
export async function getStepScreenshotHashes(
  db: Db,
  trajectoryId: number,
  limit?: number,
): Promise<{ screenshotHash: string | null; rawScreenshotHash: string | null }[]> {
  const { steps } = tablesOf(db);
  const q = db
    .select({ screenshotHash: steps.screenshotHash, rawScreenshotHash: steps.rawScreenshotHash })
    .from(steps)
    .where(eq(steps.trajectoryId, trajectoryId))
    .orderBy(asc(steps.index));
  return limit === undefined ? q : q.limit(limit);
}

/** How many steps a trajectory has stored (counted on the steps' index, not read). */
export async function countSteps(db: Db, trajectoryId: number): Promise<number> {
  const { steps } = tablesOf(db);
  const row = await first(db.select({ n: count() }).from(steps).where(eq(steps.trajectoryId, trajectoryId)).limit(1));
  return row?.n ?? 0;
}

/** Ids of every trajectory, or of one run's, ascending. */
/**
 * The ids among `ids` that name a stored trajectory, once each and ascending: a campaign's selection refuses the
 * others, a judge batch drops the ones deleted since they were chosen. Read 500 at a time (bound-parameter limits).
 */
export async function existingTrajectoryIds(db: Db, ids: number[]): Promise<number[]> {
  const { trajectories } = tablesOf(db);
  const wanted = [...new Set(ids)].sort((a, b) => a - b);
  const out: number[] = [];
  for (let i = 0; i < wanted.length; i += 500) {
    const rows = await db
      .select({ id: trajectories.id })
      .from(trajectories)
      .where(inArray(trajectories.id, wanted.slice(i, i + 500)))
      .orderBy(asc(trajectories.id));
    out.push(...rows.map((r) => r.id));
  }
  return out;
}

export async function trajectoryIds(db: Db, where: { runId?: number } = {}): Promise<number[]> {
  const { trajectories } = tablesOf(db);
  const rows = await db
    .select({ id: trajectories.id })
    .from(trajectories)
    .where(where.runId !== undefined ? eq(trajectories.runId, where.runId) : undefined)
    .orderBy(asc(trajectories.id));
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
  /**
   * Leaves out the trajectories the blind rule hides from this user: those they label blind and have not labelled
   * yet, and every attempt at a task they still label blind (see browsableByIdSql).
   */
  notBlindFor?: string;
  /**
   * A behaviour search, parsed and scoped to what the viewer may search (server/services/trajectories/search.ts).
   * Only the list's own queries (its pages, counts and selections) apply it; trajectoryWhere does not.
   */
  textSearch?: ScopedSearch;
}

export type TrajectorySort = "id" | "steps" | "task" | "site" | "updated" | "human" | "verdict" | "relevance";

/** `%text%` for a LIKE with `escape '\'`, the user's own % and _ taken literally. */
function containsPattern(q: string): string {
  return `%${q.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Case-insensitive on both engines (SQLite's LIKE already is for ASCII; PostgreSQL's is not). */
function textContains(column: SQL | SQLWrapper, pattern: string): SQL {
  return sql`lower(${column}) like lower(${pattern}) escape '\\'`;
}

/** A condition no row meets (an empty id list). */
const NOTHING = sql`1 = 0`;

/**
 * The list's filter as a WHERE over trajectories joined with tasks and agent_runs. `tables` are the query's own
 * (tablesOf(db)); the column names are the same in both dialects, so a caller without a db may leave them out.
 */
export function trajectoryWhere(f: TrajectoryFilter, tables: Tables = staticTables): SQL | undefined {
  const { trajectories, tasks, agentRuns } = tables;
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
    const pattern = containsPattern(f.q);
    conds.push(or(textContains(tasks.intent, pattern), textContains(trajectories.finalAnswer, pattern), textContains(tasks.externalId, pattern))!);
  }
  if (f.ids) conds.push(f.ids.length ? inArray(trajectories.id, f.ids) : NOTHING);
  if (f.visibleToAnnotator !== undefined) conds.push(sql`${trajectories.id} in ${annotatorTrajectoryIdsSql(f.visibleToAnnotator)}`);
  if (f.notBlindFor !== undefined) conds.push(browsableByIdSql(trajectories.id, trajectories.taskId, f.notBlindFor));
  conds.push(...triageConditions(f));
  return conds.length ? and(...conds) : undefined;
}

export type TrajectoryListRow = Awaited<ReturnType<typeof listTrajectories>>["rows"][number];

export async function listTrajectories(db: Db, f: TrajectoryFilter, page: { offset: number; limit: number; sort?: TrajectorySort; dir?: "asc" | "desc" }) {
  const { trajectories, tasks, taskSets, agentRuns } = tablesOf(db);
  const where = trajectoryWhere(f, tablesOf(db));
  // Relevance needs a search, which only the paged list applies (listTrajectoriesPage): here it is the id order.
  const sort = page.sort === "relevance" || page.sort === undefined ? "id" : page.sort;
  const dir = page.dir === "asc" ? asc : desc;
  let order: SQL[];
  if (sort === "human" || sort === "verdict") {
    order = [dir(triageSortKey(sort, f, page.dir ?? "desc"))];
  } else {
    order = [dir({ id: trajectories.id, steps: trajectories.stepCount, task: tasks.externalId, site: tasks.site, updated: trajectories.updatedAt }[sort])];
  }
  const rowsQuery = withTaskSetAndRun(
    db,
    db
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
      .$dynamic(),
  )
    .where(where)
    .orderBy(...order, desc(trajectories.id))
    .limit(page.limit)
    .offset(page.offset);
  const totalQuery = withTaskAndRun(db, db.select({ n: count() }).from(trajectories).$dynamic()).where(where);
  const [rows, totalRows] = await Promise.all([rowsQuery, totalQuery]);
  return { rows, total: totalRows[0]?.n ?? 0 };
}

export async function countTrajectoriesAndSteps(db: Db): Promise<{ trajectories: number; steps: number }> {
  const { trajectories, steps } = tablesOf(db);
  const [t, s] = await Promise.all([db.select({ n: count() }).from(trajectories), db.select({ n: count() }).from(steps)]);
  return { trajectories: t[0]?.n ?? 0, steps: s[0]?.n ?? 0 };
}

/** The values a text column holds, each once, in order, without null (what a filter offers to choose from). */
async function distinctValues(db: Db, table: SQLiteTable, column: SQLiteColumn): Promise<string[]> {
  const rows = await db.selectDistinct({ value: column }).from(table).where(isNotNull(column)).orderBy(column);
  return rows.map((r) => r.value as string);
}

export async function distinctSites(db: Db): Promise<string[]> {
  const { tasks } = tablesOf(db);
  return distinctValues(db, tasks, tasks.site);
}

export async function distinctModels(db: Db): Promise<string[]> {
  const { agentRuns } = tablesOf(db);
  return distinctValues(db, agentRuns, agentRuns.model);
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

/** The columns a StepScreenshot is read from. */
function stepScreenshotColumns(db: Db) {
  return pickColumns(tablesOf(db).screenshots, ["hash", "mime", "width", "height", "bytes", "dhash"]);
}

/** Pixel sizes of the given screenshots, keyed by hash (for a window of steps). */
export async function getScreenshotsByHash(db: Db, hashes: readonly string[]): Promise<Map<string, StepScreenshot>> {
  const { screenshots } = tablesOf(db);
  const rows: StepScreenshot[] = [];
  const unique = [...new Set(hashes)];
  // Under SQLite's bound-parameter limit per query.
  for (let i = 0; i < unique.length; i += 500) {
    rows.push(
      ...(await db
        .select(stepScreenshotColumns(db))
        .from(screenshots)
        .where(inArray(screenshots.hash, unique.slice(i, i + 500)))),
    );
  }
  return new Map(rows.map((r) => [r.hash, r]));
}

/** Pixel sizes of every screenshot (marked and raw) a trajectory's steps show, keyed by hash. */
export async function getStepScreenshots(db: Db, trajectoryId: number): Promise<Map<string, StepScreenshot>> {
  const { screenshots } = tablesOf(db);
  const rows = await db
    .select(stepScreenshotColumns(db))
    .from(screenshots)
    .where(
      // Table names are explicit: drizzle leaves single-table columns unqualified, ambiguous inside a subquery.
      sql`screenshots.hash in (select s.screenshot_hash from steps s where s.trajectory_id = ${trajectoryId}
        union select s.raw_screenshot_hash from steps s where s.trajectory_id = ${trajectoryId})`,
    );
  return new Map(rows.map((r) => [r.hash, r]));
}

/** How many trajectories matching a filter ended each way. */
export async function outcomeCounts(db: Db, f: TrajectoryFilter): Promise<Record<string, number>> {
  const { trajectories } = tablesOf(db);
  const rows = await withTaskAndRun(db, db.select({ outcome: trajectories.outcome, n: count() }).from(trajectories).$dynamic())
    .where(trajectoryWhere(f, tablesOf(db)))
    .groupBy(trajectories.outcome)
    .orderBy(trajectories.outcome);
  return Object.fromEntries(rows.map((r) => [r.outcome, r.n]));
}

/** Per-site figures for the trajectories matching a filter: count, answered, mean steps. */
export async function siteBreakdown(db: Db, f: TrajectoryFilter) {
  const { trajectories, tasks } = tablesOf(db);
  return withTaskAndRun(
    db,
    db
      .select({
        site: tasks.site,
        trajectories: count(),
        // Numbers on both engines: PostgreSQL's sum and avg come back as numeric strings.
        answered: sql<number>`sum(case when ${trajectories.outcome} = 'answered' then 1 else 0 end)`.mapWith(Number),
        meanSteps: sql<number>`avg(${trajectories.stepCount})`.mapWith(Number),
      })
      .from(trajectories)
      .$dynamic(),
  )
    .where(trajectoryWhere(f, tablesOf(db)))
    .groupBy(tasks.site)
    .orderBy(sql`${tasks.site} nulls first`);
}

/** Distinct outcomes present, for the list's filter menu. */
export async function distinctOutcomes(db: Db): Promise<string[]> {
  const { trajectories } = tablesOf(db);
  const rows = await db.selectDistinct({ outcome: trajectories.outcome }).from(trajectories).orderBy(trajectories.outcome);
  return rows.map((r) => r.outcome);
}

/**
 * The list's filter as conditions on `trajectories` alone: filters on task or run columns become semi-joins
 * (`task_id in (select id from tasks where …)`). Counting then never joins: at 100,000 trajectories the joined
 * count took ~90 ms, this one a few ms. Raw table names inside the subqueries (see getStepScreenshots).
 */
function trajectoryOnlyWhere(f: TrajectoryFilter, tables: Tables, dialect: Dialect): SQL | undefined {
  const { trajectories } = tables;
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
    const pattern = containsPattern(f.q);
    conds.push(
      sql`(${textContains(sql.raw("trajectories.final_answer"), pattern)} or trajectories.task_id in (select id from tasks where ${textContains(sql.raw("intent"), pattern)} or ${textContains(sql.raw("external_id"), pattern)}))`,
    );
  }
  if (f.ids) conds.push(f.ids.length ? inArray(trajectories.id, f.ids) : NOTHING);
  if (f.visibleToAnnotator !== undefined) conds.push(sql`${trajectories.id} in ${annotatorTrajectoryIdsSql(f.visibleToAnnotator)}`);
  if (f.notBlindFor !== undefined) conds.push(browsableByIdSql(trajectories.id, trajectories.taskId, f.notBlindFor));
  conds.push(...triageConditions(f));
  if (f.textSearch) conds.push(...searchConditions(f.textSearch, dialect, f.evaluator));
  return conds.length ? and(...conds) : undefined;
}

/**
 * One page of the trajectory list, shaped like listTrajectories' rows, built for large stores: the page's ids
 * come from `trajectories` alone (its indexes serve the filters and most sorts), then only those rows are
 * joined for display; the total is a join-free count.
 */
export async function listTrajectoriesPage(
  db: Db,
  f: TrajectoryFilter,
  page: { offset: number; limit: number; sort?: TrajectorySort; dir?: "asc" | "desc" },
): Promise<{ rows: TrajectoryListRow[]; total: number }> {
  const { trajectories, tasks } = tablesOf(db);
  const where = trajectoryOnlyWhere(f, tablesOf(db), dialectOf(db));
  // Without words to count (no search, or only negations and verdicts), relevance is the id order.
  const sort = page.sort === "relevance" && !ranksByRelevance(f.textSearch) ? "id" : (page.sort ?? "id");
  const dir = page.dir === "asc" ? asc : desc;
  let idQuery: PromiseLike<{ id: number }[]>;
  if (sort === "task" || sort === "site") {
    const col = sort === "task" ? tasks.externalId : tasks.site;
    idQuery = withTask(db, db.select({ id: trajectories.id }).from(trajectories).$dynamic())
      .where(where)
      // Tasks without a site sort as SQLite always sorted them: first when ascending, last when descending.
      .orderBy(sql`${col} ${sql.raw(page.dir === "asc" ? "asc nulls first" : "desc nulls last")}`, desc(trajectories.id))
      .limit(page.limit)
      .offset(page.offset);
  } else if (sort === "human" || sort === "verdict") {
    // Trajectories without a label or verdict go last whichever way the column is sorted.
    idQuery = db
      .select({ id: trajectories.id })
      .from(trajectories)
      .where(where)
      .orderBy(dir(triageSortKey(sort, f, page.dir ?? "desc")), desc(trajectories.id))
      .limit(page.limit)
      .offset(page.offset);
  } else if (sort === "relevance") {
    // Most matching entries first (ascending: fewest first), ties newest first.
    const relevance = searchRelevanceTable(f.textSearch!, dialectOf(db));
    idQuery = rawAll<{ id: number }>(
      db,
      sql`select trajectories.id as id from trajectories join ${relevance} relevance on relevance.trajectory_id = trajectories.id
        ${where ? sql`where ${where}` : sql``} order by relevance.n ${sql.raw(page.dir === "asc" ? "asc" : "desc")}, trajectories.id desc
        limit ${page.limit} offset ${page.offset}`,
    ).then((rows) => rows.map((r) => ({ id: Number(r.id) })));
  } else {
    const col = { id: trajectories.id, steps: trajectories.stepCount, updated: trajectories.updatedAt }[sort];
    idQuery = db
      .select({ id: trajectories.id })
      .from(trajectories)
      .where(where)
      .orderBy(...(sort === "id" ? [dir(col)] : [dir(col), desc(trajectories.id)]))
      .limit(page.limit)
      .offset(page.offset);
  }
  const [idRows, totalRows] = await Promise.all([idQuery, db.select({ n: count() }).from(trajectories).where(where)]);
  const total = totalRows[0]?.n ?? 0;
  if (!idRows.length) return { rows: [], total };
  const ids = idRows.map((r) => r.id);
  const found = (await listTrajectories(db, { ids }, { offset: 0, limit: ids.length })).rows;
  const byId = new Map(found.map((r) => [r.id, r]));
  return { rows: ids.map((id) => byId.get(id)!).filter(Boolean), total };
}

/**
 * How many trajectories there are in all (within what a viewer may browse): the "of N" in "312 of 4,901 match"; or
 * how many a filter selects.
 */
export async function countTrajectories(db: Db, scope: TrajectoryFilter = {}): Promise<number> {
  const { trajectories } = tablesOf(db);
  const row = await first(
    db
      .select({ n: count() })
      .from(trajectories)
      .where(trajectoryOnlyWhere(scope, tablesOf(db), dialectOf(db)))
      .limit(1),
  );
  return row?.n ?? 0;
}

/**
 * The trajectories a filter selects, ascending by id, each with its stratum for a stratified sample: the run's id
 * or the task's site (null when the task has none).
 */
export async function sampleCandidates(db: Db, f: TrajectoryFilter, strata?: "run" | "site"): Promise<{ id: number; stratum: string | null }[]> {
  const { trajectories } = tablesOf(db);
  const stratum =
    strata === "run"
      ? sql<string | null>`cast(trajectories.run_id as text)`
      : strata === "site"
        ? sql<string | null>`(select site from tasks where tasks.id = trajectories.task_id)`
        : sql<string | null>`cast(null as text)`;
  return db
    .select({ id: trajectories.id, stratum })
    .from(trajectories)
    .where(trajectoryOnlyWhere(f, tablesOf(db), dialectOf(db)))
    .orderBy(asc(trajectories.id));
}
