import type { Metadata } from "next";
import { NothingImportedPage, startAnalyticsPage, type AnalyticsPageProps } from "./_components/page-start";
import { EmptyState, PageHeader } from "../_components/ui";
import { NoEvaluations } from "./_components/empty";
import { AnalyticsFilterBar } from "./_components/filter-bar";
import { StatValue } from "./_components/stat-cards";
import { SiteRunFigure } from "./_components/site-run";
import { prepareOverview } from "./_lib/overview";
import { scopeOfParams } from "./_lib/params";
import { RateFigure } from "./_components/model-figures";

export const metadata: Metadata = { title: "Analytics" };

export default async function AnalyticsOverviewPage(props: AnalyticsPageProps) {
  const { params, caller, options } = await startAnalyticsPage(props);
  if (options.trajectories === 0) return <NothingImportedPage title="Success rates" />;
  const overview = await caller.analytics.overview({
    scope: scopeOfParams(params),
    campaignId: params.campaignId,
    unparseable: params.unparseable,
    difficulty: params.difficulty,
    by: params.by,
  });
  const view = prepareOverview(overview);
  return (
    <>
      <PageHeader title="Success rates" subtitle={view.subtitle} />
      <div className="flex flex-col gap-4 px-6 py-3">
        <AnalyticsFilterBar
          params={params}
          options={options}
          show={{ campaign: true, unparseable: true, difficulty: true, by: true }}
          flagged={overview.flagged}
        />
        {(overview.notCounted.infraErrors > 0 || overview.notCounted.blocked > 0) && (
          <p className="text-[12px] text-zinc-600" data-testid="rates-not-counted">
            Not counted in any rate below: {overview.notCounted.infraErrors} live-run trajectories that ended in an infrastructure error and{" "}
            {overview.notCounted.blocked} that a CAPTCHA, bot check or consent wall blocked; the agent never got to try.
          </p>
        )}
        {view.empty === "no-evaluations" || view.empty === "no-trajectories" ? (
          view.empty === "no-trajectories" ? (
            <EmptyState title="No trajectories in this scope">Widen the filters above.</EmptyState>
          ) : (
            <NoEvaluations />
          )
        ) : (
          <>
            <div className="grid grid-cols-2 gap-2 md:grid-cols-3 xl:grid-cols-5" data-testid="overview-totals">
              {view.totals.map((t) => (
                <div key={t.id} data-total={t.id} className="min-w-0 rounded-lg border border-zinc-200 bg-white px-3 py-2">
                  <div className="section-title truncate" title={t.label}>
                    {t.label}
                  </div>
                  <StatValue value={t.value} href={t.href} />
                  <div className="truncate text-2xs text-zinc-500">{t.detail}</div>
                </div>
              ))}
            </div>
            {view.split && <RateFigure figure={view.split} />}
            <RateFigure figure={view.bySite} />
            <SiteRunFigure model={view.siteRun} />
            <RateFigure figure={view.byRun} />
            <div className="grid gap-4 xl:grid-cols-2">
              <RateFigure figure={view.byDifficulty} />
              <RateFigure figure={view.byLength} />
            </div>
          </>
        )}
      </div>
    </>
  );
}
