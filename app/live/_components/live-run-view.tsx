"use client";
/**
 * One live run: its progress bar, settings and every task with its own progress, streamed from the server
 * (liveRuns.watch over SSE) into the query cache while the run is going.
 */
import { useMutation, useQueryClient, useSuspenseQuery } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import Link from "next/link";
import { useState } from "react";
import { screenshotUrl } from "@/server/domain/image-variants";
import { OutcomeBadge, PageHeader, formatCount, formatDate } from "../../_components/ui";
import { useTRPC } from "../../_trpc/client";
import { ProgressBar, ProgressPanel, StopButton, WorkCounts } from "../../_components/progress-bar";
import { PolicyBadge, StatusPill, VerdictPill } from "./bits";
import type { LiveRunDetail } from "@/server/services/live/live-runs";
import { DenseTable } from "../../_components/table";

export function LiveRunView({ id }: { id: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { data } = useSuspenseQuery(trpc.liveRuns.byId.queryOptions({ id }));
  const live = data.status === "running" || data.status === "queued";
  const sub = useSubscription(
    trpc.liveRuns.watch.subscriptionOptions(
      { id },
      {
        enabled: live,
        onData: (d) => queryClient.setQueryData(trpc.liveRuns.byId.queryKey({ id }), d),
      },
    ),
  );
  const cancel = useMutation(
    trpc.liveRuns.cancel.mutationOptions({
      onSettled: () => queryClient.invalidateQueries(trpc.liveRuns.byId.queryFilter({ id })),
    }),
  );
  const [cancelling, setCancelling] = useState(false);
  const s = data.settings;
  const done = data.counts.succeeded + data.counts.failed + data.counts.cancelled;

  return (
    <>
      <PageHeader
        crumbs={[{ href: "/live", label: "Live runs" }]}
        title={data.run.name}
        subtitle={
          <span className="flex flex-wrap items-center gap-x-3 gap-y-1">
            <PolicyBadge kind={data.policy.kind} label={data.policy.label} />
            <span>{data.selection}</span>
            <span>started {formatDate(data.run.createdAt)}</span>
            {live && (
              <span className="text-2xs text-zinc-400" title="Updates stream from the server while the run is going">
                {sub.status === "pending" ? "● live" : sub.status === "connecting" ? "connecting…" : sub.status === "error" ? "stream interrupted" : ""}
              </span>
            )}
          </span>
        }
        actions={
          <>
            <Link className="btn" href={`/trajectories?run=${data.run.id}`}>
              Trajectories
            </Link>
            {live && (
              // One click must not end a long run by accident: the button asks first.
              <StopButton
                question="Cancel this run? Tasks still queued or running are stopped; finished ones are kept."
                onStop={() => {
                  setCancelling(true);
                  cancel.mutate({ runId: id }, { onSettled: () => setCancelling(false) });
                }}
                disabled={cancelling}
                testId="cancel-run"
              >
                Cancel run
              </StopButton>
            )}
          </>
        }
      />
      <div className="flex flex-col gap-4 px-6 py-4">
        <ProgressPanel
          label="Run progress"
          status={<StatusPill status={data.status} />}
          counts={<WorkCounts done={`${formatCount(done)} of ${formatCount(data.counts.total)} tasks done`} counts={data.counts} testId="run-counts" />}
          aside={
            <span className="text-[12px] text-zinc-500 tabular-nums">
              {data.answered} answered · {data.steps} steps recorded
            </span>
          }
        >
          <ProgressBar value={data.progress} label="Run progress" testId="run-progress" />
          {(data.successRate.n > 0 || data.successRate.infraErrors > 0 || data.successRate.blocked > 0) && (
            <p className="mt-2 text-[12px] text-zinc-700 tabular-nums" data-testid="run-success-rate">
              Rules (live page): <strong>{data.successRate.successes}</strong> of {data.successRate.n} succeeded
              {data.successRate.n > 0 && ` (${Math.round((100 * data.successRate.successes) / data.successRate.n)}%)`}
              <span className="text-zinc-500">
                {" "}
                · not counted: {data.successRate.infraErrors} infrastructure error{data.successRate.infraErrors === 1 ? "" : "s"}, {data.successRate.blocked}{" "}
                blocked
              </span>
            </p>
          )}
          {data.counts.queued > 0 && data.counts.running === 0 && (
            <p className="mt-2 text-2xs text-amber-700">
              Tasks are queued but none is running: is a worker up? Start one with <code className="font-mono">npm run worker</code>.
            </p>
          )}
          {s && (
            <dl className="mt-3 grid grid-cols-2 gap-x-6 gap-y-1 text-[12px] sm:grid-cols-3 lg:grid-cols-6">
              <Setting label="Deployment" value={data.deployment ? data.deployment.name : "none"} />
              <Setting label="Step limit" value={`${s.maxSteps} unless the task file sets one`} />
              <Setting label="Concurrency" value={s.concurrency} />
              <Setting
                label="Step / run timeout"
                value={`${Math.round(s.stepTimeoutMs / 1000)} s / ${Math.round(s.runTimeoutMs / 60000)} min (or the task file's)`}
              />
              <Setting label="May reach" value={reachText(s, data.deployment)} testId="run-reach" />
              <Setting label="Private network" value={privateNetworkText(s, data.deployment)} />
              <Setting
                label="Blocked texts · downloads"
                value={`${s.blockedTexts.length ? s.blockedTexts.join(", ") : "none"} · ${s.allowDownloads ? "on" : "off"}`}
              />
            </dl>
          )}
        </ProgressPanel>

        <section className="panel overflow-x-auto" aria-label="Tasks">
          <DenseTable columns={[{ label: "Now", className: "w-28" }, "Task", { label: "Progress", className: "w-56" }, "Outcome", ""]} testId="live-tasks">
            {data.tasks.map((t) => (
              <TaskRow key={t.jobId} runId={id} task={t} onCancel={() => cancel.mutate({ runId: id, taskId: t.taskId })} />
            ))}
          </DenseTable>
        </section>
      </div>
    </>
  );
}

function Setting({ label, value, testId }: { label: string; value: string | number; testId?: string }) {
  return (
    <div className="min-w-0">
      <dt className="section-title">{label}</dt>
      <dd className="line-clamp-2 break-words text-zinc-800" title={String(value)} data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}

type RunSettings = NonNullable<LiveRunDetail["settings"]>;
type RunDeployment = LiveRunDetail["deployment"];

/**
 * Where the run's browser may go, as the runner enforces it: the hosts listed for the run, else on a profile run the
 * profile's sites (and nothing else), else each task's start host.
 */
function reachText(s: RunSettings, deployment: RunDeployment): string {
  if (s.allowedHosts.length) return `only ${s.allowedHosts.join(", ")}`;
  if (deployment) return `only the sites of profile “${deployment.name}”: ${deployment.hosts.join(", ")}`;
  return "each task's start host (and its subdomains)";
}

function privateNetworkText(s: RunSettings, deployment: RunDeployment): string {
  // Runs started before private networks became the admins' to open say so; their settings keep the switch.
  const opened =
    (s as RunSettings & { allowPrivateNetwork?: boolean }).allowPrivateNetwork === true
      ? " (this run was started with the private network open, a setting that no longer exists)"
      : "";
  if (deployment) return `only the profile's ${deployment.destinations.join(", ")}; other private addresses refused${opened}`;
  return `refused, except the demo sites and the destinations an admin allowed${opened}`;
}

/** Watch (or replay) and cancel one task, each named with the task it acts on (screen readers list many of them). */
/** One task of the run: its latest screenshot, intent, status and step count with its own progress bar, outcome. */
function TaskRow({ runId, task: t, onCancel }: { runId: number; task: LiveRunDetail["tasks"][number]; onCancel: () => void }) {
  return (
    <tr data-testid={`task-${t.externalId}`}>
      <td>
        {t.lastScreenshot ? (
          <img
            src={screenshotUrl(t.lastScreenshot, { width: 240, format: "webp" })}
            alt={`Latest screenshot of ${t.externalId}`}
            className="h-[60px] w-[80px] rounded border border-zinc-200 object-cover object-top"
          />
        ) : (
          <div className="grid h-[60px] w-[80px] place-items-center rounded border border-dashed border-zinc-200 text-2xs text-zinc-400">
            {t.jobStatus === "queued" ? "queued" : "–"}
          </div>
        )}
      </td>
      <td className="max-w-md">
        <div className="font-mono text-[12px] font-medium text-zinc-900">{t.externalId}</div>
        <div className="line-clamp-2 text-zinc-600">{t.intent}</div>
      </td>
      <td>
        <div className="mb-1 flex items-center justify-between gap-2">
          <StatusPill status={t.jobStatus} title={t.jobError ?? undefined} />
          <span className="text-2xs text-zinc-500 tabular-nums" data-testid="task-steps">
            step {t.steps} / {t.maxSteps}
            {t.attempts > 1 && ` · attempt ${t.attempts}`}
          </span>
        </div>
        <ProgressBar
          value={t.progress}
          label={`${t.externalId} progress`}
          size="sm"
          tone={
            t.outcome === "answered"
              ? "zinc"
              : t.outcome === "error"
                ? "rose"
                : t.outcome === "step_limit" || t.outcome === "time_limit" || t.outcome === "blocked"
                  ? "amber"
                  : t.outcome === "infra_error"
                    ? "zinc"
                    : t.finished
                      ? "zinc"
                      : "indigo"
          }
        />
      </td>
      <td className="max-w-sm">
        <div className="flex flex-wrap items-center gap-1">
          {t.outcome && <OutcomeBadge outcome={t.outcome} />}
          {t.verdict && <VerdictPill {...t.verdict} />}
        </div>
        {t.finalAnswer && <div className="mt-0.5 text-[12px] text-zinc-800">“{t.finalAnswer}”</div>}
        {(t.outcomeDetail || (t.jobStatus === "failed" && t.jobError)) && (
          <div className="mt-0.5 text-2xs break-words text-zinc-500">{t.outcomeDetail ?? t.jobError}</div>
        )}
      </td>
      <TaskActions runId={runId} task={t} onCancel={onCancel} />
    </tr>
  );
}

function TaskActions({
  runId,
  task: t,
  onCancel,
}: {
  runId: number;
  task: { trajectoryId: number | null; finished: boolean; externalId: string };
  onCancel: () => void;
}) {
  return (
    <td className="text-right whitespace-nowrap">
      {t.trajectoryId && (
        <Link className="btn" href={`/live/${runId}/${t.trajectoryId}`} data-testid="watch" aria-label={`${t.finished ? "Replay" : "Watch"} ${t.externalId}`}>
          {t.finished ? "Replay" : "Watch"}
        </Link>
      )}
      {!t.finished && (
        <button type="button" className="btn ml-1.5" title="Cancel this task" aria-label={`Cancel ${t.externalId}`} onClick={onCancel}>
          Cancel
        </button>
      )}
    </td>
  );
}
