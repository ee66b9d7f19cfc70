/**
 * Moving an installation's rows from its SQLite file to a migrated PostgreSQL database, and proving they arrived.
 *
 * The copy reads both databases' own catalogues (db/introspect.ts) rather than the drizzle modules, so it copies
 * exactly the tables and columns the SQLite file has, and refuses when PostgreSQL lacks one (its migrations are
 * behind). Tables go in foreign-key order, in multi-row INSERT batches, inside one PostgreSQL transaction: a copy
 * that fails half-way leaves the target as empty as it was. SQLite is read inside one read transaction, so a
 * server still writing to it cannot hand the copy half of a change.
 *
 * Values pass through unchanged: PostgreSQL reads SQLite's 0/1 as booleans and its JSON text as json, and epoch
 * milliseconds are bigints on both sides (db/schema-pg/columns.ts). The digests compare what each side holds per
 * table, independent of row order and of how each dialect spells a value (0 vs false, JSON spacing).
 */
import { createHash } from "node:crypto";
import type Database from "better-sqlite3";
import type pg from "pg";
import { foreignKeyOrder, readPostgresCatalogue, readSqliteCatalogue, type TableInfo } from "./introspect";

/**
 * Tables whose rows the migrations themselves create (the change counters, the instance identity): in the target
 * they are replaced by the source's rows, so the database keeps its identity and counters. Every other target table
 * must be empty.
 */
const MIGRATION_SEEDED_TABLES = new Set(["change_counters", "instance_info"]);

/**
 * Tables the target's triggers fill from the rows copied into others (the behaviour search's entries), and the
 * analytics' stored starting data, which the target reads again from its own rows on first use: not copied, and not
 * compared, since the target numbers its own entries.
 */
const DERIVED_TABLES = new Set(["search_entries", "analytics_snapshots"]);

/** Copied after every other table: inserting those rows bumps the counters through the triggers. */
const COPIED_LAST = "change_counters";

/** PostgreSQL accepts at most 65,535 parameters per statement. */
const MAX_PARAMETERS = 60_000;

export interface StoreCopyOptions {
  /** Rows per INSERT (fewer when a table has many columns). */
  batchRows?: number;
  onProgress?: (table: string, copied: number, total: number) => void;
}

export interface TableCopy {
  table: string;
  rows: number;
}

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The order rows are copied in: foreign-key order, change counters last. */
export function copyOrder(tables: TableInfo[]): string[] {
  const order = foreignKeyOrder(tables).filter((t) => t !== COPIED_LAST);
  return tables.some((t) => t.name === COPIED_LAST) ? [...order, COPIED_LAST] : order;
}

function checkTargetSchema(source: TableInfo[], target: TableInfo[]): void {
  const byName = new Map(target.map((t) => [t.name, t]));
  if (!source.some((s) => byName.has(s.name)))
    throw new Error("The PostgreSQL database has none of Verdict's tables; run `npm run cli -- migrate` against it first");
  const missing: string[] = [];
  for (const s of source) {
    const t = byName.get(s.name);
    if (!t) missing.push(`table ${s.name}`);
    else for (const c of s.columns) if (!t.columns.some((tc) => tc.name === c.name)) missing.push(`column ${s.name}.${c.name}`);
  }
  if (missing.length) {
    throw new Error(
      `The PostgreSQL database lacks ${missing.join(", ")} that the SQLite database has; run \`npm run cli -- migrate\` against it, or update Verdict`,
    );
  }
}

/**
 * Copies every row of every table from `sqlite` into the migrated, empty PostgreSQL database behind `pool`, and
 * sets each identity column's sequence past the largest copied id. Returns the rows copied per table.
 */
