/**
 * Opening a database: one better-sqlite3 connection per path per process, pragmas set, migrations applied.
 *
 * Migrations run on every open (drizzle's migrator is synchronous and idempotent), so the app, the CLI,
 * the worker and every test see the same schema without a separate step.
 */
import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as schema from "./schema/index";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

function migrationsFolder(): string {
  // Works from source (tsx, vitest) and from Next's server bundle, where import.meta.url points elsewhere.
  const candidates = [
    process.env.VERDICT_MIGRATIONS_DIR,
    path.join(process.cwd(), "db", "migrations"),
    path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations"),
  ].filter((p): p is string => !!p);
  const found = candidates.find((p) => fs.existsSync(path.join(p, "meta", "_journal.json")));
  if (!found) throw new Error(`Cannot find the migrations folder (looked in ${candidates.join(", ")})`);
  return found;
}

export function openDatabase(file: string): Db {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  // The web server, the CLI and runner workers write from separate processes.
  sqlite.pragma("busy_timeout = 5000");
  const db = drizzle({ client: sqlite, schema }) as Db;
  migrate(db, { migrationsFolder: migrationsFolder() });
  return db;
}

const globalForDb = globalThis as unknown as { verdictDbs?: Map<string, Db> };

/** Process-wide cached connection for a path (survives Next dev hot reloads). */
export function getDatabase(file: string): Db {
  globalForDb.verdictDbs ??= new Map();
  const key = file === ":memory:" ? file : path.resolve(file);
  let db = globalForDb.verdictDbs.get(key);
  if (!db) {
    db = openDatabase(file);
    globalForDb.verdictDbs.set(key, db);
  }
  return db;
}

export { schema };
