/**
 * View models of the judge-agreement pages: the list of evaluator settings against the human label (κ chart and
 * table), one evaluator's page (confusion matrix, k-table, splits per site / run / error category) and the
 * disagreement list.
 */
import { selectionHref } from "@/server/domain/analytics/selection";
import type { AgreementStats, DisagreementRow, JudgeDetailResult, JudgeListResult } from "@/server/services/analytics";
import { errorDistances, PALETTE, seriesKey, type Datum, type RateChartModel } from "./charts";
import { csvNumber, fmtCoef, fmtCoefInterval, fmtCount, fmtInterval, fmtP, fmtPercent, fmtPercentInterval, intervalTitle } from "./format";
import type { FigureModel } from "./rates";
import { trajectoryCells, TRAJECTORY_COLUMNS, type Cell, type Column, type Row, type TableModel } from "./table";

export interface MatrixModel {
  rowTitle: string;
  colTitle: string;
  rows: { key: string; label: string }[];
  cols: { key: string; label: string }[];
  /** cells[r][c]; null = nothing to show (e.g. an annotator with themselves). `shade` in [0, 1] sets the colour. */
  cells: ({ text: string; sub?: string; shade: number; href?: string; title?: string; tone?: "agree" | "disagree" } | null)[][];
}

/** Where a setting's own page is: /analytics/judges/<key>?k=…&pv=…, keeping the page filters. */
export function judgePageHref(key: string, identity: { k: string; pv: string } | null, search: string): string {
  const params = new URLSearchParams(search.startsWith("?") ? search.slice(1) : search);
  if (identity) {
    if (identity.k !== "") params.set("k", identity.k);
    if (identity.pv !== "") params.set("pv", identity.pv);
  }
  const s = params.toString();
  return `/analytics/judges/${encodeURIComponent(key)}${s ? `?${s}` : ""}`;
}

export const AGREEMENT_COLUMNS: Column[] = [
  { key: "n", label: "n", numeric: true, title: "Trajectories with a human success/failure label and a counted verdict" },
  { key: "agreement", label: "Agreement", numeric: true },
  { key: "kappa", label: "Cohen κ [95% CI]", numeric: true, csv: ["kappa", "kappa_ci_low", "kappa_ci_high"] },
  { key: "pabak", label: "PABAK", numeric: true, title: "Prevalence- and bias-adjusted κ (2·agreement − 1)" },
  { key: "pi", label: "Prev. index", numeric: true, title: "Prevalence index (A − D)/n, success as positive" },
  { key: "bi", label: "Bias index", numeric: true, title: "Bias index (B − C)/n: human success & judge failure minus the reverse" },
  { key: "precision", label: "Precision", numeric: true, title: "Of the trajectories the evaluator called a success, the share humans call a success" },
  { key: "recall", label: "Recall", numeric: true, title: "Of the human successes, the share the evaluator calls a success" },
  { key: "f1", label: "F1", numeric: true },
  {
    key: "judgeRate",
    label: "Evaluator SR",
    numeric: true,
    title: "Success rate the evaluator gives on the compared trajectories",
    csv: ["evaluator_success_rate", "evaluator_sr_ci_low", "evaluator_sr_ci_high"],
  },
  {
    key: "humanRate",
    label: "Human SR",
    numeric: true,
    title: "Success rate of the human label on the same trajectories",
    csv: ["human_success_rate", "human_sr_ci_low", "human_sr_ci_high"],
  },
  { key: "unparseable", label: "Unparseable", numeric: true },
  { key: "notEvaluable", label: "Not evaluable", numeric: true },
  {
    key: "noReference",
    label: "No human label",
    numeric: true,
    title: "Verdicts on trajectories without a consolidated label, or with an unsure one",
    csv: ["no_human_label", "human_unsure"],
  },
];

