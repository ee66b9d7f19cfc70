/**
 * Blind → reveal → revise on the judge-agreement view: per evaluator shown after the blind label, how far it moved
 * the humans (flip toward / away with Wilson intervals), κ with it before and after the reveal (task-resampled
 * intervals), and which categories flipped; with a small interval chart and the measures' caveats.
 */
import { fmtCoef, fmtPercent } from "../_lib/format";
import { categoryFlipTable, revealSummaryTable, type RevealResult } from "../_lib/reveal";
import { TablePanel } from "./figure";

/** One estimate with its interval on a fixed scale [min, max], as a dot on a bar. */
function IntervalRow({
  label,
  value,
  low,
  high,
  min,
  max,
  text,
  color,
}: {
  label: string;
  value: number | null;
  low: number | null;
  high: number | null;
  min: number;
  max: number;
  text: string;
  color: string;
}) {
  const pos = (v: number) => `${(((Math.max(min, Math.min(max, v)) - min) / (max - min)) * 100).toFixed(2)}%`;
  return (
    <div className="grid grid-cols-[7.5rem_1fr_9rem] items-center gap-2 text-[11.5px]">
      <span className="text-zinc-600">{label}</span>
      <div className="relative h-4 rounded bg-zinc-100" role="img" aria-label={`${label}: ${text}`}>
        {min < 0 && <div className="absolute top-0 bottom-0 w-px bg-zinc-300" style={{ left: pos(0) }} />}
        {low !== null && high !== null && (
          <div
            className="absolute top-1.5 h-1 rounded"
            style={{ left: pos(low), width: `calc(${pos(high)} - ${pos(low)})`, background: color, opacity: 0.35 }}
          />
        )}
        {value !== null && (
          <div className="absolute top-0.5 size-3 -translate-x-1/2 rounded-full border border-white" style={{ left: pos(value), background: color }} />
        )}
      </div>
      <span className="text-right text-zinc-700 tabular-nums">{text}</span>
    </div>
  );
}

type RevealMeasures = RevealResult["evaluators"][number]["measures"];
type Flip = RevealMeasures["flipToward"];
type Kappa = RevealMeasures["kappaBefore"];

/** The four rows of an evaluator's chart: flip rates on 0–1, κ before and after on −1…1. */
function revealRows(m: RevealMeasures): Parameters<typeof IntervalRow>[0][] {
  const flip = (label: string, f: Flip, color: string) => ({
    label,
    value: f.estimate,
    low: f.low,
    high: f.high,
    min: 0,
    max: 1,
    color,
    text: `${fmtPercent(f.estimate)} (${f.successes}/${f.n})`,
  });
  const kappa = (label: string, k: Kappa, color: string) => ({
    label,
    value: k.estimate.kappa,
    low: k.low,
    high: k.high,
    min: -1,
    max: 1,
    color,
    text: fmtCoef(k.estimate.kappa),
  });
  return [
    flip("Flip toward", m.flipToward, "#4f46e5"),
    flip("Flip away", m.flipAway, "#e11d48"),
    kappa("κ before reveal", m.kappaBefore, "#52525b"),
    kappa("κ after reveal", m.kappaAfter, "#0891b2"),
  ];
}

export function RevealSection({ result, campaignId }: { result: RevealResult; campaignId?: number }) {
  return (
    <section className="flex flex-col gap-3" aria-labelledby="reveal-title" data-figure="reveal-measures" data-testid="reveal-measures">
      <div className="panel px-3 py-2">
        <h2 id="reveal-title" className="text-[13px] font-semibold text-zinc-900">
          Blind → reveal → revise: does seeing the evaluator move the humans?
        </h2>
        <p className="mt-0.5 text-[12px] text-zinc-600">
          In campaigns that reveal an evaluator after each blind label, annotators kept or revised their label with a reason. A high <b>flip toward</b> with a
          low <b>flip away</b> means people defer to the evaluator; κ after the reveal then overstates how well it agrees with independent humans, so compare
          evaluators on κ <i>before</i>. Rates on fewer than 10 pairs are greyed: read their interval.
          {campaignId !== undefined && (
            <>
              {" "}
              <a className="text-indigo-700 underline" href={`/api/campaigns/${campaignId}/reveal-stages?format=csv`}>
                Export blind and informed stages (CSV)
              </a>{" "}
              ·{" "}
              <a className="text-indigo-700 underline" href={`/api/campaigns/${campaignId}/reveal-stages?format=jsonl`}>
                JSONL
              </a>
            </>
          )}
        </p>
        {result.evaluators.length === 0 ? (
          <p className="mt-2 rounded-md bg-zinc-50 px-2 py-1.5 text-[12px] text-zinc-600" data-testid="reveal-empty">
            No reveal recorded{campaignId !== undefined ? " in this campaign" : ""} yet. Create a campaign with “Reveal an evaluator after the blind label”; its
            annotators&apos; kept and revised labels show here.
          </p>
        ) : (
          <div className="mt-2 flex flex-col gap-3" data-testid="reveal-chart">
            {result.evaluators.map((e) => {
              const m = e.measures;
              return (
                <div key={e.evaluatorId} className="flex flex-col gap-1">
                  <div className="text-[12px] font-medium text-zinc-800">
                    {e.evaluatorName}{" "}
                    <span className="font-normal text-zinc-500">
                      · {m.decided} of {m.revealed} decided by {e.annotators} annotator{e.annotators === 1 ? "" : "s"}
                      {m.evaluatorUndecided > 0 && ` · ${m.evaluatorUndecided} with no success/failure verdict left out`}
                    </span>
                  </div>
                  {revealRows(m).map((r) => (
                    <IntervalRow key={r.label} {...r} />
                  ))}
                  {m.intervalReason && <p className="text-2xs text-zinc-500">κ intervals: {m.intervalReason}.</p>}
                </div>
              );
            })}
          </div>
        )}
      </div>
      {result.evaluators.length > 0 && (
        <>
          <TablePanel
            id="reveal-table"
            title="Flip rates and κ before and after the reveal, per evaluator shown"
            description="Flip rates with 95% Wilson intervals; κ (humans vs the evaluator, success/failure) on the same pairs at both stages, with 95% percentile bootstrap intervals that resample tasks."
            table={revealSummaryTable(result)}
          />
          <TablePanel
            id="reveal-flips"
            title="Which labels flipped after the reveal"
            description="Every kept-or-revised label whose verdict or error category changed, counted by blind → informed."
            table={categoryFlipTable(result)}
          />
        </>
      )}
    </section>
  );
}
