"use client";
/**
 * The analytics charts (recharts), drawn from prepared view models (app/analytics/_lib/charts.ts). Bars and points
 * link to the trajectories behind them: a click opens the drill-down. Tooltips show the exact numbers.
 */
import type { ReactNode } from "react";
import { useRouter } from "next/navigation";
import {
  Bar,
  BarChart,
  CartesianGrid,
  ErrorBar,
  Legend,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
  type TooltipContentProps,
} from "recharts";
import type { CountChartModel, Datum, RateChartModel, SeriesModel } from "../_lib/charts";

const AXIS = { fontSize: 11, fill: "#71717a" };
const CATEGORY_AXIS = { type: "category" as const, dataKey: "label", tick: AXIS, interval: 0 as const };

function percentTick(v: number): string {
  return `${Math.round(v * 100)}%`;
}

function ChartTooltip({ active, payload, label, series }: Partial<TooltipContentProps<number, string>> & { series: SeriesModel[] }) {
  if (!active || !payload?.length) return null;
  const datum = payload[0]!.payload as Datum;
  return (
    <div className="rounded-md border border-zinc-200 bg-white px-2.5 py-1.5 text-[11.5px] shadow-md">
      <div className="mb-0.5 font-medium text-zinc-800">{label}</div>
      {series.map((s) => {
        const text = datum[`${s.key}_text`];
        if (text === undefined || text === null || text === "") return null;
        return (
          <div key={s.key} className="flex items-center gap-1.5 whitespace-nowrap text-zinc-600">
            <span className="inline-block size-2 rounded-sm" style={{ background: s.color }} />
            <span className="text-zinc-500">{s.label}:</span> <span className="tabular-nums">{String(text)}</span>
          </div>
        );
      })}
      <div className="mt-0.5 text-2xs text-zinc-400">Click to list these trajectories</div>
    </div>
  );
}

function useOpen() {
  const router = useRouter();
  return (datum: Datum | undefined, key: string) => {
    const href = datum?.[`${key}_href`];
    if (typeof href === "string" && href) router.push(href);
  };
}

function chartHeight(model: { data: Datum[]; horizontal?: boolean; series: SeriesModel[] }): number {
  if (model.horizontal) return Math.max(140, 48 + model.data.length * Math.max(22, 10 * model.series.length + 8));
  return 280 + rotatedLabelHeight(model.data) - 30;
}

/** Category names longer than this are cut in the middle on the axis (whole in the tooltip), so they keep their ends. */
const TICK_CHARS = 32;
function tickText(v: unknown): string {
  const text = String(v);
  return text.length <= TICK_CHARS ? text : `${text.slice(0, 12)}…${text.slice(text.length - (TICK_CHARS - 13))}`;
}
const longestLabel = (data: Datum[]) => Math.max(0, ...data.map((d) => tickText(d.label).length));
/** Many categories: labels are drawn at an angle, and the axis needs room for the longest. */
const rotate = (data: Datum[]) => data.length > 8;
function rotatedLabelHeight(data: Datum[]): number {
  return rotate(data) ? 24 + Math.round(longestLabel(data) * 3.7) : 30;
}
/** Room left of the axis for the first rotated label, which reaches left of its tick (about 0.82 × its width). */
function rotatedLeftMargin(data: Datum[]): number {
  return rotate(data) ? Math.max(24, Math.round(tickText(data[0]?.label ?? "").length * 5.6 * 0.82) - 40) : 0;
}

function CategoryXAxis({ data }: { data: Datum[] }) {
  return (
    <XAxis
      type="category"
      dataKey="label"
      tick={AXIS}
      interval={0}
      height={rotatedLabelHeight(data)}
      angle={rotate(data) ? -35 : 0}
      tickFormatter={tickText}
      textAnchor={rotate(data) ? "end" : "middle"}
    />
  );
}

/** Any interval to draw (prepared charts without intervals carry [0, 0]). */
function hasIntervals(data: Datum[], key: string): boolean {
  return data.some((d) => {
    const e = d[`${key}_err`];
    return Array.isArray(e) && (e[0] > 0 || e[1] > 0);
  });
}

