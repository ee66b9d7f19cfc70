/**
 * Tables of rater pairs (annotators of a campaign, raters of an uploaded CSV): the two raters, what they share, raw
 * agreement and Cohen κ with its 95% interval, exported as `kappa`, `ci_low`, `ci_high`.
 */
import type { CoefficientInterval } from "@/server/domain/agreement/interval";
import { csvNumber, fmtCoef, fmtInterval, fmtPercent, intervalTitle } from "./format";
import type { Cell, Column } from "./table";

/** The columns `a`, `b`, `shared`, `agreement`, `kappa`, named after what the raters are and what they share. */
export function raterPairColumns(rater: string, shared: string): Column[] {
  return [
    { key: "a", label: `${rater} A` },
    { key: "b", label: `${rater} B` },
    { key: "shared", label: shared, numeric: true },
    { key: "agreement", label: "Agreement", numeric: true },
    { key: "kappa", label: "Cohen κ [95% CI]", numeric: true, csv: ["kappa", "ci_low", "ci_high"] },
  ];
}

/** A pair's agreement and κ cells; an undefined κ shows its reason on hover instead of the interval. */
export function raterPairCells(
  agreement: number | null,
  p: { kappa: number | null; interval: CoefficientInterval; reason?: string | null },
): { agreement: Cell; kappa: Cell } {
  return {
    agreement: { text: fmtPercent(agreement), csv: [csvNumber(agreement)] },
    kappa: {
      text: `${fmtCoef(p.kappa)} ${p.kappa === null ? "" : fmtInterval(p.interval)}`.trim(),
      csv: [csvNumber(p.kappa), csvNumber(p.interval.low), csvNumber(p.interval.high)],
      title: p.reason ?? intervalTitle(p.interval),
    },
  };
}
