/**
 * Users and invitations: the queries Verdict runs on account tables itself. Creating users, passwords and
 * sessions go through better-auth (server/auth), never through here; ending sessions and removing a setup
 * account that lost a race are plain deletes.
 */
import { and, asc, count, eq, gt, inArray, isNull, ne } from "drizzle-orm";
import { pickColumns, insertReturningId, affectedRows, first, tablesOf, withTransaction, type Db } from "../../database";
import type { InvitationRow, invitations as invitationsTable, Role } from "../../schema/index";

export interface UserSummary {
  id: string;
  name: string;
  email: string;
  role: Role;
  banned: boolean;
  createdAt: Date;
}

function summaryColumns(db: Db) {
  return pickColumns(tablesOf(db).users, ["id", "name", "email", "role", "banned", "createdAt"]);
}

function toSummary(r: { id: string; name: string; email: string; role: Role; banned: boolean | null; createdAt: Date }): UserSummary {
  return { ...r, banned: r.banned ?? false };
}

export async function countUsers(db: Db): Promise<number> {
  const { users } = tablesOf(db);
  const row = await first(db.select({ n: count() }).from(users).limit(1));
  return Number(row?.n ?? 0);
}

/** Ends every session of a user (sign-out everywhere). */
export async function deleteUserSessions(db: Db, userId: string): Promise<number> {
  const { sessions } = tablesOf(db);
  return affectedRows(await db.delete(sessions).where(eq(sessions.userId, userId)));
}

/**
 * First-run setup's claim: true when `userId` is the installation's only account, so it is kept. When another
 * account exists too (made by a setup request running at the same moment), this one is removed in the same
 * transaction and false is returned. Transactions on one database run one after another (SQLite) or as if they did
 * (PostgreSQL, serializable), so exactly one of the racing setups finds itself alone: the last to check, if every
 * earlier one removed itself, or the first, whom every later one then sees.
 */
export async function keepIfFirstUser(db: Db, userId: string): Promise<boolean> {
  const { users } = tablesOf(db);
  return withTransaction(db, async () => {
    const other = await first(db.select({ id: users.id }).from(users).where(ne(users.id, userId)).limit(1));
    if (!other) return true;
    await db.delete(users).where(eq(users.id, userId));
    return false;
  });
}

export async function listUsers(db: Db): Promise<UserSummary[]> {
  const { users } = tablesOf(db);
  const rows = await db.select(summaryColumns(db)).from(users).orderBy(asc(users.createdAt), asc(users.email));
  return rows.map(toSummary);
}

export async function getUser(db: Db, id: string): Promise<UserSummary | undefined> {
  const { users } = tablesOf(db);
  const r = await first(db.select(summaryColumns(db)).from(users).where(eq(users.id, id)).limit(1));
  return r ? toSummary(r) : undefined;
}

export async function getUsers(db: Db, ids: string[]): Promise<UserSummary[]> {
  if (!ids.length) return [];
  const { users } = tablesOf(db);
  const rows = await db.select(summaryColumns(db)).from(users).where(inArray(users.id, ids)).orderBy(asc(users.createdAt), asc(users.email));
  return rows.map(toSummary);
}

export async function getUserByEmail(db: Db, email: string): Promise<UserSummary | undefined> {
  const { users } = tablesOf(db);
  const r = await first(db.select(summaryColumns(db)).from(users).where(eq(users.email, email.toLowerCase())).limit(1));
  return r ? toSummary(r) : undefined;
}

export async function setUserRole(db: Db, id: string, role: Role): Promise<void> {
  const { users } = tablesOf(db);
  await db.update(users).set({ role, updatedAt: new Date() }).where(eq(users.id, id));
}

/** Every user's id and display name (to compare a new name with the ones in use). */
export async function listUserNames(db: Db): Promise<{ id: string; name: string }[]> {
  const { users } = tablesOf(db);
  return db.select({ id: users.id, name: users.name }).from(users);
}

export async function setUserName(db: Db, id: string, name: string): Promise<void> {
  const { users } = tablesOf(db);
  await db.update(users).set({ name, updatedAt: new Date() }).where(eq(users.id, id));
}

export async function countAdmins(db: Db): Promise<number> {
  const { users } = tablesOf(db);
  const row = await first(db.select({ n: count() }).from(users).where(eq(users.role, "admin")).limit(1));
  return Number(row?.n ?? 0);
}

// ---- invitations

export type NewInvitation = typeof invitationsTable.$inferInsert;

export async function insertInvitation(db: Db, v: NewInvitation): Promise<number> {
  return insertReturningId(db, tablesOf(db).invitations, v);
}

/** An invitation that can still be accepted (not used, not revoked, not expired). */
export async function findOpenInvitation(db: Db, tokenHash: string, now: Date): Promise<InvitationRow | undefined> {
  const { invitations } = tablesOf(db);
  return first(
    db
      .select()
      .from(invitations)
      .where(and(eq(invitations.tokenHash, tokenHash), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now)))
      .limit(1),
  );
}

export async function markInvitationAccepted(db: Db, id: number, userId: string, at: Date): Promise<boolean> {
  const { invitations } = tablesOf(db);
  const result = await db
    .update(invitations)
    .set({ acceptedAt: at, acceptedUserId: userId })
    .where(and(eq(invitations.id, id), isNull(invitations.acceptedAt)));
  return affectedRows(result) === 1;
}

export async function revokeInvitation(db: Db, id: number, at: Date): Promise<boolean> {
  const { invitations } = tablesOf(db);
  const result = await db
    .update(invitations)
    .set({ revokedAt: at })
    .where(and(eq(invitations.id, id), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)));
  return affectedRows(result) === 1;
}

export async function listOpenInvitations(db: Db, now: Date) {
  const { invitations } = tablesOf(db);
  return db
    .select({
      id: invitations.id,
      email: invitations.email,
      name: invitations.name,
      role: invitations.role,
      expiresAt: invitations.expiresAt,
      createdAt: invitations.createdAt,
    })
    .from(invitations)
    .where(and(isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now)))
    .orderBy(asc(invitations.createdAt), asc(invitations.id));
}
