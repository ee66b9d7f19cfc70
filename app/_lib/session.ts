/**
 * The signed-in user for server components: read once per request from better-auth's cookies. Pages that need a
 * role call `requirePageRole`; the root layout sends signed-out visitors of non-public pages to sign-in (the
 * proxy already does for visitors without a cookie; this catches expired or revoked sessions).
 */
import { headers } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import type { Role } from "@/server/domain/access/roles";
import type { SessionUser } from "@/server/auth/auth";
import { hasRole } from "@/server/domain/access/actor";
import { requestSession } from "../_trpc/server";

/** Request header the proxy sets to the path being rendered (layouts are not told their page's path). */
export const PATH_HEADER = "x-verdict-path";

export async function currentUser(): Promise<SessionUser | null> {
  return requestSession();
}

export async function currentPath(): Promise<string> {
  return (await headers()).get(PATH_HEADER) ?? "/";
}

export function signInUrl(next: string): string {
  return next && next !== "/" && !next.startsWith("/sign-in") ? `/sign-in?next=${encodeURIComponent(next)}` : "/sign-in";
}

/** The signed-in user, or a redirect to sign-in. */
export async function requirePageUser(): Promise<SessionUser> {
  const user = await currentUser();
  if (!user) redirect(signInUrl(await currentPath()));
  return user;
}

/** The signed-in user if their role is at least `role`; null (render a refusal) otherwise. */
export async function requirePageRole(role: Role): Promise<{ user: SessionUser; allowed: boolean }> {
  const user = await requirePageUser();
  return { user, allowed: hasRole(user, role) };
}

/**
 * For section layouts: the signed-in user if their role is at least `role`, else Next's 403 view. Layouts call
 * it before any loading fallback has been streamed, so the browser gets a real 403 status.
 */
export async function forbidUnlessRole(role: Role): Promise<SessionUser> {
  const user = await requirePageUser();
  if (!hasRole(user, role)) forbidden();
  return user;
}
