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
import type { Metadata } from "next";
import { cache, type ComponentType, type ReactNode } from "react";
import { appRouter, createCaller } from "@/server/api/root";
import { createTRPCContext } from "@/server/api/trpc";
import { DEFAULT_PORT } from "@/server/config";
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

/**
 * Where client components reach the API while they render on the server: this web server on loopback, at the port
 * the configuration reads (PORT, which Next sets to the port it listens on). Read per request, so a build serves on
 * any port; the root layout hands it to TRPCReactProvider.
 */
export async function serverRenderApiUrl(): Promise<string> {
  return `http://127.0.0.1:${(await createContext()).config.port ?? DEFAULT_PORT}/api/trpc`;
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

/** A page's id from its address: a positive whole number, else null (the page answers 404). */
export function pageId(raw: string): number | null {
  return /^\d{1,12}$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
}

/** Every id in a page's address (`{ campaignId: "3", itemNo: "7" }` as numbers), or the 404 when one is not an id. */
export function pageIds<K extends string>(params: Record<K, string>): Record<K, number> {
  const ids = {} as Record<K, number>;
  for (const key of Object.keys(params) as K[]) {
    const id = pageId(params[key]);
    if (id === null) notFound();
    ids[key] = id;
  }
  return ids;
}

type RecordPageProps = { params: Promise<{ id: string }> };

/**
 * The page of one record named by the id in its address (a judge batch, a stress test, a live run…): titled
 * "<noun> <id>", 404 for an id that is not one or a record that is not there (`load` fetches it through
 * `orNotFound` and prefetches what else `View` reads), then `View` drawn from those queries. A page exports both:
 * `export const generateMetadata = page.generateMetadata; export default page.Page;`.
 */
export function recordPage(noun: string, View: ComponentType<{ id: number }>, load: (id: number) => Promise<unknown>) {
  async function generateMetadata({ params }: RecordPageProps): Promise<Metadata> {
    const id = pageId((await params).id);
    return { title: id ? `${noun} ${id}` : noun };
  }
  async function Page({ params }: RecordPageProps) {
    const id = pageId((await params).id);
    if (id === null) notFound();
    await load(id);
    return (
      <HydrateClient>
        <View id={id} />
      </HydrateClient>
    );
  }
  return { generateMetadata, Page };
}
