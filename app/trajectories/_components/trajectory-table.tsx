/**
 * The trajectory list as a dense table. Server-rendered; column headers are sort links.
 */
import Link from "next/link";
import { trajectoryListSearch, type TrajectoryListQuery, type TrajectorySortKey } from "@/server/domain/trajectory-list-query";
import { formatDate, OutcomeBadge } from "../../_components/ui";

export interface TrajectoryListRow {
  id: number;
  attempt: number;
  outcome: string;
  stepCount: number;
  finalAnswer: string | null;
  updatedAt: Date;
  taskId: number;
  externalTaskId: string;
  site: string | null;
  intent: string;
  taskSetName: string;
  runId: number;
  runName: string;
  agentName: string;
  model: string | null;
  /** The blind rule hides which agent made this trajectory. */
  agentHidden?: boolean;
}

function SortHeader({ query, sort, children, className }: { query: TrajectoryListQuery; sort: TrajectorySortKey; children: string; className?: string }) {
  const active = query.sort === sort;
  // A first click sorts the natural way for the column (text ascending, numbers and dates descending).
  const firstDir = sort === "task" || sort === "site" ? "asc" : "desc";
  const dir = active ? (query.dir === "asc" ? "desc" : "asc") : firstDir;
  return (
    <th className={className} aria-sort={active ? (query.dir === "asc" ? "ascending" : "descending") : undefined}>
      <Link href={`/trajectories${trajectoryListSearch({ ...query, sort, dir, page: 1 })}`} className={`inline-flex items-center gap-0.5 hover:text-zinc-800 ${active ? "text-zinc-800" : ""}`}>
        {children}
        <span aria-hidden className="w-2.5 text-center">
          {active ? (query.dir === "asc" ? "▲" : "▼") : ""}
        </span>
      </Link>
    </th>
  );
}

export function TrajectoryTable({ rows, query }: { rows: TrajectoryListRow[]; query: TrajectoryListQuery }) {
  return (
    // A minimum width keeps the Task column readable on narrow windows (768 px squeezed it to nothing and task ids
    // printed over the Site column); the panel around the table scrolls sideways instead.
    <table className="table-dense min-w-[960px] table-fixed" data-testid="trajectory-table">
      <colgroup>
        <col className="w-16" />
        <col />
        <col className="w-32" />
        <col className="w-44" />
        <col className="w-24" />
        <col className="w-20" />
        <col className="w-[22%]" />
        <col className="w-32 max-xl:hidden" />
      </colgroup>
      <thead>
        <tr>
          <SortHeader query={query} sort="id">
            ID
          </SortHeader>
          <SortHeader query={query} sort="task">
            Task
          </SortHeader>
          <SortHeader query={query} sort="site">
            Site
          </SortHeader>
          <th>Run</th>
          <th>Outcome</th>
          <SortHeader query={query} sort="steps" className="text-right">
            Steps
          </SortHeader>
          <th>Final answer</th>
          <SortHeader query={query} sort="updated" className="max-xl:hidden">
            Updated
          </SortHeader>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.id} className="relative" data-testid="trajectory-row">
            <td className="font-mono text-zinc-500 tabular-nums">
              <Link href={`/trajectories/${r.id}`} className="after:absolute after:inset-0 hover:text-indigo-700" aria-label={`Open trajectory ${r.id}: ${r.externalTaskId}`}>
                {r.id}
              </Link>
            </td>
            <td className="min-w-0">
              <div className="flex min-w-0 items-baseline gap-2">
                <span className="shrink-0 font-mono text-[12px] font-medium text-zinc-900">{r.externalTaskId}</span>
                {r.attempt > 0 && <span className="shrink-0 text-2xs text-zinc-500">attempt {r.attempt + 1}</span>}
                <span className="truncate text-2xs text-zinc-400">{r.taskSetName}</span>
              </div>
              <div className="line-clamp-1 text-zinc-600" title={r.intent}>
                {r.intent}
              </div>
            </td>
            <td className="truncate text-zinc-700" title={r.site ?? undefined}>
              {r.site ?? <span className="text-zinc-400">–</span>}
            </td>
            <td className="min-w-0">
              {r.agentHidden ? (
                <div className="truncate text-zinc-400 italic" title="Hidden until you have labelled this trajectory">
                  {r.runName}
                </div>
              ) : (
                <>
                  <div className="truncate text-zinc-800" title={r.runName}>
                    {r.runName}
                  </div>
                  <div className="truncate text-2xs text-zinc-500" title={r.model ?? r.agentName}>
                    {r.model ?? r.agentName}
                  </div>
                </>
              )}
            </td>
            <td>
              <OutcomeBadge outcome={r.outcome} />
            </td>
            <td className="text-right tabular-nums">{r.stepCount}</td>
            <td className="min-w-0 text-zinc-600">
              {r.finalAnswer ? (
                <div className="line-clamp-2 break-words" title={r.finalAnswer}>
                  {r.finalAnswer}
                </div>
              ) : (
                <span className="text-zinc-400">–</span>
              )}
            </td>
            <td className="whitespace-nowrap text-zinc-500 tabular-nums max-xl:hidden">{formatDate(r.updatedAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
