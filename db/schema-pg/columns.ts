/**
 * Column types shared by the PostgreSQL schema, chosen so a row reads back in the same shape as from SQLite.
 *
 * - Timestamps stay integers: SQLite stores milliseconds since the epoch, so PostgreSQL stores the same number in a
 *   `bigint` (an `integer` would overflow in 1970 + 24 days). The application sees a `Date` on both dialects, and a
 *   row copied between them keeps its exact value; `timestamptz` would round to microseconds and change the type
 *   every raw query and export sees.
 * - Booleans, stored 0/1 in SQLite, are real `boolean`s.
 * - JSON columns are `json`, not `jsonb`: `json` keeps the text exactly as written (key order, spacing), so label
 *   values, payloads and content hashes read back byte for byte as SQLite holds them, while still refusing text
 *   that is not JSON. The one JSON column that is an index key (`tasks.difficulty`) is `jsonb`, which has the btree
 *   ordering `json` lacks.
 * - SQLite `real` (8-byte float) is `double precision`. Other integers are `integer` (ids included) where the
 *   application bounds them well below 2^31, and `bigint` where it does not (a judge's seed, summed label times,
 *   the change counters), since SQLite stores 64-bit integers in every integer column.
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  customType,
  doublePrecision,
  index,
  integer,
  json,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  type AnyPgColumn,
  type ExtraConfigColumn,
} from "drizzle-orm/pg-core";
import type { SchemaKit } from "../schema/columns";

/** Milliseconds since the epoch in a `bigint`, read and written as a `Date` (drizzle's SQLite `timestamp_ms`). */
export const epochMs = customType<{ data: Date; driverData: string | number }>({
  dataType() {
    return "bigint";
  },
  toDriver(value: Date): number {
    return value.getTime();
  },
  fromDriver(value: string | number): Date {
    // node-postgres hands int8 over as a string; epoch milliseconds fit a double exactly.
    return new Date(Number(value));
  },
});

/** The time of the statement in epoch milliseconds, like SQLite's `unixepoch('subsec') * 1000`. */
export const nowMs = sql`(floor(extract(epoch from clock_timestamp()) * 1000))::bigint`;

/** Raw bytes in a `bytea`, read and written as a Buffer (SQLite's `blob` in buffer mode). */
export const bytes = customType<{ data: Buffer; driverData: Buffer }>({
  dataType() {
    return "bytea";
  },
});

/** A required integer reference to a row whose deletion deletes this one (a campaign, an item, a trajectory…). */
export const cascadeId = <N extends string>(name: N, target: () => AnyPgColumn) => integer(name).notNull().references(target, { onDelete: "cascade" });

/** A required text reference to a row whose deletion deletes this one (a user, a session…). */
export const primaryCascadeId = <N extends string>(name: N, target: () => AnyPgColumn) =>
  integer(name).primaryKey().references(target, { onDelete: "cascade" });

export const cascadeKey = <N extends string>(name: N, target: () => AnyPgColumn) => text(name).notNull().references(target, { onDelete: "cascade" });

/**
 * The column kit on PostgreSQL: the builders a table declared once in db/schema (as a function of a `SchemaKit`)
 * is instantiated with here, giving the column types above. It is typed as the SQLite kit because the application
 * reads both schemas in SQLite's shapes (db/database.ts); each builder returns the PostgreSQL column that reads back
 * in that shape, and takes, like its SQLite twin, a column name only.
 */
export const pgKit = {
  table: pgTable,
  index,
  uniqueIndex,
  primaryKey,
  id: () => integer("id").primaryKey().generatedByDefaultAsIdentity(),
  text: (name: string) => text(name),
  integer: (name: string) => integer(name),
  bigint: (name: string) => bigint(name, { mode: "number" }),
  real: (name: string) => doublePrecision(name),
  time: (name: string) => epochMs(name),
  flag: (name: string) => boolean(name),
  json: (name: string) => json(name),
  indexedJson: (name: string) => jsonb(name),
  bytes: (name: string) => bytes(name),
  now: nowMs,
  stamp: (name: string) => epochMs(name).notNull().default(nowMs),
  cascadeId,
  cascadeKey,
  primaryCascadeId,
  // The columns an index callback receives on PostgreSQL can be ordered; drizzle-kit records the order on the column.
  desc: (column: ExtraConfigColumn) => column.desc(),
} as unknown as SchemaKit;
