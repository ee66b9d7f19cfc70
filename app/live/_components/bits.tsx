/**
 * Small pieces shared by the live-run pages (server-renderable: no hooks).
 */

// Job statuses say whether the runner finished its work, never whether the agent succeeded: no success green.
const STATUS_STYLE: Record<string, string> = {
  queued: "bg-zinc-100 text-zinc-600 ring-zinc-500/20",
  running: "bg-sky-50 text-sky-700 ring-sky-600/20",
  succeeded: "bg-slate-100 text-slate-700 ring-slate-500/20",
  finished: "bg-slate-100 text-slate-700 ring-slate-500/20",
  failed: "bg-rose-50 text-rose-700 ring-rose-600/20",
  cancelled: "bg-zinc-100 text-zinc-600 ring-zinc-500/20",
};

export function StatusPill({ status, title }: { status: string; title?: string }) {
  return (
    <span
      title={title}
      data-testid="status"
      className={`inline-flex items-center gap-1 rounded px-1.5 py-px text-2xs font-medium whitespace-nowrap ring-1 ring-inset ${STATUS_STYLE[status] ?? STATUS_STYLE.queued}`}
    >
      {status === "running" && <span aria-hidden className="size-1.5 animate-pulse rounded-full bg-sky-500" />}
      {STATUS_LABEL[status] ?? status}
    </span>
  );
}

/** A job that "succeeded" only finished; the agent's success is the verdict, shown apart. */
const STATUS_LABEL: Record<string, string> = { succeeded: "finished", failed: "runner error" };

const VERDICT_STYLE: Record<string, string> = {
  success: "bg-emerald-50 text-emerald-800 ring-emerald-600/20",
  failure: "bg-rose-50 text-rose-800 ring-rose-600/20",
};

/** An evaluator's verdict on a live task, named so it is not mistaken for the job status. */
export function VerdictPill({ evaluatorName, verdict, rationale }: { evaluatorName: string; verdict: string; rationale: string | null }) {
  return (
    <span
      data-testid="live-verdict"
      title={rationale ? `${evaluatorName}: ${rationale}` : evaluatorName}
      className={`inline-flex items-center rounded px-1.5 py-px text-2xs font-medium whitespace-nowrap ring-1 ring-inset ${VERDICT_STYLE[verdict] ?? "bg-zinc-100 text-zinc-700 ring-zinc-500/20"}`}
    >
      rules: {verdict}
    </span>
  );
}

/** Says plainly that a run's actions come from a fixed list, not from a model. */
export function PolicyBadge({ kind, label }: { kind: string; label: string }) {
  if (kind === "scripted") {
    return (
      <span className="inline-flex items-center gap-1.5" title="A scripted policy replays a fixed list of actions. No model decides anything.">
        <span className="rounded bg-amber-100 px-1.5 py-px text-2xs font-semibold tracking-wide text-amber-800 uppercase" data-testid="scripted-badge">
          Scripted
        </span>
        <span className="text-zinc-600">{label.replace(/^Scripted · /, "")}</span>
      </span>
    );
  }
  return (
    <span className="inline-flex items-center gap-1.5">
      <span className="rounded bg-indigo-50 px-1.5 py-px text-2xs font-semibold tracking-wide text-indigo-700 uppercase">VLM</span>
      <span className="text-zinc-600">{label.replace(/^VLM · /, "")}</span>
    </span>
  );
}
