/**
 * One QueryClient factory for the server (per request) and the browser (one per tab), with superjson so
 * Dates survive hydration, and pending queries dehydrated so server prefetches stream to the client.
 */
import { defaultShouldDehydrateQuery, QueryClient } from "@tanstack/react-query";
import superjson from "superjson";

/** Attempts after the first for a call the server marked retryable (the database was busy; nothing was written). */
const RETRIES = 4;

/** The server sets `data.retryable` on errors after which the very same call may simply be sent again. */
export function isRetryable(error: unknown): boolean {
  return (error as { data?: { retryable?: unknown } } | null)?.data?.retryable === true;
}

/** Retry policy for mutations: only retryable errors, a few times. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  return isRetryable(error) && failureCount < RETRIES;
}

/** Queries also retry when the server could not be reached at all (no answer to read); refusals are final. */
function shouldRetryQuery(failureCount: number, error: unknown): boolean {
  const answered = (error as { data?: unknown } | null)?.data !== undefined;
  return shouldRetry(failureCount, error) || (!answered && failureCount < 3);
}

/** Backoff between retries: 0.3 s, 0.6 s, 1.2 s, 2.4 s, with jitter so waiting tabs do not retry in step. */
export function retryDelay(attempt: number): number {
  return Math.round(300 * 2 ** attempt * (0.75 + Math.random() * 0.5));
}

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Imported trajectories change only on re-import; avoid refetching on every focus.
        staleTime: 60_000,
        refetchOnWindowFocus: false,
        retry: shouldRetryQuery,
        retryDelay,
      },
      // Mutations are retried only when the server says nothing was written (label submits also carry an
      // idempotency key, so even a lost answer cannot store a label twice).
      mutations: { retry: shouldRetry, retryDelay },
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
