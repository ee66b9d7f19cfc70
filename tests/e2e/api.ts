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

/** A tRPC query that must succeed (its HTTP status and body name the failure), unwrapped from superjson. */
export async function query<T>(api: APIRequestContext, path: string, input?: unknown): Promise<T> {
  const search = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
  const res = await api.get(`/api/trpc/${path}${search}`);
  if (!res.ok()) throw new Error(`${path}: HTTP ${res.status()} ${await res.text()}`);
  return ((await res.json()) as { result: { data: { json: T } } }).result.data.json;
}

/** A tRPC mutation that must succeed, unwrapped from superjson. */
export async function mutation<T>(api: APIRequestContext, path: string, input: unknown): Promise<T> {
  const res = await api.post(`/api/trpc/${path}`, { data: { json: input } });
  if (!res.ok()) throw new Error(`${path}: HTTP ${res.status()} ${await res.text()}`);
  return ((await res.json()) as { result: { data: { json: T } } }).result.data.json;
}
