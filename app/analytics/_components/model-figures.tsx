/**
 * A prepared figure model (`FigureModel` in app/analytics/_lib/rates.ts) drawn as a Figure with its chart: one part
 * per kind of chart, so pages pass the model instead of spelling out its id, title, description, chart and table.
 * No hooks and no "use client": server pages and client parts both render them. The reliability diagram's figure
 * lives beside its chart (reliability-chart.tsx), so pages without one do not load recharts' scatter code.
 */
import type { CountChartModel, RateChartModel } from "../_lib/charts";
import type { FigureModel } from "../_lib/rates";
import { CountChart, RateChart } from "./charts";
import { Figure } from "./figure";

export type FigureOptions = { defaultView?: "chart" | "table" };

export function RateFigure({ figure, defaultView }: { figure: FigureModel<RateChartModel> } & FigureOptions) {
  const { id, title, description, chart, table } = figure;
  return <Figure id={id} title={title} description={description} chart={chart ? <RateChart model={chart} /> : null} table={table} defaultView={defaultView} />;
}

export function CountFigure({ figure, defaultView }: { figure: FigureModel<CountChartModel> } & FigureOptions) {
  const { id, title, description, chart, table } = figure;
  return <Figure id={id} title={title} description={description} chart={chart ? <CountChart model={chart} /> : null} table={table} defaultView={defaultView} />;
}
