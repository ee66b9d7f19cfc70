import type { Metadata } from "next";
import Link from "next/link";
import { EmptyState, formatCount, formatDate, formatPercent, PageHeader, WithModelCell } from "../_components/ui";
import { api } from "../_trpc/server";
import { DenseTable, right } from "../_components/table";

export const metadata: Metadata = { title: "Runs" };

export default async function RunsPage() {
  const runs = await (await api()).runs.list();
  return (
    <>
      <PageHeader title="Agent runs" subtitle={`${runs.length} run${runs.length === 1 ? "" : "s"}: one agent configuration over some tasks`} />
      {runs.length === 0 ? (
        <EmptyState title="No runs yet" command="npm run cli -- import <path>">
          A run appears for every agent configuration you import trajectories from.
        </EmptyState>
      ) : (
        <div className="px-6 py-4">
          <div className="panel overflow-x-auto">
            <DenseTable columns={["Run", "Agent / model", "Source", "Task sets", right("Trajectories"), right("Answered"), right("Mean steps"), "Imported"]}>
              {runs.map((r) => (
                <tr key={r.id}>
                  <td className="max-w-72">
                    <Link className="link font-medium break-words" href={`/runs/${r.id}`}>
                      {r.name}
                    </Link>
                  </td>
                  <WithModelCell name={r.agentName} model={r.model} />
                  <td className="text-zinc-600">{r.sourceSystem}</td>
                  <td className="max-w-56 text-zinc-600">
                    <div className="line-clamp-2">{r.taskSetNames ?? "–"}</div>
                  </td>
                  <td className="text-right tabular-nums">
                    <Link className="link" href={`/trajectories?run=${r.id}`}>
                      {formatCount(r.trajectoryCount)}
                    </Link>
                  </td>
                  <td className="text-right tabular-nums">{formatPercent(r.answeredCount, r.trajectoryCount)}</td>
                  <td className="text-right tabular-nums">{r.meanSteps == null ? "–" : r.meanSteps.toFixed(1)}</td>
                  <td className="whitespace-nowrap text-zinc-500 tabular-nums">{formatDate(r.createdAt)}</td>
                </tr>
              ))}
            </DenseTable>
          </div>
        </div>
      )}
    </>
  );
}
