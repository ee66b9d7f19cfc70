"use client";
/**
 * One small panel per annotator: drift (rolling agreement with consensus over their last labels), time per item
 * (histogram), and the error categories they use next to everyone's.
 */
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { AnnotatorCharts } from "../../_lib/annotator-quality";

const AXIS = { fontSize: 10, fill: "#71717a" };
const pct = (v: number) => `${Math.round(v * 100)}%`;

export function AnnotatorChartGrid({ charts, window }: { charts: AnnotatorCharts[]; window: number }) {
  return (
    <div className="grid gap-3 md:grid-cols-2 2xl:grid-cols-3">
      {charts.map((c) => (
        <section key={c.key} className="panel flex flex-col gap-2 p-3" data-annotator={c.name} aria-label={`Charts of ${c.name}`}>
          <h3 className="text-[13px] font-medium text-zinc-800">{c.name}</h3>
          <div>
            <div className="section-title mb-1">Agreement with consensus, last {window} labels</div>
            {c.drift.length === 0 ? (
              <p className="text-[12px] text-zinc-500">No labels on items with a consensus yet.</p>
            ) : (
              <ResponsiveContainer width="100%" height={110}>
                <LineChart data={c.drift} margin={{ top: 4, right: 8, bottom: 0, left: -18 }}>
                  <CartesianGrid stroke="#f4f4f5" vertical={false} />
                  <XAxis dataKey="n" tick={AXIS} tickLine={false} axisLine={false} />
                  <YAxis domain={[0, 1]} tickFormatter={pct} tick={AXIS} tickLine={false} axisLine={false} ticks={[0, 0.5, 1]} />
                  <Tooltip formatter={(v) => pct(Number(v))} labelFormatter={(n) => `label ${n}`} />
                  <Line type="monotone" dataKey="rate" name="agreement" stroke="#4f46e5" strokeWidth={1.5} dot={false} isAnimationActive={false} />
                </LineChart>
              </ResponsiveContainer>
            )}
          </div>
          <div className="grid grid-cols-2 gap-2">
            <div>
              <div className="section-title mb-1">Time per item</div>
              <ResponsiveContainer width="100%" height={110}>
                <BarChart data={c.histogram} margin={{ top: 4, right: 4, bottom: 0, left: -8 }}>
                  <XAxis
                    dataKey="label"
                    tick={{ ...AXIS, fontSize: 9 }}
                    tickLine={false}
                    axisLine={false}
                    interval={0}
                    angle={-35}
                    textAnchor="end"
                    height={44}
                  />
                  <YAxis allowDecimals={false} tick={AXIS} tickLine={false} axisLine={false} />
                  <Tooltip />
                  <Bar dataKey="count" name="labels" fill="#0d9488" isAnimationActive={false} />
                </BarChart>
              </ResponsiveContainer>
            </div>
            <div>
              <div className="section-title mb-1">Categories vs peers</div>
              {c.categories.length === 0 ? (
                <p className="text-[12px] text-zinc-500">No failure categories yet.</p>
              ) : (
                <ResponsiveContainer width="100%" height={110}>
                  <BarChart data={c.categories} layout="vertical" margin={{ top: 0, right: 4, bottom: 0, left: 0 }}>
                    <XAxis type="number" domain={[0, 1]} tickFormatter={pct} tick={AXIS} tickLine={false} axisLine={false} ticks={[0, 0.5, 1]} />
                    <YAxis type="category" dataKey="category" tick={{ ...AXIS, fontSize: 9 }} width={70} tickLine={false} axisLine={false} />
                    <Tooltip formatter={(v) => pct(Number(v))} />
                    <Legend wrapperStyle={{ fontSize: 10 }} iconSize={8} />
                    <Bar dataKey="own" name={c.name} fill="#4f46e5" isAnimationActive={false} />
                    <Bar dataKey="pooled" name="everyone" fill="#d4d4d8" isAnimationActive={false} />
                  </BarChart>
                </ResponsiveContainer>
              )}
            </div>
          </div>
        </section>
      ))}
    </div>
  );
}
