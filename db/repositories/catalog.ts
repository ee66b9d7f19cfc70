/**
 * Task sets, tasks and agent runs: every query on them lives here.
 */
import { and, eq, sql, count } from "drizzle-orm";
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
      taskCount: sql<number>`(select count(*) from ${tasks} where ${tasks.taskSetId} = ${taskSets.id})`,
    })
    .from(taskSets)
    .orderBy(taskSets.name)
    .all();
}

export function listRuns(db: Db) {
  return db.select().from(agentRuns).orderBy(agentRuns.createdAt).all();
}