export async function copySqliteToPostgres(sqlite: Database.Database, pool: pg.Pool, options: StoreCopyOptions = {}): Promise<TableCopy[]> {
  const client = await pool.connect();
  let sqliteTx = false;
  try {
    const targetTables = (await readPostgresCatalogue(client)).tables;
    sqlite.exec("begin");
    sqliteTx = true;
    const sourceTables = readSqliteCatalogue(sqlite).tables;
    checkTargetSchema(sourceTables, targetTables);
    const sourceByName = new Map(sourceTables.map((t) => [t.name, t]));
    const targetByName = new Map(targetTables.map((t) => [t.name, t]));

    await client.query("begin");
    for (const t of sourceTables) {
      if (MIGRATION_SEEDED_TABLES.has(t.name) || DERIVED_TABLES.has(t.name)) continue;
      const { rows } = await client.query<{ present: boolean }>(`select exists (select 1 from ${q(t.name)}) as present`);
      if (rows[0]?.present) throw new Error(`The PostgreSQL database already holds rows in ${t.name}; copy into a freshly migrated, empty database`);
    }
    for (const name of MIGRATION_SEEDED_TABLES) if (sourceByName.has(name)) await client.query(`delete from ${q(name)}`);

    const report: TableCopy[] = [];
    for (const name of copyOrder(sourceTables)) {
      if (DERIVED_TABLES.has(name)) continue;
      const table = sourceByName.get(name)!;
      const columns = table.columns.map((c) => c.name);
      const total = (sqlite.prepare(`select count(*) as n from ${q(name)}`).get() as { n: number }).n;
      const perBatch = Math.max(1, Math.min(options.batchRows ?? 500, Math.floor(MAX_PARAMETERS / columns.length)));
      const select = sqlite.prepare(`select ${columns.map(q).join(", ")} from ${q(name)}`).raw(true);
      let batch: unknown[][] = [];
      let copied = 0;
      const flush = async () => {
        if (!batch.length) return;
        const values = batch.map((_, r) => `(${columns.map((_c, c) => `$${r * columns.length + c + 1}`).join(", ")})`).join(", ");
        try {
          await client.query(`insert into ${q(name)} (${columns.map(q).join(", ")}) values ${values}`, batch.flat());
        } catch (e) {
          const err = e as Error & { column?: string; detail?: string };
          const where = err.column ? ` (column ${err.column})` : "";
          throw new Error(
            `Copying ${name}, rows ${copied + 1}–${copied + batch.length} of ${total}${where}: ${err.message}${err.detail ? ` — ${err.detail}` : ""}`,
          );
        }
        copied += batch.length;
        batch = [];
        options.onProgress?.(name, copied, total);
      };
      for (const row of select.iterate() as IterableIterator<unknown[]>) {
        batch.push(row);
        if (batch.length >= perBatch) await flush();
      }
      await flush();
      if (copied === 0) options.onProgress?.(name, 0, 0);
      report.push({ table: name, rows: copied });

      // Rows arrived with their ids; the next id the database hands out must come after them.
      for (const c of targetByName.get(name)?.columns ?? []) {
        if (!c.generated) continue;
        await client.query(`select setval(pg_get_serial_sequence($1, $2), coalesce((select max(${q(c.name)}) from ${q(name)}), 0) + 1, false)`, [
          q(name),
          c.name,
        ]);
      }
    }
    await client.query("commit");
    return report;
  } catch (e) {
    await client.query("rollback").catch(() => undefined);
    throw e;
  } finally {
    if (sqliteTx) sqlite.exec("commit");
    client.release();
  }
}

export interface TableDigest {
  rows: number;
  /** Order-independent digest of the rows' values (hex). */
  digest: string;
}

type Family = "boolean" | "integer" | "real" | "json" | "text";

function familyOfPgType(type: string): Family {
  if (type === "boolean") return "boolean";
  if (type === "integer" || type === "bigint" || type === "smallint") return "integer";
  if (type === "double precision" || type === "real" || type === "numeric") return "real";
  if (type === "json" || type === "jsonb") return "json";
  return "text";
}

/** JSON with object keys sorted, so two spellings of one document compare equal. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

function canonicalValue(value: unknown, family: Family): string {
  if (value === null || value === undefined) return "∅";
  switch (family) {
    case "boolean":
      return value === true || value === 1 || value === "1" ? "true" : "false";
    case "integer":
    case "real":
      return String(Number(value));
    case "json":
      return canonicalJson(typeof value === "string" ? JSON.parse(value) : value);
    default:
      return Buffer.isBuffer(value) ? value.toString("base64") : String(value);
  }
}

/**
 * Sums the rows' hashes (mod 2^64): the digest does not depend on row order, which differs between the dialects
 * and their collations, and is computed without holding a table in memory.
 */
