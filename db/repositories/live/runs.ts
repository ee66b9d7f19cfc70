/**
 * Live runs: every query the live runner and its views make.
 *
 * A live run is an `agent_runs` row whose run key starts with "live:"; each of its tasks is one `runner.task` job in
 * the group `live-run:<run id>` and, once the job starts, one trajectory (attempt 0) whose steps are inserted one by
 * one as they are recorded. Writes made on behalf of a job check, in the same transaction, that the worker still
 * holds the job's lease, so a worker that lost its job (lease expired, taken over) cannot write over the new attempt.
 */
import { and, asc, desc, eq, inArray, like, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { affectedRows, first, rowBy, sqlFor, tablesOf, withTransaction, type Db } from "../../database";
import { insertMissingScreenshots, type ScreenshotValues } from "../screenshots";
import { trajectoryWhere, type StepValues, type TrajectoryFilter } from "../trajectories";
import { LIVE_JOB_TYPE, LIVE_RUN_KEY_PREFIX, liveGroupKey } from "../../../server/domain/live/live-jobs";
import { withTaskAndRun } from "../trajectory-joins";

export { LIVE_JOB_TYPE, LIVE_RUN_KEY_PREFIX, liveGroupKey };

export class LeaseLostError extends Error {
  constructor(jobId: number) {
    super(`job ${jobId} is no longer held by this worker (its lease expired and the job was taken back)`);
    this.name = "LeaseLostError";
  }
}

async function holdsLease(db: Db, jobId: number, owner: string): Promise<boolean> {
  const { jobs } = tablesOf(db);
  const row = await first(
    db
      .select({ id: jobs.id })
      .from(jobs)
      .where(and(eq(jobs.id, jobId), eq(jobs.leaseOwner, owner), eq(jobs.status, "running")))
      .limit(1),
  );
  return !!row;
}

/** The job's task id, read from its JSON payload (the same expression on both engines). */
function payloadTaskId(db: Db) {
  const { jobs } = tablesOf(db);
  return sqlFor(db).jsonNumber(jobs.payload, "taskId");
}

/** `live-run:<agent_runs.id>`: the job group of the run in the current row. */
function groupKeyOfRun(runId: SQLWrapper) {
  return sql`('live-run:' || cast(${runId} as text))`;
}

/** The number of recorded steps of a trajectory, as an expression for updating its step count. */
function stepCountOf(db: Db, trajectoryId: number) {
  const { steps } = tablesOf(db);
  return sql`(select count(*) from ${steps} where ${steps.trajectoryId} = ${trajectoryId})`;
}

export interface LeaseRef {
  jobId: number;
  owner: string;
}

/**
 * The trajectory a job records into: created on its first attempt; on a later attempt (the previous worker died)
 * its partial steps are removed and it starts over. Returns the id and how many steps the old attempt had left.
 */
export async function startLiveTrajectory(
  db: Db,
  lease: LeaseRef,
  v: { runId: number; taskId: number; outcomeDetail: string | null },
): Promise<{ id: number; discardedSteps: number }> {
  const { trajectories, steps } = tablesOf(db);
  return withTransaction(db, async () => {
    if (!(await holdsLease(db, lease.jobId, lease.owner))) throw new LeaseLostError(lease.jobId);
    const existing = await first(
      db
        .select({ id: trajectories.id, stepCount: trajectories.stepCount })
        .from(trajectories)
        .where(and(eq(trajectories.runId, v.runId), eq(trajectories.taskId, v.taskId), eq(trajectories.attempt, 0)))
        .limit(1),
    );
    const now = new Date();
    const head = {
      finalAnswer: null,
      outcome: "running",
      outcomeDetail: v.outcomeDetail,
      stepCount: 0,
      sourceFormat: "verdict-runner",
      sourcePath: null,
      contentHash: "",
      updatedAt: now,
    };
    if (!existing) {
      const [inserted] = await db
        .insert(trajectories)
        .values({ runId: v.runId, taskId: v.taskId, attempt: 0, ...head })
        .returning({ id: trajectories.id });
      return { id: inserted!.id, discardedSteps: 0 };
    }
    const discarded = affectedRows(await db.delete(steps).where(eq(steps.trajectoryId, existing.id)));
    await db.update(trajectories).set(head).where(eq(trajectories.id, existing.id));
    return { id: existing.id, discardedSteps: discarded };
  });
}

/**
 * Adds one recorded step (its screenshot files are already in the store). A short transaction of database work
 * only: the browser and the model are never waited on inside it.
 */
export async function appendLiveStep(db: Db, lease: LeaseRef, trajectoryId: number, step: StepValues, images: ScreenshotValues[]): Promise<void> {
  const { steps, trajectories } = tablesOf(db);
  await withTransaction(db, async () => {
    if (!(await holdsLease(db, lease.jobId, lease.owner))) throw new LeaseLostError(lease.jobId);
    await insertMissingScreenshots(db, images);
    await db.insert(steps).values({ ...step, trajectoryId });
    await db
      .update(trajectories)
      .set({ stepCount: stepCountOf(db, trajectoryId), updatedAt: new Date() })
      .where(eq(trajectories.id, trajectoryId));
  });
}

export interface LiveTrajectoryEnd {
  outcome: string;
  outcomeDetail: string | null;
  finalAnswer: string | null;
  contentHash: string;
  sourcePath: string | null;
}

/** Records how a live trajectory ended. With a lease, only while the job is still held. */
export async function finishLiveTrajectory(db: Db, lease: LeaseRef | null, trajectoryId: number, end: LiveTrajectoryEnd): Promise<boolean> {
  const { trajectories } = tablesOf(db);
  return withTransaction(db, async () => {
    if (lease && !(await holdsLease(db, lease.jobId, lease.owner))) return false;
    await db
      .update(trajectories)
      .set({ ...end, stepCount: stepCountOf(db, trajectoryId), updatedAt: new Date() })
      .where(eq(trajectories.id, trajectoryId));
    return true;
  });
}

/**
 * Records where a finished live trajectory's bundle now is (its place in the bucket once uploaded), only while the
 * job is still held: a worker that lost the job must not point the next attempt's trajectory at its own bundle.
 */
export async function setLiveBundleLocation(db: Db, lease: LeaseRef, trajectoryId: number, sourcePath: string): Promise<boolean> {
  const { trajectories } = tablesOf(db);
  return withTransaction(db, async () => {
    if (!(await holdsLease(db, lease.jobId, lease.owner))) return false;
    await db.update(trajectories).set({ sourcePath, updatedAt: new Date() }).where(eq(trajectories.id, trajectoryId));
    return true;
  });
}

/** Updates only the outcome detail of a trajectory that is still running (what it is waiting for). */
export async function setRunningDetail(db: Db, trajectoryId: number, detail: string | null): Promise<void> {
  const { trajectories } = tablesOf(db);
  await db
    .update(trajectories)
    .set({ outcomeDetail: detail, updatedAt: new Date() })
    .where(and(eq(trajectories.id, trajectoryId), eq(trajectories.outcome, "running")));
}

/**
 * Trajectories left "running" by a job that ended without finishing them (its worker died and the lease expiry
 * failed or cancelled the job) take the job's end and reason. Requeued jobs get a detail saying they wait for a
 * worker. Returns how many trajectories changed.
 */
export async function reconcileLiveTrajectories(db: Db): Promise<number> {
  const { agentRuns, jobs, trajectories } = tablesOf(db);
  const stale = await db
    .select({ id: trajectories.id, detail: trajectories.outcomeDetail, status: jobs.status, error: jobs.error })
    .from(trajectories)
    .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId))
    .innerJoin(
      jobs,
      and(sql`${jobs.groupKey} = ${groupKeyOfRun(agentRuns.id)}`, sql`${payloadTaskId(db)} = ${trajectories.taskId}`, eq(jobs.type, LIVE_JOB_TYPE)),
    )
    .where(
      and(
        eq(trajectories.outcome, "running"),
        like(agentRuns.runKey, `${LIVE_RUN_KEY_PREFIX}%`),
        inArray(jobs.status, ["failed", "cancelled", "queued", "succeeded"]),
      ),
    )
    .orderBy(asc(trajectories.id));
  let changed = 0;
  const now = new Date();
  for (const s of stale) {
    const stillRunning = and(eq(trajectories.id, s.id), eq(trajectories.outcome, "running"));
    if (s.status === "queued") {
      const detail = `interrupted${s.error ? ` (${s.error})` : ""}; queued to start again when a worker is free`;
      if (s.detail !== detail) {
        changed += affectedRows(await db.update(trajectories).set({ outcomeDetail: detail, updatedAt: now }).where(stillRunning));
      }
      continue;
    }
    const outcome = s.status === "cancelled" ? "cancelled" : "error";
    const detail =
      s.status === "succeeded" ? "the job ended without recording an outcome" : (s.error ?? (outcome === "cancelled" ? "cancelled" : "the job failed"));
    changed += affectedRows(await db.update(trajectories).set({ outcome, outcomeDetail: detail, updatedAt: now }).where(stillRunning));
  }
  return changed;
}

