/**
 * Task sets, tasks and agent runs: every query on them lives here, written once for SQLite and PostgreSQL
 * (db/database.ts).
 */
import { and, asc, count, desc, eq, sql, type SQL } from "drizzle-orm";
import { first, rowBy, tablesOf, type Db } from "../database";
import { withTask } from "./trajectory-joins";
import type { agentRuns as agentRunsTable, AgentRunRow, TaskRow, TaskSetRow, tasks as tasksTable } from "../schema/index";

export type TaskValues = Omit<typeof tasksTable.$inferInsert, "id" | "taskSetId" | "createdAt">;
export type RunValues = Omit<typeof agentRunsTable.$inferInsert, "id" | "createdAt">;
export type UpsertResult = "created" | "updated" | "unchanged";

/** The task set of this name, created when it does not exist yet (two imports may race to create it). */
export async function ensureTaskSet(db: Db, v: { name: string; benchmark: string; description?: string | null }): Promise<number> {
  const { taskSets } = tablesOf(db);
  const byName = () => first(db.select({ id: taskSets.id }).from(taskSets).where(eq(taskSets.name, v.name)).limit(1));
  const found = await byName();
  if (found) return found.id;
  const [created] = await db
    .insert(taskSets)
    .values({ name: v.name, benchmark: v.benchmark, description: v.description ?? null })
    .onConflictDoNothing({ target: taskSets.name })
    .returning({ id: taskSets.id });
  return created?.id ?? (await byName())!.id;
}

export async function findTask(db: Db, taskSetId: number, externalId: string): Promise<TaskRow | undefined> {
  return rowBy(db, tablesOf(db).tasks, { taskSetId, externalId });
}

/** Inserts or replaces a task definition (task files are authoritative). */
export async function upsertTask(db: Db, taskSetId: number, v: TaskValues): Promise<{ id: number; result: UpsertResult }> {
  const { tasks } = tablesOf(db);
  const existing = await findTask(db, taskSetId, v.externalId);
  if (!existing) {
    const [created] = await db
      .insert(tasks)
      .values({ ...v, taskSetId })
      .returning({ id: tasks.id });
    return { id: created!.id, result: "created" };
  }
  if (existing.contentHash === v.contentHash) return { id: existing.id, result: "unchanged" };
  await db.update(tasks).set(v).where(eq(tasks.id, existing.id));
  return { id: existing.id, result: "updated" };
}

/**
 * A task seen only through a trajectory: created if unknown, never overwrites what a task file already said
 * (a trajectory knows less about its task than the benchmark's task file does). Says whether it was created.
 */
export async function ensureTaskCreated(db: Db, taskSetId: number, v: TaskValues): Promise<{ id: number; created: boolean }> {
  const { tasks } = tablesOf(db);
  const [created] = await db
    .insert(tasks)
    .values({ ...v, taskSetId })
    .onConflictDoNothing({ target: [tasks.taskSetId, tasks.externalId] })
    .returning({ id: tasks.id });
  if (created) return { id: created.id, created: true };
  return { id: (await findTask(db, taskSetId, v.externalId))!.id, created: false };
}

/** ensureTaskCreated's id alone. */
export async function ensureTask(db: Db, taskSetId: number, v: TaskValues): Promise<number> {
  return (await ensureTaskCreated(db, taskSetId, v)).id;
}

export async function upsertRun(db: Db, v: RunValues): Promise<number> {
  const { agentRuns } = tablesOf(db);
  const existing = await first(db.select().from(agentRuns).where(eq(agentRuns.runKey, v.runKey)).limit(1));
  if (!existing) {
    const [created] = await db.insert(agentRuns).values(v).returning({ id: agentRuns.id });
    return created!.id;
  }
  await updateRunIfChanged(db, existing, v);
  return existing.id;
}

/** Writes a run's name, agent, model, source and configuration when they differ from what is stored. */
async function updateRunIfChanged(db: Db, existing: AgentRunRow, v: Omit<RunValues, "runKey">): Promise<void> {
  const { agentRuns } = tablesOf(db);
  if (
    JSON.stringify([existing.name, existing.agentName, existing.model, existing.sourceSystem, existing.config]) !==
    JSON.stringify([v.name, v.agentName, v.model ?? null, v.sourceSystem, v.config ?? null])
  ) {
    await db
      .update(agentRuns)
      .set({ name: v.name, agentName: v.agentName, model: v.model, sourceSystem: v.sourceSystem, config: v.config })
      .where(eq(agentRuns.id, existing.id));
  }
}

/** The run stored under this key. */
export async function findRunByKey(db: Db, runKey: string): Promise<AgentRunRow | undefined> {
  return rowBy(db, tablesOf(db).agentRuns, { runKey });
}

