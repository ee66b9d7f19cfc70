/**
 * Live runs: every query the live runner and its views make.
 *
 * A live run is an `agent_runs` row whose run key starts with "live:"; each of its tasks is one `runner.task` job in
 * the group `live-run:<run id>` and, once the job starts, one trajectory (attempt 0) whose steps are inserted one by
 * one as they are recorded. Writes made on behalf of a job check, in the same transaction, that the worker still
 * holds the job's lease, so a worker that lost its job (lease expired, taken over) cannot write over the new attempt.
 */
import { and, asc, desc, eq, inArray, like, sql } from "drizzle-orm";
import type { Db } from "../client";
import { agentRuns, evaluatorVerdicts, jobs, screenshots, steps, taskSets, tasks, trajectories } from "../schema/index";
import { trajectoryWhere, type StepValues, type TrajectoryFilter } from "./trajectories";

export const LIVE_RUN_KEY_PREFIX = "live:";
export const LIVE_JOB_TYPE = "runner.task";

export function liveGroupKey(runId: number): string {
  return `live-run:${runId}`;
}

export class LeaseLostError extends Error {
  constructor(jobId: number) {
    super(`job ${jobId} is no longer held by this worker (its lease expired and the job was taken back)`);
    this.name = "LeaseLostError";
  }
}

function holdsLease(db: Db, jobId: number, owner: string): boolean {
  return !!db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.id, jobId), eq(jobs.leaseOwner, owner), eq(jobs.status, "running")))
    .get();
}

export interface LeaseRef {
  jobId: number;
  owner: string;
}

/**
 * The trajectory a job records into: created on its first attempt; on a later attempt (the previous worker died)
 * its partial steps are removed and it starts over. Returns the id and how many steps the old attempt had left.
 */
export function startLiveTrajectory(
  db: Db,
  lease: LeaseRef,
  v: { runId: number; taskId: number; outcomeDetail: string | null },
): { id: number; discardedSteps: number } {
  return db.$client
    .transaction(() => {
      if (!holdsLease(db, lease.jobId, lease.owner)) throw new LeaseLostError(lease.jobId);
      const existing = db
        .select({ id: trajectories.id, stepCount: trajectories.stepCount })
        .from(trajectories)
        .where(and(eq(trajectories.runId, v.runId), eq(trajectories.taskId, v.taskId), eq(trajectories.attempt, 0)))
        .get();
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
        const id = db
          .insert(trajectories)
          .values({ runId: v.runId, taskId: v.taskId, attempt: 0, ...head })
          .returning({ id: trajectories.id })
          .get().id;
        return { id, discardedSteps: 0 };
      }
      const discarded = db.delete(steps).where(eq(steps.trajectoryId, existing.id)).run().changes;
      db.update(trajectories).set(head).where(eq(trajectories.id, existing.id)).run();
      return { id: existing.id, discardedSteps: discarded };
    })
    .immediate();
}

export interface ScreenshotValues {
  hash: string;
  mime: string;
  width: number;
  height: number;
  bytes: number;
}

/** Adds one recorded step (its screenshot files are already in the store). */
export function appendLiveStep(
  db: Db,
  lease: LeaseRef,
  trajectoryId: number,
  step: StepValues,
  images: ScreenshotValues[],
): void {
  db.$client
    .transaction(() => {
      if (!holdsLease(db, lease.jobId, lease.owner)) throw new LeaseLostError(lease.jobId);
      for (const img of images) db.insert(screenshots).values(img).onConflictDoNothing().run();
      db.insert(steps).values({ ...step, trajectoryId }).run();
      db.update(trajectories)
        .set({ stepCount: sql`(select count(*) from ${steps} where ${steps.trajectoryId} = ${trajectoryId})`, updatedAt: new Date() })
        .where(eq(trajectories.id, trajectoryId))
        .run();
    })
    .immediate();
}

export interface LiveTrajectoryEnd {
  outcome: string;
  outcomeDetail: string | null;
  finalAnswer: string | null;
  contentHash: string;
  sourcePath: string | null;
}

/** Records how a live trajectory ended. With a lease, only while the job is still held. */
export function finishLiveTrajectory(db: Db, lease: LeaseRef | null, trajectoryId: number, end: LiveTrajectoryEnd): boolean {
  return db.$client
    .transaction(() => {
      if (lease && !holdsLease(db, lease.jobId, lease.owner)) return false;
      db.update(trajectories)
        .set({
          ...end,
          stepCount: sql`(select count(*) from ${steps} where ${steps.trajectoryId} = ${trajectoryId})`,
          updatedAt: new Date(),
        })
        .where(eq(trajectories.id, trajectoryId))
        .run();
      return true;
    })
    .immediate();
}