/** Cells for AGREEMENT_COLUMNS. */
export function agreementCells(s: AgreementStats): Record<string, Cell> {
  const k = s.kappa;
  const ci = s.bootstrap ? `${fmtInterval(k.interval)} · bootstrap ${fmtCoefInterval(s.bootstrap.low, s.bootstrap.high)}` : fmtInterval(k.interval);
  return {
    n: { text: fmtCount(s.n), csv: [String(s.n)], href: s.n ? selectionHref(s.sel) : undefined },
    agreement: { text: fmtPercent(s.agreement), csv: [csvNumber(s.agreement)] },
    kappa: {
      // Undefined: the short reason reads better than a bare dash.
      text: k.kappa === null ? `${fmtCoef(null)}${k.reason ? ` (${k.reason})` : ""}` : `${fmtCoef(k.kappa)} ${ci}`.trim(),
      csv: [csvNumber(k.kappa), csvNumber(k.interval.low), csvNumber(k.interval.high)],
      title:
        k.kappa === null
          ? (k.reason ?? "not defined")
          : `${intervalTitle(k.interval)}. SE ${fmtCoef(k.stdKappa, 4)}; z ${fmtCoef(k.z, 2)}, p ${fmtP(k.pTwoSided)}`,
      tone: k.kappa === null ? "muted" : undefined,
    },
    pabak: { text: fmtCoef(s.prevalence.pabak), csv: [csvNumber(s.prevalence.pabak)] },
    pi: {
      text: fmtCoef(s.prevalence.prevalenceIndex),
      csv: [csvNumber(s.prevalence.prevalenceIndex)],
      tone: s.prevalence.skewed ? "warn" : undefined,
      title: s.prevalence.warning ?? undefined,
    },
    bi: { text: fmtCoef(s.prevalence.biasIndex), csv: [csvNumber(s.prevalence.biasIndex)] },
    precision: { text: fmtCoef(s.metrics.precision), csv: [csvNumber(s.metrics.precision)] },
    recall: { text: fmtCoef(s.metrics.recall), csv: [csvNumber(s.metrics.recall)] },
    f1: { text: fmtCoef(s.metrics.f1), csv: [csvNumber(s.metrics.f1)] },
    judgeRate: {
      text: `${fmtPercent(s.judgeSuccess.estimate)} ${fmtPercentInterval(s.judgeSuccess.low, s.judgeSuccess.high)}`.trim(),
      csv: [csvNumber(s.judgeSuccess.estimate), csvNumber(s.judgeSuccess.low), csvNumber(s.judgeSuccess.high)],
    },
    humanRate: {
      text: `${fmtPercent(s.humanSuccess.estimate)} ${fmtPercentInterval(s.humanSuccess.low, s.humanSuccess.high)}`.trim(),
      csv: [csvNumber(s.humanSuccess.estimate), csvNumber(s.humanSuccess.low), csvNumber(s.humanSuccess.high)],
    },
    unparseable: {
      text: fmtCount(s.unparseable),
      csv: [String(s.unparseable)],
      href: s.unparseable ? selectionHref(s.unparseableSel) : undefined,
      tone: s.unparseable ? "warn" : "muted",
    },
    notEvaluable: { text: fmtCount(s.notEvaluable), csv: [String(s.notEvaluable)], tone: s.notEvaluable ? undefined : "muted" },
    noReference: {
      text: `${fmtCount(s.noReference)}${s.unsureReference ? ` + ${fmtCount(s.unsureReference)} unsure` : ""}`,
      csv: [String(s.noReference), String(s.unsureReference)],
      tone: "muted",
    },
  };
}

/** κ with its interval per row, as horizontal bars (coefficient scale). */
export function kappaChart(x: string, rows: { label: string; stats: AgreementStats; href: string }[]): RateChartModel | null {
  const withKappa = rows.filter((r) => r.stats.kappa.kappa !== null);
  if (withKappa.length === 0) return null;
  const k = seriesKey(0);
  const data = withKappa.map((r): Datum => {
    const kap = r.stats.kappa;
    return {
      label: r.label,
      [k]: kap.kappa,
      [`${k}_err`]: errorDistances(kap.kappa, kap.interval.low, kap.interval.high),
      [`${k}_n`]: r.stats.n,
      [`${k}_text`]: `κ ${fmtCoef(kap.kappa)} ${fmtInterval(kap.interval)}, n = ${r.stats.n}, agreement ${fmtPercent(r.stats.agreement)}`,
      [`${k}_href`]: r.href,
    };
  });
  return { kind: "bars", x, series: [{ key: k, label: "Cohen κ (95% CI)", color: PALETTE[0]! }], data, scale: "coefficient", horizontal: true };
}

export interface JudgeListView {
  empty: "no-evaluators" | "no-reference" | null;
  subtitle: string;
  chart: FigureModel<RateChartModel>;
  skewed: string[];
  /** Every evaluator's κ per group of the split asked for; null without one. */
  split: TableModel | null;
}

