/**
 * View models of the human-agreement page: campaign figures, the annotator-by-annotator κ matrix, specific
 * agreement per label, the most disputed trajectories, and the consensus models (Dawid–Skene, MACE).
 */
import { selectionHref } from "@/server/domain/analytics/selection";
import type { HumanAgreementResult, HumanConsensusResult } from "@/server/services/analytics";
import { errorDistances, PALETTE, seriesKey, type RateChartModel } from "./charts";
import { csvNumber, fmtCoef, fmtCount, fmtInterval, fmtPercent, intervalTitle } from "./format";
import type { MatrixModel, StatCard } from "./judges";
import type { FigureModel } from "./rates";
import { raterPairCells, raterPairColumns } from "./rater-pairs";
import { trajectoryCell, trajectoryCells, TRAJECTORY_COLUMNS, type TableModel } from "./table";

export type AgreementLevel = "verdict" | "label";

export interface HumanView {
  empty: "no-labels" | null;
  subtitle: string;
  cards: StatCard[];
  level: AgreementLevel;
  matrix: MatrixModel;
  pairs: TableModel;
  perCategory: FigureModel<RateChartModel>;
  annotators: TableModel;
  disputed: TableModel;
  disputedTotal: number;
  disputedHref: string;
  /** α and Fleiss κ per group of the split asked for; null without one. */
  split: { title: string; table: TableModel } | null;
}

/** A coefficient with its interval for a split cell (the reason when it is undefined). */
function coefficientCell(value: number | null, reason: string | null, interval: Parameters<typeof fmtInterval>[0]) {
  return {
    text: value === null ? `– (${reason ?? "not defined"})` : `${fmtCoef(value)} ${fmtInterval(interval)}`.trim(),
    csv: [csvNumber(value), csvNumber(interval?.low), csvNumber(interval?.high)],
    title: value === null ? (reason ?? undefined) : intervalTitle(interval),
    tone: value === null ? ("muted" as const) : undefined,
  };
}

/** α and Fleiss κ per group of a split, at the chosen level, each group linking to its trajectories. */
function humanSplitView(split: NonNullable<HumanAgreementResult["split"]>, level: AgreementLevel): NonNullable<HumanView["split"]> {
  return {
    title: split.title,
    table: {
      name: `human agreement by ${split.title} (${level})`,
      columns: [
        { key: "group", label: split.title },
        { key: "items", label: "Trajectories", numeric: true },
        { key: "alpha", label: "Krippendorff α [95% CI]", numeric: true, csv: ["alpha", "alpha_ci_low", "alpha_ci_high"] },
        { key: "fleiss", label: "Fleiss κ [95% CI]", numeric: true, csv: ["fleiss_kappa", "fleiss_ci_low", "fleiss_ci_high"] },
        { key: "percent", label: "Pair agreement", numeric: true },
      ],
      rows: split.rows.map((r) => {
        const g = level === "verdict" ? r.verdict : r.combined;
        return {
          key: r.key,
          cells: {
            group: { text: r.label, href: selectionHref(r.sel) },
            items: { text: fmtCount(r.items), csv: [String(r.items)], href: selectionHref(r.sel) },
            alpha: coefficientCell(g.alpha.alpha, g.alpha.reason, g.alpha.interval),
            fleiss: coefficientCell(g.fleiss.kappa, g.fleiss.reason, g.fleiss.interval),
            percent: { text: fmtPercent(g.percent.value), csv: [csvNumber(g.percent.value)] },
          },
        };
      }),
      empty: "No labelled trajectory in any group.",
    },
  };
}

type AnnotatorPair = HumanAgreementResult["pairwise"]["verdict"][number];

/** The headline figures: items and labels, α, Fleiss' κ, pair agreement and α on error categories. */
function humanCards(h: HumanAgreementResult, level: AgreementLevel): StatCard[] {
  const lv = level === "verdict" ? h.verdict : h.combined;
  return [
    {
      key: "items",
      label: "Labelled",
      value: `${fmtCount(h.labelledItems)} / ${fmtCount(h.campaign.items)}`,
      detail: `${fmtCount(h.pairableItems)} with ≥ 2 success/failure labels`,
      href: selectionHref(h.sel),
    },
    {
      key: "labels",
      label: "Labels",
      value: fmtCount(h.labels),
      detail: `${h.annotators.length} annotator${h.annotators.length === 1 ? "" : "s"}${h.unsureLabels ? ` · ${fmtCount(h.unsureLabels)} unsure (left out)` : ""}`,
    },
    coefficientCard("alpha", "Krippendorff α", lv.alpha.alpha, lv.alpha, `${fmtCount(lv.alpha.pairableUnits)} pairable trajectories`),
    coefficientCard("fleiss", "Fleiss κ", lv.fleiss.kappa, lv.fleiss, `${lv.fleiss.ratingsPerItem} ratings per trajectory`),
    { key: "percent", label: "Pair agreement", value: fmtPercent(lv.percent.value), detail: "Fleiss' P̄: agreeing annotator pairs per trajectory" },
    coefficientCard(
      "category",
      "α, error category",
      h.failureCategory.alpha,
      h.failureCategory,
      `${fmtCount(h.failureCategory.pairableUnits)} trajectories with ≥ 2 categorised failures`,
    ),
  ];
}

