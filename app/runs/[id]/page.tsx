import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { formatCount, formatDate, formatPercent, OutcomeBar, PageHeader, Stat } from "../../_components/ui";
import { api, orNotFound } from "../../_trpc/server";

export const metadata: Metadata = { title: "Run" };

export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  const raw = (await params).id;
  if (!/^\d{1,12}$/.test(raw)) notFound();
  const id = Number(raw);
  const { run, outcomes, sites } = await orNotFound((await api()).runs.byId({ id }));
  const total = Object.values(outcomes).reduce((a, b) => a + b, 0);
  const meanSteps = total ? sites.reduce((a, s) => a + s.meanSteps * s.trajectories, 0) / total : null;
  return (
    <>
      <PageHeader
        crumbs={[{ href: "/runs", label: "Runs" }]}
        title={run.name}
        subtitle={`${run.agentName}${run.model ? ` · ${run.model}` : ""} · ${run.sourceSystem} · imported ${formatDate(run.createdAt)}`}
        actions={
          <Link className="btn" href={`/trajectories?run=${id}`}>
            Trajectories →
          </Link>
        }
      />
      <div className="flex flex-col gap-4 px-6 py-4">
        <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
          <Stat label="Trajectories" value={formatCount(total)} />
          <Stat label="Answered" value={formatPercent(outcomes.answered ?? 0, total)} hint="Ended with a final answer; success needs a verdict" />
          <Stat label="Mean steps" value={meanSteps === null ? "–" : meanSteps.toFixed(1)} />
          <Stat label="Sites" value={formatCount(sites.length)} />
        </div>
        <div className="panel px-3 py-2">
          <div className="section-title mb-1">How trajectories ended</div>
          <OutcomeBar counts={outcomes} />
        </div>
        <div className="panel overflow-x-auto">
          <table className="table-dense">
            <thead>
              <tr>
                <th>Site</th>
                <th className="text-right">Trajectories</th>
                <th className="text-right">Answered</th>
                <th className="text-right">Mean steps</th>
              </tr>
            </thead>
            <tbody>
              {sites.map((s) => (
                <tr key={s.site ?? "(none)"}>
                  <td>
                    <Link className="link" href={`/trajectories?run=${id}${s.site ? `&site=${encodeURIComponent(s.site)}` : ""}`}>
                      {s.site ?? "(no site)"}
                    </Link>
                  </td>
                  <td className="text-right tabular-nums">{formatCount(s.trajectories)}</td>
                  <td className="text-right tabular-nums">{formatPercent(s.answered, s.trajectories)}</td>
                  <td className="text-right tabular-nums">{s.meanSteps.toFixed(1)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {run.config && Object.keys(run.config).length > 0 && (
          <details className="panel px-3 py-2">
            <summary className="section-title cursor-pointer">Run configuration</summary>
            <pre className="mt-2 max-h-96 overflow-auto font-mono text-[11.5px] text-zinc-700">{JSON.stringify(run.config, null, 2)}</pre>
          </details>
        )}
      </div>
    </>
  );
}
