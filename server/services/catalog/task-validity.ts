/**
 * The task validity ledger: researchers and admins flag a task (broken, outdated, ambiguous, wrong reference) or
 * clear it, each a revision kept with its reason, evidence, author and time. Analytics leave out the trajectories
 * of flagged tasks (server/services/analytics/dataset.ts). Like analytics, the ledger is closed to anyone labelling
 * blind: a flag such as "wrong reference" says something about the answer.
 */
import type { Db } from "../../../db/database";
import { getTask } from "../../../db/repositories/catalog";
import { insertTaskFlag, ledgerRows, taskFlagHistory, type TaskFlagRevision } from "../../../db/repositories/catalog/task-flags";
import { requireRole, type Actor } from "../../domain/access/actor";
import { ledgerCsv, type LedgerEntry, type TaskFlagInput } from "../../domain/catalog/task-validity";
import { NotFoundError } from "../../errors";
import { assertNotLabellingBlind } from "../access";

async function requireLedgerAccess(db: Db, actor: Actor, doing: string): Promise<void> {
  requireRole(actor, "researcher", doing);
  await assertNotLabellingBlind(db, actor.userId);
}

/** Writes a revision of a task's validity; returns the task's history with it. */
export async function flagTask(db: Db, actor: Actor, input: TaskFlagInput): Promise<TaskFlagRevision[]> {
  await requireLedgerAccess(db, actor, "flag tasks");
  if (!(await getTask(db, input.taskId))) throw new NotFoundError("task", input.taskId);
  await insertTaskFlag(db, {
    taskId: input.taskId,
    status: input.status,
    reason: input.reason,
    evidenceUrl: input.evidenceUrl ? input.evidenceUrl : null,
    userId: actor.userId,
    userName: actor.name,
  });
  return taskFlagHistory(db, input.taskId);
}

/** A task's revisions, oldest first; its state is the last one. */
export async function taskValidity(db: Db, actor: Actor, taskId: number): Promise<{ history: TaskFlagRevision[]; current: TaskFlagRevision | null }> {
  await requireLedgerAccess(db, actor, "see the task validity ledger");
  const history = await taskFlagHistory(db, taskId);
  return { history, current: history.at(-1) ?? null };
}

/** Every revision of the ledger, of one task set or benchmark family when asked. */
export async function taskValidityLedger(db: Db, filter: { taskSetId?: number; benchmark?: string } = {}): Promise<LedgerEntry[]> {
  return (await ledgerRows(db, filter)).map((r) => ({
    taskSet: r.taskSetName,
    benchmark: r.benchmark,
    taskId: r.taskId,
    externalId: r.externalId,
    revision: r.id,
    status: r.status,
    reason: r.reason,
    evidenceUrl: r.evidenceUrl,
    by: r.userName,
    at: r.createdAt.toISOString(),
    current: r.current,
  }));
}

/** The ledger as a download, for someone allowed to read it. */
export async function exportTaskValidityLedger(
  db: Db,
  actor: Actor,
  filter: { taskSetId?: number; benchmark?: string },
  format: "csv" | "json",
): Promise<{ body: string; filename: string; contentType: string }> {
  await requireLedgerAccess(db, actor, "export the task validity ledger");
  const entries = await taskValidityLedger(db, filter);
  const slug = (filter.benchmark ?? (filter.taskSetId !== undefined ? `set-${filter.taskSetId}` : "all")).replace(/[^A-Za-z0-9._-]+/g, "-");
  return format === "csv"
    ? { body: ledgerCsv(entries), filename: `task-validity-${slug}.csv`, contentType: "text/csv; charset=utf-8" }
    : { body: JSON.stringify(entries, null, 2), filename: `task-validity-${slug}.json`, contentType: "application/json" };
}