/** Updates only the outcome detail of a trajectory that is still running (what it is waiting for). */
export function setRunningDetail(db: Db, trajectoryId: number, detail: string | null): void {
  db.update(trajectories)
    .set({ outcomeDetail: detail, updatedAt: new Date() })
    .where(and(eq(trajectories.id, trajectoryId), eq(trajectories.outcome, "running")))
    .run();
}

/**
 * Trajectories left "running" by a job that ended without finishing them (its worker died and the lease expiry
 * failed or cancelled the job) take the job's end and reason. Requeued jobs get a detail saying they wait for a
 * worker. Returns how many trajectories changed.
 */
export function reconcileLiveTrajectories(db: Db): number {
  const stale = db
    .select({ id: trajectories.id, detail: trajectories.outcomeDetail, status: jobs.status, error: jobs.error })
    .from(trajectories)
    .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId))
    .innerJoin(
      jobs,
      and(
        sql`${jobs.groupKey} = 'live-run:' || ${agentRuns.id}`,
        sql`json_extract(${jobs.payload}, '$.taskId') = ${trajectories.taskId}`,
        eq(jobs.type, LIVE_JOB_TYPE),
      ),
    )
    .where(
      and(
        eq(trajectories.outcome, "running"),
        like(agentRuns.runKey, `${LIVE_RUN_KEY_PREFIX}%`),
        inArray(jobs.status, ["failed", "cancelled", "queued", "succeeded"]),
      ),
    )
    .all();
  let changed = 0;
  const now = new Date();
  for (const s of stale) {
    if (s.status === "queued") {
      const detail = `interrupted${s.error ? ` (${s.error})` : ""}; queued to start again when a worker is free`;
      if (s.detail !== detail) {
        changed += db.update(trajectories).set({ outcomeDetail: detail, updatedAt: now }).where(and(eq(trajectories.id, s.id), eq(trajectories.outcome, "running"))).run().changes;
      }
      continue;
    }
    const outcome = s.status === "cancelled" ? "cancelled" : "error";
    const detail = s.status === "succeeded" ? "the job ended without recording an outcome" : (s.error ?? (outcome === "cancelled" ? "cancelled" : "the job failed"));
    changed += db
      .update(trajectories)
      .set({ outcome, outcomeDetail: detail, updatedAt: now })
      .where(and(eq(trajectories.id, s.id), eq(trajectories.outcome, "running")))
      .run().changes;
  }
  return changed;
}

// ---- read models ----

export function getLiveRun(db: Db, runId: number) {
  return db
    .select()
    .from(agentRuns)
    .where(and(eq(agentRuns.id, runId), like(agentRuns.runKey, `${LIVE_RUN_KEY_PREFIX}%`)))
    .get();
}

/** Live runs, newest first, with their job counts and recorded steps. */
export function listLiveRunRows(db: Db, limit = 200) {
  // Spelled out with aliases: in a one-table select drizzle leaves column names unqualified, and inside these
  // subqueries an unqualified "id" would mean the inner table's.
  const jobsOfRun = `from jobs j where j.group_key = 'live-run:' || "agent_runs"."id"`;
  const countWhere = (status: string) => sql<number>`(select count(*) ${sql.raw(jobsOfRun)} and j.status = ${status})`;
  const ofRun = sql.raw(`from trajectories t where t.run_id = "agent_runs"."id"`);
  return db
    .select({
      id: agentRuns.id,
      name: agentRuns.name,
      model: agentRuns.model,
      config: agentRuns.config,
      createdAt: agentRuns.createdAt,
      total: sql<number>`(select count(*) ${sql.raw(jobsOfRun)})`,
      queued: countWhere("queued"),
      running: countWhere("running"),
      succeeded: countWhere("succeeded"),
      failed: countWhere("failed"),
      cancelled: countWhere("cancelled"),
      steps: sql<number>`(select coalesce(sum(t.step_count), 0) ${ofRun})`,
      answered: sql<number>`(select count(*) ${ofRun} and t.outcome = 'answered')`,
    })
    .from(agentRuns)
    .where(like(agentRuns.runKey, `${LIVE_RUN_KEY_PREFIX}%`))
    .orderBy(desc(agentRuns.id))
    .limit(limit)
    .all();
}

