/**
 * The one progress bar of the dashboard: imports, reports, live runs, judge batches and clustering show their long
 * work with it. A fraction from 0 to 1 fills it and is announced to screen readers as a percentage; `null` says the
 * amount is not known yet (waiting for a worker, unpacking), which shows a pulsing part-filled bar without a value.
 * Server-renderable: no hooks (the stop button asks in the browser).
 */
import type { ReactNode } from "react";
import { formatCount } from "./ui";

const TONES = {
  indigo: "bg-indigo-600",
  emerald: "bg-emerald-500",
  amber: "bg-amber-400",
  rose: "bg-rose-500",
  zinc: "bg-zinc-400",
} as const;

export function ProgressBar({
  value,
  label,
  size = "md",
  tone = "indigo",
  testId,
  className = "",
}: {
  /** Done so far, from 0 to 1 (clamped), or null while the amount is unknown. */
  value: number | null;
  /** What the bar measures, read by screen readers ("Run progress", "Uploading runs.zip: 40%"). */
  label: string;
  size?: "sm" | "md";
  tone?: keyof typeof TONES;
  testId?: string;
  /** Extra classes for the track, such as a maximum width. */
  className?: string;
}) {
  const fraction = value === null ? null : Math.max(0, Math.min(1, value));
  // A started bar keeps a sliver in view, so a long job's first percent does not look like nothing happening.
  const width = fraction === null ? undefined : `${fraction > 0 ? Math.max(2, fraction * 100) : 0}%`;
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={fraction === null ? undefined : Math.round(fraction * 100)}
      data-testid={testId}
      className={`w-full overflow-hidden rounded-full bg-zinc-200 ${size === "sm" ? "h-1.5" : "h-2"} ${className}`}
    >
      <div
        className={`h-full rounded-full transition-[width] duration-300 ${TONES[tone]} ${fraction === null ? "w-1/3 animate-pulse" : ""}`}
        style={width === undefined ? undefined : { width }}
      />
    </div>
  );
}

/**
 * A panel about long work (a judge batch, a live run): its status and counts on one line with `aside` at the right,
 * then `children` (the bar, notes, errors).
 */
export function ProgressPanel({
  label,
  status,
  counts,
  aside,
  children,
}: {
  label: string;
  status: ReactNode;
  counts: ReactNode;
  aside: ReactNode;
  children: ReactNode;
}) {
  return (
    <section className="panel px-4 py-3" aria-label={label}>
      <div className="mb-2 flex flex-wrap items-baseline justify-between gap-2">
        <div className="flex items-center gap-2">
          {status}
          {counts}
        </div>
        {aside}
      </div>
      {children}
    </section>
  );
}

/**
 * Long work's counts beside its status: how much is done (`done`, in the work's own words), then how many of its parts
 * are running and queued, and those that failed or were cancelled when there are any.
 */
export function WorkCounts({
  done,
  counts,
  testId,
}: {
  done: ReactNode;
  counts: { running: number; queued: number; failed: number; cancelled: number };
  testId: string;
}) {
  return (
    <span className="text-[12px] text-zinc-600 tabular-nums" data-testid={testId}>
      {done} · {formatCount(counts.running)} running · {formatCount(counts.queued)} queued
      {counts.failed > 0 && ` · ${formatCount(counts.failed)} failed`}
      {counts.cancelled > 0 && ` · ${formatCount(counts.cancelled)} cancelled`}
    </span>
  );
}

/** Stops work in progress (a batch, a run) once the person has said yes to `question`. */
export function StopButton({
  question,
  onStop,
  disabled,
  testId,
  children,
}: {
  question: string;
  onStop: () => void;
  disabled: boolean;
  testId: string;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      className="btn border-rose-300 text-rose-700 hover:bg-rose-50"
      data-testid={testId}
      disabled={disabled}
      onClick={() => {
        if (window.confirm(question)) onStop();
      }}
    >
      {children}
    </button>
  );
}
