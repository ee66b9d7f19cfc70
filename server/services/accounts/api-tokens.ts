/**
 * API tokens for scripts, notebooks and CI: made by their owner (from the account page) or by an admin for anyone
 * (`npm run cli -- token create`), shown once, listed with their last use, revoked at will. A request that carries
 * `Authorization: Bearer <token>` acts as the token's owner with the owner's role as it is now (a demoted or
 * deactivated owner's tokens follow), and a read token only reads. Who may see what (roles, the blind) is decided
 * by the same services as for a signed-in person: the token only says who is asking.
 */
import {
  findApiTokenWithOwner,
  getApiToken,
  insertApiToken,
  listApiTokens,
  revokeApiToken,
  touchApiToken,
  type ApiTokenListing,
} from "../../../db/repositories/accounts/api-tokens";
import { countRecentFailures, recordFailure } from "../../../db/repositories/accounts/request-limits";
import {
  bearerFromHeader,
  DEFAULT_TOKEN_DAYS,
  hashTokenSecret,
  newTokenSecret,
  parseToken,
  secretMatches,
  tokenInQuery,
  tokenRequestProblem,
  type ApiTokenScope,
} from "../../domain/access/api-tokens";
import type { Actor } from "../../domain/access/actor";
import { hasRole } from "../../domain/access/actor";
import type { Role } from "../../domain/access/roles";
import type { AppContext } from "../../context";
import { AppError, NotFoundError, ValidationError } from "../../errors";
import { CLIENT_ADDRESS_HEADER } from "../../auth/client-address";

type App = Pick<AppContext, "db">;

/** Failed token presentations one client address may make per window before it is turned away (429). */
export const BEARER_FAILURES_PER_WINDOW = 20;
export const BEARER_FAILURE_WINDOW_MS = 60_000;
/** Requests one token may make per minute in this web server process. */
export const BEARER_REQUESTS_PER_MINUTE = 600;

export interface CreatedApiToken {
  /** The whole token: shown once, never stored. */
  token: string;
  listing: ApiTokenListing;
}

/** Who manages tokens: a person in the dashboard, or the server's command line (which has the database anyway). */
type TokenManager = Actor | "command line";

function mayManageFor(actor: TokenManager, ownerId: string): boolean {
  return actor === "command line" || actor.userId === ownerId || hasRole(actor, "admin");
}

/**
 * Makes a token for `ownerId`. Anyone makes their own; only admins make one for someone else. A token made
 * through another token is refused by the callers (a token cannot mint a longer-lived one).
 */
export async function createApiToken(
  app: App,
  actor: TokenManager,
  input: { ownerId: string; name: string; scope: string; days?: number },
  now = new Date(),
): Promise<CreatedApiToken> {
  if (!mayManageFor(actor, input.ownerId)) throw new AppError("FORBIDDEN", "Only admins can make tokens for other people");
  const days = input.days ?? DEFAULT_TOKEN_DAYS;
  const problem = tokenRequestProblem({ name: input.name, scope: input.scope, days });
  if (problem) throw new ValidationError(problem);
  const secret = newTokenSecret();
  const id = await insertApiToken(app.db, {
    publicId: secret.publicId,
    secretHash: secret.secretHash,
    userId: input.ownerId,
    name: input.name.trim(),
    scope: input.scope as ApiTokenScope,
    expiresAt: new Date(now.getTime() + days * 86_400_000),
    createdBy: actor === "command line" ? null : actor.userId,
  });
  const listing = (await listApiTokens(app.db, input.ownerId)).find((t) => t.id === id)!;
  return { token: secret.token, listing };
}

/** A user's tokens (their own, or anyone's for an admin), newest first. */
export async function apiTokensOf(app: App, actor: TokenManager, ownerId: string): Promise<ApiTokenListing[]> {
  if (!mayManageFor(actor, ownerId)) throw new AppError("FORBIDDEN", "Only admins can see other people's tokens");
  return listApiTokens(app.db, ownerId);
}