// ---- read models ----

export async function getLiveRun(db: Db, runId: number) {
  const { agentRuns } = tablesOf(db);
  return first(
    db
      .select()
      .from(agentRuns)
      .where(and(eq(agentRuns.id, runId), like(agentRuns.runKey, `${LIVE_RUN_KEY_PREFIX}%`)))
      .limit(1),
  );
}

/** Live runs, newest first, with their job counts and recorded steps. */
export async function listLiveRunRows(db: Db, limit = 200) {
  const { agentRuns } = tablesOf(db);
  // Spelled out with aliases: in a one-table select drizzle leaves column names unqualified, and inside these
  // subqueries an unqualified "id" would mean the inner table's. Counts and sums are read as numbers: PostgreSQL
  // returns them as bigint, which its driver hands over as strings.
  const jobsOfRun = sql.raw(`from jobs j where j.group_key = ('live-run:' || cast("agent_runs"."id" as text))`);
  const countWhere = (status: string) => sql<number>`(select count(*) ${jobsOfRun} and j.status = ${status})`.mapWith(Number);
  const ofRun = sql.raw(`from trajectories t where t.run_id = "agent_runs"."id"`);
  return db
    .select({
      id: agentRuns.id,
      name: agentRuns.name,
      model: agentRuns.model,
      config: agentRuns.config,
      createdAt: agentRuns.createdAt,
      total: sql<number>`(select count(*) ${jobsOfRun})`.mapWith(Number),
      queued: countWhere("queued"),
      running: countWhere("running"),
      succeeded: countWhere("succeeded"),
      failed: countWhere("failed"),
      cancelled: countWhere("cancelled"),
      steps: sql<number>`(select coalesce(sum(t.step_count), 0) ${ofRun})`.mapWith(Number),
      answered: sql<number>`(select count(*) ${ofRun} and t.outcome = 'answered')`.mapWith(Number),
    })
    .from(agentRuns)
    .where(like(agentRuns.runKey, `${LIVE_RUN_KEY_PREFIX}%`))
    .orderBy(desc(agentRuns.id))
    .limit(limit);
}

