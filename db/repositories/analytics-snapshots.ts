/**
 * The analytics' stored starting data (table analytics_snapshots; what a row holds and when it is exact:
 * db/schema/changes.ts). Plain rows in, plain rows out: the service encodes and decodes the values.
 */
import { sql } from "drizzle-orm";
import { rawAll, rawGet, rawRun, type Db } from "../database";

export interface SnapshotHead {
  format: string;
  stamp: string;
  /** JSON of every change counter when the value was read. */
  versions: string;
}

/** A row's format and counters, without its value (a cold process decides from these whether to read the value). */
export async function readSnapshotHead(db: Db, key: string): Promise<SnapshotHead | undefined> {
  return rawGet<SnapshotHead>(db, sql`select format, stamp, versions from analytics_snapshots where key = ${key}`);
}

/** A row's value, if the row still has the stamp it was decided on (another process may have replaced it since). */
export async function readSnapshotValue(db: Db, key: string, stamp: string): Promise<Buffer | undefined> {
  const row = await rawGet<{ value: Buffer | Uint8Array }>(db, sql`select value from analytics_snapshots where key = ${key} and stamp = ${stamp}`);
  return row ? Buffer.from(row.value.buffer, row.value.byteOffset, row.value.byteLength) : undefined;
}

/** Stores a row, replacing the one of its key. */
export async function writeSnapshot(db: Db, key: string, head: SnapshotHead, value: Buffer, writtenAt: number): Promise<void> {
  await rawRun(
    db,
    sql`insert into analytics_snapshots (key, format, stamp, versions, value, written_at)
        values (${key}, ${head.format}, ${head.stamp}, ${head.versions}, ${value}, ${writtenAt})
        on conflict (key) do update set format = excluded.format, stamp = excluded.stamp, versions = excluded.versions,
          value = excluded.value, written_at = excluded.written_at`,
  );
}

/** Deletes the rows of the given keys, or all of them. */
export async function deleteSnapshots(db: Db, keys?: readonly string[]): Promise<void> {
  if (keys && !keys.length) return;
  await rawRun(
    db,
    keys
      ? sql`delete from analytics_snapshots where key in (${sql.join(
          keys.map((k) => sql`${k}`),
          sql`, `,
        )})`
      : sql`delete from analytics_snapshots`,
  );
}

/** Keys of the stored rows with their stamps, by key. */
export async function listSnapshots(db: Db): Promise<{ key: string; stamp: string; bytes: number }[]> {
  const rows = await rawAll<{ key: string; stamp: string; bytes: number | string }>(
    db,
    sql`select key, stamp, length(value) as bytes from analytics_snapshots order by key`,
  );
  return rows.map((r) => ({ ...r, bytes: Number(r.bytes) }));
}

/** Oldest rows beyond the newest `keep` are deleted (a database with many campaigns and judges stays bounded). */
export async function pruneSnapshots(db: Db, keep: number): Promise<void> {
  await rawRun(db, sql`delete from analytics_snapshots where key not in (select key from analytics_snapshots order by written_at desc, key limit ${keep})`);
}
