/**
 * tRPC callers for tests, signed in as a user of a given role. The user row is written directly (no password:
 * these users never sign in through better-auth), so the helper stays synchronous; tests of sign-in itself use
 * server/services/accounts.
 */
import { eq } from "drizzle-orm";
import { createCaller } from "../../server/api/root";
import type { RequestSession, TrpcContext } from "../../server/api/trpc";
import type { AppContext } from "../../server/context";
import { users, type Role } from "../../db/schema/index";

export function testUser(app: Pick<AppContext, "db">, role: Role, name = `Test ${role}`): RequestSession {
  const id = `test-${role}-${name.toLowerCase().replace(/\W+/g, "-")}`;
  const email = `${id}@test.example`;
  if (!app.db.select({ id: users.id }).from(users).where(eq(users.id, id)).get()) {
    app.db.insert(users).values({ id, name, email, role, emailVerified: true }).run();
  }
  return { userId: id, name, email, role };
}

/** A caller as `session` (null = signed out). */
export function callerAs(app: AppContext, session: RequestSession | null) {
  const ctx: TrpcContext = { ...app, headers: new Headers(), session };
  return createCaller(ctx);
}

/** A caller signed in with the given role (the role's test user is created on first use). */
export function callerWithRole(app: AppContext, role: Role) {
  return callerAs(app, testUser(app, role));
}
