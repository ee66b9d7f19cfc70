"use client";
/**
 * The progress of the judge batch behind a stress test or an alignment run, compact enough to sit above its
 * report: calls made of all, time left, cancel and resume (as on the batch page, which it links to for the
 * failures). It polls while the batch is going and tells the parent when the batch has stopped, so the report
 * below can be read again.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef } from "react";
import { formatCount } from "../../../_components/ui";
import { WaitingForWorker } from "../../../_components/waiting-for-worker";
import { useTRPC } from "../../../_trpc/client";
import { ProgressBar, StopButton } from "../../../_components/progress-bar";
import { etaText } from "../_lib/batch-text";
import { errorText } from "../_lib/error-text";
import { BatchStatus } from "./batch-status";

const POLL_MS = 1_000;

export function RunProgress({ batchId, onProgress }: { batchId: number; onProgress?: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const progress = useQuery({
    ...trpc.judge.batches.progress.queryOptions({ id: batchId }),
    refetchInterval: (q) => {
      const d = q.state.data;
      return !d || d.batch.status === "running" || d.batch.status === "pending" || d.jobs.remaining > 0 ? POLL_MS : false;
    },
  });
  const refresh = () => queryClient.invalidateQueries(trpc.judge.batches.progress.queryFilter({ id: batchId }));
  const cancel = useMutation(trpc.judge.batches.cancel.mutationOptions({ onSettled: refresh }));
  const resume = useMutation(trpc.judge.batches.resume.mutationOptions({ onSettled: refresh }));
  const d = progress.data;
  const made = d ? d.jobs.counts.succeeded + d.jobs.counts.failed : 0;
  // The report follows the verdicts: read it again whenever more calls have been made.
  const seen = useRef(-1);
  useEffect(() => {
    if (d && made !== seen.current) {
      seen.current = made;
      onProgress?.();
    }
  }, [d, made, onProgress]);

  if (progress.isError) {
    return (
      <p className="text-[12px] text-rose-700" role="alert">
        Progress unavailable: {errorText(progress.error)}
      </p>
    );
  }
  if (!d) return <p className="text-[12px] text-zinc-500">Reading progress…</p>;
  const { batch, jobs } = d;
  const total = jobs.done + jobs.remaining;
  const fraction = total === 0 ? 1 : made / total;
  const going = jobs.remaining > 0;
  const resumable = !going && (jobs.counts.cancelled > 0 || jobs.counts.failed > 0);
  return (
    <div className="flex flex-col gap-2" data-testid="run-progress-panel">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="flex flex-wrap items-center gap-2">
          <BatchStatus status={batch.status} />
          <span className="text-[12px] text-zinc-600 tabular-nums" data-testid="run-counts">
            {formatCount(made)} of {formatCount(total)} calls made
            {jobs.counts.failed > 0 && ` · ${formatCount(jobs.counts.failed)} failed`}
            {jobs.counts.cancelled > 0 && ` · ${formatCount(jobs.counts.cancelled)} cancelled`}
            {going && ` · ${etaText(jobs.etaSeconds, jobs.remaining)}`}
          </span>
          <Link className="link text-[12px]" href={`/judges/batches/${batch.id}`}>
            batch #{batch.id}
          </Link>
        </div>
        <div className="flex gap-2">
          {going && (
            <StopButton
              question="Cancel? Calls not yet made are not made; verdicts already received are kept, and you can resume."
              onStop={() => cancel.mutate({ id: batch.id })}
              disabled={cancel.isPending}
              testId="cancel-run"
            >
              Cancel
            </StopButton>
          )}
          {resumable && (
            <button type="button" className="btn btn-on" data-testid="resume-run" disabled={resume.isPending} onClick={() => resume.mutate({ id: batch.id })}>
              Resume ({formatCount(jobs.counts.cancelled + jobs.counts.failed)} left)
            </button>
          )}
        </div>
      </div>
      <ProgressBar value={fraction} label="Run progress" testId="run-progress" tone={jobs.counts.failed > 0 ? "amber" : "indigo"} />
      {batch.status === "pending" && made === 0 && jobs.counts.running === 0 && <WaitingForWorker since={batch.createdAt} what="this run" />}
      {(cancel.isError || resume.isError) && (
        <p className="text-[12px] text-rose-700" role="alert">
          {errorText(cancel.error ?? resume.error)}
        </p>
      )}
    </div>
  );
}