/** Revokes a token of the actor's own, or any token for an admin. Revoking a revoked token changes nothing. */
export async function revokeToken(app: App, actor: TokenManager, tokenId: number, now = new Date()): Promise<ApiTokenListing> {
  const token = await getApiToken(app.db, tokenId);
  // Someone else's token is "not found" to a non-admin: its existence is not theirs to learn.
  if (!token || !mayManageFor(actor, token.userId)) throw new NotFoundError("token", tokenId);
  await revokeApiToken(app.db, tokenId, now);
  return (await listApiTokens(app.db, token.userId)).find((t) => t.id === tokenId)!;
}

/** Who a valid token speaks for, as the request context knows a signed-in user. */
export interface BearerIdentity {
  session: { userId: string; name: string; email: string; role: Role };
  tokenId: number;
  scope: ApiTokenScope;
}

export type BearerOutcome = { identity: BearerIdentity } | { refusal: { status: 400 | 401 | 429; message: string } };

const INVALID = "The API token is not valid (unknown, mistyped, revoked or expired). Make a new one on your account page.";
/** Compared against when the public id is unknown, so an unknown token costs the same work as a wrong secret. */
const UNKNOWN_DIGEST = hashTokenSecret("no such token");

const requestCounts = new Map<number, { windowStart: number; count: number }>();

function overRequestBudget(tokenId: number, now: number): boolean {
  const entry = requestCounts.get(tokenId);
  if (!entry || now - entry.windowStart >= 60_000) {
    if (requestCounts.size > 10_000) requestCounts.clear();
    requestCounts.set(tokenId, { windowStart: now, count: 1 });
    return false;
  }
  entry.count += 1;
  return entry.count > BEARER_REQUESTS_PER_MINUTE;
}

/**
 * The identity a request's bearer token gives, a refusal, or null when the request carries no Authorization
 * header (a browser's, identified by its session cookie). A token is never taken from the query string: a URL
 * carrying one is refused whatever else the request holds, since URLs are written to logs and histories.
 */
export async function authenticateBearer(app: App, req: { url: string; headers: Headers }, now = new Date()): Promise<BearerOutcome | null> {
  if (tokenInQuery(req.url)) {
    return {
      refusal: {
        status: 400,
        message: "API tokens are accepted only in the Authorization header (Bearer), never in the URL. Revoke a token that was sent in one.",
      },
    };
  }
  const bearer = bearerFromHeader(req.headers.get("authorization"));
  if (bearer === null) return null;
  if ("problem" in bearer) return { refusal: { status: 401, message: bearer.problem } };
  const address = `api-token:${req.headers.get(CLIENT_ADDRESS_HEADER) ?? "unknown"}`;
  if ((await countRecentFailures(app.db, address, BEARER_FAILURE_WINDOW_MS, now)) >= BEARER_FAILURES_PER_WINDOW) {
    return { refusal: { status: 429, message: "Too many requests with invalid API tokens from this address; wait a minute" } };
  }
  const identity = await identityOf(app, bearer.token, now);
  if (!identity) {
    await recordFailure(app.db, address, BEARER_FAILURE_WINDOW_MS, now);
    return { refusal: { status: 401, message: INVALID } };
  }
  if (overRequestBudget(identity.tokenId, now.getTime())) {
    return { refusal: { status: 429, message: `This token made more than ${BEARER_REQUESTS_PER_MINUTE} requests in a minute; slow down` } };
  }
  await touchApiToken(app.db, identity.tokenId, now);
  return { identity };
}

async function identityOf(app: App, token: string, now: Date): Promise<BearerIdentity | null> {
  const parts = parseToken(token);
  const found = parts ? await findApiTokenWithOwner(app.db, parts.publicId) : undefined;
  const matches = secretMatches(parts?.secret ?? "", found?.token.secretHash ?? UNKNOWN_DIGEST);
  if (!found || !matches) return null;
  const { token: row, owner } = found;
  if (row.revokedAt !== null || row.expiresAt.getTime() <= now.getTime() || owner.banned) return null;
  return { session: { userId: owner.id, name: owner.name, email: owner.email, role: owner.role }, tokenId: row.id, scope: row.scope };
}
