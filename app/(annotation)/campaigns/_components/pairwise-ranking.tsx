"use client";
/**
 * A pairwise campaign's ranking for researchers: the Bradley–Terry log-strength of each run with its 95% bootstrap
 * interval (a chart, then the same numbers in a table with wins, losses, ties and both-fail), or the reason no
 * ranking can be fitted yet; and the preference-pair export (JSONL), downloaded from the pairwise router.
 */
import { useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useEffect, useState } from "react";
import { Bar, BarChart, CartesianGrid, ErrorBar, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { AppRouter } from "@/server/api/root";
import { useTRPC } from "../../../_trpc/client";

type Ranking = inferRouterOutputs<AppRouter>["pairwise"]["ranking"]["ranking"];
type Ok = Extract<Ranking, { ok: true }>;

const AXIS = { fontSize: 11, fill: "#71717a" };

function fixed(v: number | null, digits = 2): string {
  return v === null ? "–" : v.toFixed(digits);
}

/** The widest run name drawn whole on the chart's axis; a longer one is cut in the middle (whole in its tooltip). */
const MAX_LABEL_PX = 240;
/** Room between a name and the axis: the tick mark and its margin (8 px, where the axis places the name) and a gap. */
const TICK_GAP_PX = 14;

/** Before the browser measures (server rendering and the first paint): a generous width per character. */
const estimateWidth = (text: string) => text.length * 7.5;

/** Measures text as the axis draws it (11 px in the page's font) with a canvas; the estimate where there is none. */
function canvasMeasurer(): (text: string) => number {
  const ctx = document.createElement("canvas").getContext("2d");
  if (!ctx) return estimateWidth;
  ctx.font = `${AXIS.fontSize}px ${getComputedStyle(document.body).fontFamily}`;
  return (text) => ctx.measureText(text).width;
}

/** The name as it fits in `max` px: whole, or its start and end around an ellipsis, so names sharing a prefix stay apart. */
function fitName(name: string, max: number, width: (t: string) => number): string {
  if (width(name) <= max) return name;
  for (let keep = name.length - 1; keep > 2; keep--) {
    const head = Math.ceil(keep / 2);
    const cut = `${name.slice(0, head)}…${name.slice(name.length - (keep - head))}`;
    if (width(cut) <= max) return cut;
  }
  return `${name.slice(0, 2)}…`;
}

function axisLabels(names: string[], width: (t: string) => number): { shown: Map<string, string>; width: number } {
  const shown = new Map(names.map((n) => [n, fitName(n, MAX_LABEL_PX, width)]));
  return { shown, width: Math.ceil(TICK_GAP_PX + Math.max(0, ...[...shown.values()].map(width))) };
}

/** The axis's names as drawn, and the axis width that holds the longest of them (measured once in the browser). */
function useAxisLabels(names: string[]): { shown: Map<string, string>; width: number } {
  const key = names.join("\n");
  const [measured, setMeasured] = useState<{ key: string; shown: Map<string, string>; width: number } | null>(null);
  useEffect(() => setMeasured({ key, ...axisLabels(key.split("\n"), canvasMeasurer()) }), [key]);
  return measured?.key === key ? measured : axisLabels(names, estimateWidth);
}

/** A run's name on the axis, cut to fit if need be, with the whole name as its tooltip. */
function RunTick({ x, y, payload, shown }: { x?: number; y?: number; payload?: { value: string }; shown: Map<string, string> }) {
  const name = payload?.value ?? "";
  return (
    <text x={x} y={y} dy={4} textAnchor="end" fontSize={AXIS.fontSize} fill={AXIS.fill} data-testid="ranking-axis-name">
      <title>{name}</title>
      {shown.get(name) ?? name}
    </text>
  );
}

export function PairwiseRankingView({ ranking }: { ranking: Ranking }) {
  if (!ranking.ok) {
    return (
      <div className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-[12.5px] text-amber-900" role="status" data-testid="ranking-refused">
        <p className="font-medium">No ranking yet</p>
        <p className="mt-0.5">
          {ranking.reason.charAt(0).toUpperCase() + ranking.reason.slice(1)}. {ranking.comparisons} comparison{ranking.comparisons === 1 ? "" : "s"} so far
          {ranking.bothFail ? `, ${ranking.bothFail} both-fail` : ""}.
        </p>
      </div>
    );
  }
  return <RankingChartAndTable ranking={ranking} />;
}

function RankingChartAndTable({ ranking }: { ranking: Ok }) {
  const data = ranking.agents.map((a) => ({
    agent: a.agent,
    value: a.logStrength,
    err: a.low === null || a.high === null ? [0, 0] : [Math.max(0, a.logStrength - a.low), Math.max(0, a.high - a.logStrength)],
    low: a.low,
    high: a.high,
  }));
  const axis = useAxisLabels(data.map((d) => d.agent));
  const ties = ranking.agents.reduce((s, a) => s + a.ties, 0) / 2;
  return (
    <div className="flex flex-col gap-3" data-testid="ranking">
      <div className="flex flex-wrap gap-x-5 gap-y-1 text-[12.5px] text-zinc-700">
        <span>
          <strong className="tabular-nums" data-testid="ranking-comparisons">
            {ranking.comparisons}
          </strong>{" "}
          comparisons in the fit
        </span>
        <span>
          <strong className="tabular-nums">{ties}</strong> ties
        </span>
        <span>
          <strong className="tabular-nums" data-testid="ranking-both-fail">
            {ranking.bothFail}
          </strong>{" "}
          both fail (left out of the fit)
        </span>
      </div>
      {ranking.prior && <p className="rounded-md bg-amber-50 px-2 py-1 text-[12px] text-amber-900">Note: {ranking.prior}.</p>}
      <div role="img" aria-label="Bradley–Terry log-strength of each run with its 95% interval" data-testid="ranking-chart">
        <ResponsiveContainer width="100%" height={Math.max(140, 56 + data.length * 34)}>
          <BarChart data={data} layout="vertical" margin={{ top: 8, right: 24, bottom: 8, left: 0 }} barCategoryGap="28%">
            <CartesianGrid stroke="#f4f4f5" horizontal={false} />
            <XAxis
              type="number"
              tick={AXIS}
              domain={["auto", "auto"]}
              label={{ value: "log-strength (0 = average run), 95% interval", position: "insideBottom", offset: -4, fontSize: 11, fill: "#71717a" }}
              height={36}
            />
            <YAxis type="category" dataKey="agent" tick={<RunTick shown={axis.shown} />} interval={0} width={axis.width} />
            <ReferenceLine x={0} stroke="#a1a1aa" />
            <Tooltip
              cursor={{ fill: "#f4f4f5" }}
              content={({ active, payload }) => {
                const d = active ? (payload?.[0]?.payload as (typeof data)[number] | undefined) : undefined;
                if (!d) return null;
                return (
                  <div className="rounded-md border border-zinc-200 bg-white px-2.5 py-1.5 text-[11.5px] shadow-md">
                    <div className="font-medium text-zinc-800">{d.agent}</div>
                    <div className="text-zinc-600 tabular-nums">
                      {fixed(d.value)} [{fixed(d.low)}, {fixed(d.high)}]
                    </div>
                  </div>
                );
              }}
            />
            <Bar dataKey="value" fill="#4f46e5" isAnimationActive={false} maxBarSize={22}>
              <ErrorBar dataKey="err" width={5} stroke="#27272a" strokeWidth={1.3} direction="x" />
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </div>
      <div className="overflow-x-auto">
        <table className="table-dense" data-testid="ranking-table">
          <thead>
            <tr>
              <th className="text-right">Rank</th>
              <th>Run</th>
              <th className="text-right">Log-strength</th>
              <th className="text-right">95% interval</th>
              <th className="text-right" title="Probability of beating a run of average strength">
                P(beats average)
              </th>
              <th className="text-right">Wins</th>
              <th className="text-right">Losses</th>
              <th className="text-right">Ties</th>
              <th className="text-right">Both fail</th>
            </tr>
          </thead>
          <tbody>
            {ranking.agents.map((a) => (
              <tr key={a.agent}>
                <td className="text-right tabular-nums">{a.rank}</td>
                <td className="font-medium">{a.agent}</td>
                <td className="text-right tabular-nums">{fixed(a.logStrength)}</td>
                <td className="text-right tabular-nums">
                  [{fixed(a.low)}, {fixed(a.high)}]
                </td>
                <td className="text-right tabular-nums">{Math.round(100 * a.winProbabilityVsAverage)}%</td>
                <td className="text-right tabular-nums">{a.wins}</td>
                <td className="text-right tabular-nums">{a.losses}</td>
                <td className="text-right tabular-nums">{a.ties}</td>
                <td className="text-right tabular-nums">{a.bothFail}</td>
              </tr>
            ))}
            {ranking.unranked.map((u) => (
              <tr key={u.agent} className="text-zinc-500">
                <td className="text-right">–</td>
                <td>{u.agent}</td>
                <td colSpan={6}>not ranked: every answer on its attempts was both fail</td>
                <td className="text-right tabular-nums">{u.bothFail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="text-2xs text-zinc-500">
        {ranking.method}
        {ranking.unusableReplicates ? `; ${ranking.unusableReplicates} resamples left out because their comparisons fell apart` : ""}.
      </p>
    </div>
  );
}

/** Downloads the campaign's answers as preference pairs, one JSON object a line. */
export function ExportPreferencePairs({ campaignId }: { campaignId: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [state, setState] = useState<{ busy: boolean; message: string; error: boolean }>({ busy: false, message: "", error: false });
  async function download() {
    setState({ busy: true, message: "", error: false });
    try {
      const file = await queryClient.fetchQuery({ ...trpc.pairwise.preferencePairs.queryOptions({ campaignId }), staleTime: 0 });
      if (!file.lines) {
        setState({ busy: false, message: "No answer yet: nothing to export.", error: true });
        return;
      }
      const url = URL.createObjectURL(new Blob([file.jsonl], { type: "application/jsonl" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = file.filename;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
      setState({ busy: false, message: `${file.lines} line${file.lines === 1 ? "" : "s"} exported`, error: false });
    } catch (e) {
      setState({ busy: false, message: (e as Error).message, error: true });
    }
  }
  return (
    <span className="flex items-center gap-2">
      {state.message && (
        <span role={state.error ? "alert" : "status"} className={`text-[12px] ${state.error ? "text-rose-700" : "text-zinc-600"}`}>
          {state.message}
        </span>
      )}
      <button type="button" className="btn btn-on" disabled={state.busy} onClick={() => void download()} data-testid="export-preference-pairs">
        {state.busy ? "Exporting…" : "Export preference pairs (JSONL)"}
      </button>
    </span>
  );
}