/** A coefficient's card: its value with the 95% interval and what it counted, or the reason it is undefined. */
function coefficientCard(
  key: string,
  label: string,
  value: number | null,
  c: { reason?: string | null; interval: Parameters<typeof fmtInterval>[0] },
  counted: string,
): StatCard {
  if (value === null) return { key, label, value: fmtCoef(value), detail: c.reason ?? undefined };
  return { key, label, value: fmtCoef(value), detail: `95% CI ${fmtInterval(c.interval)} · ${counted}`, title: intervalTitle(c.interval) };
}

/** Cohen's κ of every annotator pair as a matrix, shaded by κ, each cell linking to the shared trajectories. */
function pairMatrix(h: HumanAgreementResult, pairs: AnnotatorPair[], names: Map<string, string>): MatrixModel {
  const keys = h.annotators.map((a) => a.key);
  const find = (a: string, b: string) => pairs.find((p) => (p.a === a && p.b === b) || (p.a === b && p.b === a));
  return {
    rowTitle: "Annotator",
    colTitle: "Annotator",
    rows: keys.map((k) => ({ key: k, label: names.get(k) ?? k })),
    cols: keys.map((k) => ({ key: k, label: names.get(k) ?? k })),
    cells: keys.map((a) =>
      keys.map((b) => {
        if (a === b) return null;
        const p = find(a, b);
        if (!p) return { text: "·", shade: 0, title: "no trajectory labelled by both" };
        return {
          text: fmtCoef(p.kappa),
          sub: `n ${fmtCount(p.shared)} · ${fmtPercent(p.agreement, 0)}`,
          shade: p.kappa === null || p.fewShared ? 0 : Math.max(0, p.kappa),
          href: selectionHref(p.sel),
          title:
            p.kappa === null
              ? (p.reason ?? "not defined")
              : `κ ${fmtCoef(p.kappa)} ${fmtInterval(p.interval)} on ${p.shared} shared trajectories${p.fewShared ? " (few shared: read with care)" : ""}`,
        };
      }),
    ),
  };
}

/** The same pairs as a table, with links to their disagreements. */
function pairsTable(pairs: AnnotatorPair[], names: Map<string, string>, level: AgreementLevel): TableModel {
  return {
    name: `pairwise annotator agreement (${level})`,
    columns: [...raterPairColumns("Annotator", "Shared"), { key: "disagree", label: "Disagreements", numeric: true }],
    rows: pairs.map((p) => {
      const disagreements = Math.round(p.shared * (1 - (p.agreement ?? 1)));
      return {
        key: `${p.a}|${p.b}`,
        cells: {
          a: { text: names.get(p.a) ?? p.a },
          b: { text: names.get(p.b) ?? p.b },
          shared: {
            text: fmtCount(p.shared),
            csv: [String(p.shared)],
            href: selectionHref(p.sel),
            tone: p.fewShared ? "warn" : undefined,
            title: p.fewShared ? "fewer than 10 shared trajectories" : undefined,
          },
          ...raterPairCells(p.agreement, p),
          disagree: { text: fmtCount(disagreements), csv: [String(disagreements)], href: disagreements ? selectionHref(p.disagreeSel) : undefined },
        },
      };
    }),
    empty: "No two annotators labelled the same trajectory.",
  };
}

