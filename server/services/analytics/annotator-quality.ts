/**
 * The annotator quality view (researchers): per annotator, in one campaign or across all, the time they spend
 * per item (distribution, median, labels faster than a threshold), how many steps they open, how often they agree
 * with the consensus of a chosen model (majority vote, Dawid–Skene or MACE) with a Wilson interval, Cohen's κ
 * with every other annotator (95 % CI), drift (agreement with consensus over their last N labels, in label
 * order), category use against everyone's, and their accuracy on gold items with the warn/block status.
 *
 * Agreement figures use the verdict (success / failure): "unsure" and "not executable" labels are left out. Gold
 * items are left out of consensus, κ and drift, as on the human-agreement page (every annotator labels them);
 * time, steps and category use count every label. Consensus is fitted per campaign (items belong to one).
 */
import type { Db } from "../../../db/database";
import { listCampaigns } from "../../../db/repositories/annotation/campaigns";
import { qualityLabelRows, type QualityLabelRow } from "../../../db/repositories/annotation/quality";
import {
  dawidSkene,
  groupConsensusLabels,
  kappaFromCounts,
  mace,
  majorityClasses,
  MISSING,
  wilsonInterval,
  type KappaEstimate,
  type ProportionInterval,
} from "../../domain/agreement";
import { categoryUse, quantile, rollingAgreement, timeHistogram } from "../../domain/annotation/quality";
import type { GoldStatus } from "../../domain/annotation/assignment";
import { NotFoundError, ValidationError } from "../../errors";
import { goldStandings } from "../annotation";

export const CONSENSUS_MODELS = ["majority", "dawid_skene", "mace"] as const;
export type ConsensusModel = (typeof CONSENSUS_MODELS)[number];

export interface QualityQuery {
  /** One campaign, or null for every campaign. */
  campaignId: number | null;
  model: ConsensusModel;
  /** Labels made faster than this are flagged as too fast. */
  tooFastMs: number;
  /** Drift window: agreement with consensus over this many of the annotator's last labels. */
  window: number;
}

export interface AnnotatorQuality {
  key: string;
  name: string;
  labels: number;
  time: { timed: number; medianMs: number | null; p25Ms: number | null; p75Ms: number | null; tooFast: number; histogram: { label: string; count: number }[] };
  steps: { recorded: number; medianOpened: number | null; medianShare: number | null };
  /** Labels that met a consensus label (items with a consensus), and how many agreed. */
  consensus: ProportionInterval;
  drift: { n: number; rate: number }[];
  categories: { rows: { category: string; own: number; pooled: number }[]; distance: number | null };
  gold: { answered: number; correct: number; accuracy: ProportionInterval; status: GoldStatus } | null;
}

export interface PairKappa extends KappaEstimate {
  a: string;
  b: string;
}

export interface AnnotatorQualityResult {
  campaigns: { id: number; name: string }[];
  campaignId: number | null;
  model: ConsensusModel;
  tooFastMs: number;
  window: number;
  annotators: AnnotatorQuality[];
  pairs: PairKappa[];
}

/** Verdict code for agreement figures: 0 success, 1 failure, -1 left out. */
const code = (v: string) => (v === "success" ? 0 : v === "failure" ? 1 : -1);

/** Consensus verdict code per item id (items with at least one decided label and a consensus). */
function consensusOfCampaign(rows: readonly QualityLabelRow[], keys: readonly string[], model: ConsensusModel): Map<number, number> {
  const itemIndex = new Map<number, number>();
  const itemIds: number[] = [];
  const keyIndex = new Map(keys.map((k, i) => [k, i]));
  const item: number[] = [];
  const annotator: number[] = [];
  const label: number[] = [];
  for (const r of rows) {
    const c = code(r.verdict);
    if (c < 0) continue;
    let x = itemIndex.get(r.itemId);
    if (x === undefined) {
      itemIndex.set(r.itemId, (x = itemIds.length));
      itemIds.push(r.itemId);
    }
    item.push(x);
    annotator.push(keyIndex.get(r.annotatorKey)!);
    label.push(c);
  }
  const out = new Map<number, number>();
  if (!itemIds.length) return out;
  const grouped = groupConsensusLabels({
    items: itemIds.length,
    annotators: keys.length,
    classes: 2,
    item: Int32Array.from(item),
    annotator: Int32Array.from(annotator),
    label: Int32Array.from(label),
  });
  const classes = model === "majority" ? majorityClasses(grouped) : model === "dawid_skene" ? dawidSkene(grouped).label : mace(grouped).label;
  itemIds.forEach((id, x) => {
    if (classes[x] !== MISSING) out.set(id, classes[x]!);
  });
  return out;
}

