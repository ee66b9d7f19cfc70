/**
 * Accounts: the tables better-auth manages through its drizzle adapter (users, sessions, credential accounts,
 * verification tokens), plus Verdict's own invitations.
 *
 * better-auth addresses tables by model name ("user" → `users` with `usePlural`) and columns by the drizzle
 * property name, so the property names below are the library's field names; the SQL column names are ours.
 * `role`, `banned`, `banReason`, `banExpires` and `impersonatedBy` are the admin plugin's fields.
 */
import type { ApiTokenScope } from "../../server/domain/access/api-tokens";
import type { Role } from "../../server/domain/access/roles";
import { sqliteKit, timestamps, type SchemaKit } from "./columns";

export { ROLES, type Role } from "../../server/domain/access/roles";

/** The tables of this module, declared once for both dialects (db/schema/columns.ts). */
export function authTables(k: SchemaKit) {
  const users = k.table("users", {
    id: k.text("id").primaryKey(),
    name: k.text("name").notNull(),
    /** Stored lower-case by better-auth; unique. */
    email: k.text("email").notNull().unique(),
    emailVerified: k.flag("email_verified").notNull().default(false),
    image: k.text("image"),
    role: k.text("role").$type<Role>().notNull().default("annotator"),
    banned: k.flag("banned").default(false),
    banReason: k.text("ban_reason"),
    banExpires: k.time("ban_expires"),
    ...timestamps(k),
  });

  const sessions = k.table(
    "sessions",
    {
      id: k.text("id").primaryKey(),
      expiresAt: k.time("expires_at").notNull(),
      token: k.text("token").notNull().unique(),
      ...timestamps(k),
      ipAddress: k.text("ip_address"),
      userAgent: k.text("user_agent"),
      userId: k.cascadeKey("user_id", () => users.id),
      impersonatedBy: k.text("impersonated_by"),
    },
    (t) => [k.index("sessions_user_idx").on(t.userId)],
  );

  const accounts = k.table(
    "accounts",
    {
      id: k.text("id").primaryKey(),
      accountId: k.text("account_id").notNull(),
      /** "credential" for email + password. */
      providerId: k.text("provider_id").notNull(),
      userId: k.cascadeKey("user_id", () => users.id),
      accessToken: k.text("access_token"),
      refreshToken: k.text("refresh_token"),
      idToken: k.text("id_token"),
      accessTokenExpiresAt: k.time("access_token_expires_at"),
      refreshTokenExpiresAt: k.time("refresh_token_expires_at"),
      scope: k.text("scope"),
      /** better-auth's password hash (scrypt); never read outside better-auth. */
      password: k.text("password"),
      ...timestamps(k),
    },
    (t) => [k.index("accounts_user_idx").on(t.userId)],
  );

  const verifications = k.table(
    "verifications",
    {
      id: k.text("id").primaryKey(),
      identifier: k.text("identifier").notNull(),
      value: k.text("value").notNull(),
      expiresAt: k.time("expires_at").notNull(),
      ...timestamps(k),
    },
    (t) => [k.index("verifications_identifier_idx").on(t.identifier)],
  );

  /**
   * An admin's invitation: whoever opens the link chooses a password and gets an account with this email and role.
   * Only the sha256 of the token is stored, so a copy of the database does not hold usable links.
   */
  const invitations = k.table("invitations", {
    id: k.id(),
    tokenHash: k.text("token_hash").notNull().unique(),
    email: k.text("email").notNull(),
    name: k.text("name"),
    role: k.text("role").$type<Role>().notNull(),
    invitedBy: k.text("invited_by").references(() => users.id, { onDelete: "set null" }),
    expiresAt: k.time("expires_at").notNull(),
    acceptedAt: k.time("accepted_at"),
    acceptedUserId: k.text("accepted_user_id").references(() => users.id, { onDelete: "set null" }),
    revokedAt: k.time("revoked_at"),
    createdAt: k.stamp("created_at"),
  });

  /**
   * A person's API tokens, for scripts, notebooks and CI (Authorization: Bearer). A token acts as its owner, with
   * the owner's role as it is at the time of each request, narrowed to reading when its scope is "read". The token
   * is shown once; only its public id (the part before the secret, to find the row) and the sha256 of its secret are
   * kept, so a copy of the database holds no usable token.
   */
  const apiTokens = k.table(
    "api_tokens",
    {
      id: k.id(),
      publicId: k.text("public_id").notNull().unique(),
      secretHash: k.text("secret_hash").notNull(),
      userId: k.cascadeKey("user_id", () => users.id),
      name: k.text("name").notNull(),
      scope: k.text("scope").$type<ApiTokenScope>().notNull(),
      expiresAt: k.time("expires_at").notNull(),
      lastUsedAt: k.time("last_used_at"),
      revokedAt: k.time("revoked_at"),
      createdBy: k.text("created_by").references(() => users.id, { onDelete: "set null" }),
      createdAt: k.stamp("created_at"),
    },
    (t) => [k.index("api_tokens_user_idx").on(t.userId)],
  );

  /**
   * better-auth's rate-limit counters (model "rateLimit"): one row per client address and auth path, so every web
   * server behind a load balancer counts the same sign-in attempts. `lastRequest` is epoch milliseconds as a plain
   * number, which is what better-auth reads and compares.
   */
  const rateLimits = k.table("rate_limits", {
    id: k.text("id").primaryKey(),
    key: k.text("key").notNull().unique(),
    count: k.integer("count").notNull(),
    lastRequest: k.bigint("last_request").notNull(),
  });
  return { users, sessions, accounts, verifications, invitations, apiTokens, rateLimits };
}

export const { users, sessions, accounts, verifications, invitations, apiTokens, rateLimits } = authTables(sqliteKit);

export type ApiTokenRow = typeof apiTokens.$inferSelect;

export type UserRow = typeof users.$inferSelect;
export type InvitationRow = typeof invitations.$inferSelect;
