/**
 * Opening a PostgreSQL database (the team deployment's engine, chosen by VERDICT_DATABASE_URL=postgres://…):
 * a connection pool, drizzle over it with the PostgreSQL schema (db/schema-pg), and the PostgreSQL migrations
 * (db/migrations-pg).
 *
 * Unlike SQLite, migrating is a step of its own (`npm run cli -- migrate`), asynchronous, and guarded by an advisory
 * lock: several web servers and workers may start at once against one database, and exactly one of them must apply
 * a pending migration while the others wait for it.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import * as schema from "./schema-pg/index";
import { registerPostgres, type Db } from "./database";

export type PgDb = NodePgDatabase<typeof schema> & { $client: pg.Pool };

/** The advisory lock Verdict's migrations hold; any fixed number other software on the database is unlikely to use ("vrdc" in ASCII). */
const MIGRATION_LOCK_KEY = 0x7672_6463;

/** True for the URLs node-postgres accepts (postgres:// and postgresql://). */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value.trim());
}

/** The URL with its password replaced, for messages and logs. */
export function redactPostgresUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "postgres://…";
  }
}

export function pgMigrationsFolder(): string {
  // Works from source (tsx, vitest) and from a bundle, where import.meta.url points elsewhere.
  const candidates = [path.join(process.cwd(), "db", "migrations-pg"), path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations-pg")];
  const found = candidates.find((p) => fs.existsSync(path.join(p, "meta", "_journal.json")));
  if (!found) throw new Error(`Cannot find the PostgreSQL migrations folder (looked in ${candidates.join(", ")})`);
  return found;
}

export interface PostgresOptions {
  /** Most connections this process opens (node-postgres default 10). */
  maxConnections?: number;
}

/** A pool on `url`; nothing connects until the first query. Close it with `closePostgres`. */
export function openPostgres(url: string, options: PostgresOptions = {}): PgDb {
  if (!isPostgresUrl(url))
    throw new Error(`VERDICT_DATABASE_URL: expected postgres://user:password@host:port/database, got ${JSON.stringify(redactPostgresUrl(url))}`);
  const pool = new pg.Pool({ connectionString: url, max: options.maxConnections });
  // An idle connection dropped by the server (restart, failover) must not crash the process; the pool replaces it.
  pool.on("error", (e) => console.error(`PostgreSQL connection lost (${redactPostgresUrl(url)}): ${e.message}`));
  return drizzle({ client: pool, schema }) as PgDb;
}

/** Brings the database up to date; safe to call from several processes at once. */
export async function migratePostgres(db: PgDb): Promise<void> {
  const client = await db.$client.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    try {
      await migrate(drizzle({ client, schema }), { migrationsFolder: pgMigrationsFolder() });
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}

export async function closePostgres(db: PgDb): Promise<void> {
  await db.$client.end();
}

export { schema as pgSchema };

/**
 * The application's view of a PostgreSQL database: the same `Db` the repositories use on SQLite
 * (see db/database.ts). Not migrated here: `migratePostgres(raw)` or `npm run cli -- migrate` does that.
 */
export function openPostgresDatabase(url: string, options: PostgresOptions = {}): { db: Db; raw: PgDb } {
  const raw = openPostgres(url, options);
  return { db: registerPostgres(raw, raw.$client), raw };
}
