"use client";
/**
 * "Download report" (researchers and admins): a shareable read-only report of the trajectories the list's filters
 * (or saved search, or a run) select, built by a worker as a zip that opens from the file system in any browser
 * (docs/guide/reports.md). The dialog offers the command line's choices (which labels and judges' verdicts to
 * publish, annotators' names withheld unless asked), shows the job's progress and its error in words, then the
 * download link. Opened from the button or with the keyboard like any button; Escape closes it.
 */
import type { inferRouterInputs } from "@trpc/server";
import { useState } from "react";
import type { AppRouter } from "@/server/api/root";
import { useRequestedJob } from "../_lib/use-requested-job";
import { useTRPC } from "../_trpc/client";
import { Dialog } from "./dialog";
import { ProgressBar } from "./progress-bar";
import { WaitingForWorker } from "./waiting-for-worker";

type ReportChoices = inferRouterInputs<AppRouter>["reports"]["start"];
type Selection = NonNullable<ReportChoices["selection"]>;
type Labels = NonNullable<ReportChoices["labels"]>;
interface Progress {
  phase: "reading" | "writing";
  done: number;
  total: number;
}

export interface ReportEvaluator {
  ref: string;
  label: string;
}

/**
 * The header's button and, once pressed, the dialog. The selection is the list's filters (a run page passes its
 * run); a campaign page passes its campaign instead, whose trajectories the server reads.
 */
export function ReportButton(props: { selection: Selection; campaignId?: number; described: string; evaluators: ReportEvaluator[]; title: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className="btn"
        onClick={() => setOpen(true)}
        title="A read-only report of these trajectories that opens without a server"
        data-testid="download-report"
      >
        Download report
      </button>
      {open && <ReportDialog {...props} onClose={() => setOpen(false)} />}
    </>
  );
}

const LABEL_CHOICES: { value: Labels; text: string }[] = [
  { value: "consolidated", text: "Each campaign's consolidated label" },
  { value: "all", text: "Consolidated and every annotator's label" },
  { value: "none", text: "No human labels" },
];

function ReportDialog({
  selection,
  campaignId,
  described,
  evaluators,
  title: defaultTitle,
  onClose,
}: Parameters<typeof ReportButton>[0] & { onClose: () => void }) {
  const trpc = useTRPC();
  const job = useRequestedJob(trpc.reports.start.mutationOptions(), (id) => trpc.reports.job.queryOptions({ id }));
  const [title, setTitle] = useState(defaultTitle);
  const [labels, setLabels] = useState<Labels>("consolidated");
  const [judges, setJudges] = useState<Set<string>>(() => new Set(evaluators.map((e) => e.ref)));
  const [names, setNames] = useState(false);
  const [agreement, setAgreement] = useState(true);
  const allJudges = judges.size === evaluators.length;
  const start = () =>
    job.start.mutate({
      selection,
      campaignId,
      labels,
      judges: allJudges ? "all" : [...judges],
      annotatorNames: names,
      agreement,
      title: title.trim() || undefined,
    });
  const toggle = (r: string) =>
    setJudges((s) => {
      const next = new Set(s);
      if (!next.delete(r)) next.add(r);
      return next;
    });
  const started = job.status !== null || job.start.isPending;
  return (
    <Dialog title="Shareable report" width="md" testId="report-dialog" onClose={onClose} onSubmit={start} bodyClassName="text-[12.5px]">
      <p className="text-zinc-600">
        A zip of static pages for {described}: a player for each trajectory and the evaluations you publish. It opens from the file system in any browser, with
        no server and no account.
      </p>
      <fieldset disabled={started} className="flex flex-col gap-3">
        <label className="flex flex-col gap-1 font-medium text-zinc-700">
          Title
          <input className="field h-8 font-normal" value={title} maxLength={200} onChange={(e) => setTitle(e.target.value)} data-testid="report-title" />
        </label>
        <fieldset className="flex flex-col gap-1">
          <legend className="mb-1 font-medium text-zinc-700">Human labels</legend>
          {LABEL_CHOICES.map((c) => (
            <label key={c.value} className="flex items-center gap-2">
              <input type="radio" name="report-labels" value={c.value} checked={labels === c.value} onChange={() => setLabels(c.value)} />
              {c.text}
            </label>
          ))}
        </fieldset>
        {evaluators.length > 0 && (
          <fieldset className="flex flex-col gap-1">
            <legend className="mb-1 font-medium text-zinc-700">Verdicts published</legend>
            <div className="flex max-h-32 flex-col gap-1 overflow-auto">
              {evaluators.map((e) => (
                <label key={e.ref} className="flex items-center gap-2">
                  <input type="checkbox" checked={judges.has(e.ref)} onChange={() => toggle(e.ref)} />
                  {e.label}
                </label>
              ))}
            </div>
          </fieldset>
        )}
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={agreement} onChange={(e) => setAgreement(e.target.checked)} />
          The agreement table of the published judges with the human labels
        </label>
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={names} onChange={(e) => setNames(e.target.checked)} data-testid="report-names" />
          Publish annotators&apos; names (otherwise they read &ldquo;annotator 1&rdquo;, &ldquo;annotator 2&rdquo;…)
        </label>
      </fieldset>
      <ReportJobState
        jobId={job.start.data?.jobId ?? null}
        pending={job.start.isPending}
        status={job.status}
        failure={job.failure}
        result={job.result as ReportResult | null}
        progress={job.progress as Progress | null}
        queuedSince={job.queuedSince as string | Date | null}
      />
      {!started && (
        <div>
          <button type="submit" className="btn btn-on" data-testid="report-start">
            Build the report
          </button>
        </div>
      )}
    </Dialog>
  );
}

interface ReportResult {
  bytes: number;
  manifest: { counts: { trajectories: number; steps: number } };
}

function ReportJobState(job: {
  jobId: number | null;
  pending: boolean;
  status: string | null;
  failure: string | null;
  result: ReportResult | null;
  progress: Progress | null;
  queuedSince: string | Date | null;
}) {
  if (job.failure)
    return (
      <p className="text-rose-700" role="alert" data-testid="report-error">
        The report could not be built: {job.failure}
      </p>
    );
  if (job.status === "succeeded" && job.jobId !== null && job.result) {
    const result = job.result;
    return (
      <div className="flex flex-wrap items-center gap-3" role="status">
        <a className="btn btn-on" href={`/api/reports/${job.jobId}/download`} download data-testid="report-download">
          Download the zip
        </a>
        <span className="text-zinc-600">
          {result.manifest.counts.trajectories} trajectories, {result.manifest.counts.steps} steps, {(result.bytes / (1024 * 1024)).toFixed(1)} MB
        </span>
        <a className="link" href="/account#reports">
          Your reports
        </a>
      </div>
    );
  }
  if (job.status === null && !job.pending) return null;
  const p = job.progress;
  const fraction = p && p.total > 0 ? p.done / p.total : null;
  const label = !p ? "Waiting for a worker…" : p.phase === "reading" ? `Reading trajectories: ${p.done} of ${p.total}` : "Writing the zip…";
  return (
    <div>
      <ProgressBar value={fraction} label={label} testId="report-progress" />
      <p className="mt-1 text-zinc-600">{label}</p>
      {job.queuedSince && <WaitingForWorker since={new Date(job.queuedSince)} what="the report" />}
    </div>
  );
}
