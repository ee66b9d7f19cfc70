/**
 * The job queue's table on PostgreSQL. Declared once in db/schema/jobs.ts, which documents the claim order, leases
 * and cancel flag.
 */
import { jobTables } from "../schema/jobs";
import { pgKit } from "./columns";

export const { jobs } = jobTables(pgKit);
