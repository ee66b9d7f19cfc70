"use client";
/** Every scanner with what its current definition found: trajectories scanned, matched and not finished. */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "../../../_trpc/client";
import { EmptyState, formatCount } from "../../../_components/ui";
import { DenseTable, right } from "../../../_components/table";

export function ScannerList() {
  const trpc = useTRPC();
  const list = useQuery(trpc.scanners.list.queryOptions());
  if (list.error) {
    return (
      <p role="alert" className="panel px-4 py-3 text-[12.5px] text-rose-700">
        {list.error.message}
      </p>
    );
  }
  if (!list.data) return <p className="text-[13px] text-zinc-500">Loading scanners…</p>;
  if (!list.data.length) return <EmptyState title="No scanners" />;
  return (
    <section className="panel overflow-x-auto" aria-label="Scanners">
      <DenseTable
        columns={["Scanner", "Looks for", "Category it is measured against", right("Scanned"), right("Matched"), right("Not finished"), "Matches in the list"]}
        cellClassName="text-left"
        testId="scanner-list"
      >
        {list.data.map((s) => (
          <tr key={s.key} data-testid="scanner-row" data-key={s.key}>
            <td className="whitespace-nowrap">
              <Link className="link font-medium" href={`/scanners/${s.key}`}>
                {s.name}
              </Link>{" "}
              <span className="font-mono text-[11px] text-zinc-500">{s.key}</span>
              {!s.builtIn && <span className="ml-1 rounded-sm bg-indigo-50 px-1 text-[10.5px] text-indigo-800">yours</span>}
            </td>
            <td className="text-zinc-700">{s.description || "—"}</td>
            <td>{s.category}</td>
            <td className="text-right tabular-nums">{formatCount(s.scanned)}</td>
            <td className="text-right tabular-nums" data-testid="scanner-fired">
              {formatCount(s.fired)}
            </td>
            <td className={`text-right tabular-nums ${s.problems ? "text-amber-800" : "text-zinc-400"}`}>{formatCount(s.problems)}</td>
            <td>
              {s.fired > 0 ? (
                <Link className="link font-mono text-[11.5px]" href={`/trajectories?search=${encodeURIComponent(`scanner:${s.key}`)}`}>
                  scanner:{s.key}
                </Link>
              ) : (
                <span className="text-zinc-400">—</span>
              )}
            </td>
          </tr>
        ))}
      </DenseTable>
    </section>
  );
}
