/**
 * Request body caps for the route handlers. Bodies are read up to the limit and no further, so an oversized
 * request costs the server at most the limit in memory, whether or not it announced its length; the client gets
 * a 413 with a JSON message naming the limit.
 */

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The request body is larger than this server accepts (${formatBytes(limit)})`);
    this.name = "BodyTooLargeError";
  }
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${+(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}

/** The body's bytes, or BodyTooLargeError as soon as more than `limit` bytes have arrived. */
export async function readBodyWithLimit(req: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(req.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError(limit);
  if (!req.body) return new Uint8Array(new ArrayBuffer(0));
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLargeError(limit);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(new ArrayBuffer(total));
  let offset = 0;
  for (const c of chunks) {
    body.set(c, offset);
    offset += c.byteLength;
  }
  return body;
}

/** The 413 answer, in the JSON shape API clients already read (`error` plus tRPC's `error.message`). */
export function payloadTooLarge(error: BodyTooLargeError): Response {
  return new Response(JSON.stringify({ error: { message: error.message, code: "PAYLOAD_TOO_LARGE", limit: error.limit } }) + "\n", {
    status: 413,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", Connection: "close" },
  });
}

/**
 * The same request with its body read under `limit` (GET and HEAD pass through), or the 413 response to send
 * (`tooLarge` shapes it for clients that expect their own error format).
 */
export async function limitBody(req: Request, limit: number, tooLarge: (e: BodyTooLargeError) => Response = payloadTooLarge): Promise<Request | Response> {
  if (req.method === "GET" || req.method === "HEAD") return req;
  try {
    const body = await readBodyWithLimit(req, limit);
    return new Request(req.url, { method: req.method, headers: req.headers, body: body.byteLength ? body : null, signal: req.signal });
  } catch (e) {
    if (e instanceof BodyTooLargeError) return tooLarge(e);
    throw e;
  }
}
