/**
 * View models of the judge-measures figures on the judge agreement page: error rates (FPR/FNR bars with their
 * task-clustered intervals, and a table with the success-rate gap and the unparseable rate), the same per site and
 * per agent run, the reliability diagram of sampled judges, and the agent ranking under each rater with Kendall τ.
 */
import type { EvaluatorMeasures, FailureStepResult, JudgeMeasuresResult, StepAgreement } from "@/server/services/analytics";
import type { ErrorRate, SuccessGap } from "@/server/domain/analytics/evaluator-measures";
import { errorDistances, PALETTE, seriesKey, type Datum, type RateChartModel, type SeriesModel } from "./charts";
import { csvNumber, fmtCoef, fmtCount, fmtPercent, fmtPercentInterval } from "./format";
import { judgePageHref } from "./judges";
import type { FigureModel } from "./rates";
import type { Cell, Column, Row, TableModel } from "./table";

/** "20.0% [0.0, 50.0] · 1/5"; CSV: rate, low, high, errors, of. */
function errorRateCell(r: ErrorRate): Cell {
  return {
    text:
      r.estimate === null
        ? "–"
        : `${fmtPercent(r.estimate)} ${fmtPercentInterval(r.low, r.high)} · ${fmtCount(r.errors)}/${fmtCount(r.of)}`.replace(/\s+/g, " "),
    csv: [csvNumber(r.estimate), csvNumber(r.low), csvNumber(r.high), String(r.errors), String(r.of)],
    tone: r.estimate === null ? "muted" : undefined,
  };
}

function points(v: number | null): string {
  if (v === null) return "–";
  const p = v * 100;
  return `${p > 0 ? "+" : p < 0 ? "−" : "±"}${Math.abs(p).toFixed(1)}`;
}

/** "+11.1 pts [−5.0, 30.0]"; CSV: gap, low, high, evaluator rate, human rate. */
function gapCell(g: SuccessGap): Cell {
  const interval = g.low === null || g.high === null ? "" : ` [${points(g.low)}, ${points(g.high)}]`;
  return {
    text: g.estimate === null ? "–" : `${points(g.estimate)} pts${interval}`,
    csv: [csvNumber(g.estimate), csvNumber(g.low), csvNumber(g.high), csvNumber(g.evaluatorRate), csvNumber(g.humanRate)],
    title: g.estimate === null ? undefined : `evaluator ${fmtPercent(g.evaluatorRate)} vs humans ${fmtPercent(g.humanRate)} on the same trajectories`,
    tone: g.estimate === null ? "muted" : undefined,
  };
}

const ERROR_COLUMNS: Column[] = [
  { key: "n", label: "n", numeric: true, title: "Trajectories with a human success/failure label and a counted verdict" },
  {
    key: "tasks",
    label: "Tasks",
    numeric: true,
    title: "Tasks those trajectories belong to: the clusters the intervals account for (the gap's bootstrap resamples them)",
  },
  {
    key: "fpr",
    label: "False-positive rate [95% CI]",
    numeric: true,
    title: "Evaluator says success where humans say failure, over human failures",
    csv: ["fpr", "fpr_ci_low", "fpr_ci_high", "false_positives", "human_failures"],
  },
  {
    key: "fnr",
    label: "False-negative rate [95% CI]",
    numeric: true,
    title: "Evaluator says failure where humans say success, over human successes",
    csv: ["fnr", "fnr_ci_low", "fnr_ci_high", "false_negatives", "human_successes"],
  },
  {
    key: "gap",
    label: "Success-rate gap [95% CI]",
    numeric: true,
    title: "Evaluator's success rate minus the humans' on the same trajectories (paired)",
    csv: ["gap", "gap_ci_low", "gap_ci_high", "evaluator_success_rate", "human_success_rate"],
  },
];

