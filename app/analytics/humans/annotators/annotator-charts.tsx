/**
 * One small panel per annotator: drift (rolling agreement with consensus over their last labels), time per item
 * (histogram), and the error categories they use next to everyone's.
 *
 * Drawn on the server as plain SVG and HTML that size themselves with the page (no chart library): the panels are in
 * the document as it arrives, where recharts drew nine charts only after the page's script had run and measured
 * each box, the largest single piece of work before this page showed its figures (issue 30 item 7). Hovering a point
 * or bar shows its exact value (title), as the chart tooltips did.
 */
import type { AnnotatorCharts } from "../../_lib/annotator-quality";

const pct = (v: number) => `${Math.round(v * 100)}%`;

export function AnnotatorChartGrid({ charts, window }: { charts: AnnotatorCharts[]; window: number }) {
  return (
    <div className="grid gap-3 md:grid-cols-2 2xl:grid-cols-3">
      {charts.map((c) => (
        <section key={c.key} className="panel flex min-w-0 flex-col gap-2 p-3" data-annotator={c.name} aria-label={`Charts of ${c.name}`}>
          <h3 className="text-[13px] font-medium text-zinc-800">{c.name}</h3>
          <div>
            <div className="section-title mb-1">Agreement with consensus, last {window} labels</div>
            {c.drift.length === 0 ? <p className="text-[12px] text-zinc-500">No labels on items with a consensus yet.</p> : <DriftLine drift={c.drift} />}
          </div>
          <div className="grid grid-cols-2 gap-4">
            <div className="min-w-0">
              <div className="section-title mb-1">Time per item</div>
              <TimeBars histogram={c.histogram} />
            </div>
            <div className="min-w-0">
              <div className="section-title mb-1">Categories vs peers</div>
              {c.categories.length === 0 ? (
                <p className="text-[12px] text-zinc-500">No failure categories yet.</p>
              ) : (
                <CategoryBars name={c.name} categories={c.categories} />
              )}
            </div>
          </div>
        </section>
      ))}
    </div>
  );
}

/** Rolling agreement (0–100 %) against the label count: a line over three grid lines, its ends and middle named below. */
function DriftLine({ drift }: { drift: { n: number; rate: number }[] }) {
  const last = drift.length - 1;
  // x in [0, 1000] over the points, y in [0, 100] from the top (100 % at the top).
  const x = (i: number) => (last === 0 ? 500 : (i / last) * 1000);
  const y = (rate: number) => 100 - rate * 100;
  const points = drift.map((d, i) => `${x(i).toFixed(1)},${y(d.rate).toFixed(2)}`).join(" ");
  const band = last === 0 ? 1000 : 1000 / last;
  const ticks = last === 0 ? [0] : last === 1 ? [0, 1] : [0, Math.round(last / 2), last];
  return (
    <div data-chart="drift" className="flex gap-1.5">
      <div className="relative h-[84px] w-8 shrink-0 text-right text-[10px] tabular-nums text-zinc-500" aria-hidden>
        <span className="absolute right-0 -top-1.5">100%</span>
        <span className="absolute right-0 top-[36px]">50%</span>
        <span className="absolute right-0 -bottom-1.5">0%</span>
      </div>
      <div className="min-w-0 flex-1">
        <svg
          className="block h-[84px] w-full overflow-visible"
          viewBox="0 0 1000 100"
          preserveAspectRatio="none"
          role="img"
          aria-label={`Agreement with consensus from ${pct(drift[0]!.rate)} at label ${drift[0]!.n} to ${pct(drift[last]!.rate)} at label ${drift[last]!.n}`}
        >
          {[0, 50, 100].map((g) => (
            <line key={g} x1={0} x2={1000} y1={g} y2={g} stroke={g === 100 ? "#e4e4e7" : "#f4f4f5"} vectorEffect="non-scaling-stroke" />
          ))}
          <polyline points={points} fill="none" stroke="#4f46e5" strokeWidth={1.5} strokeLinejoin="round" vectorEffect="non-scaling-stroke" />
          {drift.map((d, i) => (
            <rect key={d.n} x={Math.max(0, x(i) - band / 2)} width={band} y={0} height={100} fill="transparent">
              <title>{`label ${d.n}: ${pct(d.rate)} agreement`}</title>
            </rect>
          ))}
        </svg>
        <div className="relative mt-0.5 h-3.5 text-[10px] tabular-nums text-zinc-500" aria-hidden>
          {ticks.map((i) => (
            <span
              key={i}
              className="absolute top-0"
              style={i === 0 ? { left: 0 } : i === last ? { right: 0 } : { left: `${(i / last) * 100}%`, transform: "translateX(-50%)" }}
            >
              {drift[i]!.n}
            </span>
          ))}
        </div>
      </div>
    </div>
  );
}

/** Labels per time bin as columns, each with its count above it and its bin below. */
function TimeBars({ histogram }: { histogram: { label: string; count: number }[] }) {
  const max = Math.max(1, ...histogram.map((h) => h.count));
  return (
    <div data-chart="time" className="flex items-stretch gap-1" role="img" aria-label={histogram.map((h) => `${h.label}: ${h.count}`).join(", ")}>
      {histogram.map((h) => (
        <div key={h.label} className="flex min-w-0 flex-1 flex-col items-center" title={`${h.label}: ${h.count} label${h.count === 1 ? "" : "s"}`}>
          <div className="flex h-[72px] w-full flex-col justify-end">
            <span className="truncate text-center text-[9px] tabular-nums text-zinc-500">{h.count}</span>
            <div className="w-full rounded-t-sm bg-teal-600" style={{ height: `${(h.count / max) * 56}px` }} />
          </div>
          <div className="w-full border-t border-zinc-200 pt-0.5 text-center text-[9px] leading-tight break-words text-zinc-500">{h.label}</div>
        </div>
      ))}
    </div>
  );
}

/** Each category's share of the annotator's failure labels (own colour) above everyone's share (grey). */
function CategoryBars({ name, categories }: { name: string; categories: { category: string; own: number; pooled: number }[] }) {
  return (
    <div data-chart="categories" className="flex flex-col gap-1">
      {categories.map((r) => (
        <div key={r.category} className="flex items-center gap-1.5" title={`${r.category}: ${name} ${pct(r.own)}, everyone ${pct(r.pooled)}`}>
          <span className="w-20 shrink-0 truncate text-right text-[10px] text-zinc-600">{r.category}</span>
          <div className="flex min-w-0 flex-1 flex-col gap-px">
            <div className="flex items-center gap-1">
              <div className="h-1.5 rounded-r-sm bg-indigo-600" style={{ width: `${r.own * 80}%` }} />
              <span className="text-[9px] tabular-nums text-zinc-600">{pct(r.own)}</span>
            </div>
            <div className="flex items-center gap-1">
              <div className="h-1.5 rounded-r-sm bg-zinc-300" style={{ width: `${r.pooled * 80}%` }} />
              <span className="text-[9px] tabular-nums text-zinc-400">{pct(r.pooled)}</span>
            </div>
          </div>
        </div>
      ))}
      <div className="mt-0.5 flex items-center justify-center gap-3 text-[10px] text-zinc-500">
        <span className="flex items-center gap-1">
          <span className="inline-block size-2 rounded-sm bg-indigo-600" />
          {name}
        </span>
        <span className="flex items-center gap-1">
          <span className="inline-block size-2 rounded-sm bg-zinc-300" />
          everyone
        </span>
      </div>
    </div>
  );
}
