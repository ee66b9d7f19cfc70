/**
 * PostgreSQL, the team deployment's database (preview): bringing one up to date. The app itself still serves from
 * SQLite; see README, "PostgreSQL (preview)".
 */
import { closePostgres, migratePostgres, openPostgres } from "../../db/postgres";

export { redactPostgresUrl } from "../../db/postgres";

/** Applies pending PostgreSQL migrations to the database at `url` and closes the connection. */
export async function migratePostgresDatabase(url: string): Promise<void> {
  const db = openPostgres(url, { maxConnections: 1 });
  try {
    await migratePostgres(db);
  } finally {
    await closePostgres(db);
  }
}
