/**
 * View models of the error-analysis page: the category distribution (WebVoyager's Table 3), the same by site and
 * by agent run, and where the first failing step falls.
 */
import { selectionHref } from "@/server/domain/analytics/selection";
import type { ErrorAnalysisResult } from "@/server/services/analytics";
import { PALETTE, seriesKey, type CountChartModel, type Datum } from "./charts";
import { csvNumber, fmtCount, fmtPercent } from "./format";
import type { FigureModel } from "./rates";
import type { TableModel } from "./table";

export interface ErrorsView {
  empty: "no-labels" | "no-failures" | null;
  subtitle: string;
  distribution: FigureModel<CountChartModel>;
  bySite: FigureModel<CountChartModel>;
  byRun: FigureModel<CountChartModel>;
  /** Error categories per group of the split asked for; null without one. */
  split: FigureModel<CountChartModel> | null;
  byStep: FigureModel<CountChartModel>;
  byDecile: FigureModel<CountChartModel>;
  positions: TableModel;
}

const categoryLabel = (c: string | null) => c ?? "(no category)";

function categorySeries(order: (string | null)[]) {
  return order.map((c, i) => ({ key: seriesKey(i), label: categoryLabel(c), color: c === null ? "#a1a1aa" : PALETTE[i % PALETTE.length]! }));
}

function groupFigure(id: string, title: string, x: string, e: ErrorAnalysisResult, groups: ErrorAnalysisResult["bySite"]): FigureModel<CountChartModel> {
  const series = categorySeries(e.categoryOrder);
  const data = groups.map((g) => {
    const d: Datum = { label: g.label };
    g.categories.forEach((c, i) => {
      const k = seriesKey(i);
      d[k] = c.count;
      d[`${k}_n`] = c.count;
      d[`${k}_text`] = `${c.count} (${fmtPercent(c.share)} of ${g.failures} failures)`;
      d[`${k}_href`] = selectionHref(c.sel);
    });
    return d;
  });
  return {
    id,
    title,
    description: `Failures by error category on each ${x.toLowerCase()} (consolidated human labels).`,
    chart: groups.length && e.failures ? { kind: "stacked", x, series, data } : null,
    table: {
      name: `error categories per ${x.toLowerCase()}`,
      columns: [
        { key: "group", label: x },
        { key: "labelled", label: "Labelled", numeric: true },
        { key: "failures", label: "Failures", numeric: true },
        ...e.categoryOrder.map((c, i) => ({
          key: `c${i}`,
          label: categoryLabel(c),
          numeric: true,
          csv: [`${categoryLabel(c)} count`, `${categoryLabel(c)} share`],
        })),
      ],
      rows: groups.map((g) => ({
        key: g.key,
        cells: {
          group: { text: g.label },
          labelled: { text: fmtCount(g.labelled), csv: [String(g.labelled)] },
          failures: { text: fmtCount(g.failures), csv: [String(g.failures)], href: g.failures ? selectionHref(g.failureSel) : undefined },
          ...Object.fromEntries(
            g.categories.map((c, i) => [
              `c${i}`,
              {
                text: c.count ? `${fmtCount(c.count)} (${fmtPercent(c.share, 0)})` : "–",
                csv: [String(c.count), csvNumber(c.share)],
                href: c.count ? selectionHref(c.sel) : undefined,
                tone: c.count ? undefined : "muted",
              },
            ]),
          ),
        },
      })),
      empty: "No consolidated labels in this scope.",
    },
  };
}

