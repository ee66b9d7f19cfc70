/**
 * View models of the annotator quality page: the per-annotator table (time, steps, agreement with consensus, gold
 * accuracy and status), the pairwise κ table, and the small charts of each annotator (drift, time histogram,
 * category use against everyone's).
 */
import type { AnnotatorQualityResult } from "@/server/services/analytics/annotator-quality";
import { csvNumber, fmtCoef, fmtCount, fmtInterval, fmtPercent, fmtPercentInterval, intervalTitle } from "./format";
import type { StatCard } from "./judges";
import type { TableModel, Tone } from "./table";

export interface AnnotatorCharts {
  key: string;
  name: string;
  drift: { n: number; rate: number }[];
  histogram: { label: string; count: number }[];
  categories: { category: string; own: number; pooled: number }[];
  tooFastMs: number;
}

export interface AnnotatorQualityView {
  empty: boolean;
  cards: StatCard[];
  annotators: TableModel;
  pairs: TableModel;
  charts: AnnotatorCharts[];
}

function fmtSeconds(ms: number | null): string {
  if (ms === null) return "–";
  const s = ms / 1000;
  return s < 60 ? `${s.toFixed(s < 10 ? 1 : 0)} s` : `${(s / 60).toFixed(1)} min`;
}

const GOLD_TEXT: Record<string, { text: string; tone?: Tone }> = {
  too_few: { text: "too few to judge", tone: "muted" },
  ok: { text: "ok", tone: "good" },
  warn: { text: "warn", tone: "warn" },
  blocked: { text: "blocked", tone: "bad" },
};

