"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { hasRole } from "@/server/auth/roles";
import type { SessionUser } from "@/server/auth/auth";
import { AccountMenu } from "./account-menu";
import { NAV_ITEMS } from "./nav-items";

export function TopNav({ user }: { user: SessionUser | null }) {
  const pathname = usePathname();
  return (
    <header className="sticky top-0 z-40 flex h-11 shrink-0 items-center gap-6 border-b border-zinc-200 bg-white px-4">
      <Link href="/" className="flex items-center gap-2 font-semibold tracking-tight text-zinc-900">
        <span aria-hidden className="grid size-5 place-items-center rounded bg-indigo-600 text-[11px] font-bold text-white">
          V
        </span>
        Verdict
      </Link>
      <nav aria-label="Main" className="flex min-w-0 items-center gap-1 overflow-x-auto">
        {NAV_ITEMS.filter((i) => i.ready && user && (!i.minRole || hasRole(user, i.minRole))).map((item) => {
          const active = pathname === item.href || pathname.startsWith(`${item.href}/`);
          return (
            <Link
              key={item.href}
              href={item.href}
              aria-current={active ? "page" : undefined}
              className={`rounded-md px-2.5 py-1 text-[13px] whitespace-nowrap ${
                active ? "bg-zinc-100 font-medium text-zinc-900" : "text-zinc-600 hover:bg-zinc-50 hover:text-zinc-900"
              }`}
            >
              {item.label}
            </Link>
          );
        })}
      </nav>
      <div id="nav-account-slot" className="ml-auto flex items-center gap-2">
        {user && <AccountMenu user={user} />}
      </div>
    </header>
  );
}
