import { pgTable, text } from "drizzle-orm/pg-core";

/** This database's identity (see db/schema/instance.ts); its row is made by the change-counter migration. */
export const instanceInfo = pgTable("instance_info", {
  id: text("id").primaryKey(),
});
