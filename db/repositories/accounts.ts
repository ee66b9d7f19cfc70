/**
 * Users and invitations: the queries Verdict runs on account tables itself. Creating users, passwords and
 * sessions go through better-auth (server/auth), never through here; ending sessions and removing a setup
 * account that lost a race are plain deletes.
 */
import { and, asc, count, eq, gt, inArray, isNull } from "drizzle-orm";
import type { Db } from "../client";
import { invitations, sessions, users, type InvitationRow, type Role } from "../schema/index";

export interface UserSummary {
  id: string;
  name: string;
  email: string;
  role: Role;
  banned: boolean;
  createdAt: Date;
}

const summaryColumns = {
  id: users.id,
  name: users.name,
  email: users.email,
  role: users.role,
  banned: users.banned,
  createdAt: users.createdAt,
};

function toSummary(r: { id: string; name: string; email: string; role: Role; banned: boolean | null; createdAt: Date }): UserSummary {
  return { ...r, banned: r.banned ?? false };
}

export function countUsers(db: Db): number {
  return db.select({ n: count() }).from(users).get()!.n;
}

/** Ends every session of a user (sign-out everywhere). */
export function deleteUserSessions(db: Db, userId: string): number {
  return db.delete(sessions).where(eq(sessions.userId, userId)).run().changes;
}

/**
 * First-run setup's claim: true when `userId` is the installation's first account. Otherwise the account (made a
 * moment ago by a setup request that lost a race) is removed in the same transaction, so exactly one setup wins.
 */
export function keepIfFirstUser(db: Db, userId: string): boolean {
  return db.$client
    .transaction(() => {
      const first = db.$client.prepare("SELECT id FROM users ORDER BY rowid LIMIT 1").get() as { id: string } | undefined;
      if (first?.id === userId) return true;
      db.delete(users).where(eq(users.id, userId)).run();
      return false;
    })
    .immediate();
}

export function listUsers(db: Db): UserSummary[] {
  return db.select(summaryColumns).from(users).orderBy(asc(users.createdAt), asc(users.email)).all().map(toSummary);
}

export function getUser(db: Db, id: string): UserSummary | undefined {
  const r = db.select(summaryColumns).from(users).where(eq(users.id, id)).get();
  return r ? toSummary(r) : undefined;
}

export function getUsers(db: Db, ids: string[]): UserSummary[] {
  if (!ids.length) return [];
  return db.select(summaryColumns).from(users).where(inArray(users.id, ids)).all().map(toSummary);
}

export function getUserByEmail(db: Db, email: string): UserSummary | undefined {
  const r = db.select(summaryColumns).from(users).where(eq(users.email, email.toLowerCase())).get();
  return r ? toSummary(r) : undefined;
}

export function setUserRole(db: Db, id: string, role: Role): void {
  db.update(users).set({ role, updatedAt: new Date() }).where(eq(users.id, id)).run();
}

export function setUserName(db: Db, id: string, name: string): void {
  db.update(users).set({ name, updatedAt: new Date() }).where(eq(users.id, id)).run();
}

export function countAdmins(db: Db): number {
  return db.select({ n: count() }).from(users).where(eq(users.role, "admin")).get()!.n;
}

// ---- invitations

export function insertInvitation(db: Db, v: typeof invitations.$inferInsert): number {
  return db.insert(invitations).values(v).returning({ id: invitations.id }).get().id;
}

/** An invitation that can still be accepted (not used, not revoked, not expired). */
export function findOpenInvitation(db: Db, tokenHash: string, now: Date): InvitationRow | undefined {
  return db
    .select()
    .from(invitations)
    .where(and(eq(invitations.tokenHash, tokenHash), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now)))
    .get();
}

export function markInvitationAccepted(db: Db, id: number, userId: string, at: Date): boolean {
  return (
    db
      .update(invitations)
      .set({ acceptedAt: at, acceptedUserId: userId })
      .where(and(eq(invitations.id, id), isNull(invitations.acceptedAt)))
      .run().changes === 1
  );
}

export function revokeInvitation(db: Db, id: number, at: Date): boolean {
  return db.update(invitations).set({ revokedAt: at }).where(and(eq(invitations.id, id), isNull(invitations.acceptedAt), isNull(invitations.revokedAt))).run().changes === 1;
}

export function listOpenInvitations(db: Db, now: Date) {
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
    .orderBy(asc(invitations.createdAt))
    .all();
}