/** κ [interval] with n, the cell of one evaluator in one group of a split. */
function kappaInGroupCell(s: AgreementStats): Cell {
  const k = s.kappa;
  return {
    text: k.kappa === null ? `– · n ${fmtCount(s.n)}` : `${fmtCoef(k.kappa)} ${fmtInterval(k.interval)} · n ${fmtCount(s.n)}`,
    csv: [csvNumber(k.kappa), csvNumber(k.interval.low), csvNumber(k.interval.high), String(s.n), csvNumber(s.agreement)],
    href: s.n ? selectionHref(s.sel) : undefined,
    title: k.kappa === null ? (k.reason ?? "not defined") : `agreement ${fmtPercent(s.agreement)}; ${intervalTitle(k.interval)}`,
    tone: k.kappa === null ? "muted" : undefined,
  };
}

export function prepareJudgeList(list: JudgeListResult, search: string): JudgeListView {
  const rows = list.judges.map((j) => ({
    label: j.info.label,
    stats: j.stats,
    href: judgePageHref(j.info.identity.key, j.info.identity, search),
    kind: j.info.kind,
  }));
  const against = list.reference.description;
  const table: TableModel = {
    name: `judge agreement with ${against}`,
    columns: [{ key: "evaluator", label: "Evaluator" }, { key: "kind", label: "Kind" }, ...AGREEMENT_COLUMNS],
    rows: rows.map((r, i): Row => ({
      key: `${i}`,
      cells: { evaluator: { text: r.label, href: r.href }, kind: { text: r.kind, tone: "muted" }, ...agreementCells(r.stats) },
    })),
    empty: "No evaluator has verdicts in this scope.",
  };
  return {
    empty: list.judges.length === 0 ? "no-evaluators" : list.referenceLabels === 0 ? "no-reference" : null,
    subtitle:
      `${list.judges.length} evaluator setting${list.judges.length === 1 ? "" : "s"} · against ${against}: ${fmtCount(list.referenceLabels)} trajector${list.referenceLabels === 1 ? "y" : "ies"} with success or failure` +
      (list.reference.ties ? ` · ${fmtCount(list.reference.ties)} tied majorit${list.reference.ties === 1 ? "y" : "ies"} counted apart` : ""),
    chart: {
      id: "kappa",
      title: "Agreement with the human reference",
      description: `Cohen's κ of each evaluator setting against ${against}, with its 95% interval (hover it for the method). Click a bar for that evaluator's page.`,
      chart: kappaChart("Evaluator", rows),
      table,
    },
    skewed: rows.filter((r) => r.stats.prevalence.skewed).map((r) => `${r.label}: ${r.stats.prevalence.warning}`),
    split: list.split ? judgeSplitTable(list) : null,
  };
}

/** Rows = the split's groups (in its order), columns = evaluators: κ [interval] · n in each cell. */
function judgeSplitTable(list: JudgeListResult): TableModel {
  const groups = new Map<string, string>();
  for (const j of list.judges) for (const g of j.groups ?? []) if (!groups.has(g.key)) groups.set(g.key, g.label);
  const byJudge = list.judges.map((j) => new Map((j.groups ?? []).map((g) => [g.key, g.stats])));
  return {
    name: `judge agreement by ${list.split!.title}`,
    columns: [
      { key: "group", label: list.split!.title },
      ...list.judges.map((j, i) => ({
        key: `j${i}`,
        label: j.info.label,
        numeric: true,
        csv: [`${j.info.label} kappa`, `${j.info.label} ci_low`, `${j.info.label} ci_high`, `${j.info.label} n`, `${j.info.label} agreement`],
      })),
    ],
    rows: [...groups].map(([key, label]) => ({
      key,
      cells: {
        group: { text: label },
        ...Object.fromEntries(
          byJudge.map((m, i) => [`j${i}`, m.has(key) ? kappaInGroupCell(m.get(key)!) : { text: "–", tone: "muted" as const, csv: ["", "", "", "0", ""] }]),
        ),
      },
    })),
    empty: "No evaluator has verdicts in any group.",
  };
}

export interface StatCard {
  key: string;
  label: string;
  value: string;
  detail?: string;
  /** Tooltip of the detail line (how an interval was found); the detail itself when absent. */
  title?: string;
  href?: string;
  tone?: "warn";
}

export interface JudgeDetailView {
  title: string;
  settings: { key: string; label: string; href: string; current: boolean }[];
  cards: StatCard[];
  skewWarning: string | null;
  confusion: MatrixModel;
  confusionTable: TableModel;
  kTable: FigureModel<RateChartModel> | null;
  bySite: FigureModel<RateChartModel>;
  byRun: TableModel;
  byCategory: FigureModel<RateChartModel>;
  /** Against ${reference}, in words, and a note on ties counted apart. */
  reference: string;
  split: FigureModel<RateChartModel> | null;
  byReference: TableModel;
}

