import type { Metadata } from "next";
import { NothingImportedPage, startAnalyticsPage, type AnalyticsPageProps } from "../_components/page-start";
import Link from "next/link";
import { EmptyState, PageHeader } from "../../_components/ui";
import { RateChart } from "../_components/charts";
import { Figure } from "../_components/figure";
import { AnalyticsFilterBar } from "../_components/filter-bar";
import { analyticsSearch, getParam, scopeOfParams } from "../_lib/params";
import { prepareStepBudget, stepBudgetTable } from "../_lib/step-budget";

export const metadata: Metadata = { title: "Step budgets" };

/**
 * Step budgets: per agent run or site, the success rate had every trajectory been stopped after k steps (by the
 * consolidated human labels), with Wilson 95% intervals, and what one success costs in steps.
 */
export default async function StepBudgetPage(props: AnalyticsPageProps) {
  const { sp, params, caller, options } = await startAnalyticsPage(props);
  const by = getParam(sp, "budget") === "site" ? "site" : "run";
  if (options.trajectories === 0) return <NothingImportedPage title="Step budgets" />;
  const result = await caller.analytics.stepBudget({ scope: scopeOfParams(params), campaignId: params.campaignId, by });
  const { chart, rows } = prepareStepBudget(result.curves, by);
  const toggle = (b: "run" | "site") => `/analytics/step-budget${analyticsSearch(params, { budget: b === "site" ? "site" : undefined })}`;
  return (
    <>
      <PageHeader title="Step budgets" subtitle="Success had each trajectory been stopped after k steps, by the human labels" />
      <div className="flex flex-col gap-4 px-6 py-3">
        <AnalyticsFilterBar
          params={params}
          options={options}
          show={{ campaign: true }}
          keep={{ budget: by === "site" ? "site" : undefined }}
          flagged={result.flagged}
        />
        <nav aria-label="Curves per" className="flex items-center gap-1">
          <span className="section-title mr-1">One curve per</span>
          {(["run", "site"] as const).map((b) => (
            <Link key={b} href={toggle(b)} aria-current={by === b ? "page" : undefined} className={`btn ${by === b ? "btn-on" : ""}`}>
              {b === "run" ? "agent run" : "site"}
            </Link>
          ))}
        </nav>
        {rows.length === 0 ? (
          <EmptyState title="No labelled trajectories in this scope">
            Step budgets are read from human success/failure labels: label a campaign, or widen the filters.
          </EmptyState>
        ) : (
          <Figure
            id="step-budget"
            title="Success within k steps"
            description="A trajectory counts as a success at limit k only if it succeeded in at most k steps; each curve ends at its success rate. Bars: Wilson 95% intervals."
            chart={chart ? <RateChart model={chart} /> : null}
            table={stepBudgetTable(rows, by)}
          />
        )}
      </div>
    </>
  );
}
