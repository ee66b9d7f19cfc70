"use client";
/** Recent judge batches, newest first, each linking to its progress page. */
import { useSuspenseQuery } from "@tanstack/react-query";
import { EmptyState, formatCount, formatDate, NumberLink } from "../../../_components/ui";
import { useTRPC } from "../../../_trpc/client";
import { refetchWhileGoing } from "../_lib/batch-text";
import { BatchStatus } from "./batch-status";
import { DenseTable, right } from "../../../_components/table";

export function BatchList() {
  const trpc = useTRPC();
  const { data: batches } = useSuspenseQuery({ ...trpc.judge.batches.list.queryOptions(), refetchInterval: refetchWhileGoing((b) => b.status) });
  return (
    <section className="panel" aria-labelledby="batches-title">
      <h2 id="batches-title" className="section-title border-b border-zinc-200 px-3 py-2">
        Batches
      </h2>
      {batches.length === 0 ? (
        <EmptyState title="No batches yet">
          A batch grades a selection of trajectories with one configuration, for one or more k values (how many final screenshots the judge sees). Start one
          from “New batch”, or from a filtered trajectory list with “Judge these”.
        </EmptyState>
      ) : (
        <div className="overflow-x-auto">
          <DenseTable columns={["Batch", "Configuration", "Selection", "k", "Status", right("Done"), right("Failed"), "Started"]} testId="batch-table">
            {batches.map((b) => (
              <tr key={b.id}>
                <td>
                  <NumberLink id={b.id} href={`/judges/batches/${b.id}`} />
                </td>
                <td>{b.configName}</td>
                <td className="text-[12px]">
                  {b.selectionLabel ?? "–"} · {formatCount(b.trajectoryCount)} trajector{b.trajectoryCount === 1 ? "y" : "ies"}
                </td>
                <td className="font-mono text-[12px]">{b.kValues.join(", ")}</td>
                <td>
                  <BatchStatus status={b.status} />
                </td>
                <td className="text-right tabular-nums">
                  {formatCount(b.succeeded)} / {formatCount(b.estimatedCalls)}
                </td>
                <td className={`text-right tabular-nums ${b.failed ? "text-rose-700" : ""}`}>{formatCount(b.failed)}</td>
                <td className="text-[12px] whitespace-nowrap text-zinc-500">{formatDate(b.startedAt ?? b.createdAt)}</td>
              </tr>
            ))}
          </DenseTable>
        </div>
      )}
    </section>
  );
}
