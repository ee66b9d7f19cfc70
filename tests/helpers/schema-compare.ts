/**
 * Compares a migrated SQLite database with a migrated PostgreSQL one (catalogues read by db/introspect.ts) and
 * lists every difference as one line that names the table, column, index, foreign key or trigger and what each
 * side has, so whoever ports a new SQLite table to db/schema-pg knows exactly what is left to do.
 *
 * Types are compared by family, since the dialects name them differently. SQLite's catalogue cannot tell a boolean
 * or a timestamp from an integer, nor JSON from text, so the SQLite side's family comes from the drizzle column kind
 * in db/schema (falling back to the declared type for columns drizzle does not describe).
 */
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { is } from "drizzle-orm";
import type { Catalogue, ColumnInfo, ForeignKeyInfo, IndexInfo, TableInfo, TriggerInfo } from "../../db/introspect";
import * as sqliteSchema from "../../db/schema/index";

export type TypeFamily = "integer" | "epoch-ms" | "boolean" | "real" | "text" | "json" | "bytes";

/** What the SQLite column stores, per drizzle's column kind: "labels.after_reveal" → "boolean". */
export function sqliteColumnFamilies(): Map<string, TypeFamily> {
  const kinds: Record<string, TypeFamily> = {
    SQLiteInteger: "integer",
    SQLiteBoolean: "boolean",
    SQLiteTimestamp: "epoch-ms",
    SQLiteReal: "real",
    SQLiteText: "text",
    SQLiteTextJson: "json",
  };
  const families = new Map<string, TypeFamily>();
  for (const value of Object.values(sqliteSchema)) {
    if (!is(value, SQLiteTable)) continue;
    const config = getTableConfig(value);
    for (const c of config.columns) {
      const family = kinds[c.columnType];
      if (family) families.set(`${config.name}.${c.name}`, family);
    }
  }
  return families;
}

function sqliteFamily(table: string, column: ColumnInfo, families: Map<string, TypeFamily>): TypeFamily | string {
  const known = families.get(`${table}.${column.name}`);
  if (known) return known;
  if (/int/.test(column.type)) return "integer";
  if (/char|clob|text/.test(column.type)) return "text";
  if (/real|floa|doub/.test(column.type)) return "real";
  if (column.type === "blob") return "bytes";
  return column.type;
}

/** The families a PostgreSQL type can hold faithfully: a bigint holds any SQLite integer, epoch milliseconds included. */
function pgFamilies(type: string): TypeFamily[] {
  if (type === "bigint") return ["integer", "epoch-ms"];
  if (type === "integer" || type === "smallint") return ["integer"];
  if (type === "boolean") return ["boolean"];
  if (type === "double precision" || type === "real") return ["real"];
  if (type === "text" || type.startsWith("character varying")) return ["text"];
  if (type === "json" || type === "jsonb") return ["json"];
  if (type === "bytea") return ["bytes"];
  return [];
}

/** What each family needs on PostgreSQL, for the message. */
const PG_TYPE_FOR: Record<TypeFamily, string> = {
  integer: "integer or bigint",
  "epoch-ms": "bigint (epoch milliseconds)",
  boolean: "boolean",
  real: "double precision",
  text: "text",
  json: "json or jsonb",
  bytes: "bytea",
};

/**
 * A default reduced to what it means: the current time in epoch milliseconds on either dialect, literals without
 * PostgreSQL's casts, and booleans as true/false whether SQLite wrote them as 0/1 or false/true.
 */
export function normaliseDefault(value: string | null, family: TypeFamily | string): string | null {
  if (value === null) return null;
  let v = value.trim();
  if (/unixepoch|clock_timestamp|now\(\)|current_timestamp/i.test(v)) return "now (epoch ms)";
  for (;;) {
    const stripped = v
      .replace(/^\((.*)\)$/s, "$1")
      .replace(/::[a-z ]+(\[\])?$/i, "")
      .trim();
    if (stripped === v) break;
    v = stripped;
  }
  if (family === "boolean") {
    if (v === "1" || v.toLowerCase() === "true") return "true";
    if (v === "0" || v.toLowerCase() === "false") return "false";
  }
  if (family === "real" && /^-?\d+(\.\d+)?$/.test(v)) return String(Number(v));
  return v;
}

const list = (xs: string[]) => `(${xs.join(", ")})`;
const describeFk = (f: ForeignKeyInfo) => `${list(f.columns)} → ${f.refTable}${list(f.refColumns)} on delete ${f.onDelete}, on update ${f.onUpdate}`;
const describeIndex = (i: IndexInfo) => `${i.unique ? "unique " : ""}${list(i.columns)}`;
const describeTrigger = (t: TriggerInfo) => `${t.timing} ${t.event}${t.columns.length ? ` of ${list(t.columns)}` : ""} on ${t.table}`;

