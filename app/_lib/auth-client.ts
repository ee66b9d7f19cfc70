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
