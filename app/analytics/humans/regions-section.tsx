/**
 * Agreement on region marks on the Human agreement page: how far annotators who labelled the same trajectory drew
 * their boxes and points in the same places (analytics.regions; the method is regionAgreement in the domain and
 * docs/statistics.md). A campaign without marks says so and how marks are made.
 */
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { StatCards } from "../_components/stat-cards";
import { fmtCount } from "../_lib/format";
import type { StatCard } from "../_lib/judges";

type Regions = inferRouterOutputs<AppRouter>["analytics"]["regions"];

const pct = (v: number | null) => (v === null ? "–" : `${Math.round(v * 100)}%`);

/** The headline figures: mean IoU, share of boxes matched, points agreeing, and what they were computed over. */
export function regionCards(r: Regions): StatCard[] {
  return [
    {
      key: "region-iou",
      label: "Mean box IoU",
      value: r.meanIoU === null ? "–" : r.meanIoU.toFixed(2),
      detail: `over ${fmtCount(r.boxComparisons)} box comparison${r.boxComparisons === 1 ? "" : "s"}`,
      title: "Boxes of two annotators on the same step and mark label, paired one to one by best overlap; a box only one of them drew counts as 0",
    },
    {
      key: "region-matched",
      label: `Boxes at IoU ≥ ${r.iouThreshold}`,
      value: pct(r.matchedShare),
      detail: "share of box comparisons",
    },
    {
      key: "region-points",
      label: "Points agreeing",
      value: pct(r.pointHitShare),
      detail: `of ${fmtCount(r.points)} point${r.points === 1 ? "" : "s"} compared`,
      title: `A point agrees when it lies inside the other annotator's box or within ${r.pointRadius} px of their point`,
    },
    {
      key: "region-pairs",
      label: "Annotator pairs",
      value: fmtCount(r.pairs),
      detail: `${fmtCount(r.markedLabels)} of ${fmtCount(r.labels)} labels have marks`,
    },
  ];
}

/** One bar of the chart: a share, drawn as a filled track, with its figure. */
function ShareBar({ label, share, n, testId, text = pct(share) }: { label: string; share: number | null; n: number; testId: string; text?: string }) {
  return (
    <div className="grid grid-cols-[12rem_1fr_5rem] items-center gap-2 text-[12px]" data-testid={testId}>
      <span className="truncate text-zinc-700" title={label}>
        {label}
      </span>
      <div className="h-3 overflow-hidden rounded-full bg-zinc-100 ring-1 ring-zinc-200 ring-inset" role="img" aria-label={`${label}: ${text}`}>
        {share !== null && <div className="h-full rounded-full bg-indigo-500" style={{ width: `${share * 100}%` }} />}
      </div>
      <span className="text-right text-zinc-600 tabular-nums">
        {text} <span className="text-zinc-400">n={fmtCount(n)}</span>
      </span>
    </div>
  );
}

export function RegionAgreementSection({ regions }: { regions: Regions }) {
  return (
    <section className="panel flex flex-col gap-2 px-4 py-3" data-testid="region-agreement" aria-labelledby="regions-title">
      <h2 id="regions-title" className="section-title">
        Agreement on region marks
      </h2>
      {regions.markedLabels === 0 ? (
        <p className="text-[12.5px] text-zinc-600" data-testid="region-agreement-empty">
          No label of this campaign has region marks yet. Annotators draw them on the labelling page: press <kbd className="kbd">m</kbd>, then drag a box or
          click a point on the step&apos;s screenshot.
        </p>
      ) : (
        <>
          <p className="text-2xs text-zinc-500">
            Every pair of annotators on a trajectory is compared step by step and mark label by mark label. Boxes are paired one to one by best intersection
            over union (IoU); a box only one of them drew counts as IoU 0. A point agrees when it lies inside the other annotator&apos;s box or within{" "}
            {regions.pointRadius} px of their point (screenshot pixels).
          </p>
          <StatCards cards={regionCards(regions)} />
          {regions.pairs === 0 ? (
            <p className="text-[12.5px] text-zinc-600">Marks exist, but no trajectory has two annotators&apos; labels to compare yet.</p>
          ) : (
            <div className="flex flex-col gap-1.5 pt-1" aria-label="Region agreement chart">
              <ShareBar
                label="Mean box IoU"
                share={regions.meanIoU}
                text={regions.meanIoU === null ? "–" : regions.meanIoU.toFixed(2)}
                n={regions.boxComparisons}
                testId="region-bar-iou"
              />
              <ShareBar label={`Boxes at IoU ≥ ${regions.iouThreshold}`} share={regions.matchedShare} n={regions.boxComparisons} testId="region-bar-matched" />
              <ShareBar label="Points agreeing" share={regions.pointHitShare} n={regions.points} testId="region-bar-points" />
            </div>
          )}
        </>
      )}
    </section>
  );
}
