/**
 * CPU milliseconds the PostgreSQL server's processes serving `db` have used so far, read from /proc (the bench's
 * throwaway server runs on this machine): on a shared machine a view's server share is only comparable as CPU time.
 * 0 on SQLite, where the database's work is this process's.
 */
import fs from "node:fs";
import { sql } from "drizzle-orm";
import { dialectOf, rawAll, type Db } from "../../db/database";

export async function serverCpuMs(db: Db): Promise<number> {
  if (dialectOf(db) !== "postgres") return 0;
  const pids = await rawAll<{ pid: number }>(db, sql`select pid from pg_stat_activity`);
  let ticks = 0;
  for (const { pid } of pids) {
    try {
      // Fields 14 and 15 (utime, stime) after the command name in parentheses.
      const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // ended meanwhile
    }
  }
  // Clock ticks of 10 ms (USER_HZ 100 on Linux).
  return ticks * 10;
}
