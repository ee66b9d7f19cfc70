/** The task validity ledger on PostgreSQL, declared once in db/schema/validity.ts, which documents its meaning. */
import { validityTables } from "../schema/validity";
import { users } from "./auth";
import { tasks } from "./core";
import { pgKit } from "./columns";

export const { taskFlags } = validityTables(pgKit, { users, tasks });
