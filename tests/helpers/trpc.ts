/**
 * tRPC callers for tests, signed in as a user of a given role. The user row is written directly (no password:
 * these users never sign in through better-auth); tests of sign-in itself use server/services/accounts.
 */
import { eq } from "drizzle-orm";
import { first, tablesOf } from "../../db/database";
import type { Role } from "../../db/schema/index";
import { createCaller } from "../../server/api/root";
import type { RequestSession, TrpcContext } from "../../server/api/trpc";
import type { AppContext } from "../../server/context";

export async function testUser(app: Pick<AppContext, "db">, role: Role, name = `Test ${role}`): Promise<RequestSession> {
  const { users } = tablesOf(app.db);
  const id = `test-${role}-${name.toLowerCase().replace(/\W+/g, "-")}`;
  const email = `${id}@test.example`;
  if (!(await first(app.db.select({ id: users.id }).from(users).where(eq(users.id, id)).limit(1)))) {
    await app.db.insert(users).values({ id, name, email, role, emailVerified: true }).onConflictDoNothing();
  }
  return { userId: id, name, email, role };
}

/** A caller as `session` (null = signed out). */
export async function callerAs(app: AppContext, session: RequestSession | null) {
  const ctx: TrpcContext = { ...app, headers: new Headers(), session };
  return createCaller(ctx);
}

/** A caller signed in with the given role (the role's test user is created on first use). */
export async function callerWithRole(app: AppContext, role: Role) {
  return callerAs(app, await testUser(app, role));
}
