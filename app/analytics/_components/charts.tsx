"use client";
/**
 * The analytics charts (recharts), drawn from prepared view models (app/analytics/_lib/charts.ts). Bars and points
 * link to the trajectories behind them: a click opens the drill-down. Tooltips show the exact numbers.
 */
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
  return 280;
}

/** Rates (0–100%) or coefficients (κ) with interval bars, as grouped bars or lines. */
export function RateChart({ model }: { model: RateChartModel }) {
  const open = useOpen();
  const proportion = model.scale === "proportion";
  const domain: [number, number] = proportion ? [0, 1] : [Math.min(0, ...model.data.map((d) => (typeof d.s0 === "number" ? d.s0 - ((d.s0_err as [number, number])?.[0] ?? 0) : 0))), 1];
  const valueAxis = { type: "number" as const, domain, tickFormatter: proportion ? percentTick : (v: number) => v.toFixed(1), tick: AXIS, allowDataOverflow: true };
  const categoryAxis = { type: "category" as const, dataKey: "label", tick: AXIS, interval: 0 as const };
  const legend = model.series.length > 1 ? <Legend wrapperStyle={{ fontSize: 11.5 }} /> : null;
  const tooltip = <Tooltip content={(p) => <ChartTooltip {...(p as TooltipContentProps<number, string>)} series={model.series} />} cursor={{ fill: "#f4f4f5" }} />;

  if (model.kind === "lines") {
    return (
      <ResponsiveContainer width="100%" height={chartHeight(model)}>
        <LineChart data={model.data} margin={{ top: 8, right: 16, bottom: 4, left: 0 }}>
          <CartesianGrid stroke="#f4f4f5" />
          <XAxis {...categoryAxis} label={{ value: model.x, position: "insideBottom", offset: -2, fontSize: 11, fill: "#a1a1aa" }} height={36} />
          <YAxis {...valueAxis} width={44} />
          {tooltip}
          {legend}
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
              <ErrorBar dataKey={`${s.key}_err`} width={4} stroke={s.color} strokeOpacity={0.6} />
            </Line>
          ))}
        </LineChart>
      </ResponsiveContainer>
    );
  }
  return (
    <ResponsiveContainer width="100%" height={chartHeight(model)}>
      <BarChart data={model.data} layout={model.horizontal ? "vertical" : "horizontal"} margin={{ top: 8, right: 16, bottom: 4, left: 0 }} barCategoryGap="18%">
        <CartesianGrid stroke="#f4f4f5" horizontal={!model.horizontal} vertical={!!model.horizontal} />
        {model.horizontal ? (
          <>
            <XAxis {...valueAxis} />
            <YAxis {...categoryAxis} width={Math.min(260, 12 + 6.2 * Math.max(...model.data.map((d) => String(d.label).length)))} />
          </>
        ) : (
          <>
            <XAxis {...categoryAxis} height={model.data.length > 8 ? 64 : 30} angle={model.data.length > 8 ? -35 : 0} textAnchor={model.data.length > 8 ? "end" : "middle"} />
            <YAxis {...valueAxis} width={44} />
          </>
        )}
        {!proportion && <ReferenceLine {...(model.horizontal ? { x: 0 } : { y: 0 })} stroke="#a1a1aa" />}
        {tooltip}
        {legend}
        {model.series.map((s) => (
          <Bar key={s.key} dataKey={s.key} name={s.label} fill={s.color} isAnimationActive={false} cursor="pointer" onClick={(d) => open(d.payload as Datum, s.key)} maxBarSize={36}>
            <ErrorBar dataKey={`${s.key}_err`} width={4} stroke="#3f3f46" strokeWidth={1.2} direction={model.horizontal ? "x" : "y"} />
          </Bar>
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}

/** Counts, stacked (categories within a group) or plain bars. */
export function CountChart({ model }: { model: CountChartModel }) {
  const open = useOpen();
  const stacked = model.kind === "stacked";
  const valueAxis = { type: "number" as const, tick: AXIS, allowDecimals: false };
  const categoryAxis = { type: "category" as const, dataKey: "label", tick: AXIS, interval: 0 as const };
  return (
    <ResponsiveContainer width="100%" height={chartHeight({ ...model, series: stacked ? [model.series[0]!] : model.series })}>
      <BarChart data={model.data} layout={model.horizontal ? "vertical" : "horizontal"} margin={{ top: 8, right: 16, bottom: 4, left: 0 }} barCategoryGap="18%">
        <CartesianGrid stroke="#f4f4f5" horizontal={!model.horizontal} vertical={!!model.horizontal} />
        {model.horizontal ? (
          <>
            <XAxis {...valueAxis} />
            <YAxis {...categoryAxis} width={Math.min(260, 12 + 6.2 * Math.max(...model.data.map((d) => String(d.label).length)))} />
          </>
        ) : (
          <>
            <XAxis {...categoryAxis} height={model.data.length > 8 ? 64 : 30} angle={model.data.length > 8 ? -35 : 0} textAnchor={model.data.length > 8 ? "end" : "middle"} />
            <YAxis {...valueAxis} width={44} />
          </>
        )}
        <Tooltip content={(p) => <ChartTooltip {...(p as TooltipContentProps<number, string>)} series={model.series} />} cursor={{ fill: "#f4f4f5" }} />
        {model.series.length > 1 && <Legend wrapperStyle={{ fontSize: 11.5 }} />}
        {model.series.map((s) => (
          <Bar
            key={s.key}
            dataKey={s.key}
            name={s.label}
            fill={s.color}
            stackId={stacked ? "stack" : undefined}
            isAnimationActive={false}
            cursor="pointer"
            onClick={(d) => open(d.payload as Datum, s.key)}
            maxBarSize={40}
          />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}
