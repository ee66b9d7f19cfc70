import type { Metadata } from "next";
import { PageHeader } from "../../_components/ui";
import { api } from "../../_trpc/server";
import { RateChart } from "../_components/charts";
import { NoEvaluators, NoReference, NoTrajectories } from "../_components/empty";
import { Figure, TablePanel } from "../_components/figure";
import { AnalyticsFilterBar } from "../_components/filter-bar";
import { prepareJudgeList } from "../_lib/judges";
import { analyticsSearch, parseAnalyticsParams, scopeOfParams } from "../_lib/params";

export const metadata: Metadata = { title: "Judge agreement" };

export default async function JudgesPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = parseAnalyticsParams(await searchParams);
  const caller = await api();
  const options = await caller.analytics.options();
  if (options.trajectories === 0) {
    return (
      <>
        <PageHeader title="Judge agreement" subtitle="Nothing imported yet" />
        <NoTrajectories />
      </>
    );
  }
  const list = await caller.analytics.judges({ scope: scopeOfParams(params), campaignId: params.campaignId, unparseable: params.unparseable });
  const view = prepareJudgeList(list, analyticsSearch(params));
  return (
    <>
      <PageHeader title="Judge agreement" subtitle={view.subtitle} />
      <div className="flex flex-col gap-4 px-6 py-3">
        <AnalyticsFilterBar params={params} options={options} show={{ campaign: true, unparseable: true }} />
        {view.empty === "no-evaluators" ? (
          <NoEvaluators />
        ) : (
          <>
            {view.empty === "no-reference" && <NoReference />}
            {view.skewed.length > 0 && (
              <div role="note" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-[12px] text-amber-900" data-testid="skew-warning">
                <div className="font-semibold">Skewed prevalence: read κ with PABAK and the prevalence and bias indices</div>
                <ul className="mt-1 list-disc pl-5">
                  {view.skewed.map((w) => (
                    <li key={w}>{w}</li>
                  ))}
                </ul>
              </div>
            )}
            <Figure id={view.chart.id} title={view.chart.title} description={view.chart.description} chart={view.chart.chart ? <RateChart model={view.chart.chart} /> : null} table={view.chart.table} />
            <TablePanel
              id="judges-table"
              title="Every evaluator setting against the human label"
              description="Agreement, Cohen's κ with its 95% interval, prevalence and bias indices with PABAK, precision / recall / F1 of “success”, both success rates, and the verdicts left out. Click an evaluator for its confusion matrix, k-table, splits and disagreements."
              table={view.chart.table}
            />
          </>
        )}
      </div>
    </>
  );
}
