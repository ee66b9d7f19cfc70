import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { formatCount, formatPercent, OutcomeBar, PageHeader, Pagination, Stat } from "../../_components/ui";
import { api, orNotFound } from "../../_trpc/server";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export const metadata: Metadata = { title: "Task set" };

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export default async function TaskSetPage({ params, searchParams }: Props) {
  const raw = (await params).id;
  if (!/^\d{1,12}$/.test(raw)) notFound();
  const id = Number(raw);
  const sp = await searchParams;
  const page = Math.max(1, Number(first(sp.page)) || 1);
  const q = first(sp.q)?.trim() || undefined;
  const site = first(sp.site)?.trim() || undefined;
  const data = await orNotFound((await api()).taskSets.byId({ id, q, site, page, pageSize: 100 }));
  const { taskSet, tasks, outcomes, sites } = data;
  const trajectories = Object.values(outcomes).reduce((a, b) => a + b, 0);
  const href = (p: { page?: number; site?: string | null; q?: string | null }) => {
    const u = new URLSearchParams();
    const s = p.site === undefined ? site : p.site;
    const qq = p.q === undefined ? q : p.q;
    if (s) u.set("site", s);
    if (qq) u.set("q", qq);
    if (p.page && p.page > 1) u.set("page", String(p.page));
    const str = u.toString();
    return `/task-sets/${id}${str ? `?${str}` : ""}`;
  };

  return (
    <>
      <PageHeader
        crumbs={[{ href: "/task-sets", label: "Task sets" }]}
        title={taskSet.name}
        subtitle={`${taskSet.benchmark}${taskSet.description ? ` · ${taskSet.description}` : ""}`}
        actions={
          trajectories > 0 ? (
            <Link className="btn" href={`/trajectories?set=${id}`}>
              Trajectories →
            </Link>
          ) : undefined
        }
      />
      <div className="flex flex-col gap-4 px-6 py-4">
        <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
          <Stat label="Tasks" value={formatCount(tasks.total)} />
          <Stat label="Sites" value={formatCount(sites.length)} />
          <Stat label="Trajectories" value={formatCount(trajectories)} />
          <Stat label="Answered" value={formatPercent(outcomes.answered ?? 0, trajectories)} hint="Ended with a final answer; success needs a verdict" />
        </div>
        {trajectories > 0 && (
          <div className="panel px-3 py-2">
            <div className="section-title mb-1">How trajectories ended</div>
            <OutcomeBar counts={outcomes} />
          </div>
        )}
        <form className="flex flex-wrap items-center gap-2" action={`/task-sets/${id}`}>
          <input type="search" name="q" defaultValue={q} placeholder="Search intent or task id…" className="field w-64" aria-label="Search tasks" />
          <select name="site" defaultValue={site ?? ""} className="field" aria-label="Site">
            <option value="">Site: all</option>
            {sites.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
          <button className="btn" type="submit">
            Filter
          </button>
          {(q || site) && (
            <Link className="btn" href={`/task-sets/${id}`}>
              Clear
            </Link>
          )}
        </form>
        <div className="panel overflow-x-auto">
          <table className="table-dense table-fixed">
            <colgroup>
              <col className="w-44" />
              <col className="w-36" />
              <col />
              <col className="w-16" />
              <col className="w-28" />
              <col className="w-28" />
            </colgroup>
            <thead>
              <tr>
                <th>Task</th>
                <th>Site</th>
                <th>Intent</th>
                <th className="text-right">Refs</th>
                <th className="text-right">Trajectories</th>
                <th className="text-right">Answered</th>
              </tr>
            </thead>
            <tbody>
              {tasks.rows.map((t) => (
                <tr key={t.id}>
                  <td className="truncate font-mono text-[12px]">
                    <Link className="link" href={`/tasks/${t.id}`} title={t.externalId}>
                      {t.externalId}
                    </Link>
                  </td>
                  <td className="truncate">{t.site ?? "–"}</td>
                  <td>
                    <div className="line-clamp-2 text-zinc-700" title={t.intent}>
                      {t.intent}
                    </div>
                  </td>
                  <td className="text-right tabular-nums">{t.referenceCount}</td>
                  <td className="text-right tabular-nums">
                    {t.trajectoryCount ? (
                      <Link className="link" href={`/trajectories?task=${t.id}`}>
                        {t.trajectoryCount}
                      </Link>
                    ) : (
                      <span className="text-zinc-400">0</span>
                    )}
                  </td>
                  <td className="text-right tabular-nums">{formatPercent(t.answeredCount, t.trajectoryCount)}</td>
                </tr>
              ))}
              {tasks.rows.length === 0 && (
                <tr>
                  <td colSpan={6} className="py-8 text-center text-zinc-500">
                    No task matches.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
        <Pagination page={tasks.page} pageCount={tasks.pageCount} total={tasks.total} pageSize={tasks.pageSize} href={(p) => href({ page: p })} />
      </div>
    </>
  );
}
