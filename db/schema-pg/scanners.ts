/** Scanners on PostgreSQL, declared once in db/schema/scanners.ts, which documents their meaning. */
import { scannerTables } from "../schema/scanners";
import { users } from "./auth";
import { trajectories } from "./core";
import { pgKit } from "./columns";

export const { scanners, scannerScans, scannerMatches } = scannerTables(pgKit, { users, trajectories });
