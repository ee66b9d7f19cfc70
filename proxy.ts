/**
 * Runs before every page:
 * - refuses requests addressed to a name this installation was not told about (DNS rebinding; see
 *   server/auth/origins.ts);
 * - gives the page a Content-Security-Policy whose scripts must carry this request's nonce (Next adds it to its
 *   own scripts), so injected markup cannot run script;
 * - sends visitors without a session cookie to the sign-in page. This is only the cheap first gate (a cookie is
 *   present or not); who may see what is decided on the server by every tRPC procedure and route handler.
 */
import { getSessionCookie } from "better-auth/cookies";
import { NextResponse, type NextRequest } from "next/server";
import { isAllowedHost, misdirectedResponse } from "./server/auth/origins";
import { loadConfig } from "./server/config";

/** Pages anyone may open. */
const PUBLIC_PAGES = [/^\/sign-in(\/|$)/, /^\/invite\//];

function contentSecurityPolicy(nonce: string): string {
  const dev = process.env.NODE_ENV !== "production";
  return [
    "default-src 'self'",
    // Next's development server evaluates code; production pages run only scripts carrying the nonce.
    `script-src 'self' 'nonce-${nonce}'${dev ? " 'unsafe-eval'" : ""}`,
    // React sets style attributes (widths, positions of boxes on screenshots).
    "style-src 'self' 'unsafe-inline'",
    // Task input images may be imported as http(s) URLs.
    "img-src 'self' data: blob: http: https:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function proxy(request: NextRequest) {
  const host = request.headers.get("host");
  if (!isAllowedHost(host, loadConfig())) return misdirectedResponse(host);
  const { pathname, search } = request.nextUrl;
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const csp = contentSecurityPolicy(nonce);
  // Layouts are not told which page they render; the root layout needs it to send expired sessions to sign-in.
  const forward = new Headers(request.headers);
  forward.set("x-verdict-path", pathname + search);
  // Next reads the nonce from the request's policy and puts it on the scripts it renders.
  forward.set("content-security-policy", csp);
  let response: NextResponse;
  if (PUBLIC_PAGES.some((re) => re.test(pathname)) || getSessionCookie(request)) {
    response = NextResponse.next({ request: { headers: forward } });
  } else {
    const url = request.nextUrl.clone();
    url.pathname = "/sign-in";
    url.search = pathname === "/" ? "" : `?next=${encodeURIComponent(pathname + search)}`;
    response = NextResponse.redirect(url);
  }
  response.headers.set("Content-Security-Policy", csp);
  return response;
}

export const config = {
  // Pages only: API routes answer 401 themselves (and check the host themselves), static files need no session.
  matcher: ["/((?!api/|_next/|icon.svg|favicon.ico|robots.txt).*)"],
};
