/**
 * Queries that run on every annotator's "next" and "submit" are compiled once per connection through
 * `executePrepared`, which lives with the connection in db/database.ts (the one statement cache of the app).
 */
export { executePrepared, type Preparable } from "../database";
