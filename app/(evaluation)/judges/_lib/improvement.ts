/**
 * What the stress-test and alignment pages show, prepared from the API's answers: figures as text with their
 * intervals (the analytics pages' conventions), the charts' view models, and the split as a CSV file. Pure.
 */
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { errorDistances, PALETTE, type RateChartModel } from "../../../analytics/_lib/charts";
import { fmtCoef, fmtInterval, fmtPercent, fmtPercentInterval } from "../../../analytics/_lib/format";

type Outputs = inferRouterOutputs<AppRouter>["judge"];
export type StressReport = Outputs["stress"]["report"];
export type AlignmentView = Outputs["alignment"]["versions"];
type Kappa = StressReport["base"]["measures"]["kappa"];
type Rate = { estimate: number | null; low: number | null; high: number | null };
type KappaChange = StressReport["perturbations"][number]["comparison"]["kappaChange"];

/** "0.167 [0.012, 0.412]", "0.167 (no interval)", or "–" with why κ is undefined. */
export function kappaText(k: Kappa): string {
  if (k.kappa === null) return `– (${k.reason ?? "undefined"})`;
  const interval = fmtInterval(k.interval);
  return interval ? `${fmtCoef(k.kappa)} ${interval.startsWith("[") ? interval : `(${interval})`}` : fmtCoef(k.kappa);
}

/** "40.0% [16.8, 68.7]" or "–". */
export function rateText(r: Rate): string {
  if (r.estimate === null) return "–";
  const interval = fmtPercentInterval(r.low, r.high);
  return interval ? `${fmtPercent(r.estimate)} ${interval}` : fmtPercent(r.estimate);
}

/** A signed change in κ with its paired bootstrap interval, or why it has none. */
export function kappaChangeText(c: KappaChange): string {
  if (c.estimate === null) return "–";
  const sign = c.estimate > 0 ? "+" : c.estimate < 0 ? "−" : "±";
  const value = `${sign}${Math.abs(c.estimate).toFixed(3)}`;
  if (c.low !== null && c.high !== null) return `${value} [${c.low.toFixed(3)}, ${c.high.toFixed(3)}]`;
  // The reason (too few items, no spread) is in kappaChangeNote, for a tooltip.
  return `${value} (no interval)`;
}

/** Why a change in κ has no interval, or how it was found. */
export function kappaChangeNote(c: KappaChange): string {
  return c.note ?? `paired percentile bootstrap over items, ${c.replicates} resamples, seed ${c.seed}`;
}

function kappaDatum(k: Kappa): { value: number | null; err: [number, number]; text: string } {
  const i = k.interval;
  return { value: k.kappa, err: errorDistances(k.kappa, i.method !== null ? i.low : null, i.method !== null ? i.high : null), text: kappaText(k) };
}

/** κ against people unperturbed and perturbed, per perturbation, with interval bars. */
export function stressKappaChart(report: StressReport): RateChartModel {
  const base = kappaDatum(report.base.measures.kappa);
  return {
    kind: "bars",
    x: "perturbation",
    scale: "coefficient",
    horizontal: true,
    series: [
      { key: "s0", label: "κ unperturbed", color: "#a1a1aa" },
      { key: "s1", label: "κ perturbed", color: PALETTE[0]! },
    ],
    data: report.perturbations.map((p) => {
      const after = kappaDatum(p.measures.kappa);
      return { label: p.label, s0: base.value, s0_err: base.err, s0_text: base.text, s1: after.value, s1_err: after.err, s1_text: after.text };
    }),
  };
}

/** Flip rate per perturbation with its Wilson interval. */
export function stressFlipChart(report: StressReport): RateChartModel {
  return {
    kind: "bars",
    x: "perturbation",
    scale: "proportion",
    horizontal: true,
    series: [{ key: "s0", label: "flip rate", color: PALETTE[2]! }],
    data: report.perturbations.map((p) => {
      const r = p.comparison.flipRate;
      return { label: p.label, s0: r.estimate, s0_err: errorDistances(r.estimate, r.low, r.high), s0_text: `${rateText(r)} (${r.successes} of ${r.n})` };
    }),
  };
}

/** κ per prompt version on the held-out items, as a line with interval bars. */
export function versionsKappaChart(view: AlignmentView): RateChartModel {
  return {
    kind: "lines",
    x: "prompt version",
    scale: "coefficient",
    series: [{ key: "s0", label: "κ on the held-out part", color: PALETTE[0]! }],
    data: view.versions.map((v) => {
      const d = kappaDatum(v.measures.kappa);
      return { label: `v${v.version.number}`, s0: d.value, s0_err: d.err, s0_text: `${d.text} · n = ${v.measures.n}` };
    }),
  };
}

/** How a version differs from what it builds on, in a few words. */
export function versionSummary(v: AlignmentView["versions"][number]["version"]): string {
  if (v.number === 1) return "the configuration's own prompt";
  const rubric =
    v.rubric === null
      ? "protocol's criteria"
      : v.rubricSource === "judge-model"
        ? "rubric by the judge model"
        : v.rubricSource === "judge-model-edited"
          ? "judge model's rubric, edited"
          : "researcher's rubric";
  return `${rubric} · ${v.examples.length} example${v.examples.length === 1 ? "" : "s"}`;
}