function errorCells(e: EvaluatorMeasures["errors"]): Record<string, Cell> {
  return {
    n: { text: fmtCount(e.n), csv: [String(e.n)] },
    tasks: { text: fmtCount(e.tasks), csv: [String(e.tasks)], title: e.reason ?? undefined, tone: e.reason ? "warn" : undefined },
    fpr: errorRateCell(e.falsePositive),
    fnr: errorRateCell(e.falseNegative),
    gap: gapCell(e.gap),
  };
}

export interface JudgeMeasuresView {
  /** Null when no judge was run both with and without the final answer. */
  hygiene: TableModel | null;
  errors: FigureModel<RateChartModel>;
  splits: TableModel;
  reliability: FigureModel<ReliabilityModel>;
  ranking: TableModel;
}

export interface ReliabilityModel {
  series: (SeriesModel & { points: { x: number; y: number; n: number; text: string }[] })[];
}

/** False-positive and false-negative rates per evaluator, as bars and as a table with the unparseable share. */
function errorRatesFigure(m: JudgeMeasuresResult, search: string): FigureModel<RateChartModel> {
  const fp = seriesKey(0);
  const fn = seriesKey(1);
  const withRates = m.evaluators.filter((e) => e.errors.n > 0);
  const data = withRates.map((e): Datum => {
    const { falsePositive: a, falseNegative: b } = e.errors;
    return {
      label: e.info.label,
      [fp]: a.estimate,
      [`${fp}_err`]: errorDistances(a.estimate, a.low, a.high),
      [`${fp}_n`]: a.of,
      [`${fp}_text`]: `${fmtPercent(a.estimate)} ${fmtPercentInterval(a.low, a.high)} · ${a.errors}/${a.of} human failures`,
      [`${fp}_href`]: judgePageHref(e.info.identity.key, e.info.identity, search),
      [fn]: b.estimate,
      [`${fn}_err`]: errorDistances(b.estimate, b.low, b.high),
      [`${fn}_n`]: b.of,
      [`${fn}_text`]: `${fmtPercent(b.estimate)} ${fmtPercentInterval(b.low, b.high)} · ${b.errors}/${b.of} human successes`,
      [`${fn}_href`]: judgePageHref(e.info.identity.key, e.info.identity, search),
    };
  });
  return {
    id: "error-rates",
    title: "False-positive and false-negative rates",
    description: `How often each evaluator passes a trajectory humans fail (false positive) and fails one humans pass (false negative). Whiskers: 95% Wilson intervals with the effective sample size of the tasks (trajectories of one task count as less than independent ones; docs/statistics.md).`,
    chart: data.length
      ? {
          kind: "bars",
          x: "Evaluator",
          series: [
            { key: fp, label: "False-positive rate", color: PALETTE[7]! },
            { key: fn, label: "False-negative rate", color: PALETTE[4]! },
          ],
          data,
          scale: "proportion",
          horizontal: true,
        }
      : null,
    table: {
      name: "judge error rates against the consolidated human label",
      columns: [
        { key: "evaluator", label: "Evaluator" },
        ...ERROR_COLUMNS,
        {
          key: "unparseable",
          label: "Unparseable [95% CI]",
          numeric: true,
          title: "Verdicts whose reply could not be parsed, of all verdicts in scope (and of sampled replies)",
          csv: ["unparseable_rate", "unparseable_ci_low", "unparseable_ci_high", "unparseable", "verdicts", "unparseable_samples", "samples"],
        },
      ],
      rows: m.evaluators.map((e, i): Row => {
        const u = e.unparseable;
        return {
          key: `${i}`,
          cells: {
            evaluator: { text: e.info.label, href: judgePageHref(e.info.identity.key, e.info.identity, search) },
            ...errorCells(e.errors),
            unparseable: {
              text: `${fmtPercent(u.rate.estimate)} ${fmtPercentInterval(u.rate.low, u.rate.high)} · ${fmtCount(u.unparseable)}/${fmtCount(u.verdicts)}${u.samples ? ` · samples ${fmtCount(u.unparseableSamples)}/${fmtCount(u.samples)}` : ""}`,
              csv: [
                csvNumber(u.rate.estimate),
                csvNumber(u.rate.low),
                csvNumber(u.rate.high),
                String(u.unparseable),
                String(u.verdicts),
                String(u.unparseableSamples),
                String(u.samples),
              ],
              tone: u.unparseable ? "warn" : "muted",
            },
          },
        };
      }),
      empty: "No evaluator has verdicts on human-labelled trajectories in this scope.",
    },
  };
}

