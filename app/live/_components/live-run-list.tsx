"use client";
/**
 * The live runs table, refreshed every second and a half while any run is still going.
 */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { EmptyState, formatDate } from "../../_components/ui";
import { useTRPC } from "../../_trpc/client";
import { ProgressBar } from "../../_components/progress-bar";
import { PolicyBadge, StatusPill } from "./bits";
import { DenseTable, right } from "../../_components/table";

export function LiveRunList() {
  const trpc = useTRPC();
  const { data: runs = [] } = useQuery({
    ...trpc.liveRuns.list.queryOptions(),
    refetchInterval: (q) => ((q.state.data ?? []).some((r) => r.status === "running" || r.status === "queued") ? 1_500 : false),
    staleTime: 0,
  });
  if (runs.length === 0) {
    return (
      <EmptyState title="No live runs yet" command="npm run cli -- run --tasks demo --policy scripted">
        Start one with{" "}
        <Link className="link" href="/live/new">
          New run
        </Link>
        , or from the command line. Runs are carried out by a worker process (<code className="font-mono">npm run worker</code>); the quick start launches one
        with the web server.
      </EmptyState>
    );
  }
  return (
    <div className="px-6 py-4">
      <div className="panel overflow-x-auto">
        <DenseTable
          columns={["Run", "Policy", { label: "Progress", className: "w-64" }, "Status", right("Answered"), right("Steps"), "Started"]}
          testId="live-runs"
        >
          {runs.map((r) => (
            <tr key={r.id}>
              <td className="max-w-80">
                {/* Runs left unnamed share their policy and task set as a name: the number and start time tell them apart. */}
                <Link className="link font-medium break-words" href={`/live/${r.id}`} data-testid="live-run-name">
                  <span className="mr-1 text-zinc-500 tabular-nums">#{r.id}</span>
                  {r.name}
                </Link>
                <div className="text-2xs text-zinc-500">{r.selection}</div>
              </td>
              <td className="max-w-72 text-[12px]">
                <PolicyBadge kind={r.policy.kind} label={r.policy.label} />
              </td>
              <td>
                <ProgressBar value={r.counts.total ? r.done / r.counts.total : 0} label={`Run ${r.id} progress`} size="sm" />
                <div className="mt-1 text-2xs text-zinc-500 tabular-nums">
                  {r.done} of {r.counts.total} tasks done
                  {r.counts.running > 0 && ` · ${r.counts.running} running`}
                  {r.counts.failed > 0 && ` · ${r.counts.failed} failed`}
                  {r.counts.cancelled > 0 && ` · ${r.counts.cancelled} cancelled`}
                </div>
              </td>
              <td>
                <StatusPill status={r.status} />
              </td>
              <td className="text-right tabular-nums">{r.answered}</td>
              <td className="text-right tabular-nums">{r.steps}</td>
              <td className="whitespace-nowrap text-zinc-500 tabular-nums">{formatDate(r.createdAt)}</td>
            </tr>
          ))}
        </DenseTable>
      </div>
    </div>
  );
}
