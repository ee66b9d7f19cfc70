/**
 * The task validity ledger (db/schema/validity.ts): revisions are appended, never changed, and a task's state is its
 * newest revision. Written once for SQLite and PostgreSQL.
 */
import { and, asc, eq, inArray, max, ne, type SQL } from "drizzle-orm";
import { pickColumns, insertReturningId, tablesOf, type Db } from "../../database";

export interface TaskFlagRevision {
  id: number;
  taskId: number;
  status: string;
  reason: string;
  evidenceUrl: string | null;
  userName: string;
  createdAt: Date;
}

export interface LedgerRow extends TaskFlagRevision {
  externalId: string;
  taskSetId: number;
  taskSetName: string;
  benchmark: string;
  /** The task's newest revision: the one that decides whether it is flagged now. */
  current: boolean;
}

export async function insertTaskFlag(
  db: Db,
  v: { taskId: number; status: string; reason: string; evidenceUrl: string | null; userId: string | null; userName: string },
): Promise<number> {
  return insertReturningId(db, tablesOf(db).taskFlags, v);
}

const revisionColumns = (db: Db) => pickColumns(tablesOf(db).taskFlags, ["id", "taskId", "status", "reason", "evidenceUrl", "userName", "createdAt"]);

/** Every revision of one task, oldest first. */
export async function taskFlagHistory(db: Db, taskId: number): Promise<TaskFlagRevision[]> {
  const { taskFlags } = tablesOf(db);
  return db.select(revisionColumns(db)).from(taskFlags).where(eq(taskFlags.taskId, taskId)).orderBy(asc(taskFlags.id));
}

/** The newest revision's id of every task with one. */
function newestRevisions(db: Db) {
  const { taskFlags } = tablesOf(db);
  return db
    .select({ id: max(taskFlags.id) })
    .from(taskFlags)
    .groupBy(taskFlags.taskId);
}

/** Tasks whose newest revision flags them (anything but `valid`), with that revision's status. */
export async function flaggedTasks(db: Db): Promise<{ taskId: number; status: string }[]> {
  const { taskFlags } = tablesOf(db);
  return db
    .select({ taskId: taskFlags.taskId, status: taskFlags.status })
    .from(taskFlags)
    .where(and(inArray(taskFlags.id, newestRevisions(db)), ne(taskFlags.status, "valid")));
}

/** Current revisions of the given tasks (flagged or cleared), for the list and the player. */
export async function currentFlagsOf(db: Db, taskIds: readonly number[]): Promise<TaskFlagRevision[]> {
  if (!taskIds.length) return [];
  const { taskFlags } = tablesOf(db);
  return db
    .select(revisionColumns(db))
    .from(taskFlags)
    .where(and(inArray(taskFlags.id, newestRevisions(db)), inArray(taskFlags.taskId, [...taskIds])));
}

/** The ledger: every revision with its task, of one task set or benchmark family when asked, by task then revision. */
export async function ledgerRows(db: Db, filter: { taskSetId?: number; benchmark?: string } = {}): Promise<LedgerRow[]> {
  const { taskFlags, tasks, taskSets } = tablesOf(db);
  const where: SQL[] = [];
  if (filter.taskSetId !== undefined) where.push(eq(tasks.taskSetId, filter.taskSetId));
  if (filter.benchmark !== undefined) where.push(eq(taskSets.benchmark, filter.benchmark));
  const rows = await db
    .select({ ...revisionColumns(db), externalId: tasks.externalId, taskSetId: tasks.taskSetId, taskSetName: taskSets.name, benchmark: taskSets.benchmark })
    .from(taskFlags)
    .innerJoin(tasks, eq(tasks.id, taskFlags.taskId))
    .innerJoin(taskSets, eq(taskSets.id, tasks.taskSetId))
    .where(where.length ? and(...where) : undefined)
    .orderBy(asc(taskSets.name), asc(tasks.externalId), asc(taskFlags.id));
  const newest = new Map<number, number>();
  for (const r of rows) newest.set(r.taskId, r.id);
  return rows.map((r) => ({ ...r, current: newest.get(r.taskId) === r.id }));
}