/** The same rates per split, site and agent run. */
function errorSplitsTable(m: JudgeMeasuresResult): TableModel {
  return {
    name: "judge error rates per site and agent run",
    columns: [{ key: "evaluator", label: "Evaluator" }, { key: "split", label: "Split" }, { key: "group", label: "Group" }, ...ERROR_COLUMNS],
    rows: m.evaluators.flatMap((e) =>
      [
        ...(e.bySplit ?? []).map((s) => ({ kind: e.splitTitle ?? "split", s })),
        ...e.bySite.map((s) => ({ kind: "site", s })),
        ...e.byRun.map((s) => ({ kind: "agent run", s })),
      ].map(({ kind, s }) => ({
        key: `${e.info.id}|${kind}|${s.key}`,
        cells: { evaluator: { text: e.info.label }, split: { text: kind, tone: "muted" as const }, group: { text: s.label }, ...errorCells(s.errors) },
      })),
    ),
    empty: "Nothing to compare.",
  };
}

/** Reliability diagram of the judges asked several times per item, with ECE and Brier per bin. */
function reliabilityFigure(m: JudgeMeasuresResult): FigureModel<ReliabilityModel> {
  const sampled = m.evaluators.filter((e) => e.calibration);
  return {
    id: "reliability",
    title: "Calibration of sampled judges",
    description:
      "Each judge asked several times per item: its confidence is the share of samples that said success. Points: items binned by confidence (x: mean confidence, y: share humans call a success); on the diagonal a judge is calibrated. ECE: the bins' mean distance from the diagonal, weighted by their size.",
    chart: sampled.length
      ? {
          series: sampled.map((e, i) => ({
            key: seriesKey(i),
            label: `${e.info.label} (ECE ${fmtCoef(e.calibration!.ece)})`,
            color: PALETTE[i % PALETTE.length]!,
            points: e
              .calibration!.bins.filter((b) => b.n > 0)
              .map((b) => ({
                x: b.meanConfidence!,
                y: b.observed!,
                n: b.n,
                text: `confidence ${fmtPercent(b.meanConfidence)} → humans ${fmtPercent(b.observed)} success, n = ${fmtCount(b.n)}`,
              })),
          })),
        }
      : null,
    table: {
      name: "judge calibration",
      columns: [
        { key: "evaluator", label: "Evaluator" },
        { key: "bin", label: "Confidence bin" },
        { key: "n", label: "Items", numeric: true },
        { key: "confidence", label: "Mean confidence", numeric: true },
        { key: "observed", label: "Human success", numeric: true },
        { key: "ece", label: "ECE", numeric: true, title: "Expected calibration error of the evaluator (all bins)" },
        { key: "brier", label: "Brier", numeric: true },
      ],
      rows: m.evaluators.flatMap((e): Row[] =>
        e.calibration
          ? e.calibration.bins
              .filter((b) => b.n > 0)
              .map((b) => ({
                key: `${e.info.id}|${b.low}`,
                cells: {
                  evaluator: { text: e.info.label },
                  bin: { text: `${Math.round(b.low * 100)}–${Math.round(b.high * 100)}%`, csv: [`${b.low}-${b.high}`] },
                  n: { text: fmtCount(b.n), csv: [String(b.n)] },
                  confidence: { text: fmtPercent(b.meanConfidence), csv: [csvNumber(b.meanConfidence)] },
                  observed: { text: fmtPercent(b.observed), csv: [csvNumber(b.observed)] },
                  ece: { text: fmtCoef(e.calibration!.ece), csv: [csvNumber(e.calibration!.ece)] },
                  brier: { text: fmtCoef(e.calibration!.brier), csv: [csvNumber(e.calibration!.brier)] },
                },
              }))
          : [{ key: e.info.id, cells: { evaluator: { text: e.info.label }, bin: { text: e.calibrationNote ?? "–", tone: "muted" } } }],
      ),
      empty: "No evaluator in this scope.",
    },
  };
}

