/**
 * Which engine holds the jobs, by configuration: pg-boss on PostgreSQL when VERDICT_DATABASE_URL is a postgres://
 * URL, otherwise the SQLite queue in the installation's file (the default).
 *
 * Preview: the app's own workers (judge batches, live runs, imports) still use the SQLite queue, because the data
 * their handlers read and write is still served from SQLite. This factory is for workers and tools that run on
 * PostgreSQL already.
 */
import { openDatabase, type Db } from "../../../db/client";
import type { VerdictConfig } from "../../config";
import type { JobQueue } from "./job-queue";
import { openPgBossJobQueue } from "./pgboss-queue";
import { SqliteJobQueue } from "./sqlite-queue";

export async function createJobQueue(config: Pick<VerdictConfig, "dbPath" | "postgresUrl">, options: { db?: Db; maxConnections?: number } = {}): Promise<JobQueue> {
  if (config.postgresUrl) return openPgBossJobQueue(config.postgresUrl, { maxConnections: options.maxConnections });
  if (options.db) return new SqliteJobQueue(options.db);
  const db = openDatabase(config.dbPath);
  const queue = new SqliteJobQueue(db);
  // The queue opened this connection, so closing the queue closes it.
  queue.close = async () => {
    db.$client.close();
  };
  return queue;
}
