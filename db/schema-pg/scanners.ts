/** Scanners on PostgreSQL, declared once in db/schema/scanners.ts, which documents their meaning. */
import { scannerTables, type ScannerRefs } from "../schema/scanners";
import { users } from "./auth";
import { trajectories } from "./core";
import { pgKit } from "./columns";

export const { scanners, scannerScans, scannerMatches } = scannerTables(pgKit, { users, trajectories } as unknown as ScannerRefs);