/** Rates (0–100%) or coefficients (κ) with interval bars, as grouped bars or lines. */
export function RateChart({ model }: { model: RateChartModel }) {
  const open = useOpen();
  const proportion = model.scale === "proportion";
  // κ below 0 (or an interval reaching below) widens the axis to −1; otherwise 0–1 keeps bars comparable.
  const negative =
    !proportion &&
    model.data.some((d) =>
      model.series.some((s) => typeof d[s.key] === "number" && (d[s.key] as number) - ((d[`${s.key}_err`] as [number, number])?.[0] ?? 0) < 0),
    );
  const domain: [number, number] = negative ? [-1, 1] : [0, 1];
  const ticks = proportion ? [0, 0.25, 0.5, 0.75, 1] : negative ? [-1, -0.5, 0, 0.5, 1] : [0, 0.2, 0.4, 0.6, 0.8, 1];
  const valueAxis = {
    type: "number" as const,
    domain,
    ticks,
    tickFormatter: proportion ? percentTick : (v: number) => v.toFixed(1),
    tick: AXIS,
    allowDataOverflow: true,
  };

  if (model.kind === "lines") {
    return (
      <ResponsiveContainer width="100%" height={chartHeight(model)}>
        <LineChart data={model.data} margin={{ top: 8, right: 16, bottom: 4, left: 0 }}>
          <CartesianGrid stroke="#f4f4f5" />
          <XAxis {...CATEGORY_AXIS} label={{ value: model.x, position: "insideBottom", offset: -2, fontSize: 11, fill: "#a1a1aa" }} height={40} />
          <YAxis {...valueAxis} width={44} />
          {seriesTooltip(model.series)}
          {seriesLegend(model.series)}
          {model.series.map((s) => (
            <Line
              key={s.key}
              dataKey={s.key}
              name={s.label}
              stroke={s.color}
              strokeWidth={2}
              connectNulls
              isAnimationActive={false}
              dot={{ r: 3.5, fill: s.color, cursor: "pointer" }}
              activeDot={{ r: 5, cursor: "pointer", onClick: (_e: unknown, p: unknown) => open((p as { payload?: Datum })?.payload, s.key) }}
            >
              {hasIntervals(model.data, s.key) && <ErrorBar dataKey={`${s.key}_err`} width={4} stroke={s.color} strokeOpacity={0.6} />}
            </Line>
          ))}
        </LineChart>
      </ResponsiveContainer>
    );
  }
  return (
    <BarShell
      model={model}
      valueAxis={valueAxis}
      heightSeries={model.series}
      zeroLine={!proportion && <ReferenceLine {...(model.horizontal ? { x: 0 } : { y: 0 })} stroke="#a1a1aa" />}
    >
      {model.series.map((s) => (
        <Bar key={s.key} {...barProps(s, open)} maxBarSize={36} minPointSize={2}>
          {hasIntervals(model.data, s.key) && (
            <ErrorBar dataKey={`${s.key}_err`} width={4} stroke="#3f3f46" strokeWidth={1.2} direction={model.horizontal ? "x" : "y"} />
          )}
        </Bar>
      ))}
    </BarShell>
  );
}

type Open = ReturnType<typeof useOpen>;

/** What every bar of a series shares: its key, name and colour, and a click that opens the trajectories behind it. */
function barProps(s: SeriesModel, open: Open) {
  return {
    dataKey: s.key,
    name: s.label,
    fill: s.color,
    isAnimationActive: false,
    cursor: "pointer",
    onClick: (d: { payload?: unknown }) => open(d.payload as Datum, s.key),
  };
}

type ValueAxis = { type: "number"; tick: typeof AXIS } & Record<string, unknown>;

/**
 * The frame every bar chart shares: its height, the category axis (rotated names below, or names left of horizontal
 * bars), the value axis, the grid, the tooltip and (for several series) the legend; the bars come as children.
 */
function BarShell({
  model,
  valueAxis,
  heightSeries,
  zeroLine,
  children,
}: {
  model: { data: Datum[]; series: SeriesModel[]; horizontal?: boolean };
  valueAxis: ValueAxis;
  /** The series the height is measured for (a stack takes the room of one). */
  heightSeries: SeriesModel[];
  /** Drawn above the grid and below the bars (coefficients mark 0). */
  zeroLine?: ReactNode;
  children: ReactNode;
}) {
  return (
    <ResponsiveContainer width="100%" height={chartHeight({ ...model, series: heightSeries })}>
      <BarChart
        data={model.data}
        layout={model.horizontal ? "vertical" : "horizontal"}
        margin={{ top: 8, right: 16, bottom: 4, left: model.horizontal ? 0 : rotatedLeftMargin(model.data) }}
        barCategoryGap="18%"
      >
        <CartesianGrid stroke="#f4f4f5" horizontal={!model.horizontal} vertical={!!model.horizontal} />
        {model.horizontal ? (
          <>
            <XAxis {...valueAxis} />
            <YAxis {...CATEGORY_AXIS} tickFormatter={tickText} width={Math.min(260, 12 + 6.2 * longestLabel(model.data))} />
          </>
        ) : (
          <>
            {CategoryXAxis({ data: model.data })}
            <YAxis {...valueAxis} width={44} />
          </>
        )}
        {zeroLine}
        {seriesTooltip(model.series)}
        {seriesLegend(model.series)}
        {children}
      </BarChart>
    </ResponsiveContainer>
  );
}

function seriesLegend(series: SeriesModel[]) {
  return series.length > 1 ? <Legend wrapperStyle={{ fontSize: 11.5 }} itemSorter={null} /> : null;
}

function seriesTooltip(series: SeriesModel[]) {
  return <Tooltip content={(p) => <ChartTooltip {...(p as TooltipContentProps<number, string>)} series={series} />} cursor={{ fill: "#f4f4f5" }} />;
}

/** Counts, stacked (categories within a group) or plain bars. */
export function CountChart({ model }: { model: CountChartModel }) {
  const open = useOpen();
  const stacked = model.kind === "stacked";
  return (
    <BarShell model={model} valueAxis={{ type: "number", tick: AXIS, allowDecimals: false }} heightSeries={stacked ? [model.series[0]!] : model.series}>
      {model.series.map((s) => (
        <Bar key={s.key} {...barProps(s, open)} stackId={stacked ? "stack" : undefined} maxBarSize={40} />
      ))}
    </BarShell>
  );
}
