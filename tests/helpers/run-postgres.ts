/**
 * The PostgreSQL server of the whole vitest run (tests/helpers/postgres-global-setup.ts), as seen from a test file:
 * databases created on it are named per process so files running side by side never collide, and dropped when the
 * file is done with them. When the run has no such server (another config, or a run that does not cover
 * PostgreSQL), a file falls back to a throwaway server of its own.
 */
import crypto from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { startPostgres, type TestPostgres } from "./postgres";

export interface RunPostgres {
  /** postgres:// URL of the server's default database. */
  url: string;
  port: number;
  /** A database already migrated, to copy with `create database … template`. */
  template: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    postgres: RunPostgres | null;
  }
}

/** The run's server, or null when the global setup started none. */
export function runPostgres(): RunPostgres | null {
  return inject("postgres") ?? null;
}

const prefix = `verdict_${process.pid}_${crypto.randomBytes(3).toString("hex")}`;
let counter = 0;

/** A database name no other file of the run uses. */
export function uniqueDatabaseName(kind = "db"): string {
  return `${prefix}_${kind}_${++counter}`;
}

/** Runs one statement on the server's default database. */
export async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** URL of `name` on the server at `serverUrl`. */
export function databaseUrl(serverUrl: string, name: string): string {
  return serverUrl.replace(/\/[^/]*$/, `/${name}`);
}

/** Drops a database even if a pool forgot to close (the test is over either way). */
export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await adminQuery(serverUrl, `drop database if exists "${name}" with (force)`);
}

/**
 * A server for a file that creates its own databases (`createDatabase()`, `port`, `url`): the run's server when
 * there is one (its `stop()` drops this file's databases and leaves the server running), else a throwaway server
 * of its own (`stop()` stops it).
 */
export async function testPostgresServer(): Promise<TestPostgres> {
  const run = runPostgres();
  if (!run) return startPostgres();
  const mine: string[] = [];
  return {
    url: run.url,
    port: run.port,
    dir: "",
    async createDatabase(name = uniqueDatabaseName()) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`createDatabase: "${name}" is not a plain lower-case identifier`);
      await adminQuery(run.url, `create database "${name}"`);
      mine.push(name);
      return databaseUrl(run.url, name);
    },
    async stop() {
      for (const name of mine.splice(0)) await dropDatabase(run.url, name);
    },
  };
}
