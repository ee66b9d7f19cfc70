/**
 * One database, two engines. The embedded default is a SQLite file (better-sqlite3); a team deployment uses
 * PostgreSQL (VERDICT_DATABASE_URL=postgres://…). Repositories are written once, against this module:
 *
 * - Every query is awaited (`await db.select()…`, `await db.insert()…`); nothing uses SQLite's synchronous
 *   executors (`.all()`, `.get()`, `.run()`, `.values()` on a query, `db.all(sql)`…), which PostgreSQL lacks.
 * - Tables come from `tablesOf(db)`, which gives the SQLite or the PostgreSQL table objects. The two schemas
 *   (db/schema, db/schema-pg) read back in the same JavaScript shapes, so the SQLite types describe both.
 * - A table's row by its key is `rowBy(db, table, { id })` (changed or deleted by key: `updateBy`, `deleteBy`); any
 *   other single row is `first(query.limit(1))`; rows changed are `affectedRows(result)`; hand-written SQL goes
 *   through `rawAll` / `rawGet` / `rawRun`, and the few expressions the dialects spell differently through
 *   `sqlFor(db)`.
 * - Work that must not be seen half-done runs in `withTransaction(db, async () => …)`. Inside it, the same `db`
 *   object (and every repository given it) takes part in the transaction: there is no separate `tx` to thread
 *   through, so a helper that forgets to pass one cannot escape the transaction.
 *
 * Transactions: on SQLite one connection serves the whole process, so a transaction is exclusive within the
 * process (others queue behind it) and takes the write lock at BEGIN (IMMEDIATE), as the single-writer model has
 * always assumed. On PostgreSQL a transaction is SERIALIZABLE and is retried when the server reports a
 * serialization failure or deadlock, so the same read-then-write code (count, then reserve; look up a key, then
 * insert) keeps its meaning with many servers writing at once. A transaction's callback may therefore run more
 * than once on PostgreSQL: it must only touch the database.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type BetterSqlite3 from "better-sqlite3";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import { drizzle as drizzleSqliteProxy, type SqliteRemoteDatabase } from "drizzle-orm/sqlite-proxy";
import { SQLiteSyncDialect, type AnySQLiteColumn, type SQLiteInsertValue, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { DrizzleQueryError, QueryPromise, and, eq, getTableColumns, getTableName, sql, type SQL, type SQLWrapper, type Table } from "drizzle-orm";
import type pg from "pg";
import * as sqliteSchema from "./schema/index";
import * as pgSchema from "./schema-pg/index";

/**
 * drizzle reports every failed statement as "Failed query: <SQL> params: <values>". That text reaches users in
 * import reports and API errors, where the SQL means nothing and the values may be private (label text, emails),
 * and it hides the engine's code (SQLITE_BUSY, 23505) that callers test. Awaiting a query therefore rethrows the
 * engine's own error, with the statement kept on it as `query` for logs.
 */
const ENGINE_ERRORS = Symbol.for("verdict.engineErrors");
const queryPromise = QueryPromise.prototype as unknown as Record<symbol, boolean> & { then: (this: unknown, ok?: unknown, fail?: unknown) => Promise<unknown> };
if (!queryPromise[ENGINE_ERRORS]) {
  const then = queryPromise.then;
  queryPromise.then = function (onFulfilled?: unknown, onRejected?: unknown) {
    return then.call(this, onFulfilled, (e: unknown) => {
      const error = engineError(e);
      if (typeof onRejected === "function") return (onRejected as (e: unknown) => unknown)(error);
      throw error;
    });
  };
  queryPromise[ENGINE_ERRORS] = true;
}

/** The driver's error behind drizzle's wrapper (see above); other errors unchanged. */
export function engineError(e: unknown): unknown {
  if (!(e instanceof DrizzleQueryError) || !(e.cause instanceof Error)) return e;
  Object.defineProperty(e.cause, "query", { value: e.query, enumerable: false, configurable: true });
  return e.cause;
}

export type Dialect = "sqlite" | "postgres";

