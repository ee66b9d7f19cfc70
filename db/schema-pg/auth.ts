/**
 * Accounts on PostgreSQL: better-auth's tables and Verdict's invitations, mirroring db/schema/auth.ts (the
 * property names are better-auth's field names, so they must stay identical to the SQLite schema's).
 */
import { bigint, boolean, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import type { ApiTokenScope } from "../../server/domain/access/api-tokens";
import type { Role } from "../schema/auth";
import { cascadeKey, epochMs, nowMs } from "./columns";

export const users = pgTable("users", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull().unique(),
  emailVerified: boolean("email_verified").notNull().default(false),
  image: text("image"),
  role: text("role").$type<Role>().notNull().default("annotator"),
  banned: boolean("banned").default(false),
  banReason: text("ban_reason"),
  banExpires: epochMs("ban_expires"),
  createdAt: epochMs("created_at").notNull().default(nowMs),
  updatedAt: epochMs("updated_at").notNull().default(nowMs),
});

export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    expiresAt: epochMs("expires_at").notNull(),
    token: text("token").notNull().unique(),
    createdAt: epochMs("created_at").notNull().default(nowMs),
    updatedAt: epochMs("updated_at").notNull().default(nowMs),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    userId: cascadeKey("user_id", () => users.id),
    impersonatedBy: text("impersonated_by"),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

export const accounts = pgTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: cascadeKey("user_id", () => users.id),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: epochMs("access_token_expires_at"),
    refreshTokenExpiresAt: epochMs("refresh_token_expires_at"),
    scope: text("scope"),
    password: text("password"),
    createdAt: epochMs("created_at").notNull().default(nowMs),
    updatedAt: epochMs("updated_at").notNull().default(nowMs),
  },
  (t) => [index("accounts_user_idx").on(t.userId)],
);

export const verifications = pgTable(
  "verifications",
  {
    id: text("id").primaryKey(),
    identifier: text("identifier").notNull(),
    value: text("value").notNull(),
    expiresAt: epochMs("expires_at").notNull(),
    createdAt: epochMs("created_at").notNull().default(nowMs),
    updatedAt: epochMs("updated_at").notNull().default(nowMs),
  },
  (t) => [index("verifications_identifier_idx").on(t.identifier)],
);

export const invitations = pgTable("invitations", {
  id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
  tokenHash: text("token_hash").notNull().unique(),
  email: text("email").notNull(),
  name: text("name"),
  role: text("role").$type<Role>().notNull(),
  invitedBy: text("invited_by").references(() => users.id, { onDelete: "set null" }),
  expiresAt: epochMs("expires_at").notNull(),
  acceptedAt: epochMs("accepted_at"),
  acceptedUserId: text("accepted_user_id").references(() => users.id, { onDelete: "set null" }),
  revokedAt: epochMs("revoked_at"),
  createdAt: epochMs("created_at").notNull().default(nowMs),
});

/** A person's API tokens; see db/schema/auth.ts. */
export const apiTokens = pgTable(
  "api_tokens",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    publicId: text("public_id").notNull().unique(),
    secretHash: text("secret_hash").notNull(),
    userId: cascadeKey("user_id", () => users.id),
    name: text("name").notNull(),
    scope: text("scope").$type<ApiTokenScope>().notNull(),
    expiresAt: epochMs("expires_at").notNull(),
    lastUsedAt: epochMs("last_used_at"),
    revokedAt: epochMs("revoked_at"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: epochMs("created_at").notNull().default(nowMs),
  },
  (t) => [index("api_tokens_user_idx").on(t.userId)],
);

export const rateLimits = pgTable("rate_limits", {
  id: text("id").primaryKey(),
  key: text("key").notNull().unique(),
  count: integer("count").notNull(),
  lastRequest: bigint("last_request", { mode: "number" }).notNull(),
});
