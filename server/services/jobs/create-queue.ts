/**
 * Which engine holds the jobs, by configuration: pg-boss on PostgreSQL when VERDICT_DATABASE_URL is a postgres://
 * URL, otherwise the queue in the installation's SQLite file (the default).
 *
 * The app's own workers (judge batches, live runs, imports) work on the queue in the installation's database
 * (DatabaseJobQueue over AppContext.db), SQLite or PostgreSQL alike. This factory is for workers and tools that
 * want pg-boss's deliveries on PostgreSQL.
 */
import { openDatabase } from "../../../db/client";
import { closeDatabase, type Db } from "../../../db/database";
import type { VerdictConfig } from "../../config";
import { DatabaseJobQueue } from "./database-queue";
import type { JobQueue } from "./job-queue";
import { openPgBossJobQueue } from "./pgboss-queue";

export async function createJobQueue(config: Pick<VerdictConfig, "dbPath" | "postgresUrl">, options: { db?: Db; maxConnections?: number } = {}): Promise<JobQueue> {
  if (config.postgresUrl) return openPgBossJobQueue(config.postgresUrl, { maxConnections: options.maxConnections });
  if (options.db) return new DatabaseJobQueue(options.db);
  const db = openDatabase(config.dbPath);
  const queue = new DatabaseJobQueue(db);
  // The queue opened this connection, so closing the queue closes it.
  queue.close = () => closeDatabase(db);
  return queue;
}