/**
 * The query surface repositories write against: drizzle's asynchronous SQLite database, typed with the SQLite
 * tables because the two schemas share their JavaScript shapes; on PostgreSQL the object is drizzle's
 * node-postgres database.
 */
export type Db = SqliteRemoteDatabase<typeof sqliteSchema>;

/** The tables of either dialect, typed as the SQLite ones (see `Db`). */
export type Tables = typeof sqliteSchema;

interface DbInfo {
  dialect: Dialect;
  tables: Tables;
  /** The engine's drizzle object (asynchronous over better-sqlite3, or over a node-postgres pool). */
  base: SqliteRemoteDatabase<typeof sqliteSchema> | NodePgDatabase<typeof pgSchema>;
  sqlite?: BetterSqlite3.Database;
  pool?: pg.Pool;
  /** SQLite: the context holding the process's transaction, and those waiting for it. */
  holder: object | null;
  waiting: Array<() => void>;
  /** SQLite: runs one statement through the gate (rows as arrays for drizzle, or as objects for raw queries). */
  execute?: (
    text: string,
    params: unknown[],
    mode: "rows" | "get" | "objects",
  ) => Promise<{ rows: unknown; changes?: number; lastInsertRowid?: number | bigint }>;
  /** The queries `executePrepared` built, by name (on SQLite their statements are in the connection's cache). */
  prepared: Map<string, CompiledQuery>;
}

interface CompiledQuery {
  execute(values?: Record<string, unknown>): PromiseLike<unknown> | unknown;
}

/** A transaction in progress on one database, visible to everything awaited inside it. */
interface OpenTransaction {
  /** The drizzle transaction object (PostgreSQL), or null on SQLite where the connection itself is in the transaction. */
  tx: unknown;
  owner: object;
  done: boolean;
}

/**
 * Kept on the global object: the web server's bundles may load this module more than once, while the database
 * objects are shared process-wide (db/client.ts caches them globally), so every copy must know them.
 */
const shared = globalThis as unknown as { verdictDbInfos?: WeakMap<object, DbInfo>; verdictOpenTransactions?: AsyncLocalStorage<Map<DbInfo, OpenTransaction>> };
const infos = (shared.verdictDbInfos ??= new WeakMap<object, DbInfo>());
const openTransactions = (shared.verdictOpenTransactions ??= new AsyncLocalStorage<Map<DbInfo, OpenTransaction>>());

function infoOf(db: object): DbInfo {
  const info = infos.get(db);
  if (!info) throw new Error("Not a Verdict database: open it with openDatabase() or openPostgresDatabase()");
  return info;
}

function currentTransaction(info: DbInfo): OpenTransaction | undefined {
  const t = openTransactions.getStore()?.get(info);
  return t && !t.done ? t : undefined;
}

/**
 * Wraps an engine's drizzle object so that, inside `withTransaction`, its queries run in the transaction
 * (PostgreSQL gives a transaction its own connection; SQLite's single connection is already in it).
 */
function register(info: DbInfo): Db {
  const base = info.base as object;
  const proxy = new Proxy(base, {
    get(target, prop) {
      const open = info.dialect === "postgres" ? currentTransaction(info) : undefined;
      const source = (open?.tx as object | undefined) ?? target;
      const value = Reflect.get(source, prop, source) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(source) : value;
    },
  });
  infos.set(proxy, info);
  return proxy as Db;
}

/**
 * The embedded database: drizzle's asynchronous SQLite driver over one better-sqlite3 connection. Every statement
 * passes one gate: while a transaction is open, statements from anywhere else wait until it ends, so a request
 * never sees, joins or loses another's half-done work (the connection is shared by the whole process).
 */
