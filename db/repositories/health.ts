/** The cheapest statement that proves the database answers (the health endpoint's check). */
import { sql } from "drizzle-orm";
import { rawGet, type Db } from "../database";

export async function pingDatabase(db: Db): Promise<void> {
  await rawGet(db, sql`select 1 as one`);
}
