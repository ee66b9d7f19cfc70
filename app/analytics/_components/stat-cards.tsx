/**
 * A row of headline figures; a figure with a link opens the trajectories behind it.
 */
import Link from "next/link";
import type { StatCard } from "../_lib/judges";
import { HeaderText } from "./data-table";

/** A headline figure; with a link, it opens the trajectories behind it. */
export function StatValue({ value, href }: { value: string; href?: string | null }) {
  return (
    <div className="mt-0.5 text-lg font-semibold text-zinc-900 tabular-nums" data-value>
      {href ? (
        <Link href={href} className="hover:text-indigo-700 hover:underline" title="List these trajectories">
          {value}
        </Link>
      ) : (
        value
      )}
    </div>
  );
}

export function StatCards({ cards }: { cards: StatCard[] }) {
  return (
    <div className="grid grid-cols-[repeat(auto-fill,minmax(10.5rem,1fr))] gap-2">
      {cards.map((c) => (
        <div
          key={c.key}
          data-stat={c.key}
          className={`min-w-0 rounded-lg border bg-white px-3 py-2 ${c.tone === "warn" ? "border-amber-300" : "border-zinc-200"}`}
        >
          <div className="section-title truncate" title={c.label}>
            <HeaderText text={c.label} />
          </div>
          <StatValue value={c.value} href={c.href} />
          {c.detail && (
            <div className="truncate text-2xs text-zinc-500" title={c.title ? `${c.detail}\n${c.title}` : c.detail}>
              {c.detail}
            </div>
          )}
        </div>
      ))}
    </div>
  );
}