function compareTable(s: TableInfo, p: TableInfo, families: Map<string, TypeFamily>, out: string[]): void {
  const t = s.name;
  const pCols = new Map(p.columns.map((c) => [c.name, c]));
  const sCols = new Map(s.columns.map((c) => [c.name, c]));
  for (const sc of s.columns) {
    const pc = pCols.get(sc.name);
    if (!pc) {
      out.push(`column ${t}.${sc.name}: in SQLite (${sc.type}${sc.notNull ? " not null" : ""}), missing in PostgreSQL`);
      continue;
    }
    const family = sqliteFamily(t, sc, families);
    if (!pgFamilies(pc.type).includes(family as TypeFamily)) {
      const wanted = PG_TYPE_FOR[family as TypeFamily] ?? `a type for SQLite ${sc.type}`;
      out.push(`column ${t}.${sc.name}: SQLite ${family} (declared ${sc.type}) needs PostgreSQL ${wanted}, found ${pc.type}`);
    }
    if (sc.notNull !== pc.notNull)
      out.push(`column ${t}.${sc.name}: ${sc.notNull ? "not null" : "nullable"} in SQLite, ${pc.notNull ? "not null" : "nullable"} in PostgreSQL`);
    if (sc.generated !== pc.generated) {
      out.push(
        `column ${t}.${sc.name}: ${sc.generated ? "autoincrement" : "not generated"} in SQLite, ${pc.generated ? "identity" : "not generated"} in PostgreSQL`,
      );
    }
    const sd = normaliseDefault(sc.defaultValue, family);
    const pd = normaliseDefault(pc.defaultValue, family);
    if (!sc.generated && sd !== pd) out.push(`column ${t}.${sc.name}: default ${sd ?? "none"} in SQLite, ${pd ?? "none"} in PostgreSQL`);
  }
  for (const pc of p.columns) if (!sCols.has(pc.name)) out.push(`column ${t}.${pc.name}: in PostgreSQL (${pc.type}), missing in SQLite`);

  if (s.primaryKey.join(",") !== p.primaryKey.join(","))
    out.push(`table ${t}: primary key ${list(s.primaryKey)} in SQLite, ${list(p.primaryKey)} in PostgreSQL`);

  const pIdx = new Map(p.indexes.map((i) => [i.name, i]));
  const sIdx = new Map(s.indexes.map((i) => [i.name, i]));
  for (const si of s.indexes) {
    const pi = pIdx.get(si.name);
    if (!pi) out.push(`index ${si.name} on ${t}: ${describeIndex(si)} in SQLite, missing in PostgreSQL`);
    else if (describeIndex(si) !== describeIndex(pi)) out.push(`index ${si.name} on ${t}: ${describeIndex(si)} in SQLite, ${describeIndex(pi)} in PostgreSQL`);
  }
  for (const pi of p.indexes) if (!sIdx.has(pi.name)) out.push(`index ${pi.name} on ${t}: ${describeIndex(pi)} in PostgreSQL, missing in SQLite`);

  const pFks = new Set(p.foreignKeys.map(describeFk));
  const sFks = new Set(s.foreignKeys.map(describeFk));
  for (const f of sFks) if (!pFks.has(f)) out.push(`foreign key on ${t}: ${f} in SQLite, not in PostgreSQL`);
  for (const f of pFks) if (!sFks.has(f)) out.push(`foreign key on ${t}: ${f} in PostgreSQL, not in SQLite`);
}

/** Every difference between the two schemas, one line each; empty when they agree. */
export function compareCatalogues(sqlite: Catalogue, postgres: Catalogue, families = sqliteColumnFamilies()): string[] {
  const out: string[] = [];
  const pTables = new Map(postgres.tables.map((t) => [t.name, t]));
  const sTables = new Map(sqlite.tables.map((t) => [t.name, t]));
  for (const s of sqlite.tables) {
    const p = pTables.get(s.name);
    if (!p) out.push(`table ${s.name}: in SQLite (${s.columns.length} columns), missing in PostgreSQL (add it to db/schema-pg and run npm run db:generate)`);
    else compareTable(s, p, families, out);
  }
  for (const p of postgres.tables) if (!sTables.has(p.name)) out.push(`table ${p.name}: in PostgreSQL, missing in SQLite`);

  // Triggers by name: the change counters' names and events are the same on both dialects.
  const pTrg = new Map(postgres.triggers.map((t) => [`${t.name}:${t.event}`, t]));
  const sTrg = new Map(sqlite.triggers.map((t) => [`${t.name}:${t.event}`, t]));
  for (const [key, st] of sTrg) {
    const pt = pTrg.get(key);
    if (!pt) out.push(`trigger ${st.name}: ${describeTrigger(st)} in SQLite, missing in PostgreSQL (add it to a custom migration in db/migrations-pg)`);
    else if (describeTrigger(st) !== describeTrigger(pt))
      out.push(`trigger ${st.name}: ${describeTrigger(st)} in SQLite, ${describeTrigger(pt)} in PostgreSQL`);
  }
  for (const [key, pt] of pTrg) if (!sTrg.has(key)) out.push(`trigger ${pt.name}: ${describeTrigger(pt)} in PostgreSQL, missing in SQLite`);
  return out;
}
