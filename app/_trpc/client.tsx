"use client";
/**
 * tRPC + TanStack Query for client components: `const trpc = useTRPC(); useQuery(trpc.x.queryOptions(...))`.
 * Only the router's type is imported from the server; the address the server render calls is handed down by the
 * root layout (serverRenderApiUrl in ./server.tsx), since the port is known only when the server runs.
 */
import { QueryClientProvider, type QueryClient } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState, type ReactNode } from "react";
import superjson from "superjson";
import type { AppRouter } from "@/server/api/root";
import { makeQueryClient } from "./query-client";

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

let browserQueryClient: QueryClient | undefined;

function getQueryClient(): QueryClient {
  // The server renders each request with a fresh client; the browser keeps one so the cache survives navigation.
  if (typeof window === "undefined") return makeQueryClient();
  browserQueryClient ??= makeQueryClient();
  return browserQueryClient;
}

/**
 * `serverApiUrl` is where this provider reaches the API while it renders on the server (the web server itself, on
 * loopback); the browser calls /api/trpc on the page's own origin.
 */
export function TRPCReactProvider({ children, serverApiUrl }: { children: ReactNode; serverApiUrl: string }) {
  const queryClient = getQueryClient();
  const url = typeof window === "undefined" ? serverApiUrl : "/api/trpc";
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        // Subscriptions (live runs) stream over server-sent events; everything else is batched HTTP.
        splitLink({
          condition: (op) => op.type === "subscription",
          true: httpSubscriptionLink({ url, transformer: superjson }),
          // The server refuses batches larger than MAX_BATCH_SIZE (server/api/trpc.ts); the link splits above it.
          false: httpBatchLink({ url, transformer: superjson, maxItems: 10 }),
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
