"use client";
/**
 * "Your reports": the shareable reports this person asked for from the trajectory list, a campaign or a run, newest
 * first: whether each is built, how large it is, when its download stops, the download itself, and removing one
 * (its zip goes too). Read again every few seconds while one is still being built.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmButtons, formatDate, ListStates } from "../../_components/ui";
import { useTRPC } from "../../_trpc/client";
import { DenseTable, hidden, right } from "../../_components/table";
import type { MyReport } from "@/server/services/trajectories";

const STATUS_TEXT: Record<string, string> = {
  queued: "waiting for a worker",
  running: "being built",
  succeeded: "ready",
  failed: "failed",
  cancelled: "cancelled",
};

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export function MyReports() {
  const trpc = useTRPC();
  const reports = useQuery({
    ...trpc.reports.mine.queryOptions(),
    refetchInterval: (q) => (q.state.data?.some((r) => r.status === "queued" || r.status === "running") ? 3_000 : false),
  });
  return (
    <section id="reports" className="panel mx-6 my-4 flex flex-col gap-2 px-4 py-3" aria-labelledby="my-reports-title" data-testid="my-reports">
      <h2 id="my-reports-title" className="text-[14px] font-semibold">
        Your reports
      </h2>
      <p className="text-[12.5px] text-zinc-600">
        Shareable reports you built with Download report on the trajectory list, a campaign or a run. Each can be downloaded until it expires; after that its
        zip is removed.
      </p>
      <ListStates
        query={reports}
        cannotRead="Your reports could not be read"
        loading="Loading your reports…"
        empty={
          <p className="text-[12.5px] text-zinc-500" data-testid="my-reports-empty">
            No reports yet: press Download report on the trajectory list, a campaign or a run.
          </p>
        }
      >
        {(rows) => (
          <div className="overflow-x-auto">
            <DenseTable
              columns={["Report", "Status", right("Trajectories"), right("Size"), "Asked for", "Download until", hidden("Actions", "text-left")]}
              cellClassName="text-left"
            >
              {rows.map((r) => (
                <ReportRow key={r.id} report={r} />
              ))}
            </DenseTable>
          </div>
        )}
      </ListStates>
    </section>
  );
}

function ReportRow({ report: r }: { report: MyReport }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation(
    trpc.reports.remove.mutationOptions({ onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.reports.mine.queryKey() }) }),
  );
  const building = r.status === "queued" || r.status === "running";
  return (
    <tr className="[&>td]:align-middle" data-testid="my-report" data-id={r.id}>
      <td>{r.title ?? `Report ${r.id}`}</td>
      <td className={r.status === "failed" ? "text-rose-700" : undefined} title={r.error ?? undefined}>
        {r.expired ? "expired" : (STATUS_TEXT[r.status] ?? r.status)}
        {r.error && <div className="text-[11.5px]">{r.error}</div>}
      </td>
      <td className="text-right tabular-nums">{r.trajectories ?? "—"}</td>
      <td className="text-right tabular-nums">{r.bytes === null ? "—" : megabytes(r.bytes)}</td>
      <td className="whitespace-nowrap">{formatDate(r.createdAt)}</td>
      <td className="whitespace-nowrap">{r.expiresAt ? formatDate(r.expiresAt) : "—"}</td>
      <td className="whitespace-nowrap">
        <span className="flex items-center gap-1.5">
          {r.status === "succeeded" && !r.expired && (
            <a className="btn" href={`/api/reports/${r.id}/download`} download data-testid="my-report-download">
              Download
            </a>
          )}
          {confirming ? (
            <>
              <ConfirmButtons
                question="Remove it and its zip?"
                confirm="Remove"
                onConfirm={() => remove.mutate({ id: r.id })}
                onKeep={() => setConfirming(false)}
                pending={remove.isPending}
                testId="confirm-remove-report"
              />
            </>
          ) : (
            <button
              type="button"
              className="btn"
              disabled={building}
              title={building ? "It can be removed once it is built" : undefined}
              onClick={() => setConfirming(true)}
              aria-label={`Remove ${r.title ?? `report ${r.id}`}`}
              data-testid="remove-report"
            >
              Remove
            </button>
          )}
          {remove.error && (
            <span role="alert" className="text-rose-700">
              {remove.error.message}
            </span>
          )}
        </span>
      </td>
    </tr>
  );
}