/** Specific agreement per label, as bars and as a table. */
function perCategoryFigure(h: HumanAgreementResult): FigureModel<RateChartModel> {
  const k = seriesKey(0);
  return {
    id: "per-category",
    title: "Agreement per label",
    description:
      "Specific agreement: of the annotator pairs in which one gave the label, the share in which the other gave it too (trajectories with ≥ 2 labels).",
    chart: h.perCategory.some((c) => c.value !== null)
      ? {
          kind: "bars",
          x: "Label",
          series: [{ key: k, label: "Specific agreement", color: PALETTE[1]! }],
          data: h.perCategory.map((c) => ({
            label: c.label,
            [k]: c.value,
            [`${k}_err`]: errorDistances(null, null, null),
            [`${k}_n`]: c.items,
            [`${k}_text`]: `${fmtPercent(c.value)} over ${c.items} trajectories (${c.ratings} labels)`,
            [`${k}_href`]: selectionHref(c.sel),
          })),
          scale: "proportion",
          horizontal: true,
        }
      : null,
    table: {
      name: "specific agreement per label",
      columns: [
        { key: "label", label: "Label" },
        { key: "ratings", label: "Labels given", numeric: true },
        { key: "items", label: "Trajectories", numeric: true },
        { key: "value", label: "Specific agreement", numeric: true },
      ],
      rows: h.perCategory.map((c) => ({
        key: c.label,
        cells: {
          label: { text: c.label },
          ratings: { text: fmtCount(c.ratings), csv: [String(c.ratings)] },
          items: { text: fmtCount(c.items), csv: [String(c.items)], href: selectionHref(c.sel) },
          value: { text: fmtPercent(c.value), csv: [csvNumber(c.value)] },
        },
      })),
      empty: "No trajectory has two labels yet.",
    },
  };
}

function annotatorsTable(h: HumanAgreementResult): TableModel {
  return {
    name: "annotators",
    columns: [
      { key: "name", label: "Annotator" },
      { key: "labels", label: "Labels", numeric: true },
      { key: "unsure", label: "Unsure", numeric: true },
      { key: "success", label: "Says success", numeric: true, title: "Share of this annotator's success/failure labels that say success" },
    ],
    rows: h.annotators.map((a) => ({
      key: a.key,
      cells: {
        name: { text: a.name, title: a.key },
        labels: { text: fmtCount(a.labels), csv: [String(a.labels)] },
        unsure: { text: fmtCount(a.unsure), csv: [String(a.unsure)], tone: a.unsure ? undefined : "muted" },
        success: { text: fmtPercent(a.successShare), csv: [csvNumber(a.successShare)] },
      },
    })),
  };
}

/** The most disputed trajectories with every annotator's label. */
function disputedTable(h: HumanAgreementResult): TableModel {
  return {
    name: "most disputed trajectories",
    columns: [...TRAJECTORY_COLUMNS, { key: "labels", label: "Labels" }, { key: "verdict", label: "Verdict agreement", numeric: true }],
    rows: h.disputed.map((d) => ({
      key: String(d.itemId),
      cells: {
        ...trajectoryCells(d),
        labels: {
          text: d.labels
            .map((l) => `${l.annotator}: ${l.verdict}${l.category ? ` (${l.category})` : ""}${l.firstFailingStep !== null ? ` @${l.firstFailingStep}` : ""}`)
            .join(" · "),
        },
        verdict: { text: fmtPercent(d.verdictAgreement, 0), csv: [csvNumber(d.verdictAgreement)] },
      },
    })),
    empty: "The annotators agree on every trajectory.",
  };
}

export function prepareHumans(h: HumanAgreementResult, level: AgreementLevel): HumanView {
  const names = new Map(h.annotators.map((a) => [a.key, a.name]));
  const pairs = level === "verdict" ? h.pairwise.verdict : h.pairwise.combined;
  return {
    empty: h.labels === 0 ? "no-labels" : null,
    subtitle: `${h.campaign.name} · ${h.campaign.status} · ${h.campaign.annotatorsPerItem} annotators per trajectory`,
    cards: humanCards(h, level),
    level,
    matrix: pairMatrix(h, pairs, names),
    pairs: pairsTable(pairs, names, level),
    perCategory: perCategoryFigure(h),
    annotators: annotatorsTable(h),
    disputed: disputedTable(h),
    disputedTotal: h.disputedTotal,
    disputedHref: selectionHref(h.disputedSel),
    split: h.split && humanSplitView(h.split, level),
  };
}

export interface ConsensusView {
  cards: StatCard[];
  annotators: TableModel;
  departures: TableModel;
  departuresTotal: number;
}

/**
 * The consensus-model section: how many trajectories each model would consolidate differently from the majority
 * vote, each annotator's estimated reliability under both models next to their agreement with the vote, and the
 * trajectories where a model departs from the vote.
 */
