/**
 * Queries that run on every annotator's "next" and "submit", compiled once instead of on every call: on SQLite a
 * statement prepared once per connection (drizzle otherwise rebuilds the SQL text and SQLite recompiles it each
 * time, which is most of their cost), on PostgreSQL a named prepared statement, which each pooled connection
 * parses once. Values are passed through `sql.placeholder`.
 */
import { dialectOf, type Db } from "../database";

interface Preparable<R> {
  prepare(): { execute(values?: Record<string, unknown>): PromiseLike<R> | R };
}

const compiled = new WeakMap<Db, Map<string, { execute(values?: Record<string, unknown>): PromiseLike<unknown> | unknown }>>();

/**
 * Runs the query `build` makes under `name` with `values` for its placeholders. On PostgreSQL the query is built
 * again on each call (cheap) so that it runs on the transaction's connection when inside `withTransaction`; the
 * server keeps the parsed statement per connection under `name`. `name` must always stand for the same SQL text.
 */
export async function executePrepared<R>(db: Db, name: string, build: () => Preparable<R>, values: Record<string, unknown>): Promise<R> {
  if (dialectOf(db) === "postgres") {
    const query = build() as unknown as { prepare(name: string): { execute(values?: Record<string, unknown>): Promise<R> } };
    return query.prepare(`verdict_${name}`).execute(values);
  }
  let forDb = compiled.get(db);
  if (!forDb) compiled.set(db, (forDb = new Map()));
  let statement = forDb.get(name);
  if (!statement) {
    statement = build().prepare();
    forDb.set(name, statement);
  }
  return (await statement.execute(values)) as R;
}