function confusionOf(s: AgreementStats, evaluator: string, human = "Human (consolidated)"): { matrix: MatrixModel; table: TableModel } {
  const labels = ["success", "failure"];
  const max = Math.max(1, ...s.confusion.flat().map((c) => c.count));
  const matrix: MatrixModel = {
    rowTitle: human,
    colTitle: evaluator,
    rows: labels.map((l) => ({ key: l, label: l })),
    cols: labels.map((l) => ({ key: l, label: l })),
    cells: s.confusion.map((row) =>
      row.map((c) => ({
        text: fmtCount(c.count),
        sub: s.n ? fmtPercent(c.count / s.n) : undefined,
        shade: c.count / max,
        href: c.count ? selectionHref(c.sel) : undefined,
        title: `human ${c.human}, evaluator ${c.judge}: ${c.count}`,
        tone: c.human === c.judge ? "agree" : "disagree",
      })),
    ),
  };
  const table: TableModel = {
    name: `confusion matrix ${evaluator}`,
    columns: [{ key: "human", label: "Human \\ evaluator" }, ...labels.map((l) => ({ key: l, label: l, numeric: true }))],
    rows: s.confusion.map((row, i) => ({
      key: labels[i]!,
      cells: {
        human: { text: labels[i]! },
        ...Object.fromEntries(row.map((c) => [c.judge, { text: fmtCount(c.count), csv: [String(c.count)], href: c.count ? selectionHref(c.sel) : undefined }])),
      },
    })),
  };
  return { matrix, table };
}

/** The headline figures of one judge setting against the human reference. */
function judgeCards(s: JudgeDetailResult["overall"]): StatCard[] {
  const k = s.kappa;
  return [
    { key: "n", label: "Compared", value: fmtCount(s.n), detail: "trajectories with both labels", href: s.n ? selectionHref(s.sel) : undefined },
    { key: "agreement", label: "Agreement", value: fmtPercent(s.agreement) },
    {
      key: "kappa",
      label: "Cohen κ",
      value: fmtCoef(k.kappa),
      detail:
        k.kappa === null
          ? (k.reason ?? undefined)
          : `95% CI ${fmtInterval(k.interval)}${s.bootstrap ? ` · bootstrap ${fmtCoefInterval(s.bootstrap.low, s.bootstrap.high)}` : ""}`,
      title: k.kappa === null ? undefined : intervalTitle(k.interval),
    },
    { key: "z", label: "z (κ = 0)", value: fmtCoef(k.z, 2), detail: `p ${fmtP(k.pTwoSided)}` },
    {
      key: "pabak",
      label: "PABAK",
      value: fmtCoef(s.prevalence.pabak),
      detail: `PI ${fmtCoef(s.prevalence.prevalenceIndex)} · BI ${fmtCoef(s.prevalence.biasIndex)}`,
      tone: s.prevalence.skewed ? "warn" : undefined,
    },
    { key: "f1", label: "F1 of success", value: fmtCoef(s.metrics.f1), detail: `P ${fmtCoef(s.metrics.precision)} · R ${fmtCoef(s.metrics.recall)}` },
    {
      key: "unparseable",
      label: "Unparseable",
      value: fmtCount(s.unparseable),
      detail: "counted apart",
      href: s.unparseable ? selectionHref(s.unparseableSel) : undefined,
      tone: s.unparseable ? "warn" : undefined,
    },
  ];
}

/** The judge against each reference it could be measured against (consolidated, majority, each annotator). */
function byReferenceTable(d: JudgeDetailResult, search: string): TableModel {
  return {
    name: `agreement per reference ${d.selected.label}`,
    columns: [
      { key: "reference", label: "Reference" },
      { key: "ties", label: "Ties", numeric: true, title: "Trajectories whose annotators split evenly: no majority, counted apart" },
      ...AGREEMENT_COLUMNS,
    ],
    rows: d.byReference.map((r) => ({
      key: r.key,
      cells: {
        reference: {
          text: `${r.label}${r.current ? " (in use)" : ""}`,
          tone: r.current ? "strong" : undefined,
          href: judgePageHref(d.evaluatorKey, d.selected.identity, withRef(search, r.key)),
        },
        ties: {
          text: r.spec.kind === "majority" ? fmtCount(r.stats.tieReference) : "–",
          csv: [String(r.stats.tieReference)],
          tone: r.stats.tieReference ? "warn" : "muted",
        },
        ...agreementCells(r.stats),
      },
    })),
    empty: "No annotator labels to compare with.",
  };
}

