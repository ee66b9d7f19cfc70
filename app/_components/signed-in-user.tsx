"use client";
/**
 * The signed-in user as the root layout resolved it, for client components that keep per-user state in the
 * browser (label drafts). Null on public pages.
 */
import { createContext, useContext, type ReactNode } from "react";
import type { SessionUser } from "@/server/auth/auth";

const SignedInUserContext = createContext<SessionUser | null>(null);

export function SignedInUserProvider({ user, children }: { user: SessionUser | null; children: ReactNode }) {
  return <SignedInUserContext.Provider value={user}>{children}</SignedInUserContext.Provider>;
}

export function useSignedInUser(): SessionUser | null {
  return useContext(SignedInUserContext);
}