export async function annotatorQuality(db: Db, q: QualityQuery): Promise<AnnotatorQualityResult> {
  if (!(CONSENSUS_MODELS as readonly string[]).includes(q.model))
    throw new ValidationError(`model: one of ${CONSENSUS_MODELS.join(", ")}, got ${JSON.stringify(q.model)}`);
  if (!Number.isFinite(q.tooFastMs) || q.tooFastMs < 0) throw new ValidationError(`tooFastMs: a non-negative number of milliseconds, got ${q.tooFastMs}`);
  if (!Number.isInteger(q.window) || q.window < 1 || q.window > 1000)
    throw new ValidationError(`window: a whole number of labels from 1 to 1000, got ${q.window}`);
  const campaigns = await listCampaigns(db);
  if (q.campaignId !== null && !campaigns.some((c) => c.id === q.campaignId)) throw new NotFoundError("campaign", q.campaignId);
  const rows = await qualityLabelRows(db, q.campaignId);
  const keys = [...new Set(rows.map((r) => r.annotatorKey))].sort();
  const names = new Map<string, string>();
  for (const r of rows) names.set(r.annotatorKey, r.annotatorName);

  // Consensus per campaign, without gold items.
  const byCampaign = new Map<number, QualityLabelRow[]>();
  for (const r of rows) {
    if (r.gold) continue;
    const list = byCampaign.get(r.campaignId) ?? [];
    list.push(r);
    byCampaign.set(r.campaignId, list);
  }
  const consensus = new Map<number, number>();
  for (const list of byCampaign.values()) for (const [item, c] of consensusOfCampaign(list, keys, q.model)) consensus.set(item, c);

  // Pairwise κ on items both labelled with a decided verdict (gold left out).
  const byItem = new Map<number, { key: string; c: number }[]>();
  for (const list of byCampaign.values()) {
    for (const r of list) {
      const c = code(r.verdict);
      if (c < 0) continue;
      const l = byItem.get(r.itemId) ?? [];
      l.push({ key: r.annotatorKey, c });
      byItem.set(r.itemId, l);
    }
  }
  const tables = new Map<string, number[]>();
  for (const labels of byItem.values()) {
    for (let i = 0; i < labels.length; i++) {
      for (let j = i + 1; j < labels.length; j++) {
        const [x, y] = labels[i]!.key < labels[j]!.key ? [labels[i]!, labels[j]!] : [labels[j]!, labels[i]!];
        const k = `${x.key}\u0000${y.key}`;
        const t = tables.get(k) ?? [0, 0, 0, 0];
        t[x.c * 2 + y.c]!++;
        tables.set(k, t);
      }
    }
  }
  const pairs: PairKappa[] = [...tables]
    .map(([k, t]) => {
      const [a, b] = (k.split("\u0000") as [string, string]).map((x) => names.get(x) ?? x).sort((x, y) => x.localeCompare(y)) as [string, string];
      // κ and its interval do not depend on which annotator is a; names are put in order for display.
      return { a, b, ...kappaFromCounts(t, 2) };
    })
    .sort((x, y) => x.a.localeCompare(y.a) || x.b.localeCompare(y.b));

  const pooledCategories = new Map<string, number>();
  for (const r of rows) if (r.verdict === "failure" && r.category) pooledCategories.set(r.category, (pooledCategories.get(r.category) ?? 0) + 1);

  const gold =
    q.campaignId !== null
      ? new Map(
          (
            await goldStandings(
              db,
              campaigns.find((c) => c.id === q.campaignId)!,
            )
          ).map((g) => [g.annotatorKey, g]),
        )
      : null;

  const annotators: AnnotatorQuality[] = keys.map((key) => {
    const mine = rows.filter((r) => r.annotatorKey === key);
    const times = mine
      .map((r) => r.timeSpentMs)
      .filter((t): t is number => t !== null)
      .sort((a, b) => a - b);
    const opened = mine.filter((r) => r.stepsViewed !== null);
    const openedCounts = opened.map((r) => r.stepsViewed!).sort((a, b) => a - b);
    const shares = opened
      .filter((r) => r.stepCount > 0)
      .map((r) => r.stepsViewed! / r.stepCount)
      .sort((a, b) => a - b);
    const outcomes: (0 | 1)[] = [];
    for (const r of mine) {
      if (r.gold) continue;
      const c = code(r.verdict);
      const m = consensus.get(r.itemId);
      if (c < 0 || m === undefined) continue;
      outcomes.push(c === m ? 1 : 0);
    }
    const agreed = outcomes.reduce<number>((s, o) => s + o, 0);
    const own = new Map<string, number>();
    for (const r of mine) if (r.verdict === "failure" && r.category) own.set(r.category, (own.get(r.category) ?? 0) + 1);
    const g = gold?.get(key);
    return {
      key,
      name: names.get(key) ?? key,
      labels: mine.length,
      time: {
        timed: times.length,
        medianMs: quantile(times, 0.5),
        p25Ms: quantile(times, 0.25),
        p75Ms: quantile(times, 0.75),
        tooFast: times.filter((t) => t < q.tooFastMs).length,
        histogram: timeHistogram(times),
      },
      steps: { recorded: opened.length, medianOpened: quantile(openedCounts, 0.5), medianShare: quantile(shares, 0.5) },
      consensus: wilsonInterval(agreed, outcomes.length),
      drift: rollingAgreement(outcomes, q.window).slice(-200),
      categories: categoryUse(own, pooledCategories),
      gold: g ? { answered: g.answered, correct: g.correct, accuracy: g.accuracy, status: g.status } : null,
    };
  });

  annotators.sort((a, b) => a.name.localeCompare(b.name) || a.key.localeCompare(b.key));
  return {
    campaigns: campaigns.map((c) => ({ id: c.id, name: c.name })),
    campaignId: q.campaignId,
    model: q.model,
    tooFastMs: q.tooFastMs,
    window: q.window,
    annotators,
    pairs,
  };
}
