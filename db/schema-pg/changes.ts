/**
 * Per-table change counters on PostgreSQL (see db/schema/changes.ts for why they exist). The plpgsql triggers
 * that bump them are in the custom migration db/migrations-pg/0001_change_counters.sql, made from the same
 * COUNTED_TABLES list the SQLite triggers follow.
 */
import { bigint, pgTable, text } from "drizzle-orm/pg-core";
import { bytes } from "./columns";

export const changeCounters = pgTable("change_counters", {
  name: text("name").primaryKey(),
  // bigint: counters only grow, one step per counted row written, for the life of the installation.
  version: bigint("version", { mode: "number" }).notNull().default(0),
});

/** Bootstrap results of the analytics kept across restarts (see db/schema/changes.ts). */
export const analyticsMemos = pgTable("analytics_memos", {
  id: text("id").primaryKey(),
  kind: text("kind").notNull(),
  memoKey: text("memo_key").notNull(),
  value: text("value").notNull(),
  writtenAt: bigint("written_at", { mode: "number" }).notNull(),
});

/** The data the analytics views start from, kept across restarts (see db/schema/changes.ts). */
export const analyticsSnapshots = pgTable("analytics_snapshots", {
  key: text("key").primaryKey(),
  format: text("format").notNull(),
  stamp: text("stamp").notNull(),
  versions: text("versions").notNull(),
  value: bytes("value").notNull(),
  writtenAt: bigint("written_at", { mode: "number" }).notNull(),
});
