/**
 * Small pieces shared by the live-run pages (server-renderable: no hooks).
 */
import type { ReactNode } from "react";

/** A progress bar for a fraction from 0 to 1, announced to screen readers as a percentage. */
export function ProgressBar({
  value,
  label,
  size = "md",
  tone = "indigo",
  testId,
}: {
  value: number;
  label: string;
  size?: "sm" | "md";
  tone?: "indigo" | "emerald" | "amber" | "rose" | "zinc";
  testId?: string;
}) {
  const pct = Math.round(Math.max(0, Math.min(1, value)) * 100);
  const colour = { indigo: "bg-indigo-500", emerald: "bg-emerald-500", amber: "bg-amber-400", rose: "bg-rose-500", zinc: "bg-zinc-400" }[tone];
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={pct}
      data-testid={testId}
      className={`w-full overflow-hidden rounded-full bg-zinc-100 ${size === "sm" ? "h-1.5" : "h-2.5"}`}
    >
      <div className={`h-full rounded-full transition-[width] duration-300 ${colour}`} style={{ width: `${pct}%` }} />
    </div>
  );
}

const STATUS_STYLE: Record<string, string> = {
  queued: "bg-zinc-100 text-zinc-600 ring-zinc-500/20",
  running: "bg-sky-50 text-sky-700 ring-sky-600/20",
  succeeded: "bg-emerald-50 text-emerald-700 ring-emerald-600/20",
  finished: "bg-emerald-50 text-emerald-700 ring-emerald-600/20",
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
      {status}
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

export function Field({ label, hint, children, htmlFor }: { label: string; hint?: ReactNode; children: ReactNode; htmlFor?: string }) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={htmlFor} className="text-[12px] font-medium text-zinc-700">
        {label}
      </label>
      {children}
      {hint && <div className="text-2xs text-zinc-500">{hint}</div>}
    </div>
  );
}
