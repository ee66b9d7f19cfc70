/**
 * API tokens: what a token looks like, how its secret is kept and checked, and what each scope allows. Pure.
 *
 * A token reads `vdt_<public id>_<secret>`: the public id (12 characters) finds the stored row, the secret
 * (43 characters, 256 random bits) proves possession. Only the SHA-256 of the secret is stored. A slow password
 * hash buys nothing for a random 256-bit secret (there is no dictionary to slow down), and a fast one keeps every
 * API request cheap; the comparison of the digests takes the same time whatever they share.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const API_TOKEN_SCOPES = ["read", "read-write"] as const;
export type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number];

const PREFIX = "vdt";
const PUBLIC_ID_BYTES = 9;
const SECRET_BYTES = 32;
const TOKEN_PATTERN = /^vdt_([A-Za-z0-9_-]{12})_([A-Za-z0-9_-]{43})$/;

/** Longest lifetime a token may be given, and the one it gets when none is chosen. */
export const MAX_TOKEN_DAYS = 366;
export const DEFAULT_TOKEN_DAYS = 90;
export const MAX_TOKEN_NAME_LENGTH = 100;

export interface NewTokenSecret {
  /** The whole token, shown to its owner once. */
  token: string;
  publicId: string;
  secretHash: string;
}

export function hashTokenSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

export function newTokenSecret(random: (n: number) => Buffer = randomBytes): NewTokenSecret {
  const publicId = random(PUBLIC_ID_BYTES).toString("base64url");
  const secret = random(SECRET_BYTES).toString("base64url");
  return { token: `${PREFIX}_${publicId}_${secret}`, publicId, secretHash: hashTokenSecret(secret) };
}

/** The two parts of a token as presented, or null when it cannot be one of ours. */
export function parseToken(token: string): { publicId: string; secret: string } | null {
  const m = TOKEN_PATTERN.exec(token);
  return m ? { publicId: m[1]!, secret: m[2]! } : null;
}

/** Whether `secret` is the one whose digest is stored, in time that does not depend on where they differ. */
export function secretMatches(secret: string, storedHash: string, compare: (a: Buffer, b: Buffer) => boolean = timingSafeEqual): boolean {
  const presented = Buffer.from(hashTokenSecret(secret), "hex");
  const stored = Buffer.from(storedHash, "hex");
  // Both are SHA-256 digests (32 bytes) whatever was presented, so the comparison always runs over the whole length.
  if (stored.length !== presented.length) return false;
  return compare(presented, stored);
}

/** Why a token with this name, scope and lifetime cannot be made, or null when it can. */
export function tokenRequestProblem(input: { name: string; scope: string; days: number }): string | null {
  if (!input.name.trim()) return 'a token needs a name (what it is for, e.g. "nightly CI")';
  if (input.name.length > MAX_TOKEN_NAME_LENGTH) return `token names are at most ${MAX_TOKEN_NAME_LENGTH} characters`;
  if (!(API_TOKEN_SCOPES as readonly string[]).includes(input.scope)) return `scope must be one of ${API_TOKEN_SCOPES.join(", ")}`;
  if (!Number.isInteger(input.days) || input.days < 1 || input.days > MAX_TOKEN_DAYS) return `a token lasts from 1 to ${MAX_TOKEN_DAYS} days`;
  return null;
}

/** Whether a token of `scope` may make a call that changes something. */
export function scopeAllowsWrites(scope: ApiTokenScope): boolean {
  return scope === "read-write";
}

/**
 * The bearer token of an Authorization header: `{ token }`, `{ problem }` when the header is there but not a
 * bearer token, or null without the header (the request is then a browser's, identified by its cookie).
 */
export function bearerFromHeader(header: string | null): { token: string } | { problem: string } | null {
  if (header === null) return null;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!m) return { problem: 'The Authorization header must read "Bearer <token>"' };
  return { token: m[1]! };
}

/** Query parameters a token must never travel in (they end up in server logs, proxies' logs and browser history). */
export const TOKEN_QUERY_PARAMETERS = ["token", "access_token", "api_token", "apikey", "api_key", "bearer"];

/** Whether a URL carries something that looks like a token in its query string. */
export function tokenInQuery(url: string): boolean {
  const params = new URL(url, "http://x").searchParams;
  for (const [key, value] of params) {
    if (TOKEN_QUERY_PARAMETERS.includes(key.toLowerCase())) return true;
    if (value.startsWith(`${PREFIX}_`)) return true;
  }
  return false;
}
