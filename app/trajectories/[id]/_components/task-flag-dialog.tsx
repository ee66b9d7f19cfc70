"use client";
/**
 * "Flag task" from the player (researchers and admins): mark the trajectory's task broken, outdated, ambiguous or
 * with a wrong reference, or clear it, with a reason and an evidence link; every earlier revision is listed with
 * who wrote it and when. Analytics leave the flagged task's trajectories out of every figure. Opened from the
 * player's header, or by `?flag=1` (the trajectory list's "Flag task…").
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter, useSearchParams } from "next/navigation";
import { useCallback, useState, type ReactNode } from "react";
import { TASK_FLAG_LABELS, TASK_FLAG_STATUSES, type TaskFlagStatus } from "@/server/domain/catalog/task-flag-statuses";
import { Dialog } from "../../../_components/dialog";
import { useTRPC } from "../../../_trpc/client";

/** The header's flag button (absent for viewers who may not flag) and its dialog. */
export function useTaskFlagDialog(allowed: boolean, taskId: number): { button: ReactNode; dialog: ReactNode } {
  const asked = useSearchParams().get("flag") === "1";
  const [shown, setShown] = useState(allowed && asked);
  const open = useCallback(() => setShown(true), []);
  const trpc = useTRPC();
  const validity = useQuery({ ...trpc.tasks.validity.queryOptions({ id: taskId }), enabled: allowed });
  if (!allowed) return { button: null, dialog: null };
  const current = validity.data?.current;
  const flagged = current && current.status !== "valid" ? (current.status as TaskFlagStatus) : null;
  return {
    button: (
      <button
        type="button"
        className={`rounded px-1.5 py-0.5 ring-1 ring-inset ${flagged ? "bg-amber-50 text-amber-800 ring-amber-300 hover:bg-amber-100" : "text-zinc-500 ring-zinc-200 hover:bg-zinc-50 hover:text-zinc-800"}`}
        onClick={open}
        title={
          flagged
            ? `This task is flagged ${TASK_FLAG_LABELS[flagged].toLowerCase()}: ${current!.reason}`
            : "Flag this task as broken, outdated, ambiguous or with a wrong reference"
        }
        data-testid="flag-task"
      >
        {flagged ? `Flagged: ${TASK_FLAG_LABELS[flagged].toLowerCase()}` : "Flag task…"}
      </button>
    ),
    dialog: shown ? <TaskFlagDialog taskId={taskId} onClose={() => setShown(false)} onSaved={() => void validity.refetch()} /> : null,
  };
}

function TaskFlagDialog({ taskId, onClose, onSaved }: { taskId: number; onClose: () => void; onSaved: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const validity = useQuery(trpc.tasks.validity.queryOptions({ id: taskId }));
  const flag = useMutation(trpc.tasks.flag.mutationOptions());
  const current = validity.data?.current;
  const [status, setStatus] = useState<TaskFlagStatus>("broken");
  const [reason, setReason] = useState("");
  const [evidence, setEvidence] = useState("");
  const save = () =>
    flag.mutate(
      { taskId, status, reason, evidenceUrl: evidence.trim() || undefined },
      {
        onSuccess: () => {
          setReason("");
          setEvidence("");
          void validity.refetch();
          onSaved();
          router.refresh();
        },
      },
    );
  return (
    <Dialog title="Task validity" width="lg" testId="flag-dialog" onClose={onClose} onSubmit={save}>
      <p className="text-[12px] text-zinc-600" data-testid="flag-current">
        {!current
          ? "Not flagged. A flagged task's trajectories are left out of every success rate, κ and chart (a toggle on each analytics view counts them again)."
          : current.status === "valid"
            ? "Not flagged now: the last revision cleared the flag."
            : `Flagged ${TASK_FLAG_LABELS[current.status as TaskFlagStatus].toLowerCase()}: its trajectories are left out of analytics.`}
      </p>
      <div className="grid grid-cols-[auto_1fr] items-center gap-x-3 gap-y-2 text-[12px]">
        <label htmlFor="flag-status" className="font-medium text-zinc-700">
          Status
        </label>
        <select id="flag-status" className="field h-8" value={status} onChange={(e) => setStatus(e.target.value as TaskFlagStatus)}>
          {TASK_FLAG_STATUSES.map((s) => (
            <option key={s} value={s}>
              {TASK_FLAG_LABELS[s]}
            </option>
          ))}
        </select>
        <label htmlFor="flag-reason" className="self-start pt-1 font-medium text-zinc-700">
          Reason
        </label>
        <textarea
          id="flag-reason"
          className="field min-h-16 py-1"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          placeholder="What is wrong with the task (e.g. the product page no longer exists)"
          required
        />
        <label htmlFor="flag-evidence" className="font-medium text-zinc-700">
          Evidence
        </label>
        <input
          id="flag-evidence"
          className="field h-8"
          type="url"
          value={evidence}
          onChange={(e) => setEvidence(e.target.value)}
          placeholder="https://… (an issue, a screenshot, a trajectory)"
        />
      </div>
      {flag.isError && (
        <p className="text-[12px] text-rose-700" role="alert">
          {flag.error.message}
        </p>
      )}
      <div className="flex items-center gap-2">
        <button type="submit" className="btn btn-on" disabled={flag.isPending || !reason.trim()} data-testid="flag-save">
          {status === "valid" ? "Clear the flag" : "Save flag"}
        </button>
        {flag.isSuccess && <span className="text-2xs text-emerald-700">Saved: analytics are recomputed with it.</span>}
      </div>
      <History revisions={validity.data?.history ?? []} />
    </Dialog>
  );
}

function History({
  revisions,
}: {
  revisions: { id: number; status: string; reason: string; evidenceUrl: string | null; userName: string; createdAt: Date }[];
}) {
  if (!revisions.length) return null;
  return (
    <div className="border-t border-zinc-100 pt-2">
      <h3 className="section-title mb-1">History</h3>
      <ol className="flex max-h-48 flex-col gap-1 overflow-auto text-[12px]" data-testid="flag-history">
        {[...revisions].reverse().map((r) => (
          <li key={r.id} className="flex flex-wrap items-baseline gap-x-2">
            <span className="font-medium text-zinc-800">{TASK_FLAG_LABELS[r.status as TaskFlagStatus] ?? r.status}</span>
            <span className="text-zinc-600">{r.reason}</span>
            {r.evidenceUrl && (
              <a className="link" href={r.evidenceUrl} target="_blank" rel="noopener noreferrer nofollow">
                evidence
              </a>
            )}
            <span className="ml-auto text-2xs text-zinc-400">
              {r.userName} · {new Date(r.createdAt).toISOString().slice(0, 16).replace("T", " ")}
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** The flag button and dialog on their own (the task page's header). */
export function TaskFlagButton({ taskId }: { taskId: number }) {
  const { button, dialog } = useTaskFlagDialog(true, taskId);
  return (
    <>
      {dialog}
      {button}
    </>
  );
}
