"use client";
/**
 * Starting a failure-cluster run: which failures of the slice (by the human label, by a judge, disputed), k or the
 * silhouette's choice, then a worker computes it while the page shows its progress, and opens the saved run.
 */
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import type { ClusterBasis, ClusterSlice } from "@/server/domain/analytics/cluster-slice";
import { MAX_CLUSTERS } from "@/server/domain/analytics/failure-clusters";
import { RecordOptions } from "../../../_components/field";
import { ProgressBar } from "../../../_components/progress-bar";
import { WaitingForWorker } from "../../../_components/waiting-for-worker";
import { useRequestedJob } from "../../../_lib/use-requested-job";
import { useTRPC } from "../../../_trpc/client";
import { BASIS_LABEL, savedRunHref } from "../../_lib/clusters";

const STAGE_TEXT: Record<string, string> = {
  selecting: "Selecting the failures",
  reading: "Reading their notes, rationales and last steps",
  clustering: "Grouping them (trying each k)",
  saving: "Saving the run",
};

function useClusterJob() {
  const trpc = useTRPC();
  const job = useRequestedJob(trpc.analytics.clusterStart.mutationOptions(), (id) => trpc.analytics.clusterJob.queryOptions({ id }));
  return { ...job, computing: job.working, runId: job.result?.runId ?? null, progress: job.progress as { stage: string; done: number } | null };
}

export function ClusterLauncher({ slice, evaluators }: { slice: ClusterSlice; evaluators: { ref: string; label: string }[] }) {
  const router = useRouter();
  const { start, computing, runId, failure, progress, queuedSince } = useClusterJob();
  const [basis, setBasis] = useState<ClusterBasis>(slice.basis);
  const [evaluator, setEvaluator] = useState(slice.filter.evaluator ?? evaluators[0]?.ref ?? "");
  const [k, setK] = useState<number | undefined>(slice.k);
  useEffect(() => {
    if (runId !== null) router.push(savedRunHref(runId));
  }, [runId, router]);
  const needsJudge = basis !== "human";
  const submit = () => start.mutate({ filter: { ...slice.filter, evaluator: needsJudge ? evaluator || undefined : slice.filter.evaluator }, basis, k });
  return (
    <section className="panel flex flex-col gap-3 p-4" aria-labelledby="cluster-launch-title" data-testid="cluster-launcher">
      <h2 id="cluster-launch-title" className="section-title">
        Find clusters
      </h2>
      <fieldset className="flex flex-wrap items-center gap-x-4 gap-y-1 text-[12.5px]">
        <legend className="mb-1 text-[12px] text-zinc-500">Which trajectories of this slice</legend>
        {(Object.keys(BASIS_LABEL) as ClusterBasis[]).map((b) => (
          <label key={b} className="flex items-center gap-1.5">
            <input type="radio" name="basis" value={b} checked={basis === b} onChange={() => setBasis(b)} disabled={computing} />
            {BASIS_LABEL[b]}
          </label>
        ))}
      </fieldset>
      <div className="flex flex-wrap items-end gap-3 text-[12.5px]">
        {needsJudge && (
          <label className="flex flex-col gap-1">
            <span className="text-[12px] text-zinc-500">Judge</span>
            <select
              className="field max-w-72"
              aria-label="Judge"
              value={evaluator}
              onChange={(e) => setEvaluator(e.target.value)}
              disabled={computing || !evaluators.length}
            >
              {!evaluators.length && <option value="">No evaluator has verdicts yet</option>}
              <RecordOptions items={evaluators} value={(e) => e.ref} text={(e) => e.label} />
            </select>
          </label>
        )}
        <label className="flex flex-col gap-1">
          <span className="text-[12px] text-zinc-500">Clusters</span>
          <select
            className="field max-w-72"
            aria-label="Number of clusters"
            value={k ?? ""}
            onChange={(e) => setK(e.target.value ? Number(e.target.value) : undefined)}
            disabled={computing}
          >
            <option value="">Choose k for me (silhouette)</option>
            {Array.from({ length: MAX_CLUSTERS - 1 }, (_, i) => i + 2).map((n) => (
              <option key={n} value={n}>
                {n} clusters
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="btn btn-on" onClick={submit} disabled={computing || (needsJudge && !evaluator)}>
          {computing ? "Finding clusters…" : "Find clusters"}
        </button>
      </div>
      {computing && (
        <div className="flex flex-col gap-1" data-testid="cluster-progress">
          <ProgressBar value={progress?.done ?? 0} label="Clustering progress" className="max-w-md" />
          <span className="text-[12px] text-zinc-600">{progress ? (STAGE_TEXT[progress.stage] ?? progress.stage) : "Queued for a worker"}</span>
          {queuedSince && <WaitingForWorker since={queuedSince} what="this clustering" />}
        </div>
      )}
      {failure && (
        <p role="alert" className="rounded-md border border-rose-200 bg-rose-50 px-3 py-2 text-[12.5px] text-rose-700">
          {failure}
        </p>
      )}
    </section>
  );
}