/**
 * Creates a run under its key, or under "<key> #2", "#3"… when another run holds the key already (two runs whose
 * folders have the same name); the name gets the same mark so the two can be told apart in lists.
 */
export async function createRunWithFreeKey(db: Db, v: RunValues): Promise<number> {
  const { agentRuns } = tablesOf(db);
  for (let n = 1; ; n++) {
    const runKey = n === 1 ? v.runKey : `${v.runKey} #${n}`;
    if (await findRunByKey(db, runKey)) continue;
    const [created] = await db
      .insert(agentRuns)
      .values({ ...v, runKey, name: n === 1 ? v.name : `${v.name} #${n}` })
      .returning({ id: agentRuns.id });
    return created!.id;
  }
}

/** Updates what an import reads about a run (name, agent, model, configuration) when it changed. */
export async function refreshRunDetails(db: Db, id: number, v: Omit<RunValues, "runKey">): Promise<void> {
  const existing = await getRun(db, id);
  if (existing) await updateRunIfChanged(db, existing, v);
}

/** Renames a run (its key stays). */
export async function renameRun(db: Db, id: number, name: string): Promise<void> {
  const { agentRuns } = tablesOf(db);
  await db.update(agentRuns).set({ name }).where(eq(agentRuns.id, id));
}

/** Removes a run that no trajectory belongs to any more; says whether it did. */
export async function deleteRunIfEmpty(db: Db, id: number): Promise<boolean> {
  const { agentRuns, trajectories } = tablesOf(db);
  const [{ n }] = (await db.select({ n: count() }).from(trajectories).where(eq(trajectories.runId, id))) as [{ n: number }];
  if (Number(n) > 0) return false;
  await db.delete(agentRuns).where(eq(agentRuns.id, id));
  return true;
}

export async function getRun(db: Db, id: number): Promise<AgentRunRow | undefined> {
  return rowBy(db, tablesOf(db).agentRuns, { id });
}

export async function getTask(db: Db, id: number): Promise<{ task: TaskRow; taskSet: TaskSetRow } | undefined> {
  const { tasks, taskSets } = tablesOf(db);
  return first(
    db.select({ task: tasks, taskSet: taskSets }).from(tasks).innerJoin(taskSets, eq(taskSets.id, tasks.taskSetId)).where(eq(tasks.id, id)).limit(1),
  );
}

export async function countTasksAndSets(db: Db): Promise<{ taskSets: number; tasks: number; runs: number }> {
  const { taskSets, tasks, agentRuns } = tablesOf(db);
  const [ts, t, r] = await Promise.all([
    db.select({ n: count() }).from(taskSets),
    db.select({ n: count() }).from(tasks),
    db.select({ n: count() }).from(agentRuns),
  ]);
  return { taskSets: ts[0]?.n ?? 0, tasks: t[0]?.n ?? 0, runs: r[0]?.n ?? 0 };
}

/** A count(*) read as a number on both engines (PostgreSQL returns bigint counts as strings). */
const countOf = (query: SQL) => sql<number>`(${query})`.mapWith(Number);

/** What every list of task sets shows of one: its id, name and benchmark, and how many tasks it holds. */
function taskSetHead(db: Db) {
  const { taskSets } = tablesOf(db);
  return {
    id: taskSets.id,
    name: taskSets.name,
    benchmark: taskSets.benchmark,
    // Aliased by hand: drizzle leaves a one-table select's columns unqualified, and an unqualified "id" in this
    // subquery would be the task's own.
    taskCount: countOf(sql`select count(*) from tasks t where t.task_set_id = "task_sets"."id"`),
  };
}

export async function listTaskSets(db: Db) {
  const { taskSets } = tablesOf(db);
  return db.select(taskSetHead(db)).from(taskSets).orderBy(taskSets.name);
}

export async function listRuns(db: Db): Promise<AgentRunRow[]> {
  const { agentRuns } = tablesOf(db);
  return db.select().from(agentRuns).orderBy(agentRuns.createdAt, agentRuns.id);
}

// ---- Read models for the task-set, task and run pages ----

export async function getTaskSet(db: Db, id: number): Promise<TaskSetRow | undefined> {
  return rowBy(db, tablesOf(db).taskSets, { id });
}

// Correlated subqueries name their tables explicitly: in a single-table select drizzle renders columns without
// the table prefix, which inside a subquery would silently bind to the inner table.

