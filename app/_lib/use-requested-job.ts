"use client";
/**
 * A job a person started from a page and waits for (a dedupe dry run or merge, a CSV's agreement, a label import): the
 * page asks the server to queue it, then polls the job until a worker has finished it. The server's side of the same
 * contract is server/services/jobs/requested-jobs.ts; every page that waits for such a job goes through this hook, so
 * they all say the same things while a job is queued, running, done or failed.
 */
import { useMutation, useQuery, type UseMutationOptions, type UseQueryOptions } from "@tanstack/react-query";

/** What the server tells the page about its job (RequestedJobView, as it arrives over tRPC). */
export interface RequestedJobState {
  status: string;
  result: unknown;
  error: string | null;
  createdAt: unknown;
  progress?: unknown;
}

const unfinished = (job: { status: string } | undefined) => job === undefined || job.status === "queued" || job.status === "running";

/** How often the page asks after a job that has not ended: quick enough that a short job feels immediate. */
const POLL_MS = 500;

/**
 * `startOptions` queues the job and answers its id; `jobOptions(id)` reads it back. Returns the start mutation (its
 * `variables` are what the job was started with), whether the job is still working, its result, why it failed, and
 * when it was queued while no worker has taken it yet (for WaitingForWorker), and its last reported progress.
 */
export function useRequestedJob<Variables, Job extends RequestedJobState, StartError extends { message: string }, JobError extends { message: string }>(
  startOptions: UseMutationOptions<{ jobId: number }, StartError, Variables>,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tRPC's query options carry a typed key of their own
  jobOptions: (id: number) => UseQueryOptions<Job, JobError, Job, any>,
) {
  const start = useMutation(startOptions);
  const jobId = start.data?.jobId ?? null;
  const job = useQuery({
    ...jobOptions(jobId ?? 0),
    enabled: jobId !== null,
    // A job that cannot be read (gone, or the server refused) is not polled again: its error is shown instead.
    refetchInterval: (q) => (q.state.status !== "error" && unfinished(q.state.data) ? POLL_MS : false),
  });
  return {
    start,
    /** The job has been asked for and has not ended. */
    working: start.isPending || (jobId !== null && !job.isError && unfinished(job.data)),
    status: jobId === null ? null : (job.data?.status ?? "queued"),
    result: (job.data?.result ?? null) as Job["result"] | null,
    failure: start.error?.message ?? job.error?.message ?? job.data?.error ?? null,
    queuedSince: (job.data?.status === "queued" ? job.data.createdAt : null) as Job["createdAt"] | null,
    /** What the job last reported while it ran (a progress bar's figures), or null. */
    progress: job.data?.progress ?? null,
  };
}
