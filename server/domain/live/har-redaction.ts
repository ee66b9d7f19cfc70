/**
 * What a live run's network log (HAR) may keep. Sessions start from a deployment profile's sealed login (a storage
 * state or a recipe's cookies), and every request then carries them: written as recorded, the HAR would put those
 * secrets in clear into the screenshot store, the bucket and every backup. Headers that carry credentials and the
 * cookie lists keep their names and lose their values.
 */

export const REDACTED = "[redacted]";

/** Request and response headers whose values are credentials. */
const SECRET_HEADERS = new Set(["cookie", "set-cookie", "authorization", "proxy-authorization"]);

interface HarNameValue {
  name?: unknown;
  value?: unknown;
}

function redactHeaders(headers: unknown): number {
  if (!Array.isArray(headers)) return 0;
  let n = 0;
  for (const h of headers as HarNameValue[]) {
    if (h && typeof h.name === "string" && SECRET_HEADERS.has(h.name.toLowerCase()) && h.value !== REDACTED) {
      h.value = REDACTED;
      n++;
    }
  }
  return n;
}

function redactCookies(cookies: unknown): number {
  if (!Array.isArray(cookies)) return 0;
  let n = 0;
  for (const c of cookies as HarNameValue[]) {
    if (c && typeof c === "object" && c.value !== REDACTED) {
      c.value = REDACTED;
      n++;
    }
  }
  return n;
}

/** Redacts a parsed HAR in place; returns how many values were replaced. */
export function redactHar(har: unknown): number {
  const entries = (har as { log?: { entries?: unknown } } | null)?.log?.entries;
  if (!Array.isArray(entries)) return 0;
  let n = 0;
  for (const e of entries as { request?: { headers?: unknown; cookies?: unknown }; response?: { headers?: unknown; cookies?: unknown } }[]) {
    for (const part of [e?.request, e?.response]) {
      if (!part) continue;
      n += redactHeaders(part.headers) + redactCookies(part.cookies);
    }
  }
  return n;
}
