import { first, tablesOf, type Db } from "../database";

/** This database's identity (made once by its migrations). */
export async function instanceId(db: Db): Promise<string> {
  const { instanceInfo } = tablesOf(db);
  const row = await first(db.select({ id: instanceInfo.id }).from(instanceInfo).limit(1));
  if (!row) throw new Error("instance_info is empty: the database's migrations did not run completely");
  return row.id;
}
