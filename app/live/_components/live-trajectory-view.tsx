"use client";
/**
 * A live trajectory in the player: steps stream in over SSE (liveRuns.watchTrajectory) as the runner records them.
 * While "Follow" is on, the player jumps to each new step; turning it off keeps the step being looked at while new
 * ones keep arriving in the filmstrip. Once the run ends it is an ordinary trajectory: play it back, or open it in the
 * player to label it.
 */
import { useMutation, useQueryClient, useSuspenseQuery } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import Link from "next/link";
import { useCallback, useState } from "react";
import { OutcomeBadge } from "../../_components/ui";
import { useTRPC } from "../../_trpc/client";
import { PlayerView } from "../../trajectories/[id]/_components/player";
import { ProgressBar } from "../../_components/progress-bar";
import { PolicyBadge } from "./bits";

export function LiveTrajectoryView({ runId, trajectoryId }: { runId: number; trajectoryId: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { data } = useSuspenseQuery(trpc.trajectories.byId.queryOptions({ id: trajectoryId }));
  const { data: run } = useSuspenseQuery(trpc.liveRuns.byId.queryOptions({ id: runId }));
  const running = data.trajectory.outcome === "running";
  const [follow, setFollow] = useState(true);
  // Ended while followed: the player stays on the last step rather than starting over at step 1.
  const [endedWhileFollowing, setEndedWhileFollowing] = useState(false);
  const [wasRunning, setWasRunning] = useState(running);
  if (wasRunning !== running) {
    setWasRunning(running);
    if (!running && follow) setEndedWhileFollowing(true);
  }
  const sub = useSubscription(
    trpc.liveRuns.watchTrajectory.subscriptionOptions(
      { id: trajectoryId },
      {
        enabled: running,
        onData: (d) => {
          queryClient.setQueryData(trpc.trajectories.byId.queryKey({ id: trajectoryId }), d);
          if (d.trajectory.outcome !== "running") void queryClient.invalidateQueries(trpc.liveRuns.byId.queryFilter({ id: runId }));
        },
      },
    ),
  );
  // Past the first window (long runs) the player fetches further steps like any trajectory's.
  const loadWindow = useCallback(
    (from: number) => queryClient.fetchQuery(trpc.trajectories.steps.queryOptions({ id: trajectoryId, from })),
    [queryClient, trpc, trajectoryId],
  );
  const cancel = useMutation(trpc.liveRuns.cancel.mutationOptions());
  const task = run.tasks.find((t) => t.trajectoryId === trajectoryId);
  const maxSteps = task?.maxSteps ?? run.settings?.maxSteps ?? 15;
  const n = data.stepCount;

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="flex min-h-10 shrink-0 flex-wrap items-center gap-3 border-b border-zinc-200 bg-white px-4 py-1.5 text-[12px]" data-testid="live-bar">
        <Link href={`/live/${runId}`} className="shrink-0 text-zinc-500 hover:text-zinc-800">
          ← {run.run.name}
        </Link>
        <PolicyBadge kind={run.policy.kind} label={run.policy.label} />
        <div className="flex min-w-48 flex-1 items-center gap-2">
          <ProgressBar
            value={running ? Math.min(0.99, n / maxSteps) : 1}
            label="Trajectory progress"
            size="sm"
            tone={running ? "indigo" : data.trajectory.outcome === "answered" ? "zinc" : data.trajectory.outcome === "error" ? "rose" : "amber"}
            testId="trajectory-progress"
          />
          <span className="shrink-0 text-zinc-600 tabular-nums" data-testid="live-step-count">
            {n} / {maxSteps} steps
          </span>
        </div>
        {running ? (
          <>
            <span className="flex items-center gap-1 text-sky-700" data-testid="live-indicator">
              <span aria-hidden className="size-1.5 animate-pulse rounded-full bg-sky-500" />
              {sub.status === "connecting" ? "connecting…" : "recording"}
            </span>
            <label className="flex items-center gap-1 text-zinc-600">
              <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow
            </label>
            <button
              type="button"
              className="btn border-rose-300 text-rose-700 hover:bg-rose-50"
              data-testid="cancel-task"
              disabled={cancel.isPending || !task}
              onClick={() => task && cancel.mutate({ runId, taskId: task.taskId })}
            >
              Stop
            </button>
          </>
        ) : (
          <>
            <OutcomeBadge outcome={data.trajectory.outcome} />
            {data.trajectory.outcomeDetail && (
              <span className="max-w-96 truncate text-zinc-500" title={data.trajectory.outcomeDetail}>
                {data.trajectory.outcomeDetail}
              </span>
            )}
            {/* Labelling happens in campaigns; this opens the same trajectory in the full player. */}
            <Link className="btn btn-on" href={`/trajectories/${trajectoryId}`} data-testid="open-player">
              Open in player
            </Link>
          </>
        )}
      </div>
      {n === 0 ? (
        <div className="grid flex-1 place-items-center p-8 text-zinc-500" data-testid="waiting">
          {running ? "Waiting for the first step…" : "This run recorded no steps."}
        </div>
      ) : (
        // The player fills the viewport below the top bar; this bar takes the 2.5rem more.
        <div className="flex min-h-0 flex-1 flex-col lg:[&>div]:h-[calc(100dvh-5.5rem)]">
          <PlayerView
            key={running && follow ? `live-${n}` : endedWhileFollowing ? "ended" : "still"}
            data={data}
            initialStep={(running && follow) || endedWhileFollowing ? n : 1}
            loadWindow={loadWindow}
          />
        </div>
      )}
    </div>
  );
}
