import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { TRPCError } from "@trpc/server";
import { evaluatorLabel } from "@/server/domain/trajectory-list-query";
import { ReportButton } from "../../_components/report-dialog";
import { formatCount, formatDate, formatPercent, OutcomeBar, PageHeader, Stat } from "../../_components/ui";
import { api, orNotFound } from "../../_trpc/server";
import { rateCellView } from "../../analytics/_lib/rates";
import { DenseTable, right } from "../../_components/table";

export const metadata: Metadata = { title: "Run" };

export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  const raw = (await params).id;
  if (!/^\d{1,12}$/.test(raw)) notFound();
  const id = Number(raw);
  const caller = await api();
  const { run, outcomes, sites } = await orNotFound(caller.runs.byId({ id }));
  const [rates, options] = await Promise.all([successRatesByEvaluator(caller, id), caller.trajectories.filterOptions()]);
  const total = Object.values(outcomes).reduce((a, b) => a + b, 0);
  const meanSteps = total ? sites.reduce((a, s) => a + s.meanSteps * s.trajectories, 0) / total : null;
  return (
    <>
      <PageHeader
        crumbs={[{ href: "/runs", label: "Runs" }]}
        title={run.name}
        subtitle={`${run.agentName}${run.model ? ` · ${run.model}` : ""} · ${run.sourceSystem} · imported ${formatDate(run.createdAt)}`}
        actions={
          <>
            {total > 0 && (
              <ReportButton
                selection={{ runId: id }}
                described={`the ${formatCount(total)} trajectories of run “${run.name}”`}
                evaluators={(options.evaluators ?? []).map((e) => ({ ref: e.ref, label: evaluatorLabel(e) }))}
                title={run.name}
              />
            )}
            <Link className="btn" href={`/trajectories?run=${id}`}>
              Trajectories →
            </Link>
          </>
        }
      />
      <div className="flex flex-col gap-4 px-6 py-4">
        <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
          <Stat label="Trajectories" value={formatCount(total)} />
          <Stat label="Answered" value={formatPercent(outcomes.answered ?? 0, total)} hint="Ended with a final answer; success needs a verdict" />
          <Stat label="Mean steps" value={meanSteps === null ? "–" : meanSteps.toFixed(1)} />
          <Stat label="Sites" value={formatCount(sites.length)} />
        </div>
        <SuccessRates rates={rates} runId={id} />
        <div className="panel px-3 py-2">
          <div className="section-title mb-1">How trajectories ended</div>
          <OutcomeBar counts={outcomes} />
        </div>
        <div className="panel overflow-x-auto">
          <DenseTable columns={["Site", right("Trajectories"), right("Answered"), right("Mean steps")]}>
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
          </DenseTable>
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

type Caller = Awaited<ReturnType<typeof api>>;
type Overview = Awaited<ReturnType<Caller["analytics"]["overview"]>>;

/**
 * The run's success rate as each evaluator sees it (the consolidated human label first, then judges, rules and
 * imported verdicts). A researcher still labelling some trajectories blind is refused by the analytics router;
 * the page then says why instead of showing verdicts.
 */
async function successRatesByEvaluator(
  caller: Caller,
  runId: number,
): Promise<{ columns: Overview["columns"]; notCounted: Overview["notCounted"] } | { refused: string }> {
  try {
    const overview = await caller.analytics.overview({ scope: { runId } });
    return { columns: overview.columns, notCounted: overview.notCounted };
  } catch (e) {
    if (e instanceof TRPCError && e.code === "FORBIDDEN") return { refused: e.message };
    throw e;
  }
}

function SuccessRates({ rates, runId }: { rates: Awaited<ReturnType<typeof successRatesByEvaluator>>; runId: number }) {
  return (
    <section className="panel overflow-x-auto" aria-labelledby="rates-title" data-testid="success-rates">
      <div className="flex flex-wrap items-baseline justify-between gap-2 px-3 pt-2">
        <h2 id="rates-title" className="section-title">
          Success rate by evaluator
        </h2>
        <span className="text-2xs text-zinc-500">
          95% Wilson intervals · unparseable replies, “not evaluable” verdicts and “unsure” labels are left out of n
        </span>
      </div>
      {!("refused" in rates) && (rates.notCounted.infraErrors > 0 || rates.notCounted.blocked > 0) && (
        <p className="px-3 pt-1 text-2xs text-zinc-600" data-testid="rates-not-counted">
          Not counted in any rate: {rates.notCounted.infraErrors} infrastructure error{rates.notCounted.infraErrors === 1 ? "" : "s"} (reset, login or browser
          failures) and {rates.notCounted.blocked} {rates.notCounted.blocked === 1 ? "trajectory" : "trajectories"} blocked by a CAPTCHA, bot check or consent
          wall.
        </p>
      )}
      {"refused" in rates ? (
        <p className="px-3 py-2 text-[12px] text-zinc-600" data-testid="rates-refused">
          {rates.refused}
        </p>
      ) : rates.columns.length === 0 ? (
        <p className="px-3 py-2 text-[12px] text-zinc-600" data-testid="rates-empty">
          No evaluator has graded this run yet: no consolidated human labels, judge verdicts or rule checks.{" "}
          <Link className="link" href={`/judges/batch?run=${runId}`}>
            Judge its trajectories
          </Link>{" "}
          or label them in a campaign.
        </p>
      ) : (
        <DenseTable columns={["Evaluator", "Kind", right("Success rate [95% CI] · successes / n"), right("Left out")]} className="mt-1">
          {rates.columns.map((c) => {
            const cell = rateCellView(c.total);
            const left = c.total.unparseable + c.total.notEvaluable + c.total.unsure;
            return (
              <tr key={c.id} data-testid={`rate-${c.kind}`}>
                <td className={c.kind === "human" ? "font-medium text-zinc-900" : ""}>{c.label}</td>
                <td className="text-[12px] text-zinc-500">{KIND_LABEL[c.kind] ?? c.kind}</td>
                <td className="text-right tabular-nums" title={cell.title}>
                  {cell.href ? (
                    <Link className="link" href={cell.href}>
                      {cell.text}
                    </Link>
                  ) : (
                    cell.text
                  )}
                </td>
                <td className="text-right text-zinc-500 tabular-nums">{left ? formatCount(left) : "–"}</td>
              </tr>
            );
          })}
        </DenseTable>
      )}
    </section>
  );
}

const KIND_LABEL: Record<string, string> = { human: "human, consolidated", judge: "model judge", rule: "rule check", import: "imported verdicts" };
