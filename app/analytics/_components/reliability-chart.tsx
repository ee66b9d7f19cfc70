"use client";
/**
 * Reliability diagram: per sampled judge, its items binned by confidence (x) against the share humans call a
 * success (y). The diagonal is perfect calibration; points below it are over-confident in success.
 */
import { CartesianGrid, Legend, ReferenceLine, ResponsiveContainer, Scatter, ScatterChart, Tooltip, XAxis, YAxis, type TooltipContentProps } from "recharts";
import type { ReliabilityModel } from "../_lib/judge-measures";
import type { FigureModel } from "../_lib/rates";
import { Figure } from "./figure";
import type { FigureOptions } from "./model-figures";

const AXIS = { fontSize: 11, fill: "#71717a" };
const percent = (v: number) => `${Math.round(v * 100)}%`;

function PointTooltip({ active, payload }: Partial<TooltipContentProps<number, string>>) {
  if (!active || !payload?.length) return null;
  const p = payload[0]!.payload as { text: string };
  return <div className="rounded-md border border-zinc-200 bg-white px-2.5 py-1.5 text-[11.5px] text-zinc-700 shadow-md">{p.text}</div>;
}

export function ReliabilityChart({ model }: { model: ReliabilityModel }) {
  return (
    <ResponsiveContainer width="100%" height={320}>
      <ScatterChart margin={{ top: 8, right: 24, bottom: 16, left: 0 }}>
        <CartesianGrid stroke="#f4f4f5" />
        <XAxis
          type="number"
          dataKey="x"
          domain={[0, 1]}
          ticks={[0, 0.2, 0.4, 0.6, 0.8, 1]}
          tickFormatter={percent}
          tick={AXIS}
          label={{ value: "Judge confidence in success (vote share)", position: "insideBottom", offset: -8, fontSize: 11, fill: "#a1a1aa" }}
        />
        <YAxis type="number" dataKey="y" domain={[0, 1]} ticks={[0, 0.25, 0.5, 0.75, 1]} tickFormatter={percent} tick={AXIS} width={44} />
        <ReferenceLine
          segment={[
            { x: 0, y: 0 },
            { x: 1, y: 1 },
          ]}
          stroke="#a1a1aa"
          strokeDasharray="4 3"
          ifOverflow="hidden"
        />
        <Tooltip content={(p) => <PointTooltip {...(p as TooltipContentProps<number, string>)} />} />
        <Legend wrapperStyle={{ fontSize: 11.5 }} verticalAlign="top" />
        {model.series.map((s) => (
          <Scatter key={s.key} name={s.label} data={s.points} fill={s.color} line={{ stroke: s.color, strokeWidth: 1.5 }} isAnimationActive={false} />
        ))}
      </ScatterChart>
    </ResponsiveContainer>
  );
}

/** The diagram as a figure (model-figures.tsx draws the other kinds). */
export function ReliabilityFigure({ figure, defaultView }: { figure: FigureModel<ReliabilityModel> } & FigureOptions) {
  const { id, title, description, chart, table } = figure;
  return (
    <Figure id={id} title={title} description={description} chart={chart ? <ReliabilityChart model={chart} /> : null} table={table} defaultView={defaultView} />
  );
}