/** One row per task of a live run: its job, its task and (once started) its trajectory with the last screenshot. */
/** `verdictKey`: the evaluator whose verdict on each task's trajectory comes along (the live page's rules). */
export function liveRunTaskRows(db: Db, runId: number, verdictKey: string) {
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
      trajectoryId: trajectories.id,
      outcome: trajectories.outcome,
      outcomeDetail: trajectories.outcomeDetail,
      stepCount: trajectories.stepCount,
      finalAnswer: trajectories.finalAnswer,
      lastScreenshot: sql<string | null>`(select ${steps.screenshotHash} from ${steps} where ${steps.trajectoryId} = ${trajectories.id} order by ${steps.index} desc limit 1)`,
      verdict: sql<string | null>`(select ${evaluatorVerdicts.verdict} from ${evaluatorVerdicts} where ${evaluatorVerdicts.trajectoryId} = ${trajectories.id} and ${evaluatorVerdicts.evaluatorKey} = ${verdictKey} order by ${evaluatorVerdicts.id} desc limit 1)`,
      verdictRationale: sql<string | null>`(select ${evaluatorVerdicts.rationale} from ${evaluatorVerdicts} where ${evaluatorVerdicts.trajectoryId} = ${trajectories.id} and ${evaluatorVerdicts.evaluatorKey} = ${verdictKey} order by ${evaluatorVerdicts.id} desc limit 1)`,
    })
    .from(jobs)
    .innerJoin(tasks, sql`${tasks.id} = json_extract(${jobs.payload}, '$.taskId')`)
    .leftJoin(
      trajectories,
      and(eq(trajectories.runId, runId), eq(trajectories.taskId, tasks.id), eq(trajectories.attempt, 0)),
    )
    .where(and(eq(jobs.groupKey, liveGroupKey(runId)), eq(jobs.type, LIVE_JOB_TYPE)))
    .orderBy(asc(jobs.id))
    .all();
}

/** The job of one task of a live run. */
export function liveTaskJob(db: Db, runId: number, taskId: number) {
  return db
    .select()
    .from(jobs)
    .where(and(eq(jobs.groupKey, liveGroupKey(runId)), sql`json_extract(${jobs.payload}, '$.taskId') = ${taskId}`))
    .get();
}

/** Which live run and task a trajectory belongs to, or undefined when it is not a live trajectory. */
export function liveTrajectoryRef(db: Db, trajectoryId: number) {
  return db
    .select({ runId: trajectories.runId, taskId: trajectories.taskId, outcome: trajectories.outcome })
    .from(trajectories)
    .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId))
    .where(and(eq(trajectories.id, trajectoryId), like(agentRuns.runKey, `${LIVE_RUN_KEY_PREFIX}%`)))
    .get();
}

/** What changes while a trajectory records: cheap to poll. */
export function trajectoryPulse(db: Db, trajectoryId: number) {
  return db
    .select({ stepCount: trajectories.stepCount, outcome: trajectories.outcome, outcomeDetail: trajectories.outcomeDetail, updatedAt: trajectories.updatedAt })
    .from(trajectories)
    .where(eq(trajectories.id, trajectoryId))
    .get();
}

// ---- task selection ----

export interface TaskRef {
  id: number;
  externalId: string;
  startUrl: string | null;
  taskSetName: string;
}

export function tasksByIds(db: Db, ids: number[]): TaskRef[] {
  if (!ids.length) return [];
  return db
    .select({ id: tasks.id, externalId: tasks.externalId, startUrl: tasks.startUrl, taskSetName: taskSets.name })
    .from(tasks)
    .innerJoin(taskSets, eq(taskSets.id, tasks.taskSetId))
    .where(inArray(tasks.id, ids))
    .orderBy(asc(tasks.id))
    .all();
}

export function tasksOfSet(db: Db, taskSetId: number): TaskRef[] {
  return db
    .select({ id: tasks.id, externalId: tasks.externalId, startUrl: tasks.startUrl, taskSetName: taskSets.name })
    .from(tasks)
    .innerJoin(taskSets, eq(taskSets.id, tasks.taskSetId))
    .where(eq(tasks.taskSetId, taskSetId))
    .orderBy(asc(tasks.site), asc(tasks.externalId))
    .all();
}

export function findTaskSetByName(db: Db, name: string) {
  return db.select().from(taskSets).where(eq(taskSets.name, name)).get();
}

/** Distinct tasks of the trajectories a list filter selects (the trajectory list's filters, reused to pick tasks). */
export function taskIdsOfTrajectories(db: Db, filter: TrajectoryFilter, limit: number): number[] {
  return db
    .selectDistinct({ id: tasks.id })
    .from(trajectories)
    .innerJoin(tasks, eq(tasks.id, trajectories.taskId))
    .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId))
    .where(trajectoryWhere(filter))
    .orderBy(asc(tasks.id))
    .limit(limit)
    .all()
    .map((r) => r.id);
}
