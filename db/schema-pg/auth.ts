/**
 * Accounts on PostgreSQL: better-auth's tables and Verdict's invitations, mirroring db/schema/auth.ts (the
 * property names are better-auth's field names, so they must stay identical to the SQLite schema's).
 */
import { authTables } from "../schema/auth";
import { pgKit } from "./columns";

export const { users, sessions, accounts, verifications, invitations, apiTokens, rateLimits } = authTables(pgKit);