/** Of the failures humans put in each category, how many the evaluator also calls a failure. */
function byCategoryFigure(d: JudgeDetailResult): FigureModel<RateChartModel> {
  const catKey = seriesKey(0);
  const categoryChart: RateChartModel | null = d.byCategory.length
    ? {
        kind: "bars",
        x: "Human error category",
        series: [{ key: catKey, label: "Failures the evaluator also calls failures", color: PALETTE[1]! }],
        data: d.byCategory.map((c) => ({
          label: c.category ?? "(no category)",
          [catKey]: c.caughtRate.estimate,
          [`${catKey}_err`]: errorDistances(c.caughtRate.estimate, c.caughtRate.low, c.caughtRate.high),
          [`${catKey}_n`]: c.n,
          [`${catKey}_text`]: `${fmtPercent(c.caughtRate.estimate)} (${c.caught}/${c.n}) ${fmtPercentInterval(c.caughtRate.low, c.caughtRate.high)}`,
          [`${catKey}_href`]: selectionHref(c.caughtSel),
        })),
        scale: "proportion",
        horizontal: true,
      }
    : null;

  return {
    id: "by-category",
    title: "Human failures per error category",
    description:
      "For the failures humans put in each category: how many the evaluator also calls a failure (κ is undefined inside one category, since every human label there is a failure).",
    chart: categoryChart,
    table: {
      name: `human failures per category ${d.selected.label}`,
      columns: [
        { key: "category", label: "Human category" },
        { key: "n", label: "Failures", numeric: true },
        { key: "caught", label: "Evaluator: failure", numeric: true },
        { key: "missed", label: "Evaluator: success", numeric: true },
        { key: "rate", label: "Caught [95% CI]", numeric: true, csv: ["caught_rate", "ci_low", "ci_high"] },
        { key: "unparseable", label: "Unparseable", numeric: true },
      ],
      rows: d.byCategory.map((c) => ({
        key: c.category ?? "(none)",
        cells: {
          category: { text: c.category ?? "(no category)" },
          n: { text: fmtCount(c.n), csv: [String(c.n)], href: c.n ? selectionHref(c.sel) : undefined },
          caught: { text: fmtCount(c.caught), csv: [String(c.caught)], href: c.caught ? selectionHref(c.caughtSel) : undefined },
          missed: {
            text: fmtCount(c.missed),
            csv: [String(c.missed)],
            href: c.missed ? selectionHref(c.missedSel) : undefined,
            tone: c.missed ? "bad" : undefined,
          },
          rate: {
            text: `${fmtPercent(c.caughtRate.estimate)} ${fmtPercentInterval(c.caughtRate.low, c.caughtRate.high)}`.trim(),
            csv: [csvNumber(c.caughtRate.estimate), csvNumber(c.caughtRate.low), csvNumber(c.caughtRate.high)],
          },
          unparseable: { text: fmtCount(c.unparseable), csv: [String(c.unparseable)], tone: "muted" },
        },
      })),
      empty: "No human failures among the compared trajectories.",
    },
  };
}

