import { sqliteKit, type SchemaKit } from "./columns";

/**
 * This database's identity: one row with a random id made by migration 0008 (on PostgreSQL, by the change-counter
 * migration). Bundles exported from here carry it, so importing one back into the same database can tell its own
 * judge and rule verdicts from other systems'. Declared once for both dialects (db/schema/columns.ts).
 */
export function instanceTables(k: SchemaKit) {
  return { instanceInfo: k.table("instance_info", { id: k.text("id").primaryKey() }) };
}

export const { instanceInfo } = instanceTables(sqliteKit);