export function prepareConsensus(c: HumanConsensusResult): ConsensusView {
  const fitDetail = (m: { iterations: number; converged: boolean; uncertain: number }) =>
    `${fmtCount(m.uncertain)} below 90% posterior · ${m.converged ? `converged in ${m.iterations} iterations` : `stopped after ${m.iterations} iterations without converging`}`;
  const cards: StatCard[] = [
    {
      key: "no-majority",
      label: "No majority",
      value: fmtCount(c.noMajority),
      detail: `of ${fmtCount(c.items)} trajectories with success/failure labels: tied votes`,
    },
    {
      key: "dawid-skene",
      label: "Dawid–Skene ≠ majority",
      value: fmtCount(c.dawidSkene.differFromMajority),
      detail: fitDetail(c.dawidSkene),
      tone: c.dawidSkene.converged ? undefined : "warn",
    },
    {
      key: "mace",
      label: "MACE ≠ majority",
      value: fmtCount(c.mace.differFromMajority),
      detail: fitDetail(c.mace),
      tone: c.mace.converged ? undefined : "warn",
    },
  ];

  const annotators: TableModel = {
    name: `annotator reliability (${c.level})`,
    columns: [
      { key: "name", label: "Annotator" },
      { key: "labels", label: "Labels", numeric: true, title: "Success/failure labels (unsure ones are left out)" },
      {
        key: "majority",
        label: "Agrees with majority",
        numeric: true,
        title: "Share of their labels equal to the majority vote, on trajectories that have one",
      },
      { key: "accuracy", label: "Dawid–Skene accuracy", numeric: true, title: "Estimated probability that this annotator's label is the true one" },
      { key: "competence", label: "MACE competence", numeric: true, title: "Estimated probability that a label reflects the trajectory rather than a habit" },
      { key: "habit", label: "MACE habit", title: "What this annotator answers when not paying attention, and its share of those answers" },
    ],
    rows: c.annotators.map((a) => ({
      key: a.key,
      cells: {
        name: { text: a.name, title: a.key },
        labels: { text: fmtCount(a.labels), csv: [String(a.labels)] },
        majority: { text: fmtPercent(a.majorityAgreement), csv: [csvNumber(a.majorityAgreement)] },
        accuracy: { text: fmtPercent(a.accuracy), csv: [csvNumber(a.accuracy)] },
        competence: { text: fmtCoef(a.competence, 2), csv: [csvNumber(a.competence)], tone: a.competence !== null && a.competence < 0.5 ? "warn" : undefined },
        habit: { text: a.habit ? `${a.habit.label} (${fmtPercent(a.habit.share, 0)})` : "–", csv: [a.habit?.label ?? ""] },
      },
    })),
    empty: "No success/failure labels yet.",
  };

  const departures: TableModel = {
    name: `consensus departures from the majority (${c.level})`,
    columns: [
      { key: "id", label: "Trajectory" },
      { key: "task", label: "Task" },
      { key: "labels", label: "Labels" },
      { key: "majority", label: "Majority" },
      { key: "ds", label: "Dawid–Skene", numeric: true, csv: ["dawid_skene", "dawid_skene_posterior"] },
      { key: "mace", label: "MACE", numeric: true, csv: ["mace", "mace_posterior"] },
    ],
    rows: c.departures.map((d) => ({
      key: String(d.itemId),
      cells: {
        id: trajectoryCell(d.trajectoryId, "Open in the player", `/trajectories/${d.trajectoryId}`),
        task: { text: d.externalTaskId, title: d.intent, mono: true },
        labels: { text: d.labels.map((l) => `${l.annotator}: ${l.verdict}${l.category ? ` (${l.category})` : ""}`).join(" · ") },
        majority: { text: d.majority ?? "tie", tone: d.majority === null ? "muted" : undefined },
        ds: { text: `${d.dawidSkene.label} ${fmtPercent(d.dawidSkene.probability, 0)}`, csv: [d.dawidSkene.label, csvNumber(d.dawidSkene.probability)] },
        mace: { text: `${d.mace.label} ${fmtPercent(d.mace.probability, 0)}`, csv: [d.mace.label, csvNumber(d.mace.probability)] },
      },
    })),
    empty: "Both models agree with the majority vote on every trajectory.",
  };

  return { cards, annotators, departures, departuresTotal: c.departuresTotal };
}

/**
 * The campaign the human agreement page shows: the one asked for, else the newest with labels (the newest campaign
 * is often one just created, whose empty page read as "my labels are lost"), else the newest. Campaigns come oldest
 * first.
 */
export function chooseHumansCampaign<C extends { id: number; labels: number }>(
  campaigns: readonly C[],
  asked: number | undefined,
): { campaign: C; fallback: boolean } | null {
  const picked = campaigns.find((c) => c.id === asked);
  if (picked) return { campaign: picked, fallback: false };
  const withLabels = campaigns.filter((c) => c.labels > 0);
  const campaign = withLabels[withLabels.length - 1] ?? campaigns[campaigns.length - 1];
  return campaign ? { campaign, fallback: withLabels.length === 0 } : null;
}