export function registerSqlite(client: BetterSqlite3.Database): Db {
  const info: DbInfo = { dialect: "sqlite", tables: sqliteSchema, base: null as unknown as Db, sqlite: client, holder: null, waiting: [], prepared: new Map() };
  // The connection's statements by SQL text: every query, drizzle's or hand-written, is compiled once here.
  const statements = new Map<string, BetterSqlite3.Statement>();
  const prepare = (text: string): BetterSqlite3.Statement => {
    let statement = statements.get(text);
    if (!statement) {
      // Queries are built from a bounded set of shapes; the cap only guards against an unbounded one.
      if (statements.size >= 2000) statements.clear();
      statement = client.prepare(text);
      statements.set(text, statement);
    }
    return statement;
  };
  info.execute = async (text, params, mode) => {
    while (info.holder && currentTransaction(info)?.owner !== info.holder) await new Promise<void>((resolve) => info.waiting.push(resolve));
    const statement = prepare(text);
    if (!statement.reader) {
      const result = statement.run(...params);
      return { rows: [], changes: result.changes, lastInsertRowid: result.lastInsertRowid };
    }
    if (mode === "objects") return { rows: statement.raw(false).all(...params) };
    if (mode === "get") return { rows: statement.raw(true).get(...params) as unknown[] };
    return { rows: statement.raw(true).all(...params) };
  };
  const execute = info.execute;
  info.base = drizzleSqliteProxy<typeof sqliteSchema>(
    (text, params, method) => execute(text, params, method === "get" ? "get" : "rows") as Promise<{ rows: unknown[] }>,
    { schema: sqliteSchema },
  );
  return register(info);
}

export function registerPostgres(base: NodePgDatabase<typeof pgSchema>, pool: pg.Pool): Db {
  return register({ dialect: "postgres", tables: pgSchema as unknown as Tables, base, pool, holder: null, waiting: [], prepared: new Map() });
}

export function dialectOf(db: Db): Dialect {
  return infoOf(db).dialect;
}

/** The table objects of `db`'s dialect. */
export function tablesOf(db: Db): Tables {
  return infoOf(db).tables;
}

/** The better-sqlite3 connection behind a SQLite database (maintenance and tests); an error on PostgreSQL. */
export function sqliteClient(db: Db): BetterSqlite3.Database {
  const info = infoOf(db);
  if (!info.sqlite) throw new Error("This needs the embedded SQLite database; this installation uses PostgreSQL");
  return info.sqlite;
}

/** The connection pool behind a PostgreSQL database; an error on SQLite. */
export function postgresPool(db: Db): pg.Pool {
  const info = infoOf(db);
  if (!info.pool) throw new Error("This needs PostgreSQL; this installation uses the embedded SQLite database");
  return info.pool;
}

const beforeClose = new WeakMap<Db, (() => Promise<void>)[]>();

/**
 * Runs `stop` when `db` is closed, before the connection or pool ends: work that runs on the database in the
 * background (a job queue's timers) registers here, so whoever closes the database stops it without knowing of it.
 */
export function onDatabaseClose(db: Db, stop: () => Promise<void>): void {
  beforeClose.set(db, [...(beforeClose.get(db) ?? []), stop]);
}