/** Every task set with how many tasks it holds, how many trajectories ran on them, and by how many runs. */
export async function listTaskSetSummaries(db: Db) {
  const { taskSets } = tablesOf(db);
  return db
    .select({
      ...taskSetHead(db),
      description: taskSets.description,
      createdAt: taskSets.createdAt,
      trajectoryCount: countOf(sql`select count(*) from trajectories tr join tasks t on t.id = tr.task_id where t.task_set_id = task_sets.id`),
      answeredCount: countOf(
        sql`select count(*) from trajectories tr join tasks t on t.id = tr.task_id where t.task_set_id = task_sets.id and tr.outcome = 'answered'`,
      ),
      runCount: countOf(sql`select count(distinct tr.run_id) from trajectories tr join tasks t on t.id = tr.task_id where t.task_set_id = task_sets.id`),
    })
    .from(taskSets)
    .orderBy(taskSets.name);
}

export interface TaskPageQuery {
  q?: string;
  site?: string;
  offset: number;
  limit: number;
}

/** One page of a task set's tasks, each with its trajectory count, answered count and mean steps. */
export async function listTasksOfSet(db: Db, taskSetId: number, page: TaskPageQuery) {
  const { tasks } = tablesOf(db);
  const conds: SQL[] = [eq(tasks.taskSetId, taskSetId)];
  if (page.site) conds.push(eq(tasks.site, page.site));
  if (page.q && page.q.trim()) {
    const pattern = `%${page.q.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    // Case-insensitive on both engines (PostgreSQL's LIKE is case-sensitive).
    conds.push(sql`(lower(${tasks.intent}) like lower(${pattern}) escape '\\' or lower(${tasks.externalId}) like lower(${pattern}) escape '\\')`);
  }
  const where = and(...conds);
  const rowsQuery = db
    .select({
      id: tasks.id,
      externalId: tasks.externalId,
      site: tasks.site,
      intent: tasks.intent,
      startUrl: tasks.startUrl,
      referenceCount: sql<number>`json_array_length(tasks.reference_answers)`.mapWith(Number),
      trajectoryCount: countOf(sql`select count(*) from trajectories tr where tr.task_id = tasks.id`),
      answeredCount: countOf(sql`select count(*) from trajectories tr where tr.task_id = tasks.id and tr.outcome = 'answered'`),
      meanSteps: sql<number | null>`(select avg(tr.step_count) from trajectories tr where tr.task_id = tasks.id)`.mapWith(Number),
    })
    .from(tasks)
    .where(where)
    .orderBy(sql`${tasks.site} nulls first`, asc(tasks.externalId))
    .limit(page.limit)
    .offset(page.offset);
  const [rows, totalRows] = await Promise.all([rowsQuery, db.select({ n: count() }).from(tasks).where(where)]);
  return { rows, total: totalRows[0]?.n ?? 0 };
}

/** Sites present in one task set. */
export async function sitesOfSet(db: Db, taskSetId: number): Promise<string[]> {
  const { tasks } = tablesOf(db);
  const rows = await db
    .selectDistinct({ site: tasks.site })
    .from(tasks)
    .where(and(eq(tasks.taskSetId, taskSetId), sql`${tasks.site} is not null`))
    .orderBy(tasks.site);
  return rows.map((r) => r.site!);
}

/** Every agent run with its trajectory count, answered count, mean steps and the task sets it touched. */
export async function listRunSummaries(db: Db) {
  const { agentRuns, trajectories, tasks, taskSets } = tablesOf(db);
  const runsQuery = db
    .select({
      id: agentRuns.id,
      name: agentRuns.name,
      agentName: agentRuns.agentName,
      model: agentRuns.model,
      sourceSystem: agentRuns.sourceSystem,
      createdAt: agentRuns.createdAt,
      trajectoryCount: countOf(sql`select count(*) from trajectories tr where tr.run_id = agent_runs.id`),
      answeredCount: countOf(sql`select count(*) from trajectories tr where tr.run_id = agent_runs.id and tr.outcome = 'answered'`),
      meanSteps: sql<number | null>`(select avg(tr.step_count) from trajectories tr where tr.run_id = agent_runs.id)`.mapWith(Number),
    })
    .from(agentRuns)
    .orderBy(desc(agentRuns.createdAt), desc(agentRuns.id));
  // The task sets each run touched, in name order, joined in JavaScript: the engines' string aggregates do not
  // promise an order.
  const setsQuery = withTask(db, db.selectDistinct({ runId: trajectories.runId, name: taskSets.name }).from(trajectories).$dynamic())
    .innerJoin(taskSets, eq(taskSets.id, tasks.taskSetId))
    .orderBy(trajectories.runId, taskSets.name);
  const [runs, sets] = await Promise.all([runsQuery, setsQuery]);
  const namesByRun = new Map<number, string[]>();
  for (const s of sets) {
    const names = namesByRun.get(s.runId) ?? [];
    names.push(s.name);
    namesByRun.set(s.runId, names);
  }
  return runs.map((r) => ({ ...r, taskSetNames: namesByRun.get(r.id)?.join(" · ") ?? null }));
}