class RowDigest {
  rows = 0;
  private sum = 0n;
  add(values: string[]): void {
    this.rows++;
    const h = createHash("sha256").update(JSON.stringify(values)).digest();
    this.sum = (this.sum + h.readBigUInt64BE(0)) & 0xffff_ffff_ffff_ffffn;
  }
  result(): TableDigest {
    return { rows: this.rows, digest: this.sum.toString(16).padStart(16, "0") };
  }
}

/**
 * Row counts and digests of the SQLite tables. Column families come from the PostgreSQL catalogue's types (which
 * say what a SQLite integer means: a boolean, a number), so pass the target's tables.
 */
export function digestSqliteTables(sqlite: Database.Database, targetTables: TableInfo[]): Record<string, TableDigest> {
  const families = familiesByTable(targetTables);
  const out: Record<string, TableDigest> = {};
  for (const t of readSqliteCatalogue(sqlite).tables) {
    if (DERIVED_TABLES.has(t.name)) continue;
    const columns = t.columns.map((c) => c.name);
    const fam = columns.map((c) => families.get(t.name)?.get(c) ?? "text");
    const digest = new RowDigest();
    for (const row of sqlite
      .prepare(`select ${columns.map(q).join(", ")} from ${q(t.name)}`)
      .raw(true)
      .iterate() as IterableIterator<unknown[]>) {
      digest.add(row.map((v, i) => canonicalValue(v, fam[i]!)));
    }
    out[t.name] = digest.result();
  }
  return out;
}

/** Row counts and digests of the PostgreSQL tables named in `tables` (their columns in the same order as SQLite's). */
export async function digestPostgresTables(pool: pg.Pool, tables: TableInfo[]): Promise<Record<string, TableDigest>> {
  const targetTables = (await readPostgresCatalogue(pool)).tables;
  const families = familiesByTable(targetTables);
  const out: Record<string, TableDigest> = {};
  const pageRows = 2000;
  for (const t of tables) {
    if (DERIVED_TABLES.has(t.name)) continue;
    const target = targetTables.find((x) => x.name === t.name);
    if (!target) throw new Error(`The PostgreSQL database has no table ${t.name}`);
    const columns = t.columns.map((c) => c.name);
    const fam = columns.map((c) => families.get(t.name)?.get(c) ?? "text");
    const key = target.primaryKey;
    const selectList = [...columns, ...key].map((c) => (families.get(t.name)?.get(c) === "json" ? `${q(c)}::text` : q(c))).join(", ");
    const digest = new RowDigest();
    // Keyset pages in primary-key order, so a large table is never held whole; a table without a primary key
    // (none of Verdict's) is read in one query.
    let after: unknown[] | null = null;
    for (;;) {
      const keyList = key.map(q).join(", ");
      const where = after ? `where (${keyList}) > (${key.map((_, i) => `$${i + 1}`).join(", ")})` : "";
      const page = key.length ? `order by ${keyList} limit ${pageRows}` : "";
      const res: pg.QueryArrayResult<unknown[]> = await pool.query({
        text: `select ${selectList} from ${q(t.name)} ${where} ${page}`,
        values: after ?? [],
        rowMode: "array",
      });
      for (const row of res.rows) digest.add(row.slice(0, columns.length).map((v, i) => canonicalValue(v, fam[i]!)));
      if (!key.length || res.rows.length < pageRows) break;
      after = res.rows[res.rows.length - 1]!.slice(columns.length);
    }
    out[t.name] = digest.result();
  }
  return out;
}

function familiesByTable(tables: TableInfo[]): Map<string, Map<string, Family>> {
  return new Map(tables.map((t) => [t.name, new Map(t.columns.map((c) => [c.name, familyOfPgType(c.type)]))]));
}

/** Tables whose row count or digest differ between the two sides, with both values; empty when they match. */
export function compareDigests(source: Record<string, TableDigest>, target: Record<string, TableDigest>): string[] {
  const out: string[] = [];
  for (const [table, s] of Object.entries(source)) {
    const t = target[table];
    if (!t) out.push(`${table}: ${s.rows} rows in SQLite, table missing in PostgreSQL`);
    else if (s.rows !== t.rows) out.push(`${table}: ${s.rows} rows in SQLite, ${t.rows} in PostgreSQL`);
    else if (s.digest !== t.digest)
      out.push(`${table}: same ${s.rows} rows counted, but their values differ (digest ${s.digest} in SQLite, ${t.digest} in PostgreSQL)`);
  }
  return out;
}
