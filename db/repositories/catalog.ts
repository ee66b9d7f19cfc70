/**
 * Task sets, tasks and agent runs: every query on them lives here.
 */
import { and, eq, sql, count, desc, type SQL } from "drizzle-orm";
import type { Db } from "../client";
import { agentRuns, taskSets, tasks, type TaskRow } from "../schema/index";

export type TaskValues = Omit<typeof tasks.$inferInsert, "id" | "taskSetId" | "createdAt">;
export type RunValues = Omit<typeof agentRuns.$inferInsert, "id" | "createdAt">;
export type UpsertResult = "created" | "updated" | "unchanged";

export function ensureTaskSet(db: Db, v: { name: string; benchmark: string; description?: string | null }): number {
  const found = db.select({ id: taskSets.id }).from(taskSets).where(eq(taskSets.name, v.name)).get();
  if (found) return found.id;
  return db
    .insert(taskSets)
    .values({ name: v.name, benchmark: v.benchmark, description: v.description ?? null })
    .returning({ id: taskSets.id })
    .get().id;
}

export function findTask(db: Db, taskSetId: number, externalId: string): TaskRow | undefined {
  return db
    .select()
    .from(tasks)
    .where(and(eq(tasks.taskSetId, taskSetId), eq(tasks.externalId, externalId)))
    .get();
}

/** Inserts or replaces a task definition (task files are authoritative). */
export function upsertTask(db: Db, taskSetId: number, v: TaskValues): { id: number; result: UpsertResult } {
  const existing = findTask(db, taskSetId, v.externalId);
  if (!existing) {
    const id = db.insert(tasks).values({ ...v, taskSetId }).returning({ id: tasks.id }).get().id;
    return { id, result: "created" };
  }
  if (existing.contentHash === v.contentHash) return { id: existing.id, result: "unchanged" };
  db.update(tasks).set(v).where(eq(tasks.id, existing.id)).run();
  return { id: existing.id, result: "updated" };
}

/**
 * A task seen only through a trajectory: created if unknown, never overwrites what a task file already said
 * (a trajectory knows less about its task than the benchmark's task file does).
 */
export function ensureTask(db: Db, taskSetId: number, v: TaskValues): number {
  const existing = findTask(db, taskSetId, v.externalId);
  if (existing) return existing.id;
  return db.insert(tasks).values({ ...v, taskSetId }).returning({ id: tasks.id }).get().id;
}

export function upsertRun(db: Db, v: RunValues): number {
  const existing = db.select().from(agentRuns).where(eq(agentRuns.runKey, v.runKey)).get();
  if (!existing) return db.insert(agentRuns).values(v).returning({ id: agentRuns.id }).get().id;
  if (JSON.stringify([existing.name, existing.agentName, existing.model, existing.sourceSystem, existing.config]) !==
      JSON.stringify([v.name, v.agentName, v.model ?? null, v.sourceSystem, v.config ?? null])) {
    db.update(agentRuns)
      .set({ name: v.name, agentName: v.agentName, model: v.model, sourceSystem: v.sourceSystem, config: v.config })
      .where(eq(agentRuns.id, existing.id))
      .run();
  }
  return existing.id;
}

export function getRun(db: Db, id: number) {
  return db.select().from(agentRuns).where(eq(agentRuns.id, id)).get();
}

export function getTask(db: Db, id: number) {
  return db
    .select({ task: tasks, taskSet: taskSets })
    .from(tasks)
    .innerJoin(taskSets, eq(taskSets.id, tasks.taskSetId))
    .where(eq(tasks.id, id))
    .get();
}

export function countTasksAndSets(db: Db): { taskSets: number; tasks: number; runs: number } {
  const ts = db.select({ n: count() }).from(taskSets).get()!.n;
  const t = db.select({ n: count() }).from(tasks).get()!.n;
  const r = db.select({ n: count() }).from(agentRuns).get()!.n;
  return { taskSets: ts, tasks: t, runs: r };
}

export function listTaskSets(db: Db) {
  return db
    .select({
      id: taskSets.id,
      name: taskSets.name,
      benchmark: taskSets.benchmark,
      // Aliased by hand: drizzle leaves a one-table select's columns unqualified, and an unqualified "id" in this
      // subquery would be the task's own.
      taskCount: sql<number>`(select count(*) from tasks t where t.task_set_id = "task_sets"."id")`,
    })
    .from(taskSets)
    .orderBy(taskSets.name)
    .all();
}

export function listRuns(db: Db) {
  return db.select().from(agentRuns).orderBy(agentRuns.createdAt).all();
}

