/**
 * What a migrated database actually holds, read from its own catalogue into one shape for both dialects: tables,
 * columns, primary keys, indexes, foreign keys and triggers. The schema parity test compares a SQLite and a
 * PostgreSQL database through it, and the SQLite → PostgreSQL copy uses it to find tables, columns and a
 * foreign-key order without trusting the drizzle schema modules to match what migrations made.
 */
import type Database from "better-sqlite3";
import type pg from "pg";

export interface ColumnInfo {
  name: string;
  /** The declared type, lower-case: SQLite's as written ("integer", "text", "real"), PostgreSQL's formatted ("bigint", "double precision"). */
  type: string;
  notNull: boolean;
  /** The default expression as the catalogue prints it; null when none (or when the value is generated). */
  defaultValue: string | null;
  /** Values come from the database when not given: SQLite AUTOINCREMENT, PostgreSQL identity or serial. */
  generated: boolean;
}

export interface IndexInfo {
  name: string;
  /** Key columns in order, with " desc" after a descending one; expressions as the catalogue prints them. */
  columns: string[];
  unique: boolean;
}

export interface ForeignKeyInfo {
  columns: string[];
  refTable: string;
  refColumns: string[];
  /** "cascade" | "set null" | "restrict" | "no action" | "set default" */
  onDelete: string;
  onUpdate: string;
}

export interface TableInfo {
  name: string;
  columns: ColumnInfo[];
  primaryKey: string[];
  /** Indexes other than the primary key's. */
  indexes: IndexInfo[];
  foreignKeys: ForeignKeyInfo[];
}

export interface TriggerInfo {
  name: string;
  table: string;
  timing: "before" | "after" | "instead of";
  event: "insert" | "update" | "delete";
  /** UPDATE OF columns, in the order written; empty = any column. */
  columns: string[];
}

export interface Catalogue {
  tables: TableInfo[];
  triggers: TriggerInfo[];
}

const quoteSqlite = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * The behaviour search's full-text index is the one part of the schema each engine builds its own way (migration
 * 0024 / pg 0010): on SQLite an FTS5 table (with its shadow tables) and the triggers feeding it from search_entries,
 * on PostgreSQL a stored tsvector column of each entry's words with a GIN index on it (pg 0018). The catalogues leave them out, so the rest stays comparable
 * and store copies move only real rows (search_entries is filled by its triggers on the target).
 */
const ENGINE_SPECIFIC_SEARCH = {
  sqliteTables: /^search_fts($|_)/,
  sqliteTriggers: /^search_fts_/,
  postgresIndexes: new Set(["search_entries_body_fts_idx"]),
  /** The entries' stored words (a generated tsvector column), as `table.column`. */
  postgresColumns: new Set(["search_entries.body_words"]),
};

