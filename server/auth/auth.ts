/**
 * Sign-in: one better-auth instance per installation (database), email + password only.
 *
 * Public sign-up is off. Accounts are created by the first-run setup (the first account becomes admin), by an
 * admin (directly or through an invitation), or by `npm run cli -- user add`; all of them go through
 * `createAccount` in server/services/accounts/index.ts, which calls better-auth's admin plugin on the server. Password
 * hashing, session tokens and cookie signing are better-auth's.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { isDatabaseBusy } from "../../db/client";
import { dialectOf, tablesOf, type Db } from "../../db/database";
import { countUsers, listUserNames } from "../../db/repositories/accounts/users";
import type { Role } from "../../db/schema/index";
import type { AppContext } from "../context";
import type { VerdictConfig } from "../config";
import { CLIENT_ADDRESS_HEADER } from "./client-address";
import { configuredOrigins, trustedOriginsFor } from "./origins";
import { resolveAuthSecret } from "./secret";

export const SESSION_DAYS = 14;
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_NAME_LENGTH = 200;

/** Why a display name cannot be used, or null when it can. */
export function displayNameProblem(name: string): string | null {
  if (!name.trim()) return "cannot be empty";
  if (name.length > MAX_NAME_LENGTH) return `at most ${MAX_NAME_LENGTH} characters`;
  return null;
}

/**
 * What makes two display names the same to a reader: compatibility forms folded (full-width letters, ligatures),
 * case ignored, and every space (also zero-width and no-break spaces) dropped. "Ann  One", "ann one" and "ＡｎｎＯｎｅ"
 * are one name.
 */
export function displayNameKey(name: string): string {
  return name
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\s\u200b-\u200d\u2060\ufeff]+/gu, "");
}

/**
 * Why `name` cannot be given to user `userId` (null: a new account) because someone else already goes by it.
 * Labels, adjudication views and exports show annotators by name, so a second "Ann One" could pass for the first.
 */
async function nameTakenProblem(db: Db, name: string, userId: string | null): Promise<string | null> {
  const key = displayNameKey(name);
  const other = (await listUserNames(db)).find((u) => u.id !== userId && displayNameKey(u.name) === key);
  return other ? `${JSON.stringify(name.trim())} is already the name of another account (names are compared ignoring case and spaces)` : null;
}

/** The user an update-user call changes: the admin's target, or the signed-in user renaming themselves. */
function updatedUserId(context: unknown): string | null {
  const c = context as { body?: { userId?: unknown }; context?: { session?: { user?: { id?: unknown } } | null } } | null | undefined;
  const target = c?.body?.userId ?? c?.context?.session?.user?.id;
  return typeof target === "string" ? target : null;
}

/**
 * Per-request notes from inside better-auth for the route handler: better-auth turns any failure into a bare 500,
 * so whether the cause was a database busy with another process's write is passed out this way (the route then
 * answers a retryable 503 like the tRPC API does).
 */
export const authRequestState = new AsyncLocalStorage<{ databaseBusy: boolean }>();

/**
 * better-auth's storage: its drizzle adapter over the installation's own database, told which engine it talks to
 * (the adapter spells some queries per engine) and given that engine's table objects.
 */
async function authDatabase(db: Db) {
  const { drizzleAdapter } = await import("better-auth/adapters/drizzle");
  const { users, sessions, accounts, verifications, rateLimits } = tablesOf(db);
  return drizzleAdapter(db, {
    provider: dialectOf(db) === "postgres" ? "pg" : "sqlite",
    usePlural: true,
    schema: { users, sessions, accounts, verifications, rateLimits },
  });
}

