/**
 * A signed-in person talking to a web server over real HTTP, as the browser does: sign-in through better-auth (the
 * session cookie kept), tRPC queries and mutations in the wire format (superjson's `{ json }` envelope), the zip
 * upload route, and timed health probes.
 */
import type { TestContext } from "./context";
import { createAccount } from "../../server/services/accounts";
import type { Role } from "../../db/schema/index";
import { rawRequest, type RawResponse } from "./route-server";

export interface HttpClient {
  cookie: string;
  query<T>(procedure: string, input?: unknown): Promise<T>;
  mutation<T>(procedure: string, input?: unknown): Promise<T>;
  /** The raw answer to a mutation (for refusals). */
  mutationResponse(procedure: string, input?: unknown): Promise<RawResponse>;
  upload(name: string, body: Buffer): Promise<RawResponse>;
}

const PASSWORD = "correct-horse-battery-staple";

function unwrap<T>(procedure: string, res: RawResponse): T {
  if (res.status !== 200) throw new Error(`${procedure}: HTTP ${res.status} ${res.body.slice(0, 500)}`);
  return (JSON.parse(res.body) as { result: { data: { json: T } } }).result.data.json;
}

/** Creates an account of `role` in the test's installation and signs it in at `baseUrl`. */
export async function signedInClient(
  ctx: TestContext,
  baseUrl: string,
  role: Role,
  email = `${role}-${Math.random().toString(36).slice(2, 8)}@http.test`,
): Promise<HttpClient> {
  await createAccount(ctx, { email, name: email.split("@")[0]!, role, password: PASSWORD });
  const res = await rawRequest(`${baseUrl}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: baseUrl },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  if (res.status !== 200) throw new Error(`sign-in as ${email}: HTTP ${res.status} ${res.body}`);
  const cookie = (res.headers["set-cookie"] ?? []).map((c) => c.split(";")[0]).join("; ");
  const headers = { Cookie: cookie, Origin: baseUrl };
  const mutationResponse = (procedure: string, input?: unknown) =>
    rawRequest(`${baseUrl}/api/trpc/${procedure}`, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify({ json: input }),
    });
  return {
    cookie,
    async query<T>(procedure: string, input?: unknown) {
      const q = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
      return unwrap<T>(procedure, await rawRequest(`${baseUrl}/api/trpc/${procedure}${q}`, { headers }));
    },
    async mutation<T>(procedure: string, input?: unknown) {
      return unwrap<T>(procedure, await mutationResponse(procedure, input));
    },
    mutationResponse,
    upload: (name, body) =>
      rawRequest(`${baseUrl}/api/imports?name=${encodeURIComponent(name)}`, {
        method: "POST",
        headers: { ...headers, "Content-Type": "application/zip" },
        body,
      }),
  };
}

/** Polls `read` until `done` says so (or the time runs out, which fails with the last value read). */
export async function pollUntil<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: T;
  for (;;) {
    last = await read();
    if (done(last)) return last;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(last).slice(0, 1000)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