/** One row per task of a live run: its job, its task and (once started) its trajectory with the last screenshot. */
/** `verdictKey`: the evaluator whose verdict on each task's trajectory comes along (the live page's rules). */
export async function liveRunTaskRows(db: Db, runId: number, verdictKey: string) {
  const { evaluatorVerdicts, jobs, steps, tasks, trajectories } = tablesOf(db);
  return db
    .select({
      jobId: jobs.id,
      status: jobs.status,
      attempts: jobs.attempts,
      maxAttempts: jobs.maxAttempts,
      cancelRequested: jobs.cancelRequested,
      error: jobs.error,
      progress: jobs.progress,
      startedAt: jobs.startedAt,
      finishedAt: jobs.finishedAt,
      taskId: tasks.id,
      externalId: tasks.externalId,
      site: tasks.site,
      intent: tasks.intent,
      startUrl: tasks.startUrl,
      taskExtra: tasks.extra,
      trajectoryId: trajectories.id,
      outcome: trajectories.outcome,
      outcomeDetail: trajectories.outcomeDetail,
      stepCount: trajectories.stepCount,
      finalAnswer: trajectories.finalAnswer,
      lastScreenshot: sql<
        string | null
      >`(select ${steps.screenshotHash} from ${steps} where ${steps.trajectoryId} = ${trajectories.id} order by ${steps.index} desc limit 1)`,
      verdict: sql<
        string | null
      >`(select ${evaluatorVerdicts.verdict} from ${evaluatorVerdicts} where ${evaluatorVerdicts.trajectoryId} = ${trajectories.id} and ${evaluatorVerdicts.evaluatorKey} = ${verdictKey} order by ${evaluatorVerdicts.id} desc limit 1)`,
      verdictRationale: sql<
        string | null
      >`(select ${evaluatorVerdicts.rationale} from ${evaluatorVerdicts} where ${evaluatorVerdicts.trajectoryId} = ${trajectories.id} and ${evaluatorVerdicts.evaluatorKey} = ${verdictKey} order by ${evaluatorVerdicts.id} desc limit 1)`,
    })
    .from(jobs)
    .innerJoin(tasks, sql`${tasks.id} = ${payloadTaskId(db)}`)
    .leftJoin(trajectories, and(eq(trajectories.runId, runId), eq(trajectories.taskId, tasks.id), eq(trajectories.attempt, 0)))
    .where(and(eq(jobs.groupKey, liveGroupKey(runId)), eq(jobs.type, LIVE_JOB_TYPE)))
    .orderBy(asc(jobs.id));
}