/** Closes the connection (SQLite) or the pool (PostgreSQL), after what registered with onDatabaseClose has stopped. */
export async function closeDatabase(db: Db): Promise<void> {
  const stops = beforeClose.get(db) ?? [];
  beforeClose.delete(db);
  for (const stop of stops) await stop();
  const info = infoOf(db);
  if (info.sqlite) {
    if (info.sqlite.open) info.sqlite.close();
  } else if (info.pool) {
    await info.pool.end();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Transactions

export interface TransactionOptions {
  /** PostgreSQL: how many times a transaction that lost a serialization race is run again (default 12). */
  retries?: number;
  /**
   * PostgreSQL: transactions of the same lane run one at a time in this process. For hot paths whose transactions
   * read and write the same rows (annotators' next and submit on one campaign, and the labels' change counter they
   * all bump): run side by side under SERIALIZABLE they abort each other faster than retries can recover, while one
   * after another they take a few milliseconds each. Other processes (web servers, workers) still run theirs
   * alongside; those rarer collisions are what the retries are for. SQLite runs one transaction at a time anyway.
   */
  lane?: string;
  /**
   * PostgreSQL: "read committed" for transactions that guard their read-then-write steps with row locks of their
   * own (`select … for no key update`) instead of relying on SERIALIZABLE, so that many of them can run at once
   * without aborting each other over rows they all touch (the change counters). Default "serializable". SQLite
   * runs one transaction at a time and ignores it.
   */
  isolation?: "serializable" | "read committed";
}

const SERIALIZATION_FAILURE = "40001";
const DEADLOCK_DETECTED = "40P01";

function isRetryablePostgresError(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; cur && depth < 5; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (code === SERIALIZATION_FAILURE || code === DEADLOCK_DETECTED) return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** True while the calling code runs inside `withTransaction` on this database. */
export function inTransaction(db: Db): boolean {
  return currentTransaction(infoOf(db)) !== undefined;
}

/**
 * Runs `fn` in a transaction and returns its result; a thrown error rolls everything back. Called inside
 * another transaction on the same database, `fn` joins it (the outer one commits or rolls back the whole).
 */
export async function withTransaction<T>(db: Db, fn: (db: Db) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  const info = infoOf(db);
  if (currentTransaction(info)) return fn(db);
  return info.dialect === "sqlite" ? sqliteTransaction(info, db, fn) : postgresTransaction(info, db, fn, options);
}

function withOpen<T>(info: DbInfo, open: OpenTransaction, fn: () => Promise<T>): Promise<T> {
  const outer = openTransactions.getStore();
  const map = new Map(outer ?? []);
  map.set(info, open);
  return openTransactions.run(map, fn);
}

async function sqliteTransaction<T>(info: DbInfo, db: Db, fn: (db: Db) => Promise<T>): Promise<T> {
  const client = info.sqlite!;
  const owner = {};
  // One transaction at a time per connection: a second one waits for the first to finish.
  while (info.holder) await new Promise<void>((resolve) => info.waiting.push(resolve));
  info.holder = owner;
  const open: OpenTransaction = { tx: null, owner, done: false };
  try {
    // IMMEDIATE takes the write lock now, so another process's writer cannot slip in between a read and a write.
    client.prepare("BEGIN IMMEDIATE").run();
    try {
      const result = await withOpen(info, open, () => fn(db));
      client.prepare("COMMIT").run();
      return result;
    } catch (e) {
      if (client.inTransaction) client.prepare("ROLLBACK").run();
      throw e;
    }
  } finally {
    open.done = true;
    info.holder = null;
    const waiting = info.waiting.splice(0);
    for (const wake of waiting) wake();
  }
}

const lanes = new WeakMap<DbInfo, Map<string, Promise<void>>>();

/** Runs `run` after every earlier call of the same lane on this database (in this process) has finished. */
async function inLane<T>(info: DbInfo, lane: string, run: () => Promise<T>): Promise<T> {
  let queues = lanes.get(info);
  if (!queues) lanes.set(info, (queues = new Map()));
  const before = queues.get(lane) ?? Promise.resolve();
  let release!: () => void;
  const finished = new Promise<void>((resolve) => (release = resolve));
  const mine = before.then(() => finished);
  queues.set(lane, mine);
  await before;
  try {
    return await run();
  } finally {
    release();
    if (queues.get(lane) === mine) queues.delete(lane);
  }
}

async function postgresTransaction<T>(info: DbInfo, db: Db, fn: (db: Db) => Promise<T>, options: TransactionOptions): Promise<T> {
  if (options.lane !== undefined) {
    const { lane, ...rest } = options;
    return inLane(info, lane, () => postgresTransaction(info, db, fn, rest));
  }
  const base = info.base as NodePgDatabase<typeof pgSchema>;
  // Twelve tries backing off to half a second: about 2 s in all, which a loaded machine's slow transactions need (eight
  // tries up to 200 ms, about 0.3 s, ran out at load 24).
  const retries = options.retries ?? 12;
  for (let attempt = 0; ; attempt++) {
    const open: OpenTransaction = { tx: null, owner: {}, done: false };
    try {
      return await base.transaction(
        async (tx) => {
          open.tx = tx;
          return withOpen(info, open, () => fn(db));
        },
        { isolationLevel: options.isolation ?? "serializable" },
      );
    } catch (e) {
      if (attempt >= retries || !isRetryablePostgresError(e)) throw e;
      // Back off a little, with jitter, so the transactions that collided do not collide again.
      await sleep(Math.min(500, 2 ** attempt) * (0.5 + Math.random()));
    } finally {
      open.done = true;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Queries prepared once per connection

/** drizzle's prepared query on PostgreSQL (node-postgres): its SQL and result mapping, and the client it sends through. */
interface PostgresPreparedQuery<R> {
  client: unknown;
  execute(values?: Record<string, unknown>): Promise<R>;
}

/** A drizzle query that can be prepared (select, insert, update, delete), its values given as `sql.placeholder`s. */
export interface Preparable<R> {
  prepare(): { execute(values?: Record<string, unknown>): PromiseLike<R> | R };
}

/**
 * Runs the query `build` makes under `name` with `values` for its placeholders, compiling it once per connection:
 * for the hot paths (an annotator's "next" and "submit", a worker's claim) building the SQL text and compiling it
 * cost more than running it.
 *
 * - SQLite: the query is built once per database and kept under `name`; its statement is the connection's cached
 *   one for that SQL text (the same cache every other query uses), so it is compiled once.
 * - PostgreSQL: a named prepared statement, parsed once by each pooled connection. The query is built once per
 *   database too; each call runs it on the connection the caller is on (the transaction's inside `withTransaction`,
 *   else the pool). Building it on every call cost as much CPU as sending it: about a sixth of a web server's time
 *   while 50 annotators label (`npm run bench -- annotation --backend postgres`).
 *
 * `name` must always stand for the same SQL text: values vary only through placeholders.
 */
export async function executePrepared<R>(db: Db, name: string, build: () => Preparable<R>, values: Record<string, unknown>): Promise<R> {
  const info = infoOf(db);
  if (info.dialect === "postgres") {
    let template = info.prepared.get(name) as unknown as PostgresPreparedQuery<R> | undefined;
    if (!template) {
      template = (build() as unknown as { prepare(name: string): PostgresPreparedQuery<R> }).prepare(`verdict_${name}`);
      info.prepared.set(name, template as unknown as CompiledQuery);
    }
    // drizzle's prepared query sends through its `client`: the same query, bound to the caller's connection.
    const client = (db as unknown as { session: { client: unknown } }).session.client;
    const bound = Object.create(template, { client: { value: client } }) as PostgresPreparedQuery<R>;
    return bound.execute(values);
  }
  let query = info.prepared.get(name);
  if (!query) {
    query = build().prepare();
    info.prepared.set(name, query);
  }
  return (await query.execute(values)) as R;
}

// ---------------------------------------------------------------------------------------------------------------
// Results and hand-written SQL

/** The first row of a query's result, or undefined (add `.limit(1)` to the query). */
export async function first<T>(rows: PromiseLike<T[]>): Promise<T | undefined> {
  return (await rows)[0];
}

/** Some of a table's columns by name, to select: `db.select(pickColumns(users, ["id", "name"]))`. */
export function pickColumns<T extends Table, K extends keyof T["_"]["columns"] & string>(table: T, names: readonly K[]): Pick<T["_"]["columns"], K> {
  const columns = getTableColumns(table);
  return Object.fromEntries(names.map((name) => [name, columns[name]])) as Pick<T["_"]["columns"], K>;
}

/** Column values that pick out rows of a table: `{ id }`, `{ campaignId, itemNo }` (every value given, none null). */
export type RowKey<T extends SQLiteTable> = Partial<T["$inferSelect"]>;

/** The condition "every column of the key holds its value"; a key naming no column, an unknown one or no value is refused. */
function keyCondition(table: SQLiteTable, key: Record<string, unknown>, value: (name: string, v: unknown) => unknown = (_, v) => v): SQL {
  const columns = getTableColumns(table);
  const names = Object.keys(key);
  if (!names.length) throw new Error(`${getTableName(table)}: a row key needs at least one column (an empty one matches every row)`);
  return and(
    ...names.map((name) => {
      const column = columns[name];
      if (!column) throw new Error(`${getTableName(table)} has no column "${name}" to look a row up by`);
      if (key[name] === undefined || key[name] === null) throw new Error(`${getTableName(table)}.${name}: a row key needs a value, got ${String(key[name])}`);
      return eq(column, value(name, key[name]));
    }),
  )!;
}

/**
 * The row of a table whose columns hold the key's values (`rowBy(db, t.tasks, { taskSetId, externalId })`), or
 * undefined; with `names`, only those columns of it (`rowBy(db, t.trajectories, { id }, ["stepCount"])`).
 */
export async function rowBy<T extends SQLiteTable>(db: Db, table: T, key: RowKey<T>): Promise<T["$inferSelect"] | undefined>;
export async function rowBy<T extends SQLiteTable, K extends ColumnName<T>>(
  db: Db,
  table: T,
  key: RowKey<T>,
  names: readonly K[],
): Promise<Pick<T["$inferSelect"], K> | undefined>;
export async function rowBy(db: Db, table: SQLiteTable, key: Record<string, unknown>, names?: readonly string[]): Promise<unknown> {
  const rows = await selectOf(db, table, names).where(keyCondition(table, key)).limit(1);
  return rows[0];
}

/** `rowBy` for the hot paths: the query is prepared once per connection under `name` (see `executePrepared`), the key's values its placeholders. */
export async function preparedRowBy<T extends SQLiteTable>(db: Db, name: string, table: T, key: RowKey<T>): Promise<T["$inferSelect"] | undefined>;
export async function preparedRowBy<T extends SQLiteTable, K extends ColumnName<T>>(
  db: Db,
  name: string,
  table: T,
  key: RowKey<T>,
  names: readonly K[],
): Promise<Pick<T["$inferSelect"], K> | undefined>;
export async function preparedRowBy(db: Db, name: string, table: SQLiteTable, key: Record<string, unknown>, names?: readonly string[]): Promise<unknown> {
  const build = () => selectOf(db, table, names).where(keyCondition(table, key, (column) => sql.placeholder(column)));
  const rows = (await executePrepared(db, name, build, key)) as unknown[];
  return rows[0];
}

type ColumnName<T extends SQLiteTable> = keyof T["$inferSelect"] & keyof T["_"]["columns"] & string;

/** A select of a table's rows, whole or only the named columns. */
function selectOf(db: Db, table: SQLiteTable, names?: readonly string[]) {
  const columns: Record<string, AnySQLiteColumn> = getTableColumns(table);
  return db.select(names ? pickColumns(table, names as never) : columns).from(table);
}

/** Sets these values on the rows of a table the key picks out; returns how many changed. */
export async function updateBy<T extends SQLiteTable>(db: Db, table: T, key: RowKey<T>, values: Partial<SQLiteInsertValue<T>>): Promise<number> {
  return affectedRows(
    await db
      .update(table as SQLiteTable)
      .set(values as Record<string, unknown>)
      .where(keyCondition(table, key)),
  );
}

/** Deletes the rows of a table the key picks out (and what cascades from them); returns how many went. */
export async function deleteBy<T extends SQLiteTable>(db: Db, table: T, key: RowKey<T>): Promise<number> {
  return affectedRows(await db.delete(table as SQLiteTable).where(keyCondition(table, key)));
}

/** Inserts one row into a table with an integer `id` and returns the id it was given. */
export async function insertReturningId<T extends SQLiteTable & { id: AnySQLiteColumn<{ data: number; notNull: true }> }>(
  db: Db,
  table: T,
  values: SQLiteInsertValue<T>,
): Promise<number> {
  const [row] = await db.insert(table).values(values).returning({ id: table.id });
  return row!.id;
}

/** How many rows an INSERT/UPDATE/DELETE without RETURNING changed, on either engine. */
export function affectedRows(result: unknown): number {
  const r = result as { changes?: number; rowCount?: number | null } | undefined;
  return Number(r?.changes ?? r?.rowCount ?? 0);
}

const sqliteDialect = new SQLiteSyncDialect();

/** Rows of a hand-written query, as objects keyed by column name. */
export async function rawAll<T = Record<string, unknown>>(db: Db, query: SQL): Promise<T[]> {
  const info = infoOf(db);
  if (info.dialect === "sqlite") {
    const built = sqliteDialect.sqlToQuery(query);
    return (await info.execute!(built.sql, built.params, "objects")).rows as T[];
  }
  const result = await (db as unknown as NodePgDatabase<typeof pgSchema>).execute(query);
  return result.rows as T[];
}

/** The first row of a hand-written query, or undefined. */
export async function rawGet<T = Record<string, unknown>>(db: Db, query: SQL): Promise<T | undefined> {
  return (await rawAll<T>(db, query))[0];
}

/** Runs a hand-written statement; returns how many rows it changed. */
export async function rawRun(db: Db, query: SQL): Promise<number> {
  const info = infoOf(db);
  if (info.dialect === "sqlite") {
    const built = sqliteDialect.sqlToQuery(query);
    return (await info.execute!(built.sql, built.params, "rows")).changes ?? 0;
  }
  const result = await (db as unknown as NodePgDatabase<typeof pgSchema>).execute(query);
  return result.rowCount ?? 0;
}

/** Expressions the two dialects spell differently. */
export interface DialectSql {
  dialect: Dialect;
  /** The text at a key path of a JSON column (`json_extract(col, '$.a.b')` / `col->'a'->>'b'`). */
  jsonText(column: SQLWrapper, ...path: string[]): SQL;
  /** The number at a key path of a JSON column, or null. */
  jsonNumber(column: SQLWrapper, ...path: string[]): SQL<number | null>;
  /** The values of a group joined with `separator` (`group_concat` / `string_agg`). */
  groupConcat(expression: SQLWrapper, separator?: string): SQL<string | null>;
  /** Now, in epoch milliseconds (the timestamp columns' unit). */
  nowMs(): SQL<number>;
  /** A boolean literal (SQLite stores 0/1). */
  bool(value: boolean): SQL;
}

function jsonPathLiteral(path: string[]): string {
  for (const key of path) if (!/^[A-Za-z0-9_]+$/.test(key)) throw new Error(`JSON key ${JSON.stringify(key)} must be letters, digits and underscores`);
  return `'$.${path.join(".")}'`;
}

const sqliteSql: DialectSql = {
  dialect: "sqlite",
  jsonText: (column, ...path) => sql`json_extract(${column}, ${sql.raw(jsonPathLiteral(path))})`,
  jsonNumber: (column, ...path) => sql<number | null>`json_extract(${column}, ${sql.raw(jsonPathLiteral(path))})`,
  groupConcat: (expression, separator = ",") => sql<string | null>`group_concat(${expression}, ${separator})`,
  nowMs: () => sql<number>`(cast(unixepoch('subsec') * 1000 as integer))`,
  bool: (value) => sql.raw(value ? "1" : "0"),
};

function pgJsonPath(column: SQLWrapper, path: string[], asText: boolean): SQL {
  jsonPathLiteral(path);
  const keys = path.map((k) => `'${k}'`);
  const last = keys.pop();
  const head = keys.map((k) => `->${k}`).join("");
  return sql`(${column}::json${sql.raw(head)}${sql.raw(asText ? `->>${last}` : `->${last}`)})`;
}

const postgresSql: DialectSql = {
  dialect: "postgres",
  jsonText: (column, ...path) => pgJsonPath(column, path, true),
  jsonNumber: (column, ...path) => sql<number | null>`(${pgJsonPath(column, path, true)})::double precision`,
  groupConcat: (expression, separator = ",") => sql<string | null>`string_agg((${expression})::text, ${separator})`,
  nowMs: () => sql<number>`(floor(extract(epoch from clock_timestamp()) * 1000))::bigint`,
  bool: (value) => sql.raw(value ? "true" : "false"),
};

export function sqlFor(db: Db): DialectSql {
  return dialectOf(db) === "sqlite" ? sqliteSql : postgresSql;
}
