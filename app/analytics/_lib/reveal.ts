/**
 * The judge-agreement view's blind → reveal → revise section: per evaluator shown, a summary table (flip rates
 * with Wilson intervals, κ before and after with task-resampled intervals) and the category flips.
 */
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { csvNumber, fmtCoef, fmtCoefInterval, fmtCount, fmtPercent, fmtPercentInterval } from "./format";
import { textCell, type TableModel } from "./table";

export type RevealResult = inferRouterOutputs<AppRouter>["analytics"]["reveal"];

const rate = (p: { successes: number; n: number; estimate: number | null; low: number | null; high: number | null }) =>
  textCell(p.n ? `${fmtPercent(p.estimate)} ${fmtPercentInterval(p.low, p.high)} · ${p.successes}/${p.n}` : "–", {
    csv: [csvNumber(p.estimate), csvNumber(p.low), csvNumber(p.high), String(p.successes), String(p.n)],
    tone: p.n > 0 && p.n < 10 ? "muted" : undefined,
    title: p.n > 0 && p.n < 10 ? "Fewer than 10 pairs: read the interval, not the point" : undefined,
  });

const kappa = (k: { estimate: { kappa: number | null; reason: string | null }; low: number | null; high: number | null }) =>
  textCell(k.estimate.kappa === null ? "–" : `${fmtCoef(k.estimate.kappa)} ${fmtCoefInterval(k.low, k.high)}`, {
    csv: [csvNumber(k.estimate.kappa), csvNumber(k.low), csvNumber(k.high)],
    title: k.estimate.reason ?? undefined,
  });

export function revealSummaryTable(r: RevealResult): TableModel {
  return {
    name: "reveal-measures",
    empty: "No campaign has revealed an evaluator yet: create a campaign with “Reveal an evaluator after the blind label”.",
    columns: [
      { key: "evaluator", label: "Evaluator shown" },
      { key: "pairs", label: "Revealed · decided · revised", numeric: true, csv: ["revealed", "decided", "revised"] },
      {
        key: "toward",
        label: "Flip toward",
        numeric: true,
        title: "Of blind labels that disagreed with the evaluator, the share changed to its verdict (95% Wilson)",
        csv: ["toward", "toward_low", "toward_high", "toward_flips", "toward_of"],
      },
      {
        key: "away",
        label: "Flip away",
        numeric: true,
        title: "Of blind labels that agreed with the evaluator, the share changed away from it (95% Wilson)",
        csv: ["away", "away_low", "away_high", "away_flips", "away_of"],
      },
      {
        key: "before",
        label: "κ before",
        numeric: true,
        title: "Cohen's κ, humans' blind labels vs the evaluator (95% bootstrap over tasks)",
        csv: ["kappa_before", "kappa_before_low", "kappa_before_high"],
      },
      {
        key: "after",
        label: "κ after",
        numeric: true,
        title: "Cohen's κ, humans' informed labels vs the evaluator, same pairs",
        csv: ["kappa_after", "kappa_after_low", "kappa_after_high"],
      },
      { key: "change", label: "κ change", numeric: true, csv: ["kappa_change", "kappa_change_low", "kappa_change_high"] },
      { key: "n", label: "κ pairs · tasks", numeric: true, csv: ["kappa_pairs", "kappa_tasks"] },
    ],
    rows: r.evaluators.map((e) => {
      const m = e.measures;
      return {
        key: e.evaluatorId,
        cells: {
          evaluator: textCell(e.evaluatorName, { title: `${e.evaluatorId} · ${e.annotators} annotator${e.annotators === 1 ? "" : "s"}` }),
          pairs: textCell(`${fmtCount(m.revealed)} · ${fmtCount(m.decided)} · ${fmtCount(m.revised)}`, {
            csv: [String(m.revealed), String(m.decided), String(m.revised)],
          }),
          toward: rate(m.flipToward),
          away: rate(m.flipAway),
          before: kappa(m.kappaBefore),
          after: kappa(m.kappaAfter),
          change: textCell(
            m.kappaChange.estimate === null
              ? "–"
              : `${m.kappaChange.estimate >= 0 ? "+" : ""}${fmtCoef(m.kappaChange.estimate)} ${fmtCoefInterval(m.kappaChange.low, m.kappaChange.high)}`,
            {
              csv: [csvNumber(m.kappaChange.estimate), csvNumber(m.kappaChange.low), csvNumber(m.kappaChange.high)],
              title: m.intervalReason ?? undefined,
            },
          ),
          n: textCell(`${fmtCount(m.kappaPairs)} · ${fmtCount(m.kappaTasks)}`, { csv: [String(m.kappaPairs), String(m.kappaTasks)] }),
        },
      };
    }),
  };
}

const label = (verdict: string, category: string | null) => (category ? `${verdict} · ${category}` : verdict);

export function categoryFlipTable(r: RevealResult): TableModel {
  return {
    name: "reveal-category-flips",
    empty: "No label changed after a reveal.",
    columns: [
      { key: "evaluator", label: "Evaluator shown" },
      { key: "from", label: "Blind label" },
      { key: "to", label: "Informed label" },
      { key: "count", label: "Labels", numeric: true },
    ],
    rows: r.evaluators.flatMap((e) =>
      e.measures.categoryFlips.map((f, i) => ({
        key: `${e.evaluatorId}:${i}`,
        cells: {
          evaluator: textCell(e.evaluatorName),
          from: textCell(label(f.fromVerdict, f.fromCategory)),
          to: textCell(label(f.toVerdict, f.toCategory)),
          count: textCell(String(f.count)),
        },
      })),
    ),
  };
}
