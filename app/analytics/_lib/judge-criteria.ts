/**
 * The judge page's criteria section (key-point and rubric judges): the verdict, each kind of criterion and the
 * process as a whole against people's outcome labels; each criterion of each task against them; and the
 * disagreements with the criteria the judge graded not met. Pure table models, exported as CSV like every table.
 */
import type { CriteriaReport } from "@/server/services/evaluation/criteria-report";
import { csvNumber, fmtCoef, fmtCount, fmtInterval, fmtPercent, fmtPercentInterval, intervalTitle } from "./format";
import { trajectoryCell, type Cell, type TableModel } from "./table";

type Measure = CriteriaReport["outcome"];
type Rate = Measure["errors"]["falsePositive"];

const KIND_LABELS = { key_point: "key point", outcome: "outcome", process: "process" } as const;
const MEASURE_NAMES = { key_point: "Every key point met", outcome: "Every outcome criterion met", process: "Every process criterion met" } as const;

function rateCell(r: Rate): Cell {
  return {
    text: r.estimate === null ? "–" : `${fmtPercent(r.estimate)} ${fmtPercentInterval(r.low, r.high)} (${r.errors}/${r.of})`,
    csv: [csvNumber(r.estimate), csvNumber(r.low), csvNumber(r.high), String(r.errors), String(r.of)],
    tone: r.estimate === null ? "muted" : undefined,
  };
}

function measureCells(m: Measure, graded: string): Record<string, Cell> {
  const k = m.kappa;
  return {
    n: { text: fmtCount(m.n), csv: [String(m.n)] },
    kappa: {
      text: k.kappa === null ? `${fmtCoef(null)}${k.reason ? ` (${k.reason})` : ""}` : `${fmtCoef(k.kappa)} ${fmtInterval(k.interval)}`.trim(),
      csv: [csvNumber(k.kappa), csvNumber(k.interval.low), csvNumber(k.interval.high)],
      title: k.kappa === null ? (k.reason ?? "not defined") : intervalTitle(k.interval),
      tone: k.kappa === null ? "muted" : undefined,
    },
    fpr: rateCell(m.errors.falsePositive),
    fnr: rateCell(m.errors.falseNegative),
    graded: { text: graded, tone: graded === "–" ? "muted" : undefined },
  };
}

/** The verdict, "every criterion of a kind met" and the process as a whole, each against people's outcome. */
export function criteriaMeasureTable(r: CriteriaReport): TableModel {
  const rows = [{ key: "verdict", name: "The verdict", cells: measureCells(r.outcome, "–") }];
  for (const k of r.byKind) {
    const graded = `${k.met} met, ${k.notMet} not met${k.unparseable ? `, ${k.unparseable} unreadable` : ""} (${k.criteria} on ${k.items} item${k.items === 1 ? "" : "s"})`;
    rows.push({ key: k.kind, name: MEASURE_NAMES[k.kind], cells: measureCells(k.againstHuman, graded) });
  }
  if (r.process) rows.push({ key: "process-whole", name: "The process as a whole passed", cells: measureCells(r.process, "–") });
  return {
    name: `${r.config.name} criteria measures`,
    columns: [
      { key: "measure", label: "Judged success when" },
      { key: "n", label: "n", numeric: true, title: "Labelled trajectories compared" },
      { key: "kappa", label: "Cohen κ [95% CI]", csv: ["kappa", "kappa_low", "kappa_high"] },
      { key: "fpr", label: "FPR [95% CI]", title: "Success where people said failure", csv: ["fpr", "fpr_low", "fpr_high", "fp", "human_failures"] },
      { key: "fnr", label: "FNR [95% CI]", title: "Failure where people said success", csv: ["fnr", "fnr_low", "fnr_high", "fn", "human_successes"] },
      { key: "graded", label: "Criteria graded" },
    ],
    rows: rows.map((x) => ({ key: x.key, cells: { measure: { text: x.name }, ...x.cells } })),
  };
}

/** Each criterion of each task: how it was graded and how often it agrees with people's outcome. */
export function criterionTable(r: CriteriaReport): TableModel {
  return {
    name: `${r.config.name} criteria per criterion`,
    columns: [
      { key: "task", label: "Task" },
      { key: "kind", label: "Kind" },
      { key: "text", label: "Criterion" },
      { key: "items", label: "Items", numeric: true },
      { key: "met", label: "Met", numeric: true },
      { key: "notMet", label: "Not met", numeric: true, title: "Not met, or its grade could not be read", csv: ["not_met", "unreadable"] },
      { key: "humanSuccess", label: "People: success", numeric: true },
      {
        key: "agreement",
        label: "Agrees with people [95% CI]",
        title: "Met where people said success, or not met where they said failure (Wilson interval)",
        csv: ["agreement", "agreement_low", "agreement_high", "agreeing"],
      },
      { key: "stricter", label: "Not met, people: success", numeric: true, title: "The criterion failed attempts people accepted" },
      { key: "looser", label: "Met, people: failure", numeric: true, title: "The criterion passed attempts people failed" },
    ],
    rows: r.byCriterion.map((c, i) => ({
      key: `${c.taskId}-${i}`,
      cells: {
        task: { text: c.task, mono: true },
        kind: { text: KIND_LABELS[c.kind] },
        text: { text: c.text },
        items: { text: fmtCount(c.items) },
        met: { text: fmtCount(c.met) },
        notMet: { text: `${fmtCount(c.notMet)}${c.unparseable ? ` + ${c.unparseable} unreadable` : ""}`, csv: [String(c.notMet), String(c.unparseable)] },
        humanSuccess: { text: fmtCount(c.humanSuccess) },
        agreement: {
          text: `${fmtPercent(c.agreement.estimate)} ${fmtPercentInterval(c.agreement.low, c.agreement.high)} (${c.agreement.successes}/${c.agreement.n})`,
          csv: [csvNumber(c.agreement.estimate), csvNumber(c.agreement.low), csvNumber(c.agreement.high), String(c.agreement.successes)],
        },
        stricter: { text: fmtCount(c.notMetButSuccess), tone: c.notMetButSuccess ? "bad" : "muted" },
        looser: { text: fmtCount(c.metButFailure), tone: c.metButFailure ? "bad" : "muted" },
      },
    })),
    empty: "No criteria graded on labelled trajectories.",
  };
}

/** Trajectories where the verdict and people differ, with the criteria the judge graded not met. */
export function criteriaDisagreementTable(r: CriteriaReport): TableModel {
  return {
    name: `${r.config.name} criteria disagreements`,
    columns: [
      { key: "id", label: "Trajectory" },
      { key: "human", label: "People" },
      { key: "judge", label: "Judge" },
      { key: "notMet", label: "Criteria not met" },
    ],
    rows: r.disagreements.map((d) => ({
      key: String(d.trajectoryId),
      cells: {
        id: trajectoryCell(d.trajectoryId, "Open in the player, with the judge's criteria beside it"),
        human: { text: d.human, tone: d.human === "success" ? "good" : "bad" },
        judge: { text: d.verdict, tone: d.verdict === "success" ? "good" : "bad" },
        notMet: {
          text: d.notMet.length ? d.notMet.map((c) => `${c.text}${c.result === "unparseable" ? " (unreadable)" : ""}`).join("; ") : "none",
          tone: d.notMet.length ? undefined : "muted",
        },
      },
    })),
    empty: "The verdict agrees with people on every labelled trajectory.",
  };
}
