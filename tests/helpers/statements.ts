/**
 * The SQL a piece of application code really sends, and how each engine plans it: tests of "uses the index" run
 * the repository's own statements under EXPLAIN instead of a copy written in the test.
 *
 * `recordStatements(db, fn)` runs `fn` and returns every statement it issued with its parameters (SQLite: through
 * better-sqlite3's statements; PostgreSQL: through the node-postgres pool). `queryPlan(db, statement)` explains
 * one: SQLite's EXPLAIN QUERY PLAN details, or PostgreSQL's EXPLAIN with sequential scans disabled for the
 * session, so a small test table still shows whether an index can serve the query (a Seq Scan then means none can).
 */
import type pg from "pg";
import { dialectOf, sqliteClient, type Db } from "../../db/database";

export interface Statement {
  sql: string;
  params: unknown[];
}

interface SqliteStatementLike {
  source: string;
  all(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  run(...params: unknown[]): unknown;
}

function poolOf(db: Db): pg.Pool {
  return (db as unknown as { $client: pg.Pool }).$client;
}

export async function recordStatements(db: Db, fn: () => Promise<unknown>): Promise<Statement[]> {
  const seen: Statement[] = [];
  if (dialectOf(db) === "sqlite") {
    // Every statement of the connection shares one prototype; wrap its executing methods while fn runs.
    const proto = Object.getPrototypeOf(sqliteClient(db).prepare("select 1")) as SqliteStatementLike;
    const originals = { all: proto.all, get: proto.get, run: proto.run };
    for (const name of ["all", "get", "run"] as const) {
      proto[name] = function (this: SqliteStatementLike, ...params: unknown[]) {
        seen.push({ sql: this.source, params });
        return originals[name].apply(this, params);
      };
    }
    try {
      await fn();
    } finally {
      Object.assign(proto, originals);
    }
    return seen;
  }
  const pool = poolOf(db);
  const original = pool.query;
  pool.query = function (this: pg.Pool, ...args: unknown[]) {
    const [first, values] = args as [string | { text: string; values?: unknown[] }, unknown[] | undefined];
    if (typeof first === "string") seen.push({ sql: first, params: values ?? [] });
    else seen.push({ sql: first.text, params: first.values ?? values ?? [] });
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pool.query;
  try {
    await fn();
  } finally {
    pool.query = original;
  }
  return seen;
}

/** The plan's lines: SQLite's details, PostgreSQL's QUERY PLAN rows (index-capable paths preferred). */
export async function queryPlan(db: Db, statement: Statement): Promise<string[]> {
  if (dialectOf(db) === "sqlite") {
    const rows = sqliteClient(db)
      .prepare(`explain query plan ${statement.sql}`)
      .all(...statement.params) as { detail: string }[];
    return rows.map((r) => r.detail);
  }
  const client = await poolOf(db).connect();
  try {
    await client.query("set enable_seqscan = off");
    const result = await client.query<{ "QUERY PLAN": string }>(`explain ${statement.sql}`, statement.params);
    return result.rows.map((r) => r["QUERY PLAN"]);
  } finally {
    await client.query("reset enable_seqscan");
    client.release();
  }
}
