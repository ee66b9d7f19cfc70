/**
 * tRPC initialisation: the request context, the transformer, error shaping and the procedure builders.
 *
 * Every procedure in server/api/routers is built from `publicProcedure`. The accounts issue swaps in
 * role-checked builders (e.g. `annotatorProcedure`) derived from it; routers then change one import.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { z, ZodError } from "zod";
import { getAppContext, type AppContext } from "../context";
import { AppError } from "../errors";
import { ImportError } from "../importers/types";

/**
 * Who is asking. Null until the accounts issue adds sign-in; kept in the context now so procedures and the
 * role-checking middleware it will add have one place to read it from.
 */
export interface RequestSession {
  userId: string;
  role: string;
}

export interface TrpcContext extends AppContext {
  headers: Headers;
  session: RequestSession | null;
}

/** Builds the per-request context from the process-wide app context (database, store, config). */
export function createTRPCContext(opts: { headers: Headers }, app: AppContext = getAppContext()): TrpcContext {
  return { ...app, headers: opts.headers, session: null };
}

const t = initTRPC.context<TrpcContext>().create({
  transformer: superjson,
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    return {
      ...shape,
      data: {
        ...shape.data,
        // Field-level detail for forms; null for anything that was not an input validation failure.
        zodError: cause instanceof ZodError ? z.flattenError(cause) : null,
        domainError: cause instanceof AppError ? cause.name : cause instanceof ImportError ? "ImportError" : null,
      },
    };
  },
});

/**
 * Maps domain errors thrown by services to tRPC codes with their message intact. Anything else is an
 * unexpected failure: it keeps tRPC's INTERNAL_SERVER_ERROR, and in production its message is not exposed.
 */
const domainErrors = t.middleware(async ({ next }) => {
  const res = await next();
  if (!res.ok) {
    const cause = res.error.cause;
    if (cause instanceof AppError) {
      res.error = new TRPCError({ code: cause.code, message: cause.message, cause });
    } else if (cause instanceof ImportError) {
      res.error = new TRPCError({ code: "BAD_REQUEST", message: cause.message, cause });
    } else if (res.error.code === "INTERNAL_SERVER_ERROR" && process.env.NODE_ENV === "production") {
      console.error(res.error.cause ?? res.error);
      res.error = new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: "Internal error (details are in the server log)" });
    }
  }
  return res;
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Base procedure: every procedure is built from this one (see the module comment). */
export const publicProcedure = t.procedure.use(domainErrors);