/** Each agent run's rank by the humans and by every evaluator, with Kendall's τ-b against the humans. */
function rankingTable(m: JudgeMeasuresResult): TableModel {
  const rankColumns: Column[] = [
    { key: "run", label: "Agent run" },
    {
      key: "human",
      label: "Humans",
      numeric: true,
      title: "Rank by the consolidated human success rate",
      csv: ["human_rank", "human_success_rate", "human_n"],
    },
    ...m.evaluators.map((e) => ({
      key: e.info.id,
      label: e.info.label,
      numeric: true,
      csv: [`${e.info.label} rank`, `${e.info.label} success rate`, `${e.info.label} n`],
    })),
  ];
  const rankCell = (c: { rank: number | null; rate: number | null; n: number }, human?: number | null): Cell => ({
    text: c.rank === null ? "–" : `#${c.rank} · ${fmtPercent(c.rate)}`,
    csv: [c.rank === null ? "" : String(c.rank), csvNumber(c.rate), String(c.n)],
    tone: c.rank === null ? "muted" : human !== undefined && human !== null && c.rank !== human ? "warn" : undefined,
    title: c.rank === null ? undefined : `n = ${fmtCount(c.n)}`,
  });
  return {
    name: "agent ranking per evaluator",
    columns: rankColumns,
    rows: [
      ...m.ranking.runs.map((r): Row => ({
        key: String(r.runId),
        cells: {
          run: { text: r.name },
          human: { ...rankCell(r.human), tone: "strong" },
          ...Object.fromEntries(m.evaluators.map((e) => [e.info.id, rankCell(r.evaluators[e.info.id]!, r.human.rank)])),
        },
      })),
      {
        key: "tau",
        cells: {
          run: { text: "Kendall τ-b with the humans", tone: "strong" },
          human: { text: "", csv: ["", "", ""] },
          ...Object.fromEntries(
            m.ranking.tau.map((t) => [
              t.id,
              {
                text: t.tau.tau === null ? `– (${t.tau.reason})` : `τ ${fmtCoef(t.tau.tau)}`,
                csv: [csvNumber(t.tau.tau), "", String(t.tau.n)],
                title: `concordant ${t.tau.concordant}, discordant ${t.tau.discordant}, ties ${t.tau.tiesX}/${t.tau.tiesY}/${t.tau.tiesBoth}`,
                tone: "strong" as const,
              },
            ]),
          ),
        },
      },
    ],
    empty: "No agent run rated in this scope.",
  };
}