// ---- Read models for the task-set, task and run pages ----

export function getTaskSet(db: Db, id: number) {
  return db.select().from(taskSets).where(eq(taskSets.id, id)).get();
}

// Correlated subqueries name their tables explicitly: in a single-table select drizzle renders columns without
// the table prefix, which inside a subquery would silently bind to the inner table.

/** Every task set with how many tasks it holds, how many trajectories ran on them, and by how many runs. */
export function listTaskSetSummaries(db: Db) {
  return db
    .select({
      id: taskSets.id,
      name: taskSets.name,
      benchmark: taskSets.benchmark,
      description: taskSets.description,
      createdAt: taskSets.createdAt,
      taskCount: sql<number>`(select count(*) from tasks t where t.task_set_id = task_sets.id)`,
      trajectoryCount: sql<number>`(select count(*) from trajectories tr join tasks t on t.id = tr.task_id where t.task_set_id = task_sets.id)`,
      answeredCount: sql<number>`(select count(*) from trajectories tr join tasks t on t.id = tr.task_id where t.task_set_id = task_sets.id and tr.outcome = 'answered')`,
      runCount: sql<number>`(select count(distinct tr.run_id) from trajectories tr join tasks t on t.id = tr.task_id where t.task_set_id = task_sets.id)`,
    })
    .from(taskSets)
    .orderBy(taskSets.name)
    .all();
}

export interface TaskPageQuery {
  q?: string;
  site?: string;
  offset: number;
  limit: number;
}

/** One page of a task set's tasks, each with its trajectory count, answered count and mean steps. */
export function listTasksOfSet(db: Db, taskSetId: number, page: TaskPageQuery) {
  const conds: SQL[] = [eq(tasks.taskSetId, taskSetId)];
  if (page.site) conds.push(eq(tasks.site, page.site));
  if (page.q && page.q.trim()) {
    const pattern = `%${page.q.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conds.push(sql`(${tasks.intent} like ${pattern} escape '\\' or ${tasks.externalId} like ${pattern} escape '\\')`);
  }
  const where = and(...conds);
  const rows = db
    .select({
      id: tasks.id,
      externalId: tasks.externalId,
      site: tasks.site,
      intent: tasks.intent,
      startUrl: tasks.startUrl,
      referenceCount: sql<number>`json_array_length(tasks.reference_answers)`,
      trajectoryCount: sql<number>`(select count(*) from trajectories tr where tr.task_id = tasks.id)`,
      answeredCount: sql<number>`(select count(*) from trajectories tr where tr.task_id = tasks.id and tr.outcome = 'answered')`,
      meanSteps: sql<number | null>`(select avg(tr.step_count) from trajectories tr where tr.task_id = tasks.id)`,
    })
    .from(tasks)
    .where(where)
    .orderBy(tasks.site, tasks.externalId)
    .limit(page.limit)
    .offset(page.offset)
    .all();
  const total = db.select({ n: count() }).from(tasks).where(where).get()!.n;
  return { rows, total };
}

/** Sites present in one task set. */
export function sitesOfSet(db: Db, taskSetId: number): string[] {
  return db
    .selectDistinct({ site: tasks.site })
    .from(tasks)
    .where(and(eq(tasks.taskSetId, taskSetId), sql`${tasks.site} is not null`))
    .orderBy(tasks.site)
    .all()
    .map((r) => r.site!);
}

/** Every agent run with its trajectory count, answered count, mean steps and the task sets it touched. */
export function listRunSummaries(db: Db) {
  return db
    .select({
      id: agentRuns.id,
      name: agentRuns.name,
      agentName: agentRuns.agentName,
      model: agentRuns.model,
      sourceSystem: agentRuns.sourceSystem,
      createdAt: agentRuns.createdAt,
      trajectoryCount: sql<number>`(select count(*) from trajectories tr where tr.run_id = agent_runs.id)`,
      answeredCount: sql<number>`(select count(*) from trajectories tr where tr.run_id = agent_runs.id and tr.outcome = 'answered')`,
      meanSteps: sql<number | null>`(select avg(tr.step_count) from trajectories tr where tr.run_id = agent_runs.id)`,
      taskSetNames: sql<string | null>`(select group_concat(name, ' · ') from (select distinct ts.name as name from trajectories tr join tasks t on t.id = tr.task_id join task_sets ts on ts.id = t.task_set_id where tr.run_id = agent_runs.id order by ts.name))`,
    })
    .from(agentRuns)
    .orderBy(desc(agentRuns.createdAt), desc(agentRuns.id))
    .all();
}
