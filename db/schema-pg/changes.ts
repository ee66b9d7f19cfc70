/**
 * Per-table change counters on PostgreSQL (see db/schema/changes.ts for why they exist). The plpgsql triggers
 * that bump them are in the custom migration db/migrations-pg/0001_change_counters.sql, made from the same
 * COUNTED_TABLES list the SQLite triggers follow.
 */
import { bigint, pgTable, text } from "drizzle-orm/pg-core";

export const changeCounters = pgTable("change_counters", {
  name: text("name").primaryKey(),
  // bigint: counters only grow, one step per counted row written, for the life of the installation.
  version: bigint("version", { mode: "number" }).notNull().default(0),
});
