/**
 * API tokens: stored rows (public id and secret digest, never the token), their owners as they are now, the
 * listing an owner or admin sees, revocation and the last-use stamp.
 */
import { and, desc, eq, isNull, lt, or } from "drizzle-orm";
import { insertReturningId, affectedRows, first, tablesOf, type Db } from "../../database";
import type { ApiTokenRow, Role } from "../../schema/index";
import type { ApiTokenScope } from "../../../server/domain/access/api-tokens";

export interface NewApiToken {
  publicId: string;
  secretHash: string;
  userId: string;
  name: string;
  scope: ApiTokenScope;
  expiresAt: Date;
  createdBy: string | null;
}

export async function insertApiToken(db: Db, v: NewApiToken): Promise<number> {
  return insertReturningId(db, tablesOf(db).apiTokens, v);
}

/** A token row with its owner as the owner is now (role, deactivation), found by its public id. */
export async function findApiTokenWithOwner(
  db: Db,
  publicId: string,
): Promise<{ token: ApiTokenRow; owner: { id: string; name: string; email: string; role: Role; banned: boolean } } | undefined> {
  const { apiTokens, users } = tablesOf(db);
  const row = await first(
    db
      .select({ token: apiTokens, id: users.id, name: users.name, email: users.email, role: users.role, banned: users.banned })
      .from(apiTokens)
      .innerJoin(users, eq(users.id, apiTokens.userId))
      .where(eq(apiTokens.publicId, publicId))
      .limit(1),
  );
  if (!row) return undefined;
  return { token: row.token, owner: { id: row.id, name: row.name, email: row.email, role: row.role, banned: row.banned ?? false } };
}

export type ApiTokenListing = Omit<ApiTokenRow, "secretHash">;

/** A user's tokens, newest first, without their digests. */
export async function listApiTokens(db: Db, userId: string): Promise<ApiTokenListing[]> {
  const { apiTokens } = tablesOf(db);
  return db
    .select({
      id: apiTokens.id,
      publicId: apiTokens.publicId,
      userId: apiTokens.userId,
      name: apiTokens.name,
      scope: apiTokens.scope,
      expiresAt: apiTokens.expiresAt,
      lastUsedAt: apiTokens.lastUsedAt,
      revokedAt: apiTokens.revokedAt,
      createdBy: apiTokens.createdBy,
      createdAt: apiTokens.createdAt,
    })
    .from(apiTokens)
    .where(eq(apiTokens.userId, userId))
    .orderBy(desc(apiTokens.id));
}

export async function getApiToken(db: Db, id: number): Promise<ApiTokenRow | undefined> {
  const { apiTokens } = tablesOf(db);
  return first(db.select().from(apiTokens).where(eq(apiTokens.id, id)).limit(1));
}

/** Marks a token revoked (once: the first revocation's time is kept). True when this call revoked it. */
export async function revokeApiToken(db: Db, id: number, at: Date): Promise<boolean> {
  const { apiTokens } = tablesOf(db);
  return (
    affectedRows(
      await db
        .update(apiTokens)
        .set({ revokedAt: at })
        .where(and(eq(apiTokens.id, id), isNull(apiTokens.revokedAt))),
    ) > 0
  );
}

/**
 * Stamps the token's last use. Written at most once a minute per token, so a script's burst of requests does not
 * turn every read into a write.
 */
export async function touchApiToken(db: Db, id: number, at: Date): Promise<void> {
  const { apiTokens } = tablesOf(db);
  const staleBefore = new Date(at.getTime() - 60_000);
  await db
    .update(apiTokens)
    .set({ lastUsedAt: at })
    .where(and(eq(apiTokens.id, id), or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, staleBefore))));
}
