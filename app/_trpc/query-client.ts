/**
 * One QueryClient factory for the server (per request) and the browser (one per tab), with superjson so
 * Dates survive hydration, and pending queries dehydrated so server prefetches stream to the client.
 */
import { defaultShouldDehydrateQuery, QueryClient } from "@tanstack/react-query";
import superjson from "superjson";

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Imported trajectories change only on re-import; avoid refetching on every focus.
        staleTime: 60_000,
        refetchOnWindowFocus: false,
      },
      dehydrate: {
        serializeData: superjson.serialize,
        shouldDehydrateQuery: (q) => defaultShouldDehydrateQuery(q) || q.state.status === "pending",
      },
      hydrate: {
        deserializeData: superjson.deserialize,
      },
    },
  });
}
