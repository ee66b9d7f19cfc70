/**
 * PostgreSQL, the team deployment's database: bringing one up to date, and moving an installation's rows into one.
 * The web server, the CLI and workers serve from it when VERDICT_DATABASE_URL is postgres://… (server/context.ts).
 */
import { closeDatabase, postgresPool, sqliteClient, type Db } from "../../db/database";
import { readPostgresCatalogue, readSqliteCatalogue } from "../../db/introspect";
import { closePostgres, migratePostgres, openPostgres, openPostgresDatabase } from "../../db/postgres";
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
export async function moveStoreToPostgres(
  sqlite: Db,
  url: string,
  onProgress?: (table: string, copied: number, total: number) => void,
): Promise<StoreMoveReport> {
  const source = sqliteClient(sqlite);
  const target = openPostgresDatabase(url, { maxConnections: 2 });
  try {
    await migratePostgres(target.raw);
    const pool = postgresPool(target.db);
    const tables = await copySqliteToPostgres(source, pool, { onProgress });
    const targetTables = (await readPostgresCatalogue(pool)).tables;
    const differences = compareDigests(digestSqliteTables(source, targetTables), await digestPostgresTables(pool, readSqliteCatalogue(source).tables));
    if (differences.length)
      throw new Error(
        `The copy in PostgreSQL does not match the SQLite database (did something write to either during the copy?):\n  ${differences.join("\n  ")}`,
      );
    return { tables, rows: tables.reduce((n, t) => n + t.rows, 0) };
  } finally {
    await closeDatabase(target.db);
  }
}