/** SQLite's catalogue, from sqlite_master and the table/index/foreign-key pragmas. */
export function readSqliteCatalogue(sqlite: Database.Database): Catalogue {
  const tableRows = sqlite
    .prepare(
      "select name, sql from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\' and name not like '\\_\\_drizzle%' escape '\\' order by name",
    )
    .all() as { name: string; sql: string }[];
  const tables = tableRows
    .filter((t) => !ENGINE_SPECIFIC_SEARCH.sqliteTables.test(t.name))
    .map(({ name, sql }): TableInfo => {
      const cols = sqlite.prepare(`pragma table_info(${quoteSqlite(name)})`).all() as {
        name: string;
        type: string;
        notnull: number;
        dflt_value: string | null;
        pk: number;
      }[];
      const autoIncrement = (col: string) => new RegExp(`[\`"\\[]?${col}[\`"\\]]?\\s+integer\\s+primary\\s+key\\s+autoincrement`, "i").test(sql);
      const indexList = sqlite.prepare(`pragma index_list(${quoteSqlite(name)})`).all() as { name: string; unique: number; origin: string }[];
      const indexes = indexList
        .filter((i) => i.origin !== "pk")
        .map((i): IndexInfo => {
          const keys = (
            sqlite.prepare(`pragma index_xinfo(${quoteSqlite(i.name)})`).all() as { seqno: number; name: string | null; desc: number; key: number }[]
          )
            .filter((k) => k.key === 1)
            .sort((a, b) => a.seqno - b.seqno);
          return { name: i.name, unique: i.unique === 1, columns: keys.map((k) => `${k.name ?? "<expression>"}${k.desc ? " desc" : ""}`) };
        })
        .sort((a, b) => a.name.localeCompare(b.name));
      const fkRows = sqlite.prepare(`pragma foreign_key_list(${quoteSqlite(name)})`).all() as {
        id: number;
        seq: number;
        table: string;
        from: string;
        to: string | null;
        on_update: string;
        on_delete: string;
      }[];
      const byId = new Map<number, typeof fkRows>();
      for (const r of fkRows) byId.set(r.id, [...(byId.get(r.id) ?? []), r]);
      const foreignKeys = [...byId.values()].map((rows): ForeignKeyInfo => {
        rows.sort((a, b) => a.seq - b.seq);
        return {
          columns: rows.map((r) => r.from),
          refTable: rows[0]!.table,
          refColumns: rows.map((r) => r.to ?? "<primary key>"),
          onDelete: rows[0]!.on_delete.toLowerCase(),
          onUpdate: rows[0]!.on_update.toLowerCase(),
        };
      });
      return {
        name,
        columns: cols.map((c) => ({
          name: c.name,
          type: c.type.toLowerCase(),
          notNull: c.notnull === 1,
          defaultValue: c.dflt_value,
          generated: autoIncrement(c.name),
        })),
        primaryKey: cols
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name),
        indexes,
        foreignKeys: sortForeignKeys(foreignKeys),
      };
    });
  const triggerRows = sqlite.prepare("select name, tbl_name as tbl, sql from sqlite_master where type = 'trigger' order by name").all() as {
    name: string;
    tbl: string;
    sql: string;
  }[];
  const triggers = triggerRows
    .filter((t) => !ENGINE_SPECIFIC_SEARCH.sqliteTriggers.test(t.name))
    .map(({ name, tbl, sql }): TriggerInfo => {
      const m = /\b(before|after|instead\s+of)\s+(insert|delete|update)(?:\s+of\s+(.+?))?\s+on\s/is.exec(sql);
      if (!m) throw new Error(`Cannot read the event of SQLite trigger ${name}: ${sql}`);
      const columns = m[3] ? m[3].split(",").map((c) => c.trim().replace(/^[`"[]|[`"\]]$/g, "")) : [];
      return {
        name,
        table: tbl,
        timing: m[1]!.toLowerCase().replace(/\s+/, " ") as TriggerInfo["timing"],
        event: m[2]!.toLowerCase() as TriggerInfo["event"],
        columns,
      };
    });
  return { tables, triggers };
}

const PG_FK_ACTIONS: Record<string, string> = { a: "no action", r: "restrict", c: "cascade", n: "set null", d: "set default" };

/** PostgreSQL's catalogue for the connection's current schema, from information_schema and pg_catalog. */
export async function readPostgresCatalogue(client: pg.Pool | pg.PoolClient | pg.Client): Promise<Catalogue> {
  const cols = await client.query<{
    table_name: string;
    column_name: string;
    type: string;
    not_null: boolean;
    default_value: string | null;
    generated: boolean;
  }>(`
    select c.table_name, c.column_name, format_type(a.atttypid, a.atttypmod) as type, c.is_nullable = 'NO' as not_null,
           c.column_default as default_value,
           (c.is_identity = 'YES' or coalesce(c.column_default like 'nextval(%', false)) as generated
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
    join pg_attribute a on a.attrelid = format('%I.%I', c.table_schema, c.table_name)::regclass and a.attname = c.column_name
    where c.table_schema = current_schema()
    order by c.table_name, c.ordinal_position`);
  const idx = await client.query<{ table_name: string; name: string; unique: boolean; primary: boolean; columns: string[] }>(`
    select t.relname as table_name, i.relname as name, ix.indisunique as unique, ix.indisprimary as primary,
           array(select pg_get_indexdef(ix.indexrelid, k, true) || case when (ix.indoption::int2[])[k - 1] & 1 = 1 then ' desc' else '' end
                 from generate_series(1, ix.indnkeyatts) k order by k) as columns
    from pg_index ix
    join pg_class i on i.oid = ix.indexrelid
    join pg_class t on t.oid = ix.indrelid
    join pg_namespace n on n.oid = t.relnamespace
    where n.nspname = current_schema()`);
  const fks = await client.query<{ table_name: string; columns: string[]; ref_table: string; ref_columns: string[]; on_delete: string; on_update: string }>(`
    select t.relname as table_name, rt.relname as ref_table, c.confdeltype as on_delete, c.confupdtype as on_update,
           array(select a.attname from unnest(c.conkey) with ordinality k(attnum, ord)
                 join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum order by k.ord)::text[] as columns,
           array(select a.attname from unnest(c.confkey) with ordinality k(attnum, ord)
                 join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.attnum order by k.ord)::text[] as ref_columns
    from pg_constraint c
    join pg_class t on t.oid = c.conrelid
    join pg_class rt on rt.oid = c.confrelid
    join pg_namespace n on n.oid = t.relnamespace
    where c.contype = 'f' and n.nspname = current_schema()`);
  const trg = await client.query<{ name: string; table_name: string; timing: string; event: string; columns: string[] }>(`
    select tg.tgname as name, t.relname as table_name,
           case when tg.tgtype & 2 = 2 then 'before' when tg.tgtype & 64 = 64 then 'instead of' else 'after' end as timing,
           e.event,
           array(select a.attname from unnest(tg.tgattr::int2[]) with ordinality k(attnum, ord)
                 join pg_attribute a on a.attrelid = tg.tgrelid and a.attnum = k.attnum order by k.ord)::text[] as columns
    from pg_trigger tg
    join pg_class t on t.oid = tg.tgrelid
    join pg_namespace n on n.oid = t.relnamespace
    cross join lateral (values ('insert', 4), ('delete', 8), ('update', 16)) as e(event, bit)
    where not tg.tgisinternal and n.nspname = current_schema() and tg.tgtype & e.bit = e.bit
    order by tg.tgname, e.event`);

  const names = [...new Set(cols.rows.map((r) => r.table_name))].sort();
  const tables = names.map((name): TableInfo => {
    const own = idx.rows.filter((r) => r.table_name === name && !ENGINE_SPECIFIC_SEARCH.postgresIndexes.has(r.name));
    return {
      name,
      columns: cols.rows
        .filter((r) => r.table_name === name && !ENGINE_SPECIFIC_SEARCH.postgresColumns.has(`${name}.${r.column_name}`))
        .map((r) => ({
          name: r.column_name,
          type: r.type.toLowerCase(),
          notNull: r.not_null,
          defaultValue: r.generated ? null : r.default_value,
          generated: r.generated,
        })),
      primaryKey: (own.find((r) => r.primary)?.columns ?? []).map(unquotePg),
      indexes: own
        .filter((r) => !r.primary)
        .map((r) => ({ name: r.name, unique: r.unique, columns: r.columns.map(unquotePg) }))
        .sort((a, b) => a.name.localeCompare(b.name)),
      foreignKeys: sortForeignKeys(
        fks.rows
          .filter((r) => r.table_name === name)
          .map((r) => ({
            columns: r.columns,
            refTable: r.ref_table,
            refColumns: r.ref_columns,
            onDelete: PG_FK_ACTIONS[r.on_delete] ?? r.on_delete,
            onUpdate: PG_FK_ACTIONS[r.on_update] ?? r.on_update,
          })),
      ),
    };
  });
  const triggers = trg.rows.map((r) => ({
    name: r.name,
    table: r.table_name,
    timing: r.timing as TriggerInfo["timing"],
    event: r.event as TriggerInfo["event"],
    columns: r.columns,
  }));
  return { tables, triggers };
}

/** pg_get_indexdef quotes names that need it ("values", "index"); the catalogue model keeps bare names. */
function unquotePg(column: string): string {
  return column.replace(/^"((?:[^"]|"")*)"/, (_m, inner: string) => inner.replace(/""/g, '"'));
}

function sortForeignKeys(fks: ForeignKeyInfo[]): ForeignKeyInfo[] {
  const key = (f: ForeignKeyInfo) => `${f.columns.join(",")}→${f.refTable}`;
  return [...fks].sort((a, b) => key(a).localeCompare(key(b)));
}

/**
 * Tables in an order where every table comes after the tables its foreign keys point to (self-references
 * ignored), so rows can be inserted table by table with constraints checked. Ties keep alphabetical order.
 */
export function foreignKeyOrder(tables: TableInfo[]): string[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const order: string[] = [];
  const visit = (name: string, path: string[]) => {
    if (done.has(name)) return;
    if (visiting.has(name)) throw new Error(`Foreign keys form a cycle: ${[...path, name].join(" → ")}; no insertion order satisfies them`);
    visiting.add(name);
    for (const fk of byName.get(name)?.foreignKeys ?? []) if (fk.refTable !== name && byName.has(fk.refTable)) visit(fk.refTable, [...path, name]);
    visiting.delete(name);
    done.add(name);
    order.push(name);
  };
  for (const t of [...tables].sort((a, b) => a.name.localeCompare(b.name))) visit(t.name, []);
  return order;
}
