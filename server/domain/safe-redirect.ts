/**
 * Where to send a user after sign-in: only a path on this site. A `next` parameter comes from a link anyone can
 * craft, so anything a browser could read as another origin is refused: `//host`, `/\host` (browsers treat the
 * backslash as a slash), the same written with percent-escapes, control characters, and absolute URLs.
 */

const BASE = "http://verdict.invalid";
/** Backslashes and control characters have no place in one of our paths, escaped or not. */
const SUSPICIOUS = /[\\\u0000-\u001f\u007f]/;

function decodeFully(value: string): string | null {
  let current = value;
  for (let i = 0; i < 5; i++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(current);
    } catch {
      return null;
    }
    if (decoded === current) return current;
    current = decoded;
  }
  return null;
}

/** `raw` if it is a same-origin path other than the sign-in page itself, otherwise "/". */
export function safeNextPath(raw: string | string[] | null | undefined): string {
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!value || !value.startsWith("/") || value.length > 2048) return "/";
  const decoded = decodeFully(value);
  if (decoded === null || SUSPICIOUS.test(value) || SUSPICIOUS.test(decoded)) return "/";
  if (/^\/[/\\]/.test(value) || /^\/[/\\]/.test(decoded)) return "/";
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return "/";
  }
  if (url.origin !== BASE || url.pathname.startsWith("/sign-in")) return "/";
  const path = url.pathname + url.search + url.hash;
  // What the browser is sent is what is checked: a path whose dot segments collapsed into `//host` or `/\host` is
  // an address on another site.
  if (!path.startsWith("/") || /^\/[/\\]/.test(path) || SUSPICIOUS.test(path)) return "/";
  const decodedPath = decodeFully(path);
  if (decodedPath === null || /^\/[/\\]/.test(decodedPath) || /^\/[/\\]/.test(new URL(decodedPath, BASE).pathname)) return "/";
  return path;
}
