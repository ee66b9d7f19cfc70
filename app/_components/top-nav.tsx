"use client";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { hasRole } from "@/server/domain/access/actor";
import type { SessionUser } from "@/server/auth/auth";
import { AccountMenu } from "./account-menu";
import { NAV_ITEMS } from "./nav-items";

/**
 * The top bar. From 1024 px the sections sit inline; narrower windows (tablets at 768 px) get a Menu button with
 * the same links in a list, so no section is cut off. Only sections the user's role may open are listed.
 */
export function TopNav({ user, qaReviewer = false }: { user: SessionUser | null; qaReviewer?: boolean }) {
  const pathname = usePathname();
  const [menuOpen, setMenuOpen] = useState(false);
  const items = NAV_ITEMS.filter((i) => i.ready && user && (!i.minRole || hasRole(user, i.minRole)) && (!i.qaReviewersOnly || qaReviewer));
  // A followed link closes the menu.
  useEffect(() => setMenuOpen(false), [pathname]);
  const isActive = (href: string) => pathname === href || pathname.startsWith(`${href}/`);
  // Sections are prefetched when the pointer or focus comes to their link, not when a page opens: otherwise every
  // page view downloaded each section's page shell and scripts (about 30 kB on the player) and had the server render
  // those shells, for links most views never follow.
  const router = useRouter();
  const onIntent = (href: string) => () => router.prefetch(href);
  return (
    <header className="sticky top-0 z-40 flex h-11 shrink-0 items-center gap-4 border-b border-zinc-200 bg-white px-4 lg:gap-6">
      {/* Signed out, / only redirects to sign-in: no link (and no prefetch of that redirect). */}
      <Link
        href={user ? "/" : "/sign-in"}
        prefetch={false}
        onMouseEnter={user ? onIntent("/") : undefined}
        onFocus={user ? onIntent("/") : undefined}
        className="flex shrink-0 items-center gap-2 font-semibold tracking-tight text-zinc-900"
      >
        <span aria-hidden className="grid size-5 place-items-center rounded bg-indigo-600 text-[11px] font-bold text-white">
          V
        </span>
        Verdict
      </Link>
      {items.length > 0 && (
        <>
          <nav aria-label="Main" className="hidden min-w-0 items-center gap-1 lg:flex">
            {items.map((item) => (
              <Link
                key={item.href}
                href={item.href}
                prefetch={false}
                onMouseEnter={onIntent(item.href)}
                onFocus={onIntent(item.href)}
                aria-current={isActive(item.href) ? "page" : undefined}
                className={`rounded-md px-2.5 py-1 text-[13px] whitespace-nowrap ${
                  isActive(item.href) ? "bg-zinc-100 font-medium text-zinc-900" : "text-zinc-600 hover:bg-zinc-50 hover:text-zinc-900"
                }`}
              >
                {item.label}
              </Link>
            ))}
          </nav>
          <div className="relative lg:hidden">
            <button
              type="button"
              className="btn"
              aria-expanded={menuOpen}
              aria-controls="nav-menu"
              onClick={() => setMenuOpen((o) => !o)}
              data-testid="nav-menu-button"
            >
              Menu
              <span aria-hidden>{menuOpen ? "▴" : "▾"}</span>
            </button>
            {menuOpen && (
              <nav
                id="nav-menu"
                aria-label="Main"
                className="absolute top-9 left-0 flex w-52 flex-col rounded-md border border-zinc-200 bg-white py-1 shadow-lg"
                onKeyDown={(e) => {
                  if (e.key === "Escape") setMenuOpen(false);
                }}
              >
                {items.map((item) => (
                  <Link
                    key={item.href}
                    href={item.href}
                    aria-current={isActive(item.href) ? "page" : undefined}
                    className={`px-3 py-1.5 text-[13px] ${isActive(item.href) ? "bg-zinc-100 font-medium text-zinc-900" : "text-zinc-700 hover:bg-zinc-50"}`}
                  >
                    {item.label}
                  </Link>
                ))}
              </nav>
            )}
          </div>
        </>
      )}
      <div id="nav-account-slot" className="ml-auto flex items-center gap-2">
        {user && <AccountMenu user={user} />}
      </div>
    </header>
  );
}
