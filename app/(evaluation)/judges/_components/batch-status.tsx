/**
 * A batch's status in words about the calls, never about the agents: a batch that "succeeded" made all its calls,
 * whatever the verdicts say.
 */
const STYLE: Record<string, string> = {
  pending: "bg-zinc-100 text-zinc-600 ring-zinc-500/20",
  running: "bg-sky-50 text-sky-700 ring-sky-600/20",
  succeeded: "bg-slate-100 text-slate-700 ring-slate-500/20",
  failed: "bg-amber-50 text-amber-800 ring-amber-600/20",
  cancelled: "bg-zinc-100 text-zinc-600 ring-zinc-500/20",
};

const LABEL: Record<string, string> = {
  pending: "queued",
  running: "running",
  succeeded: "finished",
  failed: "finished with failures",
  cancelled: "cancelled",
};

export function BatchStatus({ status }: { status: string }) {
  return (
    <span
      data-testid="status"
      className={`inline-flex items-center gap-1 rounded px-1.5 py-px text-2xs font-medium whitespace-nowrap ring-1 ring-inset ${STYLE[status] ?? STYLE.pending}`}
    >
      {status === "running" && <span aria-hidden className="size-1.5 animate-pulse rounded-full bg-sky-500" />}
      {LABEL[status] ?? status}
    </span>
  );
}
