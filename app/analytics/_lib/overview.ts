/**
 * The overview page's view models, from the overview API result: success rate per site, per agent run, per site ×
 * run (WebVoyager's Table 1 layout, one evaluator at a time), per difficulty and per trajectory-length bucket.
 */
import { selectionHref } from "@/server/domain/analytics/selection";
import type { OverviewResult, RateCell, RateRow } from "@/server/services/analytics";
import type { RateChartModel } from "./charts";
import { fmtCount, fmtPercent, fmtPercentInterval } from "./format";
import { runLabels } from "@/server/domain/catalog/run-labels";
import { compactRateCellView, rateCellView, rateChart, rateColumn, type FigureModel } from "./rates";
import type { Row, TableModel } from "./table";

export interface TotalCard {
  id: string;
  label: string;
  value: string;
  detail: string;
  href: string | null;
}

export interface SiteRunFigure {
  id: string;
  title: string;
  description: string;
  /** One figure per evaluator column: x = site, series = agent runs. */
  evaluators: { id: string; label: string; figure: FigureModel<RateChartModel> }[];
}

export interface OverviewView {
  /** Why there is nothing to show, if so. */
  empty: "no-trajectories" | "no-evaluations" | null;
  subtitle: string;
  totals: TotalCard[];
  bySite: FigureModel<RateChartModel>;
  siteRun: SiteRunFigure;
  byRun: FigureModel<RateChartModel>;
  byDifficulty: FigureModel<RateChartModel>;
  byLength: FigureModel<RateChartModel>;
  /** Rates by the split asked for (a task attribute, site, run…); null without one. */
  split: FigureModel<RateChartModel> | null;
}

function groupTable(name: string, groupLabel: string, rows: RateRow[], columns: { id: string; label: string }[]): TableModel {
  return {
    name,
    columns: [
      { key: "group", label: groupLabel },
      { key: "trajectories", label: "Trajectories", numeric: true },
      ...columns.map((c) => rateColumn(c.id, c.label)),
    ],
    rows: rows.map((r): Row => ({
      key: r.key,
      cells: {
        group: { text: r.label, href: selectionHref(r.sel) },
        trajectories: { text: fmtCount(r.trajectories), csv: [String(r.trajectories)], href: selectionHref(r.sel) },
        ...Object.fromEntries(columns.map((c) => [c.id, rateCellView(r.cells[c.id])])),
      },
    })),
    empty: "No trajectories in this scope.",
  };
}

function rateFigure(
  id: string,
  title: string,
  description: string,
  groupLabel: string,
  kind: "bars" | "lines",
  rows: RateRow[],
  columns: { id: string; label: string }[],
): FigureModel<RateChartModel> {
  return { id, title, description, chart: rateChart(kind, groupLabel, rows, columns), table: groupTable(title, groupLabel, rows, columns) };
}

/**
 * The site × run table: a row per site and a column per run, or, with more runs than sites, a row per run and a column
 * per site, so many runs make the table longer rather than thousands of pixels wide. Cells are compact (the interval
 * in their tooltip and the CSV).
 */
function siteRunTable(
  name: string,
  sites: { key: string; label: string; sel: Parameters<typeof selectionHref>[0] }[],
  runs: { id: string; label: string }[],
  groups: { key: string; cells: Record<string, RateCell | undefined> }[],
): TableModel {
  const empty = "No trajectories in this scope.";
  if (runs.length <= sites.length) {
    return {
      name,
      columns: [{ key: "site", label: "Site" }, ...runs.map((r) => rateColumn(r.id, r.label))],
      rows: groups.map((g, i) => ({
        key: g.key,
        cells: {
          site: { text: sites[i]!.label, href: selectionHref(sites[i]!.sel) },
          ...Object.fromEntries(runs.map((r) => [r.id, compactRateCellView(g.cells[r.id])])),
        },
      })),
      empty,
    };
  }
  return {
    name,
    columns: [{ key: "run", label: "Agent run" }, ...sites.map((s) => rateColumn(s.key, s.label))],
    rows: runs.map((r) => ({
      key: r.id,
      cells: { run: { text: r.label }, ...Object.fromEntries(sites.map((s, i) => [s.key, compactRateCellView(groups[i]!.cells[r.id])])) },
    })),
    empty,
  };
}