/** The job of one task of a live run. */
export async function liveTaskJob(db: Db, runId: number, taskId: number) {
  const { jobs } = tablesOf(db);
  return first(
    db
      .select()
      .from(jobs)
      .where(and(eq(jobs.groupKey, liveGroupKey(runId)), sql`${payloadTaskId(db)} = ${taskId}`))
      .orderBy(asc(jobs.id))
      .limit(1),
  );
}

/** Which live run and task a trajectory belongs to, or undefined when it is not a live trajectory. */
export async function liveTrajectoryRef(db: Db, trajectoryId: number) {
  const { agentRuns, trajectories } = tablesOf(db);
  return first(
    db
      .select({ runId: trajectories.runId, taskId: trajectories.taskId, outcome: trajectories.outcome })
      .from(trajectories)
      .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId))
      .where(and(eq(trajectories.id, trajectoryId), like(agentRuns.runKey, `${LIVE_RUN_KEY_PREFIX}%`)))
      .limit(1),
  );
}

/** What changes while a trajectory records: cheap to poll. */
export async function trajectoryPulse(db: Db, trajectoryId: number) {
  return rowBy(db, tablesOf(db).trajectories, { id: trajectoryId }, ["stepCount", "outcome", "outcomeDetail", "updatedAt"]);
}

// ---- task selection ----

export interface TaskRef {
  id: number;
  externalId: string;
  startUrl: string | null;
  taskSetName: string;
}

/** Tasks with their set's name, where `where` holds. */
function taskRefs(db: Db, where: SQL | undefined) {
  const { tasks, taskSets } = tablesOf(db);
  return db
    .select({ id: tasks.id, externalId: tasks.externalId, startUrl: tasks.startUrl, taskSetName: taskSets.name })
    .from(tasks)
    .innerJoin(taskSets, eq(taskSets.id, tasks.taskSetId))
    .where(where);
}

export async function tasksByIds(db: Db, ids: number[]): Promise<TaskRef[]> {
  if (!ids.length) return [];
  const { tasks } = tablesOf(db);
  return taskRefs(db, inArray(tasks.id, ids)).orderBy(asc(tasks.id));
}

/** A set's tasks by site then id; tasks without a site come first on both engines (SQLite's order). */
export async function tasksOfSet(db: Db, taskSetId: number): Promise<TaskRef[]> {
  const { tasks } = tablesOf(db);
  return taskRefs(db, eq(tasks.taskSetId, taskSetId)).orderBy(sql`${tasks.site} asc nulls first`, asc(tasks.externalId));
}

export async function findTaskSetByName(db: Db, name: string) {
  const { taskSets } = tablesOf(db);
  return first(db.select().from(taskSets).where(eq(taskSets.name, name)).limit(1));
}

/** Distinct tasks of the trajectories a list filter selects (the trajectory list's filters, reused to pick tasks). */
export async function taskIdsOfTrajectories(db: Db, filter: TrajectoryFilter, limit: number): Promise<number[]> {
  const { tasks, trajectories } = tablesOf(db);
  const rows = await withTaskAndRun(db, db.selectDistinct({ id: tasks.id }).from(trajectories).$dynamic())
    .where(trajectoryWhere(filter))
    .orderBy(asc(tasks.id))
    .limit(limit);
  return rows.map((r) => r.id);
}
