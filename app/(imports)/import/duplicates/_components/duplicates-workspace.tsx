"use client";
/**
 * The duplicates page: what a merge would do (worked out by a worker and rolled back), each group of copies with
 * the one kept, those merged into it and those left with why, and the button that merges (another worker job);
 * afterwards the same table says what was done. Both read every imported trajectory, so neither runs in the web
 * request: the page queues them and polls.
 */
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { useEffect, useRef } from "react";
import type { AppRouter } from "@/server/api/root";
import { useTRPC } from "../../../../_trpc/client";
import { formatCount, PanelSection, Stat } from "../../../../_components/ui";
import { WaitingForWorker } from "../../../../_components/waiting-for-worker";
import { useRequestedJob } from "../../../../_lib/use-requested-job";
import { DenseTable } from "../../../../_components/table";

type Report = NonNullable<inferRouterOutputs<AppRouter>["imports"]["dedupeJob"]["result"]>;

/** A dry run or a merge as a worker job: started by `start`, polled until it has ended. */
function useDedupeJob() {
  const trpc = useTRPC();
  const job = useRequestedJob(trpc.imports.dedupe.mutationOptions(), (id) => trpc.imports.dedupeJob.queryOptions({ id }));
  return { ...job, report: job.result };
}

const plural = (n: number, one: string, many: string) => `${formatCount(n)} ${n === 1 ? one : many}`;

function GroupsTable({ report }: { report: Report }) {
  const rows = report.groups.flatMap((g) => [
    { role: "keep", copy: g.kept, reasons: [] as string[] },
    ...g.merged.map((m) => ({ role: report.dryRun ? "merge" : "merged", copy: m, reasons: [] as string[] })),
    ...g.left.map((l) => ({ role: "left", copy: l, reasons: l.reasons })),
  ]);
  return (
    <div className="overflow-x-auto">
      <DenseTable columns={["Action", "Trajectory", "Run", "Source", "Why left"]} cellClassName="text-left" testId="duplicate-groups">
        {rows.map((r) => (
          <tr key={`${r.role}-${r.copy.id}`} className={r.role === "keep" ? "border-t border-zinc-200" : ""}>
            <td className={r.role === "left" ? "font-medium text-amber-800" : r.role === "keep" ? "font-medium" : "text-zinc-600"}>{r.role}</td>
            <td>
              {r.role === "merged" ? (
                <span className="font-mono text-zinc-500">#{r.copy.id}</span>
              ) : (
                <Link className="link font-mono" href={`/trajectories/${r.copy.id}`}>
                  #{r.copy.id}
                </Link>
              )}
            </td>
            <td className="break-words">
              {r.copy.run} <span className="text-zinc-500">(run {r.copy.runId})</span>
            </td>
            <td className="font-mono break-all">{r.copy.source ?? "—"}</td>
            <td className="break-words text-amber-900">{r.reasons.join("; ")}</td>
          </tr>
        ))}
      </DenseTable>
    </div>
  );
}

function Summary({ report }: { report: Report }) {
  const would = report.dryRun ? "would move" : "moved";
  return (
    <div className="flex flex-col gap-2">
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-4">
        <Stat label="Stored more than once" value={formatCount(report.groups.length)} />
        <Stat label={report.dryRun ? "Copies to merge" : "Copies merged"} value={formatCount(report.merged)} />
        <Stat label="Copies left" value={formatCount(report.left)} hint="their labels or verdicts clash; see why below" />
        <Stat label={report.dryRun ? "Runs to remove" : "Runs removed"} value={formatCount(report.runsRemoved)} hint="runs that held only copies" />
      </div>
      <p className="text-[12.5px] text-zinc-700">
        The merge {would} {plural(report.moved.labels, "label", "labels")} ({plural(report.moved.items, "campaign item", "campaign items")} moved,{" "}
        {plural(report.moved.itemsFolded, "item", "items")} folded into the kept trajectory&apos;s item of the same campaign, whose consolidated label is worked
        out again) and {plural(report.moved.verdicts, "verdict", "verdicts")} to the kept trajectories;{" "}
        {plural(report.moved.verdictsSame, "verdict", "verdicts")} the kept trajectory already had {report.dryRun ? "would be" : "were"} dropped as the same.
      </p>
    </div>
  );
}

export function DuplicatesWorkspace() {
  const plan = useDedupeJob();
  const merge = useDedupeJob();
  const asked = useRef(false);
  const startPlan = plan.start.mutate;
  useEffect(() => {
    // Once per visit (React runs effects twice in development).
    if (asked.current) return;
    asked.current = true;
    startPlan({ dryRun: true });
  }, [startPlan]);

  const done = merge.report;
  const report = done ?? plan.report;
  const failure = merge.failure ?? plan.failure;
  if (!report) {
    const queuedSince = plan.queuedSince ?? merge.queuedSince;
    return (
      <section className="panel px-4 py-3" data-testid="duplicates" aria-busy={!failure}>
        {failure ? (
          <p role="alert" className="text-[12.5px] text-rose-700">
            {failure}
          </p>
        ) : (
          <p role="status" className="text-[13px] text-zinc-700">
            Working out what a merge would do: every imported trajectory is compared by its content…
          </p>
        )}
        {queuedSince && <WaitingForWorker since={queuedSince} what="this comparison" />}
      </section>
    );
  }
  if (!report.groups.length && !done) {
    return (
      <section className="panel px-4 py-3" data-testid="duplicates">
        <p className="text-[13px] text-zinc-700">
          No trajectory is stored twice. Imports recognise trajectories by their content, so new imports do not make copies.
        </p>
      </section>
    );
  }
  return (
    <PanelSection title={done ? "Merged" : "What a merge would do"} testId="duplicates">
      <Summary report={report} />
      <div className="flex flex-wrap items-center gap-3">
        {!done && (
          <button type="button" className="btn btn-on" disabled={merge.working || report.merged === 0} onClick={() => merge.start.mutate({ dryRun: false })}>
            {merge.working ? "Merging…" : `Merge ${plural(report.merged, "copy", "copies")}`}
          </button>
        )}
        {failure && (
          <p role="alert" className="text-[12.5px] text-rose-700">
            {failure}
          </p>
        )}
        {report.left > 0 && (
          <p className="text-[12px] text-zinc-600">
            Copies left keep their labels and verdicts. Settle the clash named (withdraw a label, adjudicate) and merge again.
          </p>
        )}
      </div>
      {merge.queuedSince && <WaitingForWorker since={merge.queuedSince} what="the merge" />}
      <GroupsTable report={report} />
    </PanelSection>
  );
}
