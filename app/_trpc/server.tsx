/**
 * tRPC for server components: `api()` calls procedures directly (no HTTP), `trpc` + `HydrateClient` prefetch
 * queries that client components then read from the cache.
 *
 * Server-only by construction: it reads request headers and imports the router. Every entry point awaits
 * `connection()` so pages that read the database are rendered per request, never at build time.
 */
import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import { TRPCError } from "@trpc/server";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { headers } from "next/headers";
import { forbidden, notFound } from "next/navigation";
import { connection } from "next/server";
import { cache, type ReactNode } from "react";
import { appRouter, createCaller } from "@/server/api/root";
import { createTRPCContext } from "@/server/api/trpc";
import { makeQueryClient } from "./query-client";

const createContext = cache(async () => {
  await connection();
  return createTRPCContext({ headers: new Headers(await headers()) });
});

export const getQueryClient = cache(makeQueryClient);

export const trpc = createTRPCOptionsProxy({ ctx: createContext, router: appRouter, queryClient: getQueryClient });

/** A caller bound to this request's context. */
export async function api() {
  return createCaller(await createContext());
}

/** The signed-in user of this request, as its tRPC context read it from the session cookie (once per request). */
export async function requestSession() {
  return (await createContext()).session;
}

/**
 * Runs a query and turns NOT_FOUND into Next's 404 view and FORBIDDEN into its 403 view (a record outside an
 * annotator's campaigns), instead of an error page with a raw React error.
 */
export async function orNotFound<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    if (e instanceof TRPCError && e.code === "NOT_FOUND") notFound();
    if (e instanceof TRPCError && e.code === "FORBIDDEN") forbidden();
    throw e;
  }
}

export function HydrateClient({ children }: { children: ReactNode }) {
  return <HydrationBoundary state={dehydrate(getQueryClient())}>{children}</HydrationBoundary>;
}
