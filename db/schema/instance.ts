import { sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * This database's identity: one row with a random id made by migration 0008. Bundles exported from here carry it,
 * so importing one back into the same database can tell its own judge and rule verdicts from other systems'.
 */
export const instanceInfo = sqliteTable("instance_info", {
  id: text("id").primaryKey(),
});
