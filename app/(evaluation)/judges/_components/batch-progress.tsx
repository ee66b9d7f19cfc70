"use client";
/**
 * One judge batch: a progress bar with the time left at the recent pace, the verdicts counted so far, cancel and
 * resume, and why calls failed (endpoint errors as stored: shortened, keys scrubbed). Progress is read from the
 * job queue, so a batch the CLI runs shows the same numbers; the page polls while the batch is going.
 */
import { useMutation, useQuery, useQueryClient, useSuspenseQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { useEffect } from "react";
import type { AppRouter } from "@/server/api/root";
import { Figure, formatCount, formatDate, TrajectoryLink } from "../../../_components/ui";
import { JudgesPageHeader } from "./judges-header";
import { useTRPC } from "../../../_trpc/client";
import { ProgressBar, ProgressPanel, StopButton, WorkCounts } from "../../../_components/progress-bar";
import { BatchStatus } from "./batch-status";
import { etaText } from "../_lib/batch-text";
import { errorText } from "../_lib/error-text";
import { WaitingForWorker } from "../../../_components/waiting-for-worker";
import { DenseTable, right } from "../../../_components/table";

const POLL_MS = 1_000;
/** Failed calls listed one by one (the reasons above count them all). */
const FAILURE_ROWS = 100;

export function BatchProgressView({ id }: { id: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { data } = useSuspenseQuery({
    ...trpc.judge.batches.progress.queryOptions({ id }),
    refetchInterval: (q) => {
      const status = q.state.data?.batch.status;
      return status === "running" || status === "pending" || (q.state.data?.jobs.remaining ?? 0) > 0 ? POLL_MS : false;
    },
  });
  const { data: configs } = useSuspenseQuery(trpc.judge.configs.list.queryOptions());
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.judge.batches.progress.queryFilter({ id })),
      queryClient.invalidateQueries(trpc.judge.batches.list.queryFilter()),
    ]);
  const failedCount = data.jobs.counts.failed;
  const failures = useQuery({ ...trpc.judge.batches.failures.queryOptions({ id, limit: FAILURE_ROWS }), enabled: failedCount > 0 });
  // The list follows the progress poll: reread it whenever the number of failed calls changes.
  useEffect(() => {
    if (failedCount > 0) void queryClient.invalidateQueries(trpc.judge.batches.failures.queryFilter({ id, limit: FAILURE_ROWS }));
  }, [failedCount, id, queryClient, trpc]);
  const cancel = useMutation(trpc.judge.batches.cancel.mutationOptions({ onSettled: refresh }));
  const resume = useMutation(trpc.judge.batches.resume.mutationOptions({ onSettled: refresh }));

  const { batch, jobs, verdicts } = data;
  const config = configs.find((c) => c.id === batch.judgeConfigId);
  const total = jobs.done + jobs.remaining;
  // Cancelled calls were not made: a cancelled batch must not look complete.
  const made = jobs.counts.succeeded + jobs.counts.failed;
  const fraction = total === 0 ? 1 : made / total;
  const going = jobs.remaining > 0;
  const resumable = !going && (jobs.counts.cancelled > 0 || jobs.counts.failed > 0);
  return (
    <>
      <JudgesPageHeader
        title={`Judge batch #${batch.id}`}
        subtitle={`${config?.name ?? `configuration ${batch.judgeConfigId}`} · ${batch.selectionLabel ?? "selection"} · ${formatCount(batch.trajectoryCount)} trajector${batch.trajectoryCount === 1 ? "y" : "ies"} · k = ${batch.kValues.join(", ")} · created ${formatDate(batch.createdAt)}`}
        actions={
          <>
            {going && (
              <StopButton
                question="Cancel this batch? Calls not yet made are not made; verdicts already received are kept. You can resume it later."
                onStop={() => cancel.mutate({ id })}
                disabled={cancel.isPending}
                testId="cancel-batch"
              >
                Cancel batch
              </StopButton>
            )}
            {resumable && (
              <button type="button" className="btn btn-on" data-testid="resume-batch" disabled={resume.isPending} onClick={() => resume.mutate({ id })}>
                Resume ({formatCount(jobs.counts.cancelled + jobs.counts.failed)} left)
              </button>
            )}
          </>
        }
      />
      <div className="flex flex-col gap-4 px-6 py-4">
        <ProgressPanel
          label="Batch progress"
          status={<BatchStatus status={batch.status} />}
          counts={
            <WorkCounts
              done={`${formatCount(made)} of ${formatCount(total)} calls made (${Math.round(fraction * 100)} %)`}
              counts={jobs.counts}
              testId="batch-counts"
            />
          }
          aside={
            <span className="text-[12px] text-zinc-500 tabular-nums" data-testid="batch-eta">
              {going ? etaText(jobs.etaSeconds, jobs.remaining) : batch.finishedAt ? `finished ${formatDate(batch.finishedAt)}` : ""}
              {going && jobs.ratePerSecond ? ` · ${jobs.ratePerSecond.toFixed(jobs.ratePerSecond < 1 ? 2 : 1)} calls/s` : ""}
            </span>
          }
        >
          <ProgressBar value={fraction} label="Batch progress" testId="batch-progress" tone={jobs.counts.failed > 0 ? "amber" : "indigo"} />
          {batch.skippedExisting > 0 && (
            <p className="mt-2 text-2xs text-zinc-500">
              {formatCount(batch.skippedExisting)} trajectory × k pair{batch.skippedExisting === 1 ? "" : "s"} already had a verdict from this configuration and
              {batch.skippedExisting === 1 ? " was" : " were"} kept.
            </p>
          )}
          {batch.status === "pending" && made === 0 && jobs.counts.running === 0 && <WaitingForWorker since={batch.createdAt} what="this batch" />}
          {batch.error && (
            <p className="mt-2 text-[12px] text-rose-700" role="alert">
              The batch stopped: {batch.error}
            </p>
          )}
          {(cancel.isError || resume.isError) && (
            <p className="mt-2 text-[12px] text-rose-700" role="alert">
              {errorText(cancel.error ?? resume.error)}
            </p>
          )}
        </ProgressPanel>

        <VerdictsReceived verdicts={verdicts} estimatedCostUsd={batch.estimatedCostUsd} />

        <section className="panel px-4 py-3" aria-label="Failures">
          <h2 className="section-title mb-2">Failures</h2>
          {jobs.errors.length === 0 ? (
            <p className="text-[12px] text-zinc-500" data-testid="no-failures">
              {jobs.counts.failed > 0 ? "Calls failed without a recorded reason." : "No call has failed."}
            </p>
          ) : (
            <ul className="flex flex-col gap-1.5" data-testid="failures">
              {jobs.errors.map((e) => (
                <li key={e.error} className="flex gap-3 text-[12px]">
                  <span className="w-14 shrink-0 text-right text-rose-700 tabular-nums">{formatCount(e.n)} ×</span>
                  <span className="font-mono break-words text-zinc-800">{e.error}</span>
                </li>
              ))}
            </ul>
          )}
          {failedCount > 0 && failures.data && failures.data.length > 0 && <FailureTable rows={failures.data} failedCount={failedCount} />}
          {jobs.counts.failed > 0 && !going && (
            <p className="mt-2 text-2xs text-zinc-500">Resume sends the failed and cancelled calls again; verdicts already received are kept.</p>
          )}
        </section>
      </div>
    </>
  );
}