async function buildAuth(
  db: Db,
  options: { secret: string; baseUrl?: string; origins: Pick<VerdictConfig, "baseUrl" | "trustedOrigins">; production: boolean },
) {
  // better-auth is loaded when the first request needs a session: it is the largest library behind the API, and
  // processes that never check a cookie (the worker, the CLI, tests calling the API directly) never pay for it.
  const [{ betterAuth }, { APIError, createAuthMiddleware, isAPIError }, { admin }, { adminAc, userAc }, database] = await Promise.all([
    import("better-auth"),
    import("better-auth/api"),
    import("better-auth/plugins/admin"),
    import("better-auth/plugins/admin/access"),
    authDatabase(db),
  ]);
  return betterAuth({
    appName: "Verdict",
    secret: options.secret,
    baseURL: options.baseUrl,
    basePath: "/api/auth",
    // State-changing requests are accepted from VERDICT_BASE_URL, VERDICT_TRUSTED_ORIGINS, and (without them) the
    // page's own origin only when it is localhost or an IP address: never from a name that could be rebound to
    // this machine by someone else's DNS (see server/auth/origins.ts).
    trustedOrigins: async (request) => {
      if (!request) return configuredOrigins(options.origins);
      try {
        // Next hands route handlers a URL built from its own bind address, so the Host header says what the browser used.
        return trustedOriginsFor(options.origins, { protocol: new URL(request.url).protocol, host: request.headers.get("host") });
      } catch {
        return configuredOrigins(options.origins);
      }
    },
    logger: {
      level: "warn",
      // Without VERDICT_BASE_URL the origin comes from each request, which is what a self-hosted app reachable
      // under several names wants; better-auth warns about that on every start, so that one warning is dropped.
      log(level, message, ...args) {
        if (!options.baseUrl && /Base URL is not set/i.test(message)) return;
        (level === "error" ? console.error : console.warn)(`[auth] ${message}`, ...args);
      },
    },
    onAPIError: {
      onError(error) {
        if (isDatabaseBusy(error)) {
          const state = authRequestState.getStore();
          if (state) state.databaseBusy = true;
          return;
        }
        if (!isAPIError(error)) console.error("[auth]", error);
      },
    },
    database,
    advanced: {
      // better-auth marks cookies Secure (with the __Secure- prefix) in production unless told otherwise, and a
      // browser then drops them on plain http, e.g. a self-hosted install opened at http://<lan address>:3000.
      // Secure cookies follow the configured public URL instead: set VERDICT_BASE_URL=https://… behind TLS.
      useSecureCookies: (options.baseUrl ?? "").startsWith("https://"),
      // The rate limit counts each client by the address the web server stamped on the request from its
      // connection (or from a configured proxy's X-Forwarded-For), never by what the client claims.
      ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] },
    },
    emailAndPassword: {
      enabled: true,
      disableSignUp: true,
      minPasswordLength: MIN_PASSWORD_LENGTH,
      maxPasswordLength: 256,
    },
    session: {
      expiresIn: SESSION_DAYS * 24 * 60 * 60,
      updateAge: 24 * 60 * 60,
      // No signed copy of the session in a cookie: it would keep a deactivated user, or one whose password an
      // admin reset, working until it expired. Every request checks the sessions table (one indexed read, and
      // sessionFromHeaders remembers the answer for a few seconds in this process).
      cookieCache: { enabled: false },
    },
    rateLimit: {
      enabled: options.production,
      window: 60,
      max: 600,
      // Password guessing: a few attempts per minute per address.
      customRules: { "/sign-in/email": { window: 60, max: 10 } },
      // Counted in the database, not in this process: behind a load balancer each web server would otherwise
      // allow its own 10 guesses a minute, and a restart would forget them.
      storage: "database",
    },
    hooks: {
      // A password changed by its owner ends every other session of theirs, whatever the request asked: whoever
      // took over a session must not keep it past the change (an admin's reset does the same, in accounts.ts).
      before: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== "/change-password") return;
        return { context: { body: { ...(ctx.body as Record<string, unknown>), revokeOtherSessions: true } } };
      }),
      after: createAuthMiddleware(async (ctx) => {
        if (ctx.path === "/change-password") await forgetSessions({ db });
      }),
    },
    databaseHooks: {
      user: {
        // Display names are copied into labels, adjudication views and exports; users can set their own through
        // better-auth's update-user, so the same bounds as account creation apply there, and no two accounts
        // share a name.
        update: {
          async before(user, context) {
            if (user.name !== undefined) {
              const problem = displayNameProblem(user.name) ?? (await nameTakenProblem(db, user.name, updatedUserId(context)));
              if (problem) throw new APIError("BAD_REQUEST", { message: `name: ${problem}` });
              return { data: { ...user, name: user.name.trim() } };
            }
            return { data: user };
          },
        },
        create: {
          // The very first account administers the installation, whatever role was asked for.
          async before(user) {
            const taken = await nameTakenProblem(db, user.name, null);
            if (taken) throw new APIError("BAD_REQUEST", { message: `name: ${taken}` });
            const existing = await countUsers(db);
            return { data: existing === 0 ? { ...user, role: "admin" satisfies Role } : user };
          },
        },
      },
    },
    plugins: [
      admin({
        defaultRole: "annotator" satisfies Role,
        adminRoles: ["admin"],
        roles: { admin: adminAc, researcher: userAc, annotator: userAc },
      }),
    ],
  });
}

