"use client";
/**
 * Running scanners over a slice of the trajectory list: which scanners, and the slice as a behaviour search (empty:
 * every trajectory the list shows, flagged tasks left out as there). The run is a worker job; the page polls it
 * and shows its progress, then what each scanner found and every scan that could not finish.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { ScannerRunProgress } from "@/server/services/evaluation/scanner-jobs";
import { useRequestedJob } from "../../../_lib/use-requested-job";
import { useTRPC } from "../../../_trpc/client";
import { formatCount } from "../../../_components/ui";
import { WaitingForWorker } from "../../../_components/waiting-for-worker";

export function ScannerRun() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.scanners.list.queryOptions());
  const [chosen, setChosen] = useState<Set<string> | null>(null);
  const [search, setSearch] = useState("");
  const run = useRequestedJob(trpc.scanners.run.mutationOptions(), (id) => trpc.scanners.job.queryOptions({ id }));
  const finished = run.status === "succeeded";
  useEffect(() => {
    if (finished) void queryClient.invalidateQueries({ queryKey: trpc.scanners.pathKey() });
  }, [finished, queryClient, trpc]);
  if (!list.data) return null;
  const keys = chosen ?? new Set(list.data.map((s) => s.key));
  const toggle = (key: string) => {
    const next = new Set(keys);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    setChosen(next);
  };
  const { working, failure, result } = run;
  const progress = run.progress as ScannerRunProgress | null;
  return (
    <section className="panel flex flex-col gap-3 px-4 py-3" aria-label="Run scanners" data-testid="scanner-run">
      <h2 className="text-[14px] font-semibold">Run scanners</h2>
      <fieldset className="flex flex-wrap gap-x-4 gap-y-1 text-[12.5px]">
        <legend className="mb-1 text-[12px] text-zinc-600">Scanners</legend>
        {list.data.map((s) => (
          <label key={s.key} className="flex items-center gap-1.5">
            <input type="checkbox" checked={keys.has(s.key)} onChange={() => toggle(s.key)} data-testid={`run-${s.key}`} />
            {s.name}
          </label>
        ))}
      </fieldset>
      <label className="flex flex-col gap-1 text-[12px] text-zinc-600">
        Over the trajectories this search finds (empty: all of them; the list&apos;s search syntax)
        <input
          className="field font-mono"
          value={search}
          placeholder='e.g. url:checkout or thought:"not load"'
          onChange={(e) => setSearch(e.target.value)}
          data-testid="run-search"
        />
      </label>
      <div className="flex items-center gap-3">
        <button
          type="button"
          className="btn btn-on"
          disabled={working || keys.size === 0}
          onClick={() => run.start.mutate({ scannerKeys: [...keys], filter: search.trim() ? { search: search.trim() } : {} })}
          data-testid="run-scanners"
        >
          {working ? "Scanning…" : `Run ${keys.size} scanner${keys.size === 1 ? "" : "s"}`}
        </button>
        {working && progress && (
          <span role="status" className="text-[12.5px] text-zinc-700 tabular-nums" data-testid="run-progress">
            {formatCount(progress.done)} of {formatCount(progress.total)} trajectories
          </span>
        )}
      </div>
      {run.queuedSince && <WaitingForWorker since={run.queuedSince} what="this scan" />}
      {failure && (
        <p role="alert" className="text-[12.5px] text-rose-700">
          {failure}
        </p>
      )}
      {finished && result && (
        <div className="text-[12.5px] text-zinc-800" data-testid="run-report">
          <p>
            Scanned {formatCount(result.trajectories)} trajectories
            {result.missing ? ` (${formatCount(result.missing)} no longer exist)` : ""}:{" "}
            {Object.entries(result.byScanner)
              .map(([key, c]) => `${key} matched ${formatCount(c.fired)}`)
              .join(", ")}
            .
          </p>
          {result.problems.length > 0 && (
            <ul className="mt-1 list-disc pl-5 text-amber-900" data-testid="run-problems">
              {result.problems.slice(0, 20).map((p) => (
                <li key={`${p.scannerKey}-${p.trajectoryId}`}>
                  {p.scannerKey} on trajectory #{p.trajectoryId}: {p.problem}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