type Progress = inferRouterOutputs<AppRouter>["judge"]["batches"]["progress"];

/** The verdicts the batch has received so far, by verdict, with tokens and cost against the estimate. */
function VerdictsReceived({ verdicts, estimatedCostUsd }: { verdicts: Progress["verdicts"]; estimatedCostUsd: number | null }) {
  const v = verdicts.byVerdict;
  return (
    <section className="panel px-4 py-3" aria-label="Verdicts">
      <h2 className="section-title mb-2">Verdicts received</h2>
      <dl className="grid grid-cols-2 gap-x-6 gap-y-1 text-[13px] sm:grid-cols-3 lg:grid-cols-6" data-testid="batch-verdicts">
        <Figure label="Success" value={formatCount(v.success ?? 0)} testId="verdict-success" />
        <Figure label="Failure" value={formatCount(v.failure ?? 0)} testId="verdict-failure" />
        <Figure label="Unparseable" value={formatCount(v.unparseable ?? 0)} />
        <Figure label="Not evaluable" value={formatCount(v.not_evaluable ?? 0)} />
        <Figure label="Tokens in / out" value={`${formatCount(verdicts.inputTokens)} / ${formatCount(verdicts.outputTokens)}`} />
        <Figure
          label="Cost"
          value={
            <>
              {verdicts.costUsd === null ? "–" : `$${verdicts.costUsd.toFixed(4)}`}
              {estimatedCostUsd !== null && <span className="text-zinc-500"> of ~${estimatedCostUsd.toFixed(4)}</span>}
            </>
          }
        />
      </dl>
      {(v.success ?? 0) + (v.failure ?? 0) > 0 && (
        <p className="mt-2 text-2xs text-zinc-500">
          Success rates by evaluator, with intervals and agreement with human labels, are on the{" "}
          <Link className="link" href="/analytics">
            analytics
          </Link>{" "}
          pages and on each run’s page.
        </p>
      )}
    </section>
  );
}

/** The failed calls, one row each, the first {FAILURE_ROWS} of them. */
function FailureTable({ rows, failedCount }: { rows: inferRouterOutputs<AppRouter>["judge"]["batches"]["failures"]; failedCount: number }) {
  return (
    <div className="mt-3 max-h-80 overflow-auto">
      <DenseTable columns={["Trajectory", "k", right("Attempts"), "Reason", "When"]} testId="failure-table">
        {rows.map((f) => (
          <tr key={`${f.trajectoryId}:${f.k}`}>
            <td>
              <TrajectoryLink id={f.trajectoryId} />
            </td>
            <td className="font-mono">{f.k}</td>
            <td className="text-right tabular-nums">{f.attempts}</td>
            <td className="max-w-xl font-mono text-[12px] break-words">{f.error || "–"}</td>
            <td className="text-[12px] whitespace-nowrap text-zinc-500">{formatDate(f.finishedAt)}</td>
          </tr>
        ))}
      </DenseTable>
      {failedCount > rows.length && (
        <p className="mt-1 text-2xs text-zinc-500">
          The first {formatCount(rows.length)} of {formatCount(failedCount)} failed calls.
        </p>
      )}
    </div>
  );
}