/** Judges run with and without the agent's final answer, side by side; null when there are none. */
function hygieneTable(m: JudgeMeasuresResult): TableModel | null {
  return m.hygiene.length
    ? {
        name: "judge with and without the final answer",
        columns: [
          { key: "setting", label: "Judge" },
          { key: "k", label: "k" },
          { key: "kappaWith", label: "κ with answer", numeric: true },
          { key: "kappaWithout", label: "κ without", numeric: true },
          {
            key: "fprWith",
            label: "FPR with answer",
            numeric: true,
            csv: ["fpr_with", "fpr_with_ci_low", "fpr_with_ci_high", "fp_with", "human_failures_with"],
          },
          {
            key: "fprWithout",
            label: "FPR without",
            numeric: true,
            csv: ["fpr_without", "fpr_without_ci_low", "fpr_without_ci_high", "fp_without", "human_failures_without"],
          },
        ],
        rows: m.hygiene.map((h, i) => ({
          key: `${i}`,
          cells: {
            setting: { text: `${h.withAnswer.label} / ${h.withoutAnswer.label}` },
            k: { text: h.k || "–" },
            kappaWith: { text: fmtCoef(h.withAnswer.kappa.kappa), csv: [csvNumber(h.withAnswer.kappa.kappa)] },
            kappaWithout: { text: fmtCoef(h.withoutAnswer.kappa.kappa), csv: [csvNumber(h.withoutAnswer.kappa.kappa)] },
            fprWith: errorRateCell(h.withAnswer.errors.falsePositive),
            fprWithout: errorRateCell(h.withoutAnswer.errors.falsePositive),
          },
        })),
      }
    : null;
}

export function prepareJudgeMeasures(m: JudgeMeasuresResult, search: string): JudgeMeasuresView {
  return {
    hygiene: hygieneTable(m),
    errors: errorRatesFigure(m, search),
    splits: errorSplitsTable(m),
    reliability: reliabilityFigure(m),
    ranking: rankingTable(m),
  };
}

/** Exact, ±1 and offset of first failing steps: annotator pairs, then each evaluator that gives a step. */
export function failureStepTable(r: FailureStepResult): TableModel {
  const cells = (a: StepAgreement, signed: boolean): Record<string, Cell> => ({
    pairs: { text: fmtCount(a.pairs), csv: [String(a.pairs)] },
    exact: { text: a.pairs ? `${fmtPercent(a.exactRate)} · ${fmtCount(a.exact)}` : "–", csv: [csvNumber(a.exactRate), String(a.exact)] },
    within: { text: a.pairs ? `${fmtPercent(a.withinOneRate)} · ${fmtCount(a.withinOne)}` : "–", csv: [csvNumber(a.withinOneRate), String(a.withinOne)] },
    offset: {
      text: signed && a.meanOffset !== null ? `${a.meanOffset > 0 ? "+" : ""}${a.meanOffset.toFixed(2)}` : "–",
      csv: [signed ? csvNumber(a.meanOffset) : ""],
      title: signed ? "Evaluator's step minus the human's: positive = the evaluator places the failure later" : "Pairs of annotators have no direction",
    },
    absolute: { text: a.meanAbsoluteOffset === null ? "–" : a.meanAbsoluteOffset.toFixed(2), csv: [csvNumber(a.meanAbsoluteOffset)] },
  });
  return {
    name: "first failing step agreement",
    columns: [
      { key: "rater", label: "Compared" },
      { key: "pairs", label: "Pairs", numeric: true, title: "Both called the trajectory a failure and marked a step" },
      { key: "exact", label: "Exact", numeric: true, csv: ["exact_rate", "exact"] },
      { key: "within", label: "Within ±1 step", numeric: true, csv: ["within_one_rate", "within_one"] },
      { key: "offset", label: "Mean offset", numeric: true },
      { key: "absolute", label: "Mean |offset|", numeric: true },
      {
        key: "without",
        label: "Failures without a step",
        numeric: true,
        title: "Evaluator failures on human failures with a step, where the evaluator gave no (parseable) step",
      },
    ],
    rows: [
      {
        key: "humans",
        cells: { rater: { text: "Humans (annotator pairs)", tone: "strong" }, ...cells(r.humans, false), without: { text: "–", tone: "muted" } },
      },
      ...r.evaluators.map((e) => ({
        key: e.info.id,
        cells: {
          rater: { text: `${e.info.label} vs humans` },
          ...cells(e.agreement, true),
          without: { text: fmtCount(e.withoutStep), csv: [String(e.withoutStep)], tone: e.withoutStep ? ("warn" as const) : ("muted" as const) },
        },
      })),
    ],
    empty: "No first failing steps marked.",
  };
}
