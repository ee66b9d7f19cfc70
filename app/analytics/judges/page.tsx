import { IntervalNote } from "../_components/interval-note";
import type { inferRouterOutputs } from "@trpc/server";
import type { Metadata } from "next";
import { NothingImportedPage, startAnalyticsPage, type AnalyticsPageProps } from "../_components/page-start";
import type { AppRouter } from "@/server/api/root";
import { PageHeader } from "../../_components/ui";
import { NoEvaluators, NoReference } from "../_components/empty";
import { TablePanel } from "../_components/figure";
import { AnalyticsFilterBar } from "../_components/filter-bar";
import { RevealSection } from "../_components/reveal-section";
import { StepTimeline } from "../_components/step-timeline";
import { PALETTE } from "../_lib/charts";
import { failureStepTable, prepareJudgeMeasures } from "../_lib/judge-measures";
import { prepareJudgeList } from "../_lib/judges";
import { analyticsSearch, scopeOfParams } from "../_lib/params";
import { RateFigure } from "../_components/model-figures";
import { ReliabilityFigure } from "../_components/reliability-chart";

export const metadata: Metadata = { title: "Judge agreement" };

type FailureSteps = inferRouterOutputs<AppRouter>["analytics"]["failureSteps"];

export default async function JudgesPage(props: AnalyticsPageProps) {
  const { params, caller, options } = await startAnalyticsPage(props);
  if (options.trajectories === 0) return <NothingImportedPage title="Judge agreement" />;
  const common = { scope: scopeOfParams(params), campaignId: params.campaignId, unparseable: params.unparseable };
  const [list, measures, steps, reveal] = await Promise.all([
    caller.analytics.judges({ ...common, reference: params.reference, by: params.by }),
    caller.analytics.judgeMeasures({ ...common, by: params.by }),
    caller.analytics.failureSteps({ scope: common.scope, campaignId: common.campaignId }),
    caller.analytics.reveal({ campaignId: common.campaignId }),
  ]);
  const view = prepareJudgeList(list, analyticsSearch(params));
  const instrument = prepareJudgeMeasures(measures, analyticsSearch(params));
  return (
    <>
      <PageHeader title="Judge agreement" subtitle={view.subtitle} />
      <div className="flex flex-col gap-4 px-6 py-3">
        <AnalyticsFilterBar params={params} options={options} show={{ campaign: true, reference: true, unparseable: true, by: true }} flagged={list.flagged} />
        {view.empty === "no-evaluators" ? (
          <NoEvaluators />
        ) : (
          <>
            {view.empty === "no-reference" && <NoReference />}
            {view.skewed.length > 0 && <SkewWarning warnings={view.skewed} />}
            <RateFigure figure={view.chart} />
            <TablePanel
              id="judges-table"
              title="Every evaluator setting against the human label"
              description="Agreement, Cohen's κ with its 95% interval, prevalence and bias indices with PABAK, precision / recall / F1 of “success”, both success rates, and the verdicts left out. Click an evaluator for its confusion matrix, k-table, splits and disagreements."
              table={view.chart.table}
            />
            {view.split && (
              <TablePanel
                id="judges-split"
                title={`Agreement by ${list.split!.title}`}
                description={`Each evaluator setting's Cohen κ [95% interval] · n against ${list.reference.description}, per ${list.split!.title} group. Each cell lists its trajectories.`}
                table={view.split}
              />
            )}
            <IntervalNote />
            <TrustHelp />
            <RateFigure figure={instrument.errors} />
            {instrument.hygiene && (
              <TablePanel
                id="hygiene"
                title="The same judge with and without the agent's final answer"
                description="Online-Mind2Web's hygiene check: a judge that does much better with the answer than without may be trusting the agent's claim instead of the screenshots. Paired: configurations identical but for the option, at the same k."
                table={instrument.hygiene}
              />
            )}
            <TablePanel
              id="error-splits"
              title="Error rates per site and per agent run"
              description="The same measures on each site's and each agent run's trajectories, with intervals counting the tasks of that group."
              table={instrument.splits}
            />
            <TablePanel
              id="ranking"
              title="Agent ranking under each evaluator"
              description="Each rater's success rate per agent run (over the trajectories it rated) and the run's rank; ranks that differ from the humans' are marked. Last row: Kendall's τ-b between the evaluator's ranking and the humans' (ties counted)."
              table={instrument.ranking}
            />
            <ReliabilityFigure figure={instrument.reliability} />
            <TablePanel
              id="failure-steps"
              title="First failing step agreement"
              description="Where raters put the failure, counted where both called the trajectory a failure and marked a step. Judges give a step when their configuration asks for it; heuristics give the step they fire on; rules give none."
              table={failureStepTable(steps)}
            />
            {steps.items.length > 0 && <FailureStepMarks steps={steps} />}
          </>
        )}
        <RevealSection result={reveal} campaignId={common.campaignId} />
      </div>
    </>
  );
}

