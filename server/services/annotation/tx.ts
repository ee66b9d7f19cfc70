/**
 * Annotation writes run in IMMEDIATE transactions: the write lock is taken at BEGIN, so a read-then-write
 * (count coverage, then reserve; look up an idempotency key, then insert) cannot interleave with another
 * process's. Inside one process better-sqlite3 is synchronous, so the callback is never interleaved either.
 */
import type { Db } from "../../../db/client";

export function inTransaction<T>(db: Db, fn: () => T): T {
  if (db.$client.inTransaction) return db.$client.transaction(fn)();
  return db.$client.transaction(fn).immediate();
}
