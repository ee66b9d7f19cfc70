/**
 * Per-table change counters on PostgreSQL (see db/schema/changes.ts for why they exist, and for the tables, declared
 * there once for both dialects). The plpgsql triggers that bump them are in the custom migration
 * db/migrations-pg/0001_change_counters.sql, made from the same COUNTED_TABLES list the SQLite triggers follow.
 */
import { changeTables } from "../schema/changes";
import { pgKit } from "./columns";

export const { changeCounters, analyticsMemos, analyticsSnapshots } = changeTables(pgKit);
