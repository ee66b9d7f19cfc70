/**
 * Behaviour search entries on PostgreSQL, as db/schema/search.ts documents them. Each entry's words are also kept
 * as a stored tsvector column, `body_words`, with the GIN full-text index on it: both are in the migrations (pg 0010,
 * 0018), since drizzle does not model tsvector columns; triggers write the rows, so no insert here names it.
 */
import { searchTables } from "../schema/search";
import { trajectories } from "./core";
import { pgKit } from "./columns";

export const { searchEntries } = searchTables(pgKit, { trajectories });