export function prepareOverview(o: OverviewResult, policyNote = true): OverviewView {
  const columns = o.columns.map((c) => ({ id: c.id, label: c.label }));
  const empty = o.trajectories === 0 ? "no-trajectories" : o.columns.length === 0 ? "no-evaluations" : null;
  const reference = o.campaignId === null ? "the latest consolidated label of each trajectory" : `the consolidated labels of campaign #${o.campaignId}`;
  const unparseable = o.unparseable === "failure" ? "unparseable judge replies count as failures" : "unparseable judge replies are left out (and counted)";

  const totals: TotalCard[] = o.columns.map((c) => ({
    id: c.id,
    label: c.label,
    value: c.total.n ? fmtPercent(c.total.rate) : "–",
    detail: c.total.n ? `${fmtCount(c.total.successes)}/${fmtCount(c.total.n)} ${fmtPercentInterval(c.total.low, c.total.high)}` : "no verdicts in scope",
    href: c.total.n ? selectionHref(c.total.sel) : null,
  }));

  // Site × run: rows = sites, columns = runs (WebVoyager's Table 1), per evaluator.
  const runIds = [...new Set(o.bySiteRun.map((r) => r.runId!))];
  const runLabel = runLabels(o.runs.map((r) => r.name));
  const runs = runIds.map((id) => {
    const name = o.runs.find((r) => r.id === id)?.name;
    return { id: `run:${id}`, runId: id, label: name ? (runLabel.get(name) ?? name) : `run ${id}` };
  });
  const sites = o.bySite.map((s) => ({ key: s.key, label: s.label, site: s.site ?? null, sel: s.sel }));
  const siteRun: SiteRunFigure = {
    id: "site-run",
    title: "Success rate per site and agent run",
    description: "WebVoyager's Table 1 layout: one row per site, one column per agent run, for the evaluator chosen.",
    evaluators: o.columns.map((c) => {
      const groups = sites.map((s) => ({
        key: s.key,
        label: s.label,
        cells: Object.fromEntries(
          runs.map((r) => [r.id, o.bySiteRun.find((x) => x.site === s.site && x.runId === r.runId)?.cells[c.id]]).filter(([, v]) => v !== undefined),
        ),
      }));
      const table = siteRunTable(`success per site and run, ${c.label}`, sites, runs, groups);
      return {
        id: c.id,
        label: c.label,
        figure: {
          id: `site-run:${c.id}`,
          title: c.label,
          chart: rateChart(
            "bars",
            "Site",
            groups,
            runs.map((r) => ({ id: r.id, label: r.label })),
            "-",
          ),
          table,
        },
      };
    }),
  };

  const why = policyNote ? ` Bars show the rate with its 95% Wilson interval; ${unparseable}. Human: ${reference}.` : "";
  return {
    empty,
    subtitle: `${fmtCount(o.trajectories)} trajector${o.trajectories === 1 ? "y" : "ies"} in scope · ${o.columns.length} evaluator${o.columns.length === 1 ? "" : "s"}`,
    totals,
    bySite: rateFigure(
      "by-site",
      "Success rate per site",
      `Each evaluator's success rate over the trajectories it judged on each site.${why}`,
      "Site",
      "bars",
      o.bySite,
      columns,
    ),
    siteRun,
    byRun: rateFigure(
      "by-run",
      "Success rate per agent run",
      `Each evaluator's success rate per agent run.${why}`,
      "Agent run",
      "bars",
      o.byRun.map((r) => ({ ...r, label: runLabel.get(r.label) ?? r.label })),
      columns,
    ),
    byDifficulty: rateFigure(
      "by-difficulty",
      `Success rate by ${o.difficulty} difficulty`,
      `As in VisualWebArena's breakdown by task difficulty (the benchmark's ${o.difficulty} difficulty field).${why}`,
      "Difficulty",
      "bars",
      o.byDifficulty,
      columns,
    ),
    split: o.split
      ? rateFigure(
          "by-split",
          `Success rate by ${o.split.title}`,
          `Each evaluator's success rate per ${o.split.title} group.${why}`,
          o.split.title,
          "bars",
          o.split.rows,
          columns,
        )
      : null,
    byLength: rateFigure(
      "by-length",
      "Success rate by trajectory length",
      `Trajectories grouped by step count in buckets of ${o.lengthBucketWidth}.${why}`,
      "Steps",
      "lines",
      o.byLength,
      columns,
    ),
  };
}
