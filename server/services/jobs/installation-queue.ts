/**
 * The installation's job queue: the one way services and workers reach jobs. On the embedded SQLite database it is
 * the queue in that file (DatabaseJobQueue); on PostgreSQL it is pg-boss (PgBossJobQueue), so every job a judge
 * batch, a live run or an import enqueues gets its pg-boss delivery, and every worker process — the web servers'
 * background runs and `npm run worker` alike — takes jobs the same way.
 *
 * One queue per database per process: pg-boss keeps timers and a schema check per instance, so a web server must
 * not start one per request. Closing the database (closeDatabase) closes its queue first; closeQueueFor stops the
 * queue alone, leaving the database open.
 */
import { dialectOf, onDatabaseClose, type Db } from "../../../db/database";
import { DatabaseJobQueue } from "./database-queue";
import type { JobQueue } from "./job-queue";
import { PgBossJobQueue } from "./pgboss-queue";

/**
 * Kept on the global object: the web server's bundles may load this module more than once while the database
 * objects are shared process-wide, and two pg-boss instances on one pool would both run maintenance.
 */
const shared = globalThis as unknown as { verdictInstallationQueues?: WeakMap<Db, Promise<JobQueue>> };
const queues = (shared.verdictInstallationQueues ??= new WeakMap<Db, Promise<JobQueue>>());

/** The queue of the installation whose database is `source` (a Db, or a context carrying one). */
export async function queueFor(source: Db | { db: Db }): Promise<JobQueue> {
  const db = "db" in source && !("select" in source) ? (source as { db: Db }).db : (source as Db);
  let queue = queues.get(db);
  if (!queue) {
    queue = dialectOf(db) === "postgres" ? new PgBossJobQueue({ db }).start() : Promise.resolve(new DatabaseJobQueue(db));
    // A failed start (database unreachable) is not remembered: the next call tries again.
    queue.catch(() => queues.delete(db));
    queues.set(db, queue);
    onDatabaseClose(db, () => closeQueueFor(db));
  }
  return queue;
}

/** Stops the queue's background work (pg-boss's maintenance) before its database closes; the database stays open. */
export async function closeQueueFor(db: Db): Promise<void> {
  const queue = queues.get(db);
  if (!queue) return;
  queues.delete(db);
  await (await queue.catch(() => null))?.close();
}
