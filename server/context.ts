/**
 * The services' view of one Verdict installation: its config, its database and its screenshot store.
 * The web server, the CLI, workers and tests all build one of these; nothing else reads the environment.
 */
import { getDatabase, openDatabase, type Db } from "../db/client";
import { closeDatabase } from "../db/database";
import { openPostgresDatabase, redactPostgresUrl } from "../db/postgres";
import { bindSecretBox } from "./auth/secret-box";
import { loadConfig, type VerdictConfig } from "./config";
import { ScreenshotStore } from "./storage/screenshot-store";

export interface AppContext {
  config: VerdictConfig;
  db: Db;
  store: ScreenshotStore;
}

/** Cached per process and database path (the web server and CLI use this). */
export function getAppContext(env: NodeJS.ProcessEnv = process.env): AppContext {
  const config = loadConfig(env);
  const db = config.postgresUrl
    ? sharedPostgres(config.postgresUrl)
    : getDatabase(config.dbPath, { busyTimeoutMs: config.busyTimeoutMs, migrationsDir: config.migrationsDir });
  bindSecretBox(db, config);
  return { config, db, store: new ScreenshotStore(config.dataDir, config.objectStorage) };
}

/** A fresh, uncached context (tests open throwaway databases with this). */
export function createAppContext(config: VerdictConfig): AppContext {
  const db = config.postgresUrl
    ? openPostgresDatabase(config.postgresUrl).db
    : openDatabase(config.dbPath, { busyTimeoutMs: config.busyTimeoutMs, migrationsDir: config.migrationsDir });
  // Stored judge keys are encrypted with a key derived from this installation's auth secret.
  bindSecretBox(db, config);
  return { config, db, store: new ScreenshotStore(config.dataDir, config.objectStorage) };
}

const globalForPostgres = globalThis as unknown as { verdictPostgres?: Map<string, Db> };

/** Where an installation's rows live, for messages: the SQLite file, or the PostgreSQL URL without its password. */
export function describeDatabase(config: Pick<VerdictConfig, "dbPath" | "postgresUrl">): string {
  return config.postgresUrl ? redactPostgresUrl(config.postgresUrl) : config.dbPath;
}

/**
 * Closes the PostgreSQL pools `getAppContext` opened, so a command-line process can end as soon as its work is done
 * (an open pool keeps Node running). The embedded SQLite connection needs no closing.
 */
export async function closeSharedDatabases(): Promise<void> {
  const pools = globalForPostgres.verdictPostgres;
  if (!pools) return;
  const open = [...pools.values()];
  pools.clear();
  // A queue on a pool (pg-boss's timers) stops before the pool ends: closeDatabase runs what registered to stop.
  await Promise.all(open.map((db) => closeDatabase(db)));
}

/** One connection pool per PostgreSQL URL per process (survives Next dev hot reloads). Migrating is a step of its own. */
function sharedPostgres(url: string): Db {
  globalForPostgres.verdictPostgres ??= new Map();
  let db = globalForPostgres.verdictPostgres.get(url);
  if (!db) {
    db = openPostgresDatabase(url).db;
    globalForPostgres.verdictPostgres.set(url, db);
  }
  return db;
}
