/**
 * A trajectory's steps as a thin filmstrip timeline with each rater's first failing step marked on it: the human
 * reference as a dark bar, each evaluator as a coloured dot, so a glance shows who put the failure where.
 */
import Link from "next/link";

export interface TimelineMark {
  key: string;
  label: string;
  step: number;
  color: string;
}

export function StepTimeline({ trajectoryId, stepCount, marks }: { trajectoryId: number; stepCount: number; marks: TimelineMark[] }) {
  const n = Math.max(1, stepCount, ...marks.map((m) => m.step + 1));
  const left = (step: number) => `${((step + 0.5) / n) * 100}%`;
  return (
    <div className="flex items-center gap-3" data-testid="step-timeline" data-trajectory={trajectoryId}>
      <Link href={`/trajectories/${trajectoryId}?panel=evaluations`} className="w-16 shrink-0 font-mono text-[12px] text-indigo-700 hover:underline">
        #{trajectoryId}
      </Link>
      <div
        className="relative h-5 flex-1 rounded-sm bg-zinc-100"
        aria-label={`${stepCount} steps; ${marks.map((m) => `${m.label}: step ${m.step + 1}`).join(", ")}`}
      >
        {Array.from({ length: n }, (_, i) => (
          <span key={i} className="absolute top-0 h-full border-l border-white" style={{ left: `${(i / n) * 100}%` }} />
        ))}
        {marks.map((m, i) => (
          <span
            key={m.key}
            data-mark={m.key}
            title={`${m.label}: step ${m.step + 1}`}
            className={
              m.key === "human"
                ? "absolute top-0 h-full w-[3px] -translate-x-1/2 rounded-sm"
                : "absolute size-2.5 -translate-x-1/2 rounded-full ring-1 ring-white"
            }
            style={{ left: left(m.step), background: m.color, ...(m.key === "human" ? {} : { top: `${2 + (i % 3) * 4}px` }) }}
          />
        ))}
      </div>
      <span className="w-24 shrink-0 text-right text-[11px] tabular-nums text-zinc-500">{stepCount} steps</span>
    </div>
  );
}