/** Evaluators whose agreement is read on skewed prevalence, where κ alone misleads. */
function SkewWarning({ warnings }: { warnings: string[] }) {
  return (
    <div role="note" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-[12px] text-amber-900" data-testid="skew-warning">
      <div className="font-semibold">Skewed prevalence: read κ with PABAK and the prevalence and bias indices</div>
      <ul className="mt-1 list-disc pl-5">
        {warnings.map((w) => (
          <li key={w}>{w}</li>
        ))}
      </ul>
    </div>
  );
}

/** How to read the error rates before trusting a judge's success rates. */
function TrustHelp() {
  return (
    <section className="panel px-3 py-2 text-[12px] text-zinc-600" aria-labelledby="trust-title" data-testid="trust-help">
      <h2 id="trust-title" className="text-[13px] font-semibold text-zinc-900">
        When to trust a judge in place of humans
      </h2>
      <ul className="mt-1 list-disc space-y-0.5 pl-5">
        <li>
          <b>False-positive rate</b> is what inflates a leaderboard: a judge that passes failed trajectories reports agents better than they are. Trust it for
          success rates only when the whole interval is low.
        </li>
        <li>
          <b>Success-rate gap</b> is the error a reported success rate carries. If its interval does not include 0, the judge is biased on these agents; per
          site and per run it can differ.
        </li>
        <li>
          <b>Intervals count tasks</b>, not only trajectories: trajectories of one task fail together. Error rates use Wilson intervals with the tasks&apos;
          effective sample size, the gap resamples whole tasks. Few tasks make wide intervals, and that width is honest.
        </li>
        <li>
          <b>Kendall τ</b> says whether the judge orders agents as humans do; with few runs, one swap moves τ a lot. <b>Calibration</b> (judges sampled several
          times) says whether its confidence can route the unsure items to humans.
        </li>
      </ul>
    </section>
  );
}

/** Each rater's first failing step per trajectory, drawn on one timeline each, widest disagreements first. */
function FailureStepMarks({ steps }: { steps: FailureSteps }) {
  return (
    <section className="panel px-3 py-2" aria-labelledby="step-marks-title" data-figure="failure-step-marks">
      <h2 id="step-marks-title" className="text-[13px] font-semibold text-zinc-900">
        Each rater&apos;s first failing step on the timeline
      </h2>
      <p className="mt-0.5 flex flex-wrap items-center gap-x-3 gap-y-1 text-[11.5px] text-zinc-500">
        <span>Widest disagreements first; each opens in the player.</span>
        <span className="flex items-center gap-1">
          <span className="inline-block h-3 w-[3px] rounded-sm bg-zinc-800" /> consolidated human step
        </span>
        {steps.evaluators.map((e, i) => (
          <span key={e.info.id} className="flex items-center gap-1">
            <span className="inline-block size-2.5 rounded-full" style={{ background: PALETTE[i % PALETTE.length] }} /> {e.info.label}
          </span>
        ))}
      </p>
      <div className="mt-2 flex flex-col gap-1.5">
        {steps.items.map((item) => (
          <StepTimeline
            key={item.trajectoryId}
            trajectoryId={item.trajectoryId}
            stepCount={item.stepCount}
            marks={[
              { key: "human", label: "Humans", step: item.human, color: "#27272a" },
              ...steps.evaluators.flatMap((e, i) =>
                item.evaluators[e.info.id] === undefined
                  ? []
                  : [{ key: e.info.id, label: e.info.label, step: item.evaluators[e.info.id]!, color: PALETTE[i % PALETTE.length]! }],
              ),
            ]}
          />
        ))}
      </div>
    </section>
  );
}
