import type { Metadata } from "next";
import Link from "next/link";
import { decodeSelection, encodeSelection, SelectionError, type Selection } from "@/server/domain/analytics/selection";
import { ErrorPanel, formatCount, OutcomeBadge, PageHeader, Pagination } from "../../_components/ui";
import { api } from "../../_trpc/server";
import { getParam, positiveInt } from "../_lib/params";

export const metadata: Metadata = { title: "Trajectories behind a figure" };

export default async function DrillPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  let sel: Selection;
  try {
    sel = decodeSelection(getParam(sp, "sel") ?? "");
  } catch (e) {
    return (
      <>
        <PageHeader title="Trajectories behind a figure" />
        <ErrorPanel title="This link does not describe a set of trajectories" message={e instanceof SelectionError ? e.message : String(e)}>
          <Link className="link" href="/analytics">
            Back to analytics
          </Link>
        </ErrorPanel>
      </>
    );
  }
  const page = positiveInt(getParam(sp, "page")) ?? 1;
  const d = await (await api()).analytics.drill({ sel, page, pageSize: 50 });
  const selText = encodeSelection(sel);
  return (
    <>
      <PageHeader
        crumbs={[{ href: "/analytics", label: "Analytics" }]}
        title={`${formatCount(d.total)} trajector${d.total === 1 ? "y" : "ies"}`}
        subtitle={<span data-testid="drill-description">{d.description.join(" · ")}</span>}
        actions={
          d.idList ? (
            <Link className="btn" href={`/trajectories?ids=${d.idList}`}>
              Open in the trajectory list →
            </Link>
          ) : d.total > 0 ? (
            <span className="text-2xs text-zinc-500">Too many to pass to the trajectory list; they are listed here.</span>
          ) : null
        }
      />
      <div className="flex flex-col gap-3 px-6 py-3">
        <div className="panel overflow-x-auto">
          {d.rows.length === 0 ? (
            <p className="px-4 py-10 text-center text-zinc-500">No trajectory matches (the data may have changed since the figure was drawn).</p>
          ) : (
            <table className="table-dense" data-table="drill">
              <thead>
                <tr>
                  <th>Trajectory</th>
                  <th>Task</th>
                  <th>Site</th>
                  <th>Run</th>
                  <th>Outcome</th>
                  <th className="text-right">Steps</th>
                </tr>
              </thead>
              <tbody>
                {d.rows.map((r) => (
                  <tr key={r.id} data-row={r.id}>
                    <td>
                      <Link className="link font-mono text-[11.5px]" href={`/trajectories/${r.id}?panel=evaluations`}>
                        #{r.id}
                      </Link>
                    </td>
                    <td className="max-w-md">
                      <div className="font-mono text-[11.5px] text-zinc-600">{r.externalTaskId}</div>
                      <div className="truncate text-zinc-800" title={r.intent}>
                        {r.intent}
                      </div>
                    </td>
                    <td>{r.site ?? "–"}</td>
                    <td>
                      <Link className="link" href={`/runs/${r.runId}`}>
                        {r.runName}
                      </Link>
                    </td>
                    <td>
                      <OutcomeBadge outcome={r.outcome} />
                    </td>
                    <td className="text-right tabular-nums">{r.stepCount}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
        {d.pageCount > 1 && (
          <Pagination
            page={d.page}
            pageCount={d.pageCount}
            total={d.total}
            pageSize={d.pageSize}
            href={(p) => `/analytics/trajectories?sel=${selText}&page=${p}`}
          />
        )}
      </div>
    </>
  );
}
