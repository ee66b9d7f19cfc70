/**
 * Column groups the SQLite schema repeats, as small builders. The PostgreSQL schema has the same builders in
 * db/schema-pg/columns.ts; both produce exactly the columns they replace (`npm run db:generate` finds no change).
 */
import { integer, text, type AnySQLiteColumn } from "drizzle-orm/sqlite-core";

/** A required integer reference to a row whose deletion deletes this one (a campaign, an item, a trajectory…). */
export const cascadeId = <N extends string>(name: N, target: () => AnySQLiteColumn) => integer(name).notNull().references(target, { onDelete: "cascade" });

/** A required text reference to a row whose deletion deletes this one (a user, a session…). */
export const cascadeKey = <N extends string>(name: N, target: () => AnySQLiteColumn) => text(name).notNull().references(target, { onDelete: "cascade" });
