import type { Db } from "../client";
import { instanceInfo } from "../schema/index";

/** This database's identity (made once by its migrations). */
export function instanceId(db: Db): string {
  const row = db.select({ id: instanceInfo.id }).from(instanceInfo).get();
  if (!row) throw new Error("instance_info is empty: the database's migrations did not run completely");
  return row.id;
}
