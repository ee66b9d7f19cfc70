/**
 * Rate cells and rate figures shared by the overview's tables and charts.
 */
import { selectionHref } from "@/server/domain/analytics/selection";
import type { RateCell } from "@/server/services/analytics";
import { errorDistances, HUMAN_COLOR, PALETTE, seriesKey, type Datum, type RateChartModel, type SeriesModel } from "./charts";
import { csvNumber, fmtCount, fmtPercent, fmtPercentInterval } from "./format";
import type { Cell, Column, TableModel } from "./table";

export interface FigureModel<C> {
  id: string;
  title: string;
  description?: string;
  /** Null when there is nothing to draw (the table then says why). */
  chart: C | null;
  table: TableModel;
}

/** "40.0% [16.8, 68.7] · 4/10", linking to the n trajectories; CSV: rate, low, high, successes, n. */
export function rateCellView(cell: RateCell | undefined): Cell {
  if (!cell || cell.n === 0) {
    const left = cell ? cell.unparseable + cell.notEvaluable + cell.unsure : 0;
    return { text: "–", csv: ["", "", "", "0", "0"], tone: "muted", title: left ? `${left} left out (unparseable, not evaluable or unsure)` : "no verdicts" };
  }
  const notes: string[] = [];
  if (cell.unparseable) notes.push(`${cell.unparseable} unparseable`);
  if (cell.notEvaluable) notes.push(`${cell.notEvaluable} not evaluable (left out)`);
  if (cell.unsure) notes.push(`${cell.unsure} unsure (left out)`);
  return {
    text: `${fmtPercent(cell.rate)} ${fmtPercentInterval(cell.low, cell.high)} · ${fmtCount(cell.successes)}/${fmtCount(cell.n)}`,
    csv: [csvNumber(cell.rate), csvNumber(cell.low), csvNumber(cell.high), String(cell.successes), String(cell.n)],
    href: selectionHref(cell.sel),
    title: `${cell.successes} successes of ${cell.n}; 95% Wilson interval${notes.length ? `; ${notes.join(", ")}` : ""}`,
  };
}

/**
 * The same cell shortened to "40.0% · 4/10" (the interval in its tooltip and the CSV), for tables with a column per
 * agent run, which would otherwise grow thousands of pixels wide.
 */
export function compactRateCellView(cell: RateCell | undefined): Cell {
  const full = rateCellView(cell);
  if (!cell || cell.n === 0) return full;
  return { ...full, text: `${fmtPercent(cell.rate)} · ${fmtCount(cell.successes)}/${fmtCount(cell.n)}`, title: `${full.text}. ${full.title}` };
}

export function rateColumn(key: string, label: string): Column {
  return { key, label, numeric: true, csv: [`${label} rate`, `${label} ci_low`, `${label} ci_high`, `${label} successes`, `${label} n`] };
}

export function seriesColor(id: string, index: number, humanId = "human"): string {
  return id === humanId ? HUMAN_COLOR : PALETTE[index % PALETTE.length]!;
}

/** Datum fields of one rate cell under series key `k`. */
export function rateDatum(k: string, cell: RateCell | undefined): Datum {
  if (!cell || cell.n === 0 || cell.rate === null) return { [k]: null, [`${k}_err`]: [0, 0], [`${k}_n`]: 0, [`${k}_text`]: "no verdicts", [`${k}_href`]: "" };
  return {
    [k]: cell.rate,
    [`${k}_err`]: errorDistances(cell.rate, cell.low, cell.high),
    [`${k}_n`]: cell.n,
    [`${k}_text`]: `${fmtPercent(cell.rate)} (${cell.successes}/${cell.n}) ${fmtPercentInterval(cell.low, cell.high)}`,
    [`${k}_href`]: selectionHref(cell.sel),
  };
}

export interface RateGroup {
  key: string;
  label: string;
  cells: Record<string, RateCell>;
}

/** Beyond this many groups bars lie horizontally, one row each, so their names never run into each other or the legend. */
export const MANY_GROUPS = 16;

/** A chart with one x position per group and one series per column. */
export function rateChart(
  kind: "bars" | "lines",
  x: string,
  groups: RateGroup[],
  columns: { id: string; label: string }[],
  humanId = "human",
): RateChartModel | null {
  if (groups.length === 0 || columns.length === 0) return null;
  const series: SeriesModel[] = columns.map((c, i) => ({ key: seriesKey(i), label: c.label, color: seriesColor(c.id, i, humanId) }));
  const data = groups.map((g) => {
    const d: Datum = { label: g.label };
    columns.forEach((c, i) => Object.assign(d, rateDatum(seriesKey(i), g.cells[c.id])));
    return d;
  });
  return { kind, x, series, data, scale: "proportion", ...(kind === "bars" && groups.length > MANY_GROUPS ? { horizontal: true } : {}) };
}
