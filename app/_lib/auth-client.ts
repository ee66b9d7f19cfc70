"use client";
/**
 * better-auth's browser client: sign-in and sign-out against /api/auth on the page's own origin.
 */
import { createAuthClient } from "better-auth/react";

export const authClient = createAuthClient();

/** better-auth reports failures as { error: { message, status } }; turn them into one readable line. */
export function authErrorMessage(error: { message?: string; status?: number; statusText?: string } | null | undefined): string {
  if (!error) return "";
  if (error.status === 429) return "Too many attempts; wait a minute and try again.";
  if (error.status === 401 || /invalid (email|password)/i.test(error.message ?? "")) return "Wrong email or password.";
  if (error.status === 403 && /banned/i.test(error.message ?? "")) return "This account is deactivated; ask an admin.";
  return error.message || error.statusText || "Sign-in failed.";
}

/**
 * Leaves a signed-out page (sign-in, set-up, invitation) with a full page load, not a client-side navigation.
 * While signed out, the client router prefetched pages such as `/` (the logo link) and cached their redirect
 * to sign-in; replaying that cached redirect after signing in bounced between `/` and `/sign-in` many times a
 * second on a blank page. A real load starts with an empty router cache and the new session cookie.
 */
export function enterApp(path: string) {
  window.location.assign(path);
}
