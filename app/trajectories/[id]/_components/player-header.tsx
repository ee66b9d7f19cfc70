"use client";
/**
 * The player's header: the way back, the task and trajectory, task set, run and model (hidden from an annotator
 * labelling blind), then the trajectory's actions (ATIF download, copy link, flag the task, mark gold) and the
 * comments and evaluations toggles, its outcome and length.
 */
import Link from "next/link";
import { memo } from "react";
import { OutcomeBadge } from "../../../_components/ui";
import type { PlayerComments } from "./comments-panel";
import { CopyStepLink } from "./copy-step-link";
import { useGoldDialog, type GoldAccess } from "./gold-dialog";
import type { BackLink, PlayerData } from "./player";
import { Toggle } from "./step-controls";
import { useTaskFlagDialog } from "./task-flag-dialog";

export const PlayerHeader = memo(function PlayerHeader({
  data,
  back,
  showEvaluations,
  onToggleEvaluations,
  download,
  stepLink,
  gold: goldAccess,
  current,
  comments,
}: {
  data: PlayerData;
  back?: BackLink;
  showEvaluations: boolean;
  onToggleEvaluations: () => void;
  download?: string;
  /** The stable link to the step on screen (a trajectory's /t/… link, a labelling item's address). */
  stepLink?: string;
  gold?: GoldAccess;
  /** The 0-based step on screen (where a gold failure point starts). */
  current: number;
  /** The comments toggle: whether the panel shows, the count of open threads. */
  comments?: PlayerComments;
}) {
  const { trajectory: t, task, run, taskSet } = data;
  const gold = useGoldDialog(goldAccess, t.id, current);
  // Whoever may mark gold (researchers on a trajectory page) may flag its task too.
  const flagTask = useTaskFlagDialog(goldAccess !== undefined && !data.agentHidden && t.id !== 0, task.id);
  return (
    <div className="flex h-10 shrink-0 items-center gap-3 border-b border-zinc-200 bg-white px-4 text-[12px]">
      {/* On a narrow screen the way back gives up its width first (it shrinks a hundred times faster), then the task's
          id is cut at its end; nothing is drawn over anything, and the header never pushes the page sideways. */}
      <Link
        href={back?.href ?? "/trajectories"}
        className="max-w-64 min-w-12 shrink-[100] truncate text-zinc-500 hover:text-zinc-800"
        data-testid="player-back"
      >
        ← {back?.label ?? "Trajectories"}
      </Link>
      <span className="text-zinc-300">/</span>
      <h1 className="flex min-w-0 items-baseline gap-2">
        <span className="min-w-0 truncate font-mono text-[13px] font-semibold text-zinc-900" title={task.externalId}>
          {task.externalId}
        </span>
        {/* A blind item has no trajectory id to show (annotators know it by its item number). */}
        {!data.agentHidden && <span className="shrink-0 text-zinc-400">#{t.id}</span>}
        {t.attempt > 0 && <span className="shrink-0 text-zinc-500">attempt {t.attempt + 1}</span>}
      </h1>
      <div className="flex min-w-0 flex-1 items-center gap-2 truncate text-zinc-500">
        {data.agentHidden ? (
          <span className="truncate">{taskSet.name}</span>
        ) : (
          <Link className="truncate hover:text-zinc-800 hover:underline" href={`/task-sets/${taskSet.id}`}>
            {taskSet.name}
          </Link>
        )}
        <span>·</span>
        {data.agentHidden ? (
          <span
            className="truncate text-zinc-400 italic"
            title="Which agent made this trajectory is hidden until you have labelled it"
            data-testid="agent-hidden"
          >
            {run.name}
          </span>
        ) : (
          <Link className="truncate hover:text-zinc-800 hover:underline" href={`/runs/${run.id}`} title={run.name}>
            {run.name}
          </Link>
        )}
        {run.model && (
          <>
            <span>·</span>
            <span className="truncate font-mono">{run.model}</span>
          </>
        )}
      </div>
      <div className="ml-auto flex shrink-0 items-center gap-2">
        {download && !data.agentHidden && (
          <a
            href={download}
            download
            className="rounded px-1.5 py-0.5 text-zinc-500 ring-1 ring-zinc-200 ring-inset hover:bg-zinc-50 hover:text-zinc-800"
            title="Download this trajectory as ATIF (Agent Trajectory Interchange Format): a zip with the JSON and its screenshots"
            data-testid="download-atif"
          >
            ATIF ↓
          </a>
        )}
        {stepLink && <CopyStepLink path={stepLink} />}
        {flagTask.dialog}
        {flagTask.button}
        {gold.dialog}
        {gold.open && (
          <button
            type="button"
            className="rounded px-1.5 py-0.5 text-zinc-500 ring-1 ring-zinc-200 ring-inset hover:bg-zinc-50 hover:text-zinc-800"
            onClick={gold.open}
            title="Mark this trajectory as gold (its known answer) in a campaign"
            data-testid="mark-gold"
          >
            Gold…
          </button>
        )}
        {comments && (
          <Toggle on={comments.show} onClick={comments.toggle} title="Comments: threads on this trajectory and its steps (c)" testId="toggle-comments">
            Comments
            {comments.state.open > 0 && (
              <span className="rounded-full bg-sky-600 px-1.5 text-2xs leading-4 font-semibold text-white tabular-nums" data-testid="comments-badge">
                {comments.state.open}
              </span>
            )}
          </Toggle>
        )}
        <Toggle on={showEvaluations} onClick={onToggleEvaluations} title="Evaluations: verdicts and labels beside the step (e)" testId="toggle-evaluations">
          Evaluations
        </Toggle>
        <OutcomeAndLength trajectory={t} />
      </div>
    </div>
  );
});

/** How the trajectory ended (the detail on hover) and how many steps it has: the player's header, a compare column's. */
export function OutcomeAndLength({
  trajectory: t,
  lengthClass = "",
}: {
  trajectory: { outcome: string; outcomeDetail: string | null; stepCount: number };
  lengthClass?: string;
}) {
  return (
    <>
      <span title={t.outcomeDetail ?? undefined}>
        <OutcomeBadge outcome={t.outcome} />
      </span>
      <span className={`text-zinc-500 tabular-nums ${lengthClass}`}>
        {t.stepCount} step{t.stepCount === 1 ? "" : "s"}
      </span>
    </>
  );
}
