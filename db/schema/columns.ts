/**
 * Column groups the schema repeats, as small builders, and the column kit that lets a table be declared once for
 * both dialects. A module of db/schema declares such a table as a function of a `SchemaKit` (`k.id()`,
 * `k.time("created_at")`, `k.json("rules")`…) and instantiates it here with `sqliteKit`; the matching module of
 * db/schema-pg instantiates the same function with the PostgreSQL kit (db/schema-pg/columns.ts), whose builders
 * give the column types documented there. Both produce exactly the columns they replace (`npm run db:generate`
 * finds no change on either dialect).
 */
import { sql } from "drizzle-orm";
import type * as schema from "./index";
import { blob, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex, type AnySQLiteColumn } from "drizzle-orm/sqlite-core";

/** A required integer reference to a row whose deletion deletes this one (a campaign, an item, a trajectory…). */
export const cascadeId = <N extends string>(name: N, target: () => AnySQLiteColumn) => integer(name).notNull().references(target, { onDelete: "cascade" });

/** The key of a row that adds to one row of another table (a configuration's secret, an item's known answer): that row's id, deleted with it. */
export const primaryCascadeId = <N extends string>(name: N, target: () => AnySQLiteColumn) =>
  integer(name).primaryKey().references(target, { onDelete: "cascade" });

/** A required text reference to a row whose deletion deletes this one (a user, a session…). */
export const cascadeKey = <N extends string>(name: N, target: () => AnySQLiteColumn) => text(name).notNull().references(target, { onDelete: "cascade" });

/** The time of the statement in epoch milliseconds, the default of every `created_at`. */
export const nowMs = sql`(unixepoch('subsec') * 1000)`;

/**
 * The column kit on SQLite. Every builder takes a column name and nothing else, so a table written against the kit
 * cannot ask one dialect for an option the other lacks. The application's types are SQLite's (db/database.ts:
 * the two schemas read back in the same JavaScript shapes), so this kit's type is the one tables are written for.
 */
export const sqliteKit = {
  table: sqliteTable,
  index,
  uniqueIndex,
  primaryKey,
  /** The table's own auto-incrementing integer id. */
  id: () => integer("id").primaryKey({ autoIncrement: true }),
  text: <N extends string>(name: N) => text(name),
  /** An integer the application bounds well below 2^31. */
  integer: <N extends string>(name: N) => integer(name),
  /** An integer that may exceed 2^31 (a seed, summed milliseconds); SQLite's integers are all 64-bit. */
  bigint: <N extends string>(name: N) => integer(name),
  /** An 8-byte float. */
  real: <N extends string>(name: N) => real(name),
  /** Milliseconds since the epoch, read and written as a `Date`. */
  time: <N extends string>(name: N) => integer(name, { mode: "timestamp_ms" }),
  flag: <N extends string>(name: N) => integer(name, { mode: "boolean" }),
  /** A structure always read whole, kept as the JSON text written. */
  json: <N extends string>(name: N) => text(name, { mode: "json" }),
  /** A JSON column that is also an index key (PostgreSQL needs `jsonb` for its ordering; see db/schema-pg/columns.ts). */
  indexedJson: <N extends string>(name: N) => text(name, { mode: "json" }),
  /** Raw bytes, read and written as a Buffer. */
  bytes: <N extends string>(name: N) => blob(name, { mode: "buffer" }),
  now: nowMs,
  /** The time a row was written (or last changed): required, the statement's time unless given. */
  stamp: <N extends string>(name: N) => integer(name, { mode: "timestamp_ms" }).notNull().default(nowMs),
  cascadeId,
  cascadeKey,
  primaryCascadeId,
  /** An index key in descending order. */
  desc: (column: AnySQLiteColumn) => sql`${column} desc`,
};

export type SchemaKit = typeof sqliteKit;

// Column groups several tables repeat, as functions of a kit (so they serve both dialects). Spread them where the
// columns stood, in the same order: the generated tables do not change.

/** When a row was written and when it last changed, both the statement's time unless given. */
export const timestamps = (k: SchemaKit) => ({ createdAt: k.stamp("created_at"), updatedAt: k.stamp("updated_at") });

/**
 * The tables a module's tables reference, by name. A module's table function receives them of the dialect being
 * declared; they are typed as the SQLite ones, like the kit.
 */
export type TableRefs<N extends keyof typeof schema> = Pick<typeof schema, N>;
