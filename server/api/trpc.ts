/**
 * tRPC initialisation: the request context (with the signed-in user), the transformer, error shaping and the
 * procedure builders.
 *
 * Every procedure states who may call it by the builder it starts from, and the builder records that in the
 * procedure's meta (`access`) so a test can walk the router and check each one:
 * - `publicProcedure`      anyone, signed in or not (sign-in state, first-run setup, invitations);
 * - `authedProcedure`      any signed-in user (browsing, an annotator's own queue and labels);
 * - `researcherProcedure`  researchers and admins (campaigns, adjudication, judges, analytics, imports);
 * - `adminProcedure`       admins (users and settings).
 * Finer rules that depend on data (an annotator sees only their campaigns' trajectories; the blind rule) are
 * the services', which receive `ctx.actor`.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { z, ZodError } from "zod";
import { isDatabaseBusy } from "../../db/client";
import type { Role } from "../domain/access/roles";
import { sessionFromHeaders } from "../auth/auth";
import { scopeAllowsWrites, type ApiTokenScope } from "../domain/access/api-tokens";
import type { BearerIdentity } from "../services/accounts/api-tokens";
import { hasRole, type Actor } from "../domain/access/actor";
import { getAppContext, type AppContext } from "../context";
import { assertNotLabellingBlind } from "../services/access";
import { AppError, ValidationError } from "../errors";

/** Who is asking: the signed-in user of the request, from better-auth's session cookie. */
export interface RequestSession {
  userId: string;
  name: string;
  email: string;
  role: Role;
}

export interface TrpcContext extends AppContext {
  headers: Headers;
  session: RequestSession | null;
  /**
   * Set when the request came with an API token (Authorization: Bearer) instead of a session cookie: the token's
   * scope. A read token's mutations are refused; null for people in a browser and for server-side callers.
   */
  tokenScope?: ApiTokenScope | null;
}

/** Calls one HTTP request may batch (the browser's batch link sends at most this many). */
export const MAX_BATCH_SIZE = 10;

/** Procedures that take a whole CSV file, and so get the larger body limit (VERDICT_MAX_UPLOAD_BYTES). */
export const UPLOAD_PROCEDURES: ReadonlySet<string> = new Set(["analytics.csvAgreement", "campaigns.importLabels"]);

/** Said when another process (an import, a worker) holds the database's write lock longer than we wait. */
export const DATABASE_BUSY_MESSAGE = "The database is busy; try again";

/** Who may call a procedure; see the module comment. */
export type Access = "public" | "signedIn" | "researcher" | "admin";

export interface ProcedureMeta {
  access?: Access;
}

/**
 * Builds the per-request context: the process-wide app context plus the session read from the request's cookies.
 * `session` can be given instead (server-side callers that already know who is asking; tests).
 */
export async function createTRPCContext(
  opts: { headers: Headers; session?: RequestSession | null; bearer?: BearerIdentity | null },
  app: AppContext = getAppContext(),
): Promise<TrpcContext> {
  if (opts.bearer) return { ...app, headers: opts.headers, session: opts.bearer.session, tokenScope: opts.bearer.scope };
  const session = opts.session !== undefined ? opts.session : await sessionFromHeaders(app, opts.headers);
  return { ...app, headers: opts.headers, session, tokenScope: null };
}

const t = initTRPC
  .context<TrpcContext>()
  .meta<ProcedureMeta>()
  .create({
    transformer: superjson,
    errorFormatter({ shape, error }) {
      const cause = error.cause;
      return {
        ...shape,
        data: {
          ...shape.data,
          // Field-level detail for forms; null for anything that was not an input validation failure.
          zodError: cause instanceof ZodError ? z.flattenError(cause) : null,
          domainError: cause instanceof AppError ? cause.name : null,
          // The form field a refused value belongs to, where the service named one (shown beside that field).
          field: cause instanceof ValidationError ? (cause.field ?? null) : null,
          // Nothing was written; the same call can be sent again (the browser does so with backoff).
          retryable: error.code === "SERVICE_UNAVAILABLE",
        },
      };
    },
  });

/**
 * Maps domain errors thrown by services to tRPC codes with their message intact. A database busy with another
 * process's write becomes a retryable 503 (the failed statement, or its whole transaction, was not applied).
 * Anything else is an unexpected failure: it keeps tRPC's INTERNAL_SERVER_ERROR, and in production (the config's
 * `production`, NODE_ENV) its message is not exposed.
 */
const domainErrors = t.middleware(async ({ ctx, next }) => {
  const res = await next();
  if (!res.ok) {
    const cause = res.error.cause;
    if (cause instanceof AppError) {
      res.error = new TRPCError({ code: cause.code, message: cause.message, cause });
    } else if (isDatabaseBusy(cause)) {
      res.error = new TRPCError({ code: "SERVICE_UNAVAILABLE", message: DATABASE_BUSY_MESSAGE, cause });
    } else if (res.error.code === "INTERNAL_SERVER_ERROR" && ctx.config.production === true) {
      console.error(res.error.cause ?? res.error);
      res.error = new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: "Internal error (details are in the server log)" });
    }
  }
  return res;
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

/** A read-only API token reads: every mutation made with one is refused, whatever the procedure. */
const tokenScope = t.middleware(({ ctx, type, next }) => {
  if (type === "mutation" && ctx.tokenScope && !scopeAllowsWrites(ctx.tokenScope)) {
    throw new TRPCError({ code: "FORBIDDEN", message: "This API token may only read (its scope is read); make a read-write token to change things" });
  }
  return next();
});

const base = t.procedure.use(domainErrors).use(tokenScope);

function requireAccess(access: Exclude<Access, "public">) {
  return t.middleware(({ ctx, next }) => {
    const session = ctx.session;
    if (!session) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to do this" });
    if (access === "researcher" && !hasRole(session, "researcher")) {
      throw new TRPCError({ code: "FORBIDDEN", message: "Only researchers and admins can do this" });
    }
    if (access === "admin" && !hasRole(session, "admin")) throw new TRPCError({ code: "FORBIDDEN", message: "Only admins can do this" });
    const actor: Actor = { userId: session.userId, name: session.name, role: session.role };
    return next({ ctx: { ...ctx, session, actor } });
  });
}

/** Anyone, signed in or not. */
export const publicProcedure = base.meta({ access: "public" });
/** Any signed-in user; `ctx.actor` is set. */
export const authedProcedure = base.meta({ access: "signedIn" }).use(requireAccess("signedIn"));
/** Researchers and admins. */
export const researcherProcedure = base.meta({ access: "researcher" }).use(requireAccess("researcher"));
/** Admins. */
export const adminProcedure = base.meta({ access: "admin" }).use(requireAccess("admin"));
/**
 * Researchers and admins who are not labelling blind: for what shows judge verdicts and human labels of many
 * trajectories at once (analytics, evaluations, scanners), which a researcher still labelling blind could read their
 * own blind items' answers from.
 */
export const sightedResearcherProcedure = researcherProcedure.use(async ({ ctx, next }) => {
  await assertNotLabellingBlind(ctx.db, ctx.actor.userId);
  return next();
});
