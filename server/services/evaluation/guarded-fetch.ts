/**
 * The `fetch` the judge client uses: it connects only where the admins' host policy allows, and to the address
 * it checked. The URL of every request is checked, then the host name is resolved once and the connection is
 * made to that very address, so a name cannot pass the check and then resolve elsewhere (DNS rebinding).
 * Nothing is sent, not even the connection's first byte, when the check fails.
 */
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { Readable } from "node:stream";
import { endpointUrlRefusal, resolvedAddressRefusal, type JudgeHostPolicy } from "../../domain/evaluation/judge-endpoint-policy";

/** A request the host policy refused. Not worth retrying: the same request would be refused again. */
export class EndpointRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EndpointRefusedError";
  }
}

function checkedLookup(url: URL, policy: JudgeHostPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, verbatim: true, family: options.family }, (err, found) => {
      const addresses = err ? [] : found.map((a) => a.address);
      const refusal = resolvedAddressRefusal(url, addresses, policy);
      if (refusal) return callback(new EndpointRefusedError(refusal), "", 0);
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, found);
      callback(null, found[0]!.address, found[0]!.family);
    });
  };
}

function requestUrl(input: string | URL | Request): string {
  return typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
}

function bodyOf(body: RequestInit["body"]): Buffer | null {
  if (body == null) return null;
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new Error("judge requests send JSON text; this request body type is not supported");
}

/** A fetch for one host policy; agents keep connections alive per policy (the address check runs per connection). */
export function guardedFetch(policy: JudgeHostPolicy): typeof fetch {
  const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(requestUrl(input));
    const refusal = endpointUrlRefusal(url, policy);
    if (refusal) throw new EndpointRefusedError(refusal);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => (headers[k] = v));
    const body = bodyOf(init.body);
    const transport = url.protocol === "https:" ? https : http;
    return await new Promise<Response>((resolve, reject) => {
      const req = transport.request(
        url,
        {
          method: init.method ?? "GET",
          headers,
          agent: agents[url.protocol as "http:" | "https:"],
          lookup: checkedLookup(url, policy),
          signal: init.signal ?? undefined,
        },
        (res) => {
          const out = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (Array.isArray(v)) v.forEach((x) => out.append(k, x));
            else if (v !== undefined) out.set(k, v);
          }
          const status = res.statusCode ?? 500;
          const noBody = status === 204 || status === 205 || status === 304 || init.method === "HEAD";
          if (noBody) res.resume();
          resolve(new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream), { status, statusText: res.statusMessage ?? "", headers: out }));
        },
      );
      req.on("error", (e) => reject((e as { cause?: unknown }).cause instanceof EndpointRefusedError ? (e as { cause: Error }).cause : e));
      if (body) req.end(body);
      else req.end();
    });
  }) as typeof fetch;
}
