/**
 * Opening a database: one better-sqlite3 connection per path per process, pragmas set, migrations applied.
 *
 * Migrations run on every open (drizzle's migrator is synchronous and idempotent), so the app, the CLI,
 * the worker and every test see the same schema without a separate step.
 */
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as schema from "./schema/index";
import { registerSqlite, type Db } from "./database";

export type { Db } from "./database";

function migrationsFolder(configured: string | undefined): string {
  // Works from source (tsx, vitest) and from Next's server bundle, where import.meta.url points elsewhere.
  const candidates = [configured, path.join(process.cwd(), "db", "migrations"), path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations")].filter(
    (p): p is string => !!p,
  );
  const found = candidates.find((p) => fs.existsSync(path.join(p, "meta", "_journal.json")));
  if (!found) throw new Error(`Cannot find the migrations folder (looked in ${candidates.join(", ")})`);
  return found;
}

/** How long a statement waits for another process's write lock before failing with SQLITE_BUSY. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

export interface OpenOptions {
  /**
   * better-sqlite3 waits synchronously, so in the web server a long wait freezes every request; the web server
   * uses a short wait and answers "busy, try again" instead (see server/config.ts).
   */
  busyTimeoutMs?: number;
  /** Where the migrations are when they are not under db/ (the configuration's VERDICT_MIGRATIONS_DIR). */
  migrationsDir?: string;
}

/**
 * The database holds password hashes, session tokens and stored API keys: its folder is made 0700 when Verdict
 * creates it, and the database files (with the WAL and shared-memory files) are readable by their owner only.
 */
function restrictFileModes(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      fs.chmodSync(f, 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT" && (e as NodeJS.ErrnoException).code !== "EPERM") throw e;
    }
  }
}

export function openDatabase(file: string, options: OpenOptions = {}): Db {
  if (file !== ":memory:") {
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
    // Created here with no access for others; an existing file is tightened below.
    if (!fs.existsSync(file)) fs.closeSync(fs.openSync(file, "a", 0o600));
  }
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  // The web server, the CLI and runner workers write from separate processes; migrations may wait the full time.
  sqlite.pragma(`busy_timeout = ${DEFAULT_BUSY_TIMEOUT_MS}`);
  // drizzle's migrator is synchronous on better-sqlite3; the application then uses the asynchronous surface.
  migrate(drizzle({ client: sqlite, schema }), { migrationsFolder: migrationsFolder(options.migrationsDir) });
  const db = registerSqlite(sqlite);
  if (file !== ":memory:") restrictFileModes(path.resolve(file));
  if (options.busyTimeoutMs !== undefined) sqlite.pragma(`busy_timeout = ${Math.max(0, Math.round(options.busyTimeoutMs))}`);
  return db;
}

/** True when an error (or one it wraps) is SQLite saying another connection holds the lock. */
export function isDatabaseBusy(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * True when an error (or one it wraps) is the database refusing a write because it is read-only: a SQLite file opened
 * read-only (or with query_only), or a PostgreSQL hot standby or read-only transaction (SQLSTATE 25006).
 */
export function isDatabaseReadOnly(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (code.startsWith("SQLITE_READONLY") || code === "25006")) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

const globalForDb = globalThis as unknown as { verdictDbs?: Map<string, Db> };

/** Process-wide cached connection for a path (survives Next dev hot reloads). */
export function getDatabase(file: string, options: OpenOptions = {}): Db {
  globalForDb.verdictDbs ??= new Map();
  const key = file === ":memory:" ? file : path.resolve(file);
  let db = globalForDb.verdictDbs.get(key);
  if (!db) {
    db = openDatabase(file, options);
    globalForDb.verdictDbs.set(key, db);
  }
  return db;
}

export { schema };
