/**
 * The app's API as the e2e specs call it: tRPC over HTTP the way the pages do (superjson wire format, not batched),
 * answering the status and the data so a spec can assert a refusal as well as a result, and request contexts
 * signed in as one of the e2e accounts.
 */
import { request as playwrightRequest, type APIRequestContext } from "@playwright/test";
import { storageStateOf, type E2EAccountKey } from "./accounts";

export async function trpc<T = unknown>(
  api: APIRequestContext,
  kind: "query" | "mutation",
  path: string,
  input: unknown,
): Promise<{ status: number; data: T }> {
  const res =
    kind === "query"
      ? await api.get(`/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`)
      : await api.post(`/api/trpc/${path}`, { data: { json: input } });
  const body = (await res.json()) as { result?: { data: { json: T } } };
  return { status: res.status(), data: body.result?.data.json as T };
}

/** An API client signed in as the account `key` (its saved session). */
export function apiAs(key: E2EAccountKey, baseURL: string): Promise<APIRequestContext> {
  return playwrightRequest.newContext({ baseURL, storageState: storageStateOf(key) });
}
