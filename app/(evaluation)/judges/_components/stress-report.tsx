"use client";
/**
 * One stress test: the progress of its calls (cancel, resume), then per perturbation the flip rate and κ against
 * people before and after, with intervals, as charts and as a table, and the items whose verdict flipped, each
 * opening the player. A running test reports on what is done so far.
 */
import { useQueryClient, useSuspenseQuery } from "@tanstack/react-query";
import { useCallback } from "react";
import { Figure, formatCount, formatDate, TrajectoryLink } from "../../../_components/ui";
import { JudgesPageHeader } from "./judges-header";
import { RateChart } from "../../../analytics/_components/charts";
import { useTRPC } from "../../../_trpc/client";
import { kappaChangeNote, kappaChangeText, kappaText, rateText, stressFlipChart, stressKappaChart, type StressReport } from "../_lib/improvement";
import { RunProgress } from "./run-progress";
import { SkippedWays } from "./skipped-ways";
import { DenseTable, right } from "../../../_components/table";

export function StressReportView({ id }: { id: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { data: r } = useSuspenseQuery(trpc.judge.stress.report.queryOptions({ id }));
  const reread = useCallback(() => void queryClient.invalidateQueries(trpc.judge.stress.report.queryFilter({ id })), [queryClient, trpc, id]);
  const st = r.stressTest;
  const base = r.base.measures;
  return (
    <>
      <JudgesPageHeader
        crumbs={[{ href: "/judges/stress", label: "Stress tests" }]}
        title={`Stress test #${st.id}`}
        subtitle={`${r.configName} on ${r.campaignName} · k = ${st.k} · seed ${st.seed} · ${formatCount(r.items)} labelled item${r.items === 1 ? "" : "s"} · created ${formatDate(st.createdAt)}`}
      />
      <div className="flex flex-col gap-4 px-6 py-4">
        {st.batchId != null && (
          <section className="panel px-4 py-3" aria-label="Progress">
            <RunProgress batchId={st.batchId} onProgress={reread} />
          </section>
        )}
        <section className="panel px-4 py-3" aria-label="Unperturbed">
          <h2 className="section-title mb-2">The judge as configured</h2>
          <dl className="grid grid-cols-2 gap-x-6 gap-y-1 text-[13px] sm:grid-cols-4" data-testid="stress-base">
            <Figure label="κ against people" value={kappaText(base.kappa)} testId="base-kappa" />
            <Figure label="False-positive rate" value={rateText(base.errors.falsePositive)} />
            <Figure label="False-negative rate" value={rateText(base.errors.falseNegative)} />
            <Figure
              label="Judged"
              value={`${formatCount(base.n)} of ${formatCount(base.items)}${base.missing ? ` (${formatCount(base.missing)} not yet)` : ""}`}
            />
          </dl>
          <SkippedWays skipped={st.skipped} className="mt-2 text-[12px] text-zinc-600" />
        </section>
        <div className="grid gap-4 xl:grid-cols-2">
          <section className="panel px-4 py-3" aria-label="Flip rate chart">
            <h2 className="section-title mb-2">Flip rate per perturbation (95% Wilson)</h2>
            <RateChart model={stressFlipChart(r)} />
          </section>
          <section className="panel px-4 py-3" aria-label="Kappa chart">
            <h2 className="section-title mb-2">κ against people, unperturbed and perturbed</h2>
            <RateChart model={stressKappaChart(r)} />
          </section>
        </div>
        <PerturbationTable report={r} />
        {r.perturbations.map((p) => (
          <FlippedItems key={p.perturbation} perturbation={p} />
        ))}
        {r.labelsGone.length > 0 && (
          <p className="text-[12px] text-zinc-500">
            {formatCount(r.labelsGone.length)} item{r.labelsGone.length === 1 ? "" : "s"} no longer have a consolidated success or failure and are left out.
          </p>
        )}
      </div>
    </>
  );
}

function PerturbationTable({ report: r }: { report: StressReport }) {
  return (
    <section className="panel" aria-label="Per perturbation">
      <div className="overflow-x-auto">
        <DenseTable
          columns={["Perturbation", right("Both decided"), "Flip rate", right("Now right / now wrong"), "κ before → after", "Change in κ", "FPR", "FNR"]}
          testId="stress-results"
        >
          {r.perturbations.map((p) => (
            <tr key={p.perturbation} data-testid={`stress-row-${p.perturbation}`}>
              <td>
                {p.label} <span className="font-mono text-2xs text-zinc-500">{p.perturbation}</span>
              </td>
              <td className="text-right tabular-nums">
                {formatCount(p.comparison.n)}
                {p.comparison.leftOut > 0 && <span className="text-zinc-500"> ({formatCount(p.comparison.leftOut)} left out)</span>}
              </td>
              <td className="tabular-nums" data-testid="flip-rate">
                {rateText(p.comparison.flipRate)} · {p.comparison.flipRate.successes} of {p.comparison.flipRate.n}
              </td>
              <td className="text-right tabular-nums" data-testid="flip-directions">
                {p.comparison.nowRight} / {p.comparison.nowWrong}
              </td>
              <td className="tabular-nums" data-testid="kappa-before-after">
                {kappaText(p.comparison.kappaA)} → {kappaText(p.comparison.kappaB)}
              </td>
              <td className="tabular-nums" data-testid="kappa-change" title={kappaChangeNote(p.comparison.kappaChange)}>
                {kappaChangeText(p.comparison.kappaChange)}
              </td>
              <td className="tabular-nums">{rateText(p.measures.errors.falsePositive)}</td>
              <td className="tabular-nums">{rateText(p.measures.errors.falseNegative)}</td>
            </tr>
          ))}
        </DenseTable>
      </div>
      <p className="border-t border-zinc-100 px-3 py-2 text-2xs text-zinc-500">
        On the items both ways decided. Flip rate: Wilson interval. Change in κ: paired percentile bootstrap over items (1,000 resamples, seed 1; none under 10
        items). FPR/FNR: task-clustered Wilson intervals.
      </p>
    </section>
  );
}

function FlippedItems({ perturbation: p }: { perturbation: StressReport["perturbations"][number] }) {
  return (
    <section className="panel" aria-label={`Flipped: ${p.label}`} data-testid={`flipped-${p.perturbation}`}>
      <h2 className="section-title border-b border-zinc-200 px-3 py-2">
        Flipped with {p.label} ({formatCount(p.flipped.length)})
      </h2>
      {p.flipped.length === 0 ? <p className="px-3 py-2 text-[12px] text-zinc-500">No verdict changed.</p> : <FlipTable rows={p.flipped} />}
    </section>
  );
}

export function FlipTable({
  rows,
}: {
  rows: { trajectoryId: number; taskExternalId: string; intent?: string; human: string; before: string; after: string; direction: string }[];
}) {
  return (
    <div className="overflow-x-auto">
      <DenseTable columns={["Trajectory", "Task", "People", "Before → after", "Direction"]}>
        {rows.map((f) => (
          <tr key={f.trajectoryId} data-testid="flipped-item">
            <td>
              <TrajectoryLink id={f.trajectoryId} />
            </td>
            <td className="max-w-md text-[12px]">
              <span className="font-mono text-zinc-500">{f.taskExternalId}</span>
              {f.intent && (
                <span className="block truncate text-zinc-700" title={f.intent}>
                  {f.intent}
                </span>
              )}
            </td>
            <td>{f.human}</td>
            <td className="font-mono text-[12px]">
              {f.before} → {f.after}
            </td>
            <td className={f.direction === "now right" ? "text-emerald-700" : "text-rose-700"}>{f.direction}</td>
          </tr>
        ))}
      </DenseTable>
    </div>
  );
}
