/**
 * Accounts: the tables better-auth manages through its drizzle adapter (users, sessions, credential accounts,
 * verification tokens), plus Verdict's own invitations.
 *
 * better-auth addresses tables by model name ("user" → `users` with `usePlural`) and columns by the drizzle
 * property name, so the property names below are the library's field names; the SQL column names are ours.
 * `role`, `banned`, `banReason`, `banExpires` and `impersonatedBy` are the admin plugin's fields.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

const nowMs = sql`(unixepoch('subsec') * 1000)`;

import type { ApiTokenScope } from "../../server/domain/access/api-tokens";
import type { Role } from "../../server/domain/access/roles";
import { cascadeKey } from "./columns";

export { ROLES, type Role } from "../../server/domain/access/roles";

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** Stored lower-case by better-auth; unique. */
  email: text("email").notNull().unique(),
  emailVerified: integer("email_verified", { mode: "boolean" }).notNull().default(false),
  image: text("image"),
  role: text("role").$type<Role>().notNull().default("annotator"),
  banned: integer("banned", { mode: "boolean" }).default(false),
  banReason: text("ban_reason"),
  banExpires: integer("ban_expires", { mode: "timestamp_ms" }),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
});

export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    token: text("token").notNull().unique(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    userId: cascadeKey("user_id", () => users.id),
    impersonatedBy: text("impersonated_by"),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

export const accounts = sqliteTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    /** "credential" for email + password. */
    providerId: text("provider_id").notNull(),
    userId: cascadeKey("user_id", () => users.id),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: integer("access_token_expires_at", { mode: "timestamp_ms" }),
    refreshTokenExpiresAt: integer("refresh_token_expires_at", { mode: "timestamp_ms" }),
    scope: text("scope"),
    /** better-auth's password hash (scrypt); never read outside better-auth. */
    password: text("password"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [index("accounts_user_idx").on(t.userId)],
);

export const verifications = sqliteTable(
  "verifications",
  {
    id: text("id").primaryKey(),
    identifier: text("identifier").notNull(),
    value: text("value").notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [index("verifications_identifier_idx").on(t.identifier)],
);

/**
 * An admin's invitation: whoever opens the link chooses a password and gets an account with this email and role.
 * Only the sha256 of the token is stored, so a copy of the database does not hold usable links.
 */
export const invitations = sqliteTable("invitations", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  tokenHash: text("token_hash").notNull().unique(),
  email: text("email").notNull(),
  name: text("name"),
  role: text("role").$type<Role>().notNull(),
  invitedBy: text("invited_by").references(() => users.id, { onDelete: "set null" }),
  expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  acceptedAt: integer("accepted_at", { mode: "timestamp_ms" }),
  acceptedUserId: text("accepted_user_id").references(() => users.id, { onDelete: "set null" }),
  revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
});

/**
 * A person's API tokens, for scripts, notebooks and CI (Authorization: Bearer). A token acts as its owner, with
 * the owner's role as it is at the time of each request, narrowed to reading when its scope is "read". The token
 * is shown once; only its public id (the part before the secret, to find the row) and the sha256 of its secret are
 * kept, so a copy of the database holds no usable token.
 */
export const apiTokens = sqliteTable(
  "api_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    publicId: text("public_id").notNull().unique(),
    secretHash: text("secret_hash").notNull(),
    userId: cascadeKey("user_id", () => users.id),
    name: text("name").notNull(),
    scope: text("scope").$type<ApiTokenScope>().notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    lastUsedAt: integer("last_used_at", { mode: "timestamp_ms" }),
    revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [index("api_tokens_user_idx").on(t.userId)],
);

export type ApiTokenRow = typeof apiTokens.$inferSelect;

export type UserRow = typeof users.$inferSelect;
export type InvitationRow = typeof invitations.$inferSelect;

/**
 * better-auth's rate-limit counters (model "rateLimit"): one row per client address and auth path, so every web
 * server behind a load balancer counts the same sign-in attempts. `lastRequest` is epoch milliseconds as a plain
 * number, which is what better-auth reads and compares.
 */
export const rateLimits = sqliteTable("rate_limits", {
  id: text("id").primaryKey(),
  key: text("key").notNull().unique(),
  count: integer("count").notNull(),
  lastRequest: integer("last_request").notNull(),
});
