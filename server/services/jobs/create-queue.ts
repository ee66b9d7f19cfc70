/**
 * Which engine holds the jobs, by configuration: pg-boss on PostgreSQL when VERDICT_DATABASE_URL is a postgres://
 * URL, otherwise the queue in the installation's SQLite file (the default).
 *
 * It opens a queue of its own (and its own connections): for benches and tools. The app's services and workers
 * use the installation's queue on the database they already hold (queueFor in ./installation-queue.ts), which is
 * the same choice of engine.
 */
import { openDatabase } from "../../../db/client";
import { closeDatabase, type Db } from "../../../db/database";
import type { VerdictConfig } from "../../config";
import { DatabaseJobQueue } from "./database-queue";
import type { JobQueue } from "./job-queue";
import { openPgBossJobQueue } from "./pgboss-queue";

export async function createJobQueue(
  config: Pick<VerdictConfig, "dbPath" | "postgresUrl" | "migrationsDir">,
  options: { db?: Db; maxConnections?: number } = {},
): Promise<JobQueue> {
  if (config.postgresUrl) return openPgBossJobQueue(config.postgresUrl, { maxConnections: options.maxConnections });
  if (options.db) return new DatabaseJobQueue(options.db);
  const db = openDatabase(config.dbPath, { migrationsDir: config.migrationsDir });
  const queue = new DatabaseJobQueue(db);
  // The queue opened this connection, so closing the queue closes it.
  queue.close = () => closeDatabase(db);
  return queue;
}
