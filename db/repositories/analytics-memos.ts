/**
 * The analytics' bootstrap results kept across restarts (table analytics_memos; what they are and why they never go
 * stale: db/schema/changes.ts). Plain rows in, plain rows out: the service encodes and decodes the values.
 */
import { sql } from "drizzle-orm";
import { rawAll, rawRun, type Db } from "../database";

export interface MemoRow {
  id: string;
  kind: string;
  memoKey: string;
  value: string;
}

/** The newest `limit` rows, newest first. */
export async function readMemos(db: Db, limit: number): Promise<MemoRow[]> {
  return rawAll<MemoRow>(db, sql`select id, kind, memo_key as "memoKey", value from analytics_memos order by written_at desc, id limit ${limit}`);
}

/** Rows per statement: 5 parameters a row, well under either engine's limit. */
const ROWS_PER_INSERT = 200;

/** Stores rows not stored yet (a row already there has the same value: its id is a digest of kind and key). */
export async function writeMemos(db: Db, rows: readonly MemoRow[], writtenAt: number): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const values = rows.slice(i, i + ROWS_PER_INSERT).map((r) => sql`(${r.id}, ${r.kind}, ${r.memoKey}, ${r.value}, ${writtenAt})`);
    await rawRun(db, sql`insert into analytics_memos (id, kind, memo_key, value, written_at) values ${sql.join(values, sql`, `)} on conflict (id) do nothing`);
  }
}

/** Deletes all but the newest `keep` rows (rows written in the same millisecond as the last kept one stay too). */
export async function pruneMemos(db: Db, keep: number): Promise<void> {
  await rawRun(
    db,
    sql`delete from analytics_memos where written_at < (select written_at from analytics_memos order by written_at desc limit 1 offset ${keep})`,
  );
}

/** Number of stored rows. */
export async function countMemos(db: Db): Promise<number> {
  const rows = await rawAll<{ n: number | string }>(db, sql`select count(*) as n from analytics_memos`);
  return Number(rows[0]?.n ?? 0);
}
