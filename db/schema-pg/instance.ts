/** This database's identity on PostgreSQL, declared once in db/schema/instance.ts. */
import { instanceTables } from "../schema/instance";
import { pgKit } from "./columns";

export const { instanceInfo } = instanceTables(pgKit);
