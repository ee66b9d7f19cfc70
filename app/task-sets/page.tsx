import type { Metadata } from "next";
import Link from "next/link";
import { EmptyState, formatCount, formatPercent, PageHeader } from "../_components/ui";
import { api } from "../_trpc/server";
import { DenseTable, right } from "../_components/table";

export const metadata: Metadata = { title: "Task sets" };

export default async function TaskSetsPage() {
  const sets = await (await api()).taskSets.list();
  return (
    <>
      <PageHeader title="Task sets" subtitle={`${sets.length} task set${sets.length === 1 ? "" : "s"}`} />
      {sets.length === 0 ? (
        <EmptyState title="No task sets yet" command="npm run cli -- import <path>">
          Task sets appear when you import benchmark task files (e.g. VisualWebArena <code>test_*.raw.json</code>) or trajectories.
        </EmptyState>
      ) : (
        <div className="px-6 py-4">
          <div className="panel overflow-x-auto">
            <DenseTable columns={["Name", "Benchmark", right("Tasks"), right("Runs"), right("Trajectories"), right("Answered")]}>
              {sets.map((s) => (
                <tr key={s.id}>
                  <td>
                    <Link className="link font-medium" href={`/task-sets/${s.id}`}>
                      {s.name}
                    </Link>
                    {s.description && <div className="line-clamp-1 text-2xs text-zinc-500">{s.description}</div>}
                  </td>
                  <td className="text-zinc-600">{s.benchmark}</td>
                  <td className="text-right tabular-nums">{formatCount(s.taskCount)}</td>
                  <td className="text-right tabular-nums">{formatCount(s.runCount)}</td>
                  <td className="text-right tabular-nums">
                    {s.trajectoryCount ? (
                      <Link className="link" href={`/trajectories?set=${s.id}`}>
                        {formatCount(s.trajectoryCount)}
                      </Link>
                    ) : (
                      <span className="text-zinc-400">0</span>
                    )}
                  </td>
                  <td className="text-right tabular-nums">{formatPercent(s.answeredCount, s.trajectoryCount)}</td>
                </tr>
              ))}
            </DenseTable>
          </div>
        </div>
      )}
    </>
  );
}
