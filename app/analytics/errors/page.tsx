import type { Metadata } from "next";
import { NothingImportedPage, startAnalyticsPage, type AnalyticsPageProps } from "../_components/page-start";
import { PageHeader } from "../../_components/ui";
import { NoReference } from "../_components/empty";
import { TablePanel } from "../_components/figure";
import { AnalyticsFilterBar } from "../_components/filter-bar";
import { prepareErrors } from "../_lib/errors";
import { scopeOfParams } from "../_lib/params";
import { EmptyState } from "../../_components/ui";
import { CountFigure } from "../_components/model-figures";

export const metadata: Metadata = { title: "Error analysis" };

export default async function ErrorsPage(props: AnalyticsPageProps) {
  const { params, caller, options } = await startAnalyticsPage(props);
  if (options.trajectories === 0) return <NothingImportedPage title="Error analysis" />;
  const result = await caller.analytics.errors({ scope: scopeOfParams(params), campaignId: params.campaignId, by: params.by });
  const view = prepareErrors(result);
  return (
    <>
      <PageHeader title="Error analysis" subtitle={view.subtitle} />
      <div className="flex flex-col gap-4 px-6 py-3">
        <AnalyticsFilterBar params={params} options={options} show={{ campaign: true, by: true }} flagged={result.flagged} />
        {view.empty === "no-labels" ? (
          <NoReference />
        ) : view.empty === "no-failures" ? (
          <EmptyState title="No failures in this scope">Every consolidated label here says success (or unsure).</EmptyState>
        ) : (
          <>
            <div className="grid gap-4 xl:grid-cols-2">
              <CountFigure figure={view.distribution} />
              <TablePanel
                id="positions"
                title="Where each category's first failing step falls"
                description="Mean tenth of the trajectory in which the first failing step lies (1 = first tenth)."
                table={view.positions}
              />
            </div>
            {view.split && <CountFigure figure={view.split} />}
            <CountFigure figure={view.bySite} />
            <CountFigure figure={view.byRun} />
            <div className="grid gap-4 xl:grid-cols-2">
              <CountFigure figure={view.byStep} />
              <CountFigure figure={view.byDecile} />
            </div>
          </>
        )}
      </div>
    </>
  );
}
