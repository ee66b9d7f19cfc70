"use client";
/**
 * The analytics section's own navigation. Filters in the URL carry over between the views that share them.
 */
import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";

const TABS = [
  { href: "/analytics", label: "Overview" },
  { href: "/analytics/judges", label: "Judge agreement" },
  { href: "/analytics/humans", label: "Human agreement" },
  { href: "/analytics/humans/annotators", label: "Annotator quality" },
  { href: "/analytics/errors", label: "Error analysis" },
  { href: "/analytics/step-budget", label: "Step budgets" },
  { href: "/analytics/clusters", label: "Failure clusters" },
  { href: "/analytics/csv", label: "CSV agreement" },
];

/** Filters every view understands; page-specific ones (k, page, level) stay behind. */
const SHARED = ["set", "run", "site", "campaign", "unparseable", "flagged"];

export function AnalyticsTabs() {
  const pathname = usePathname();
  const sp = useSearchParams();
  const keep = new URLSearchParams();
  for (const k of SHARED) {
    const v = sp.get(k);
    if (v) keep.set(k, v);
  }
  const search = keep.toString() ? `?${keep.toString()}` : "";
  return (
    <nav aria-label="Analytics" className="flex items-center gap-1 overflow-x-auto border-b border-zinc-200 bg-white px-6">
      {TABS.map((t) => {
        // The longest tab path the page is under is the active one (annotator quality sits under human agreement).
        const under = (href: string) => (href === "/analytics" ? pathname === "/analytics" : pathname === href || pathname.startsWith(`${href}/`));
        const active = under(t.href) && !TABS.some((o) => o.href.length > t.href.length && o.href.startsWith(t.href) && under(o.href));
        return (
          <Link
            key={t.href}
            href={t.href === "/analytics/csv" ? t.href : `${t.href}${search}`}
            aria-current={active ? "page" : undefined}
            className={`-mb-px border-b-2 px-2.5 py-2 text-[12.5px] whitespace-nowrap ${active ? "border-indigo-600 font-medium text-zinc-900" : "border-transparent text-zinc-500 hover:text-zinc-800"}`}
          >
            {t.label}
          </Link>
        );
      })}
    </nav>
  );
}
