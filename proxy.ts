/**
 * Sends visitors without a session cookie to the sign-in page. This is only the cheap first gate (a cookie is
 * present or not); who may see what is decided on the server by every tRPC procedure and route handler.
 */
import { getSessionCookie } from "better-auth/cookies";
import { NextResponse, type NextRequest } from "next/server";

/** Pages anyone may open. */
const PUBLIC_PAGES = [/^\/sign-in(\/|$)/, /^\/invite\//];

export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  // Layouts are not told which page they render; the root layout needs it to send expired sessions to sign-in.
  const forward = new Headers(request.headers);
  forward.set("x-verdict-path", pathname + search);
  if (PUBLIC_PAGES.some((re) => re.test(pathname)) || getSessionCookie(request)) {
    return NextResponse.next({ request: { headers: forward } });
  }
  const url = request.nextUrl.clone();
  url.pathname = "/sign-in";
  url.search = pathname === "/" ? "" : `?next=${encodeURIComponent(pathname + search)}`;
  return NextResponse.redirect(url);
}

export const config = {
  // Pages only: API routes answer 401 themselves, static files and images need no session.
  matcher: ["/((?!api/|_next/|icon.svg|favicon.ico|robots.txt).*)"],
};
