/**
 * PostgreSQL, the team deployment's database (preview): bringing one up to date, and moving an installation's rows
 * into one. The app itself still serves from SQLite; see README, "PostgreSQL (preview)".
 */
import type { Db } from "../../db/client";
import { readPostgresCatalogue, readSqliteCatalogue } from "../../db/introspect";
import { closePostgres, migratePostgres, openPostgres } from "../../db/postgres";
import { compareDigests, copySqliteToPostgres, digestPostgresTables, digestSqliteTables, type TableCopy } from "../../db/store-copy";

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

export interface StoreMoveReport {
  tables: TableCopy[];
  rows: number;
}

/**
 * Copies every row of this installation's SQLite database into the PostgreSQL database at `url` (migrated first;
 * it must hold no data yet), then reads both sides back and compares each table's row count and digest. Throws,
 * naming the tables, when anything did not arrive as it left. Files (screenshots, variants, bundles) are not moved.
 */
export async function moveStoreToPostgres(sqlite: Db, url: string, onProgress?: (table: string, copied: number, total: number) => void): Promise<StoreMoveReport> {
  const target = openPostgres(url, { maxConnections: 2 });
  try {
    await migratePostgres(target);
    const tables = await copySqliteToPostgres(sqlite.$client, target.$client, { onProgress });
    const targetTables = (await readPostgresCatalogue(target.$client)).tables;
    const differences = compareDigests(digestSqliteTables(sqlite.$client, targetTables), await digestPostgresTables(target.$client, readSqliteCatalogue(sqlite.$client).tables));
    if (differences.length) throw new Error(`The copy in PostgreSQL does not match the SQLite database (did something write to either during the copy?):\n  ${differences.join("\n  ")}`);
    return { tables, rows: tables.reduce((n, t) => n + t.rows, 0) };
  } finally {
    await closePostgres(target);
  }
}
