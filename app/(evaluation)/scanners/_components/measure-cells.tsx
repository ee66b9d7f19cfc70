/**
 * A scanner's precision or recall as the pages show it: the share with its Wilson 95% interval and counts, or a
 * dash when nothing was measured.
 */
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";

export type Measure = inferRouterOutputs<AppRouter>["scanners"]["detail"]["measures"]["trajectory"];
type Share = Measure["precision"];

const pct = (x: number) => `${Math.round(x * 100)}%`;

export function ShareCell({ share, testId }: { share: Share; testId?: string }) {
  if (share.estimate === null) return <span className="text-zinc-400">—</span>;
  return (
    <span data-testid={testId} title={`Wilson 95% interval, ${share.successes} of ${share.n}`}>
      <span className="font-medium tabular-nums">{pct(share.estimate)}</span>{" "}
      <span className="text-zinc-500 tabular-nums">
        [{pct(share.low ?? 0)}–{pct(share.high ?? 1)}] · {share.successes}/{share.n}
      </span>
    </span>
  );
}

/** "not enough labels" beside figures the labels are too few to judge by. */
export function EnoughBadge({ m }: { m: Measure }) {
  if (m.enough) return null;
  return (
    <span className="rounded-sm bg-amber-100 px-1.5 py-0.5 text-[11px] font-medium text-amber-900" data-testid="not-enough-labels">
      not enough labels
    </span>
  );
}