export function prepareAnnotatorQuality(q: AnnotatorQualityResult): AnnotatorQualityView {
  const flagged = q.annotators.filter((a) => a.gold && (a.gold.status === "warn" || a.gold.status === "blocked"));
  const tooFast = q.annotators.reduce((s, a) => s + a.time.tooFast, 0);
  const timed = q.annotators.reduce((s, a) => s + a.time.timed, 0);
  const cards: StatCard[] = [
    { key: "annotators", label: "Annotators", value: fmtCount(q.annotators.length) },
    { key: "labels", label: "Labels", value: fmtCount(q.annotators.reduce((s, a) => s + a.labels, 0)) },
    {
      key: "too-fast",
      label: `Faster than ${fmtSeconds(q.tooFastMs)}`,
      value: fmtCount(tooFast),
      detail: timed ? `${fmtPercent(tooFast / timed)} of timed labels` : "no timed labels",
      tone: tooFast > 0 ? "warn" : undefined,
    },
    ...(q.campaignId !== null
      ? [
          {
            key: "gold-flags",
            label: "Gold flags",
            value: fmtCount(flagged.length),
            detail: flagged.map((a) => `${a.name}: ${a.gold!.status}`).join(", ") || "none",
            tone: flagged.length ? ("warn" as const) : undefined,
          },
        ]
      : []),
  ];

  const annotators: TableModel = {
    name: "annotator-quality",
    empty: "No labels yet.",
    columns: [
      { key: "name", label: "Annotator" },
      { key: "labels", label: "Labels", numeric: true },
      { key: "median", label: "Median time", numeric: true, csv: ["median_time_ms", "p25_time_ms", "p75_time_ms"] },
      { key: "fast", label: "Too fast", numeric: true, title: `Labels made in less than ${fmtSeconds(q.tooFastMs)}`, csv: ["too_fast", "timed"] },
      {
        key: "steps",
        label: "Steps opened",
        numeric: true,
        title: "Median steps opened per label, and share of the trajectory's steps",
        csv: ["median_steps_opened", "median_share_opened"],
      },
      {
        key: "consensus",
        label: "Agrees with consensus",
        numeric: true,
        title: "Share of the annotator's success/failure labels that match the consensus (95 % Wilson interval)",
        csv: ["agree_with_consensus", "consensus_low", "consensus_high", "consensus_n"],
      },
      {
        key: "categories",
        label: "Category use vs peers",
        numeric: true,
        title: "Total variation distance between the annotator's error categories and everyone's (0 = same use)",
        csv: ["category_distance"],
      },
      ...(q.campaignId !== null
        ? [
            {
              key: "gold",
              label: "Gold accuracy",
              numeric: true,
              title: "Right answers on gold items (95 % Wilson interval)",
              csv: ["gold_accuracy", "gold_low", "gold_high", "gold_answered"],
            },
            { key: "status", label: "Gold status" },
          ]
        : []),
    ],
    rows: q.annotators.map((a) => ({
      key: a.key,
      cells: {
        name: { text: a.name },
        labels: { text: fmtCount(a.labels), csv: [String(a.labels)] },
        median: {
          text: fmtSeconds(a.time.medianMs),
          title: `quartiles ${fmtSeconds(a.time.p25Ms)} – ${fmtSeconds(a.time.p75Ms)}`,
          csv: [csvNumber(a.time.medianMs), csvNumber(a.time.p25Ms), csvNumber(a.time.p75Ms)],
        },
        fast: {
          text: a.time.timed ? `${fmtCount(a.time.tooFast)} of ${fmtCount(a.time.timed)}` : "–",
          tone: a.time.tooFast ? "warn" : "muted",
          csv: [String(a.time.tooFast), String(a.time.timed)],
        },
        steps: {
          text: a.steps.medianOpened === null ? "–" : `${fmtCoef(a.steps.medianOpened, 1)} (${fmtPercent(a.steps.medianShare, 0)})`,
          csv: [csvNumber(a.steps.medianOpened), csvNumber(a.steps.medianShare)],
        },
        consensus: {
          text: a.consensus.n
            ? `${fmtPercent(a.consensus.estimate)} ${fmtPercentInterval(a.consensus.low, a.consensus.high)} n=${fmtCount(a.consensus.n)}`
            : "–",
          csv: [csvNumber(a.consensus.estimate), csvNumber(a.consensus.low), csvNumber(a.consensus.high), String(a.consensus.n)],
        },
        categories: { text: a.categories.distance === null ? "–" : fmtCoef(a.categories.distance, 2), csv: [csvNumber(a.categories.distance)] },
        gold: a.gold
          ? {
              text: `${fmtPercent(a.gold.accuracy.estimate)} ${fmtPercentInterval(a.gold.accuracy.low, a.gold.accuracy.high)} ${a.gold.correct}/${a.gold.answered}`,
              csv: [csvNumber(a.gold.accuracy.estimate), csvNumber(a.gold.accuracy.low), csvNumber(a.gold.accuracy.high), String(a.gold.answered)],
            }
          : { text: "no gold answered", tone: "muted", csv: ["", "", "", "0"] },
        status: a.gold ? { text: GOLD_TEXT[a.gold.status]!.text, tone: GOLD_TEXT[a.gold.status]!.tone } : { text: "–", tone: "muted" },
      },
    })),
  };

  const pairs: TableModel = {
    name: "annotator-pairs-kappa",
    empty: "No two annotators labelled the same trajectory yet.",
    columns: [
      { key: "pair", label: "Annotators" },
      { key: "n", label: "Shared", numeric: true },
      { key: "kappa", label: "Cohen κ", numeric: true, csv: ["kappa", "kappa_low", "kappa_high"] },
      { key: "agreement", label: "Agreement", numeric: true },
    ],
    rows: q.pairs.map((p) => ({
      key: `${p.a}|${p.b}`,
      cells: {
        pair: { text: `${p.a} × ${p.b}`, csv: [`${p.a} × ${p.b}`] },
        n: { text: fmtCount(p.n), csv: [String(p.n)] },
        kappa: {
          text: p.kappa === null ? (p.reason ?? "–") : `${fmtCoef(p.kappa)} ${fmtInterval(p.interval)}`,
          tone: p.n < 10 ? "muted" : undefined,
          csv: [csvNumber(p.kappa), csvNumber(p.interval.low), csvNumber(p.interval.high)],
          title: p.kappa === null ? undefined : intervalTitle(p.interval),
        },
        agreement: { text: fmtPercent(p.observedAgreement), csv: [csvNumber(p.observedAgreement)] },
      },
    })),
  };

  const charts = q.annotators.map((a) => ({
    key: a.key,
    name: a.name,
    drift: a.drift,
    histogram: a.time.histogram,
    categories: a.categories.rows,
    tooFastMs: q.tooFastMs,
  }));
  return { empty: q.annotators.length === 0, cards, annotators, pairs, charts };
}