export function prepareJudgeDetail(d: JudgeDetailResult, search: string): JudgeDetailView {
  const s = d.overall;
  const humanTitle =
    d.reference.spec.kind === "consolidated"
      ? "Human (consolidated)"
      : d.reference.spec.kind === "majority"
        ? "Human (majority)"
        : `Human (${d.reference.description.replace(/'s labels$/, "")})`;
  const { matrix, table } = confusionOf(s, d.selected.label, humanTitle);
  const cards = judgeCards(s);
  const settingRows = d.settings.map((x) => ({
    label: x.info.label,
    stats: x.stats,
    href: judgePageHref(d.evaluatorKey, x.info.identity, search),
    identity: x.info.identity,
  }));
  const kTable: FigureModel<RateChartModel> | null =
    d.settings.length > 1
      ? {
          id: "k-table",
          title: "Agreement per setting (k = screenshots shown)",
          description: "Like WebVoyager's Table 2: the same judge with different screenshot windows k (and prompt versions), each against the human label.",
          chart: kappaChart("Setting", settingRows),
          table: {
            name: `k-table ${d.name}`,
            columns: [{ key: "k", label: "k" }, { key: "pv", label: "Prompt" }, ...AGREEMENT_COLUMNS],
            rows: settingRows.map((r, i) => ({
              key: `${i}`,
              cells: { k: { text: r.identity.k || "–", href: r.href }, pv: { text: r.identity.pv || "–", tone: "muted" }, ...agreementCells(r.stats) },
            })),
          },
        }
      : null;

  const siteRows = d.bySite.map((r) => ({ label: r.label, stats: r.stats, href: selectionHref(r.stats.sel) }));
  const splitTable = (name: string, first: string, rows: { key: string; label: string; stats: AgreementStats }[]): TableModel => ({
    name,
    columns: [{ key: "group", label: first }, ...AGREEMENT_COLUMNS],
    rows: rows.map((r) => ({ key: r.key, cells: { group: { text: r.label, href: selectionHref(r.stats.sel) }, ...agreementCells(r.stats) } })),
    empty: "Nothing to compare.",
  });

  return {
    title: d.name,
    settings: settingRows.map((r) => ({
      key: `${r.identity.k}|${r.identity.pv}`,
      label: r.label,
      href: r.href,
      current: r.identity.k === d.selected.identity.k && r.identity.pv === d.selected.identity.pv,
    })),
    cards,
    skewWarning: s.prevalence.warning,
    confusion: matrix,
    confusionTable: table,
    kTable,
    bySite: {
      id: "by-site",
      title: "Agreement per site",
      description: "κ with its 95% interval on each site's trajectories.",
      chart: kappaChart("Site", siteRows),
      table: splitTable(`agreement per site ${d.selected.label}`, "Site", d.bySite),
    },
    byRun: splitTable(`agreement per run ${d.selected.label}`, "Agent run", d.byRun),
    reference:
      `Against ${d.reference.description}` +
      (d.reference.ties ? ` · ${fmtCount(d.reference.ties)} trajector${d.reference.ties === 1 ? "y" : "ies"} with a tied majority counted apart` : "") +
      (d.reference.unsure ? ` · ${fmtCount(d.reference.unsure)} unsure` : ""),
    split: d.split
      ? {
          id: "by-split",
          title: `Agreement by ${d.split.title}`,
          description: `κ with its 95% interval on the trajectories of each ${d.split.title} group.`,
          chart: kappaChart(
            d.split.title,
            d.split.rows.map((r) => ({ label: r.label, stats: r.stats, href: selectionHref(r.stats.sel) })),
          ),
          table: splitTable(`agreement by ${d.split.title} ${d.selected.label}`, d.split.title, d.split.rows),
        }
      : null,
    byReference: byReferenceTable(d, search),
    byCategory: byCategoryFigure(d),
  };
}

/** The page's search string with `ref` set to a reference (consolidated drops it), for the per-reference links. */
function withRef(search: string, ref: string): string {
  const p = new URLSearchParams(search.startsWith("?") ? search.slice(1) : search);
  if (ref === "consolidated") p.delete("ref");
  else p.set("ref", ref);
  const s = p.toString();
  return s ? `?${s}` : "";
}

/** Trajectories where the evaluator and the human label disagree (`judgeDisagreements`), with the evaluator's rationale. */
export function disagreementTable(rows: DisagreementRow[], name: string): TableModel {
  return {
    name,
    columns: [
      ...TRAJECTORY_COLUMNS,
      { key: "human", label: "Human" },
      { key: "judge", label: "Evaluator" },
      { key: "rationale", label: "Evaluator's rationale" },
      // A link only: left out of the CSV export.
      { key: "compare", label: "Side by side", csv: [] },
    ],
    rows: rows.map((r) => ({
      key: String(r.trajectoryId),
      cells: {
        ...trajectoryCells(r),
        human: { text: r.human === "failure" && r.humanCategory ? `failure (${r.humanCategory})` : r.human, tone: r.human === "success" ? "good" : "bad" },
        judge: { text: r.judge, tone: r.judge === "success" ? "good" : r.judge === "failure" ? "bad" : "warn" },
        rationale: {
          text: r.rationale ? (r.rationale.length > 240 ? `${r.rationale.slice(0, 240)}…` : r.rationale) : "–",
          csv: [r.rationale ?? ""],
          title: r.rationale ?? undefined,
          tone: r.rationale ? undefined : "muted",
        },
        compare: {
          text: "Compare attempts",
          href: `/compare?of=${r.trajectoryId}`,
          title: "This trajectory beside the other attempts at its task, step by step",
        },
      },
    })),
    empty: "No disagreements.",
  };
}