export type VerdictAuth = Awaited<ReturnType<typeof buildAuth>>;

const cache = new WeakMap<Db, Promise<VerdictAuth>>();

/** The auth instance of an installation, built once per database connection. */
export async function getAuth(app: Pick<AppContext, "db" | "config">): Promise<VerdictAuth> {
  let auth = cache.get(app.db);
  if (!auth) {
    auth = buildAuth(app.db, {
      secret: resolveAuthSecret(app.config),
      baseUrl: app.config.baseUrl,
      origins: app.config,
      production: app.config.production === true,
    });
    cache.set(app.db, auth);
  }
  return await auth;
}

export interface SessionUser {
  userId: string;
  name: string;
  email: string;
  role: Role;
}

/**
 * Sessions recently resolved, by the exact cookie header that carried them. better-auth verifies signed cookies
 * with Web Crypto on every call, which costs more than the work behind most requests. Sign-outs, password resets,
 * role changes and deactivations made in this process clear it at once (`forgetSessions`); ones made by another
 * process (the CLI) take effect within these few seconds.
 */
const SESSION_MEMO_MS = 5_000;
const SESSION_MEMO_MAX = 10_000;
const sessionMemo = new WeakMap<Db, Map<string, { user: SessionUser | null; until: number }>>();

/** The signed-in user of a request (from its cookies), or null. */
export async function sessionFromHeaders(app: Pick<AppContext, "db" | "config">, headers: Headers): Promise<SessionUser | null> {
  const cookie = headers.get("cookie");
  if (!cookie) return null;
  let memo = sessionMemo.get(app.db);
  if (!memo) sessionMemo.set(app.db, (memo = new Map()));
  const now = Date.now();
  const hit = memo.get(cookie);
  if (hit && hit.until > now) return hit.user;
  const result = await (await getAuth(app)).api.getSession({ headers });
  const u = result?.user as { id: string; name: string; email: string; role?: string | null } | undefined;
  const user = u ? { userId: u.id, name: u.name, email: u.email, role: toRole(u.role) } : null;
  if (memo.size >= SESSION_MEMO_MAX) memo.clear();
  memo.set(cookie, { user, until: now + SESSION_MEMO_MS });
  return user;
}

/** Forgets remembered sessions (after sign-out, role changes or deactivation in this process). */
export async function forgetSessions(app: Pick<AppContext, "db">): Promise<void> {
  sessionMemo.get(app.db)?.clear();
}

export function toRole(value: string | null | undefined): Role {
  return value === "admin" || value === "researcher" ? value : "annotator";
}
