"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { SessionUser } from "@/server/auth/auth";
import { MentionsLink } from "./mentions";

const ROLE_STYLE: Record<string, string> = {
  admin: "bg-rose-50 text-rose-700",
  researcher: "bg-indigo-50 text-indigo-700",
  annotator: "bg-emerald-50 text-emerald-700",
};

/** Who is signed in, and sign-out. */
export function AccountMenu({ user }: { user: SessionUser }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  return (
    <div className="flex items-center gap-2 text-[12px]">
      <MentionsLink />
      <Link
        href="/account"
        className="hidden max-w-48 truncate text-zinc-700 hover:underline sm:inline"
        title={`${user.email}: your account and API tokens`}
        data-testid="signed-in-user"
      >
        {user.name}
      </Link>
      <span className={`rounded px-1.5 py-px text-2xs font-medium ${ROLE_STYLE[user.role] ?? ""}`}>{user.role}</span>
      <button
        type="button"
        className="btn"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          // Loaded on the click: better-auth's client is about 12 kB that every page would fetch for this one button.
          const { authClient } = await import("../_lib/auth-client");
          await authClient.signOut();
          router.replace("/sign-in");
          router.refresh();
        }}
      >
        Sign out
      </button>
    </div>
  );
}
