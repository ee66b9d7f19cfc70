"use client";
/** Stress tests, newest first, each linking to its progress and report. */
import { useSuspenseQuery } from "@tanstack/react-query";
import { EmptyState, formatCount, formatDate, NumberLink } from "../../../_components/ui";
import { useTRPC } from "../../../_trpc/client";
import { refetchWhileGoing } from "../_lib/batch-text";
import { BatchStatus } from "./batch-status";
import { DenseTable, right } from "../../../_components/table";

export function StressList() {
  const trpc = useTRPC();
  const { data: tests } = useSuspenseQuery({ ...trpc.judge.stress.list.queryOptions(), refetchInterval: refetchWhileGoing((t) => t.batchStatus) });
  if (tests.length === 0) {
    return (
      <EmptyState title="No stress tests yet" command="npm run cli -- judge-stress --config <name> --campaign <name> --k full --dry-run">
        A stress test asks a judge about a labelled campaign again with its screenshots shuffled, a random subset of them, the agent&apos;s answer removed or
        the action history removed, and reports how often its verdict flips and how κ against people changes. Start one with “New stress test”.
      </EmptyState>
    );
  }
  return (
    <section className="panel" aria-label="Stress tests">
      <div className="overflow-x-auto">
        <DenseTable columns={["Test", "Configuration", "Campaign", "k", "Perturbations", right("Items"), "Status", "Created"]} testId="stress-table">
          {tests.map((t) => (
            <tr key={t.id}>
              <td>
                <NumberLink id={t.id} href={`/judges/stress/${t.id}`} />
              </td>
              <td>{t.configName}</td>
              <td>{t.campaignName}</td>
              <td className="font-mono text-[12px]">{t.k}</td>
              <td className="font-mono text-[12px]">{t.perturbations.join(", ")}</td>
              <td className="text-right tabular-nums">{formatCount(t.trajectories)}</td>
              <td>{t.batchStatus ? <BatchStatus status={t.batchStatus} /> : "–"}</td>
              <td className="text-[12px] whitespace-nowrap text-zinc-500">{formatDate(t.createdAt)}</td>
            </tr>
          ))}
        </DenseTable>
      </div>
    </section>
  );
}