function binFigure(
  id: string,
  title: string,
  description: string,
  x: string,
  bins: ErrorAnalysisResult["firstFailingStep"]["byIndex"],
): FigureModel<CountChartModel> {
  const k = seriesKey(0);
  const total = bins.reduce((a, b) => a + b.count, 0);
  return {
    id,
    title,
    description,
    chart: total
      ? {
          kind: "bars",
          x,
          series: [{ key: k, label: "Failures", color: PALETTE[3]! }],
          data: bins.map((b) => ({
            label: b.label,
            [k]: b.count,
            [`${k}_n`]: b.count,
            [`${k}_text`]: `${b.count} failures`,
            [`${k}_href`]: b.count ? selectionHref(b.sel) : "",
          })),
        }
      : null,
    table: {
      name: title,
      columns: [
        { key: "bin", label: x },
        { key: "count", label: "Failures", numeric: true },
        { key: "share", label: "Share", numeric: true },
      ],
      rows: bins.map((b) => ({
        key: b.key,
        cells: {
          bin: { text: b.label },
          count: { text: fmtCount(b.count), csv: [String(b.count)], href: b.count ? selectionHref(b.sel) : undefined, tone: b.count ? undefined : "muted" },
          share: { text: fmtPercent(total ? b.count / total : null), csv: [csvNumber(total ? b.count / total : null)] },
        },
      })),
      empty: "No first failing step marked yet (annotators mark it in the label panel).",
    },
  };
}

export function prepareErrors(e: ErrorAnalysisResult): ErrorsView {
  const distributionData: Datum[] = e.overall.map((c) => ({
    label: categoryLabel(c.category),
    s0: c.count,
    s0_n: c.count,
    s0_text: `${c.count} (${fmtPercent(c.share)} of failures)`,
    s0_href: selectionHref(c.sel),
  }));
  return {
    empty: e.labelled === 0 ? "no-labels" : e.failures === 0 ? "no-failures" : null,
    subtitle: `${fmtCount(e.labelled)} consolidated labels in scope: ${fmtCount(e.successes)} successes, ${fmtCount(e.failures)} failures${e.unsure ? `, ${fmtCount(e.unsure)} unsure` : ""}`,
    distribution: {
      id: "distribution",
      title: "Error categories",
      description: "Like WebVoyager's Table 3: the main reason each failed trajectory failed, from the consolidated human label.",
      chart: e.failures
        ? { kind: "bars", x: "Category", series: [{ key: "s0", label: "Failures", color: PALETTE[0]! }], data: distributionData, horizontal: true }
        : null,
      table: {
        name: "error categories",
        columns: [
          { key: "category", label: "Error category" },
          { key: "count", label: "Failures", numeric: true },
          { key: "share", label: "Share of failures", numeric: true },
        ],
        rows: e.overall.map((c) => ({
          key: categoryLabel(c.category),
          cells: {
            category: { text: categoryLabel(c.category) },
            count: { text: fmtCount(c.count), csv: [String(c.count)], href: selectionHref(c.sel) },
            share: { text: fmtPercent(c.share), csv: [csvNumber(c.share)] },
          },
        })),
        empty: "No failures in this scope.",
      },
    },
    bySite: groupFigure("by-site", "Error categories per site", "Site", e, e.bySite),
    byRun: groupFigure("by-run", "Error categories per agent run", "Agent run", e, e.byRun),
    split: e.split ? groupFigure("by-split", `Error categories by ${e.split.title}`, e.split.title, e, e.split.rows) : null,
    byStep: binFigure(
      "by-step",
      "First failing step",
      `Number of the step where the trajectory first went wrong (1 = first step, as in the player), over ${fmtCount(e.firstFailingStep.marked)} failures where it was marked.`,
      "Step",
      e.firstFailingStep.byIndex,
    ),
    byDecile: binFigure(
      "by-decile",
      "First failing step, relative",
      "Where the first failing step sits within its trajectory, in tenths of the trajectory's length.",
      "Part of the trajectory",
      e.firstFailingStep.byDecile,
    ),
    positions: {
      name: "first failing step position per category",
      columns: [
        { key: "category", label: "Error category" },
        { key: "marked", label: "Marked", numeric: true },
        { key: "mean", label: "Mean position (tenth)", numeric: true, title: "1 = first tenth of the trajectory, 10 = last" },
      ],
      rows: e.firstFailingStep.meanPositionByCategory.map((m) => ({
        key: categoryLabel(m.category),
        cells: {
          category: { text: categoryLabel(m.category) },
          marked: { text: fmtCount(m.marked), csv: [String(m.marked)] },
          mean: { text: m.meanPosition === null ? "–" : m.meanPosition.toFixed(1), csv: [csvNumber(m.meanPosition)] },
        },
      })),
      empty: "No first failing step marked.",
    },
  };
}
