/**
 * Human agreement per annotation campaign, on the annotators' own (pre-adjudication) labels: Krippendorff's α
 * (nominal; annotators need not label every trajectory), Fleiss' κ when every trajectory has the same number of
 * ratings (undefined with the reason otherwise), Fleiss' P̄, Cohen's κ for every pair of annotators, specific
 * agreement per category, and the trajectories the annotators disagree on most.
 *
 * Two levels: the verdict (success / failure) and the combined label (success, or failure with its error category).
 * "unsure" labels are left out of the statistics (as AgentRewardBench does) and counted; an item with an unsure
 * label still counts as disputed.
 */
import type { Db } from "../../../db/database";
import {
  campaignItemCount,
  campaignItemCounts,
  campaignLabelCounts,
  labelsOfItems,
  listCampaignHeads,
  trajectoryRows,
} from "../../../db/repositories/analytics";
import { getCampaign } from "../../../db/repositories/annotation/campaigns";
import { goldAnswers, goldItemIds, goldItemsOfCampaign } from "../../../db/repositories/annotation/quality";
import { isGoldCorrect } from "../../domain/annotation/assignment";
import { labelsCount, qualificationStandingsOf } from "../../domain/annotation/qualification";
import {
  dawidSkene,
  fleissKappaFromTotals,
  fleissKappaInterval,
  ItemPatterns,
  krippendorffAlphaInterval,
  groupConsensusLabels,
  kappaFromCounts,
  KrippendorffAccumulator,
  mace,
  majorityClasses,
  MISSING,
  PairTables,
  type CoefficientInterval,
  type ConsensusLabels,
  type IntervalMemo,
  type FleissKappaResult,
  type KappaEstimate,
  type KrippendorffResult,
} from "../../domain/agreement";
import { CountAgreement, combinedLabel, type SpecificAgreement } from "../../domain/analytics/measures";
import type { Selection } from "../../domain/analytics/selection";
import { NotFoundError } from "../../errors";
import { decisionTallies } from "../../../db/repositories/annotation/labels";
import { tallyDecisions, type DecisionTally } from "../../domain/annotation/protocols";
import { annotatorDisplayNames } from "./common";
import { getCampaignLabels, getFacts, intervalMemoFor, type CampaignLabelColumns, type FlaggedCount } from "./dataset";
import { resolveSplitKey, splitFacts } from "./splits";

/** Pairs sharing fewer items than this are shown with their n but flagged (the CLI's matrix hides them). */
export const MIN_SHARED_FOR_KAPPA = 10;
export const DISPUTED_LIMIT = 50;

export interface CampaignListEntry {
  id: number;
  name: string;
  status: string;
  annotatorsPerItem: number;
  items: number;
  /** Active labels: the human agreement page opens on the newest campaign that has some. */
  labels: number;
}

export async function campaignList(db: Db): Promise<CampaignListEntry[]> {
  const [counts, labels] = await Promise.all([campaignItemCounts(db), campaignLabelCounts(db)]);
  return (await listCampaignHeads(db)).map((c) => ({
    id: c.id,
    name: c.name,
    status: c.status,
    annotatorsPerItem: c.annotatorsPerItem,
    items: counts.get(c.id) ?? 0,
    labels: labels.get(c.id) ?? 0,
  }));
}

export interface LevelAgreement {
  categories: string[];
  /** α and Fleiss' κ with percentile bootstrap intervals over the trajectories (item-bootstrap.ts). */
  alpha: KrippendorffResult & { interval: CoefficientInterval };
  fleiss: FleissKappaResult & { interval: CoefficientInterval };
  percent: { value: number | null; items: number };
}

export interface Annotator {
  key: string;
  name: string;
  labels: number;
  unsure: number;
  /** Share of this annotator's success/failure labels that say success. */
  successShare: number | null;
}

export interface PairCell extends KappaEstimate {
  a: string;
  b: string;
  shared: number;
  agreement: number | null;
  fewShared: boolean;
  sel: Selection;
  disagreeSel: Selection;
}

export interface CategoryAgreement extends SpecificAgreement {
  label: string;
  sel: Selection;
}

/** A campaign item as the agreement views list it: which trajectory, task, site and run. */
export interface AgreementItemRef {
  itemId: number;
  trajectoryId: number;
  externalTaskId: string;
  site: string | null;
  runName: string;
  intent: string;
}

export interface DisputedItem extends AgreementItemRef {
  /** Share of annotator pairs agreeing on the verdict (null with < 2 verdicts), and on the combined label. */
  verdictAgreement: number | null;
  labelAgreement: number | null;
  labels: { annotator: string; verdict: string; category: string | null; firstFailingStep: number | null; note: string | null }[];
}

export interface HumanAgreementResult {
  campaign: Omit<CampaignListEntry, "labels"> & { categories: string[] };
  /** Adjudications and QA reviews by the source of the disagreement and the decider's confidence. */
  decisions: DecisionTally;
  /** Items with at least one active label, and with at least two. */
  labelledItems: number;
  pairableItems: number;
  labels: number;
  unsureLabels: number;
  annotators: Annotator[];
  verdict: LevelAgreement;
  combined: LevelAgreement;
  /** α over the error categories of failure labels, on items where ≥ 2 annotators gave a failure with a category. */
  failureCategory: KrippendorffResult & { interval: CoefficientInterval };
  pairwise: { verdict: PairCell[]; combined: PairCell[] };
  perCategory: CategoryAgreement[];
  disputedTotal: number;
  disputed: DisputedItem[];
  sel: Selection;
  disputedSel: Selection;
  /** α and Fleiss' κ per group of the split asked for (`by`); null when none. */
  split: { by: string; title: string; rows: HumanSplitRow[] } | null;
  /** Labelled items whose task is flagged in the validity ledger (trajectories = items), left out unless included. */
  flagged: FlaggedCount;
  /** Annotators who have not passed the campaign's qualification (answering it, or failed) and their labels, left out. */
  unqualified: UnqualifiedCount;
}

interface Grouped {
  /** Item ids in first-seen order, and for each the range [start[i], start[i+1]) of its labels in `order`. */
  items: number[];
  start: Int32Array;
  order: Int32Array;
}

/** Groups the labels by item, leaving out labels on the `excluded` items (gold items, see humanAgreement). */
function groupByItem(l: CampaignLabelColumns, excluded: ReadonlySet<number> = new Set(), droppedAnnotators: ReadonlySet<number> = new Set()): Grouped {
  let maxItem = 0;
  for (const v of l.col.itemId) if (v > maxItem) maxItem = v;
  const index = new Int32Array(maxItem + 1).fill(-1);
  const items: number[] = [];
  const itemOf = new Int32Array(l.length);
  let kept = 0;
  for (let i = 0; i < l.length; i++) {
    const id = l.col.itemId[i]!;
    if ((excluded.size && excluded.has(id)) || (droppedAnnotators.size && droppedAnnotators.has(l.col.annotatorKey[i]!))) {
      itemOf[i] = -1;
      continue;
    }
    kept++;
    let x = index[id]!;
    if (x < 0) {
      x = index[id] = items.length;
      items.push(id);
    }
    itemOf[i] = x;
  }
  const start = new Int32Array(items.length + 1);
  for (let i = 0; i < l.length; i++) if (itemOf[i]! >= 0) start[itemOf[i]! + 1]!++;
  for (let i = 0; i < items.length; i++) start[i + 1]! += start[i]!;
  const fill = start.slice(0, items.length);
  const order = new Int32Array(kept);
  for (let i = 0; i < l.length; i++) if (itemOf[i]! >= 0) order[fill[itemOf[i]!]!++] = i;
  return { items, start, order };
}

/**
 * The `k` first of 0…n−1 under `compare`, in order, through a bounded max-heap: a big campaign has tens of
 * thousands of disputed items and the page shows fifty.
 */
export function smallest(n: number, k: number, compare: (a: number, b: number) => number): number[] {
  const heap: number[] = [];
  const up = (i: number) => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (compare(heap[i]!, heap[p]!) <= 0) break;
      [heap[i], heap[p]] = [heap[p]!, heap[i]!];
      i = p;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && compare(heap[l]!, heap[m]!) > 0) m = l;
      if (r < heap.length && compare(heap[r]!, heap[m]!) > 0) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  };
  for (let i = 0; i < n; i++) {
    if (heap.length < k) {
      heap.push(i);
      up(heap.length - 1);
    } else if (k > 0 && compare(i, heap[0]!) < 0) {
      heap[0] = i;
      down(0);
    }
  }
  return heap.sort(compare);
}

/** Share of agreeing ordered pairs among `total` ratings with category counts `counts`; NaN below two ratings. */
function agreeingShare(counts: Int32Array, total: number): number {
  if (total < 2) return NaN;
  let pairs = 0;
  for (let c = 0; c < counts.length; c++) pairs += counts[c]! * (counts[c]! - 1);
  return pairs / (total * (total - 1));
}

/**
 * One level's items (verdict, or verdict with category) as the split's groups count them: the campaign's items
 * grouped by their category counts (patterns, few of them: three annotators and two verdicts make four), each
 * item's pattern (−1 without a decided label), and per pattern its counts, its ratings and its share of agreeing
 * rating pairs (Fleiss' P_i; NaN below two ratings).
 */
interface LevelPatterns {
  k: number;
  of: Int32Array;
  counts: number[][];
  ratings: Int32Array;
  share: Float64Array;
}

function levelPatterns(patterns: ItemPatterns, of: Int32Array): LevelPatterns {
  const k = patterns.k;
  const counts = Array.from({ length: patterns.size }, (_, p) => patterns.patternCounts(p));
  const ratings = new Int32Array(counts.length);
  const share = new Float64Array(counts.length);
  counts.forEach((row, p) => {
    let m = 0;
    let pairs = 0;
    for (let c = 0; c < k; c++) {
      m += row[c]!;
      pairs += row[c]! * (row[c]! - 1);
    }
    ratings[p] = m;
    // As CountAgreement adds one item, so the sum below is the same number to the last bit.
    share[p] = m < 2 ? NaN : (1 * pairs) / (m * (m - 1));
  });
  return { k, of, counts, ratings, share };
}

/**
 * α, Fleiss' κ (each with its interval) and Fleiss' P̄ of the items `items`: the figures of one group of a split.
 * The group's items are tallied by pattern, and each coefficient computed from the patterns with their
 * multiplicities (integer sums, so exactly what adding the items one by one gives); P̄ sums the items' shares in
 * item order, as adding them one by one does.
 */
function levelOfGroup(level: LevelPatterns, items: readonly number[], categories: string[], memo: IntervalMemo): LevelAgreement {
  const { k, of, counts, ratings, share } = level;
  const weight = new Int32Array(counts.length);
  let pairable = 0;
  let pairwiseSum = 0;
  for (const x of items) {
    const p = of[x]!;
    if (p < 0) continue;
    weight[p]!++;
    if (ratings[p]! >= 2) {
      pairable++;
      pairwiseSum += share[p]!;
    }
  }
  const alpha = new KrippendorffAccumulator();
  const patterns = new ItemPatterns(k, categories);
  const totals = new Array<number>(k).fill(0);
  let sumSquares = 0;
  let rated = 0;
  let minRatings = Infinity;
  let maxRatings = -Infinity;
  for (let p = 0; p < counts.length; p++) {
    const w = weight[p]!;
    if (w === 0) continue;
    const row = counts[p]!;
    alpha.addUnits(row, k, w);
    patterns.add(row, w);
    for (let c = 0; c < k; c++) {
      totals[c]! += w * row[c]!;
      sumSquares += w * row[c]! * row[c]!;
    }
    rated += w;
    minRatings = Math.min(minRatings, ratings[p]!);
    maxRatings = Math.max(maxRatings, ratings[p]!);
  }
  const a = alpha.result(categories);
  const f = fleissKappaFromTotals({ items: rated, minRatings, maxRatings }, sumSquares, totals, categories);
  return {
    categories,
    alpha: { ...a, interval: krippendorffAlphaInterval(patterns, a, {}, memo) },
    fleiss: { ...f, interval: fleissKappaInterval(patterns, f, {}, memo) },
    percent: { value: pairable ? pairwiseSum / pairable : null, items: pairable },
  };
}

export interface HumanSplitRow {
  key: string;
  label: string;
  /** Trajectories of the group with at least one label. */
  items: number;
  verdict: LevelAgreement;
  combined: LevelAgreement;
  sel: Selection;
}

/**
 * Items of a campaign left out of its agreement figures. Gold items: every annotator labels them, so they would count
 * one trajectory as many times as there are annotators; they are measured against their known answer instead
 * (annotator quality view). Items whose task is flagged in the validity ledger, unless asked to include them.
 */
/**
 * The annotators (indices into `keys`) whose labels do not count because they have not passed the campaign's
 * qualification: still answering it, or failed. Their labels are left out of every statistic of the view.
 */
async function unqualifiedAnnotators(db: Db, passAt: number | null, campaignId: number, keys: readonly string[]): Promise<Set<number>> {
  if (passAt === null) return new Set();
  const ids = new Set((await goldItemsOfCampaign(db, campaignId)).filter((g) => g.qualification).map((g) => g.itemId));
  if (ids.size === 0) return new Set();
  const answers = (await goldAnswers(db, campaignId)).map((a) => ({ ...a, correct: isGoldCorrect({ verdict: a.goldVerdict, category: a.goldCategory }, a) }));
  const standings = qualificationStandingsOf(ids, answers, passAt);
  const out = new Set<number>();
  keys.forEach((key, a) => {
    const s = standings.get(key);
    if (!s || !labelsCount(s)) out.add(a);
  });
  return out;
}

function leftOutLabels(l: CampaignLabelColumns, annotators: ReadonlySet<number>): UnqualifiedCount {
  let labels = 0;
  for (let i = 0; i < l.length; i++) if (annotators.has(l.col.annotatorKey[i]!)) labels++;
  return { annotators: annotators.size, labels };
}

async function itemsLeftOut(db: Db, l: CampaignLabelColumns, campaignId: number, includeFlagged: boolean) {
  const gold = await goldItemIds(db, campaignId);
  const facts = await getFacts(db);
  const flaggedItems = new Set<number>();
  const flaggedTasks = new Set<number>();
  for (let i = 0; i < l.length; i++) {
    const r = facts.rowOf(l.col.trajectoryId[i]!);
    if (r < 0 || !facts.flagged[r] || gold.has(l.col.itemId[i]!)) continue;
    flaggedItems.add(l.col.itemId[i]!);
    flaggedTasks.add(facts.taskId[r]!);
  }
  const excluded = includeFlagged ? gold : new Set([...gold, ...flaggedItems]);
  const flagged: FlaggedCount = { tasks: flaggedTasks.size, trajectories: flaggedItems.size, included: includeFlagged };
  const base: Selection = includeFlagged ? { includeFlagged: true } : {};
  return { excluded, items: (await campaignItemCount(db, campaignId)) - excluded.size, flagged, base };
}

/** Each label coded once for the single pass over the items (see labelCodes). */
interface LabelCodes {
  /** Verdict code per label: 0 success, 1 failure, -1 unsure, -2 other words (only 0 and 1 enter the statistics). */
  lv: Int8Array;
  /** Combined code per label: 0 success, 1 failure without category, 2 + c failure with category c; -1 undecided. */
  lc: Int32Array;
  /** Number of combined codes: success, failure without category, and one per category. */
  KC: number;
  categoryNames: string[];
  combinedNames: string[];
}

function labelCodes(l: CampaignLabelColumns): LabelCodes {
  // Per label, once: verdict code (0 success, 1 failure, -1 unsure, -2 other words; only 0/1 enter the statistics)
  // and combined code (0 success, 1 failure without category, 2 + c failure with category c).
  const verdictWord = l.dict.verdict.map((v) => (v === "success" ? 0 : v === "failure" ? 1 : v === "unsure" ? -1 : -2));
  const categoryNames = l.dict.category;
  const KC = 2 + categoryNames.length;
  const combinedNames = ["success", combinedLabel("failure", null), ...categoryNames.map((c) => combinedLabel("failure", c))];
  const n = l.length;
  const lv = new Int8Array(n);
  const lc = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const v = verdictWord[l.col.verdict[i]!]!;
    lv[i] = v;
    const c = l.col.category[i]!;
    lc[i] = v === 0 ? 0 : v === 1 ? (c < 0 ? 1 : 2 + c) : -1;
  }
  return { lv, lc, KC, categoryNames, combinedNames };
}

/**
 * One level's statistics from its patterns with their multiplicities (integer sums, so exactly what adding the items
 * one by one gives): α's accumulator, the per-category pair counts, Fleiss' sums and shape. `from` skips leading
 * categories (2 for the failure categories out of the combined label); `names` then gives the bootstrap's patterns
 * over the remaining ones.
 */
function levelTotals(patterns: ItemPatterns, from: number, names?: string[]) {
  const k = patterns.k - from;
  const alpha = new KrippendorffAccumulator();
  const counts = new CountAgreement(k);
  const kept = names ? new ItemPatterns(k, names) : patterns;
  const totals = new Array<number>(k).fill(0);
  let sumSquares = 0;
  let items = 0;
  let minRatings = Infinity;
  let maxRatings = -Infinity;
  for (let p = 0; p < patterns.size; p++) {
    const row = patterns.patternCounts(p).slice(from);
    const w = patterns.multiplicityOf(p);
    alpha.addUnits(row, k, w);
    counts.add(row, w);
    if (names) kept.add(row, w);
    let m = 0;
    for (let c = 0; c < k; c++) {
      m += row[c]!;
      totals[c]! += w * row[c]!;
      sumSquares += w * row[c]! * row[c]!;
    }
    if (m === 0) continue;
    items += w;
    minRatings = Math.min(minRatings, m);
    maxRatings = Math.max(maxRatings, m);
  }
  return { alpha, counts, patterns: kept, totals, sumSquares, shape: { items, minRatings, maxRatings } };
}

/** Everything the single pass over the items counts: the statistics' accumulators, per annotator, and the disputed items. */
type ItemTally = ReturnType<typeof tallyItems>;

/**
 * One pass over the labelled items, every statistic accumulated at once (α, Fleiss, pairwise tables, per-category
 * agreement, per-annotator counts) and the disputed items kept as parallel typed arrays. Written as one loop: a big
 * campaign has hundreds of thousands of labels and this is the view's whole cost.
 */
function tallyItems(l: CampaignLabelColumns, g: Grouped, codes: LabelCodes, R: number) {
  const { lv, lc, KC, categoryNames, combinedNames } = codes;
  const la = l.col.annotatorKey;
  const nItems = g.items.length;
  // Fleiss' P̄ at both levels: each item's share of agreeing pairs (its pattern's), summed in item order.
  const verdictShare: number[] = [];
  const combinedShare: number[] = [];
  let verdictShareSum = 0;
  let combinedShareSum = 0;
  const verdictPairs = new PairTables(R, 2);
  const combinedPairs = new PairTables(R, KC);
  const vc = new Int32Array(2);
  const cc = new Int32Array(KC);
  // Per item, its pattern at both levels (for the split's groups; −1 without a decided label).
  const itemVerdictPattern = new Int32Array(nItems);
  const itemCombinedPattern = new Int32Array(nItems);
  const verdictPatterns = new ItemPatterns(2, ["success", "failure"]);
  const combinedPatterns = new ItemPatterns(KC, combinedNames);
  const annLabels = new Int32Array(R);
  const annUnsure = new Int32Array(R);
  const annSuccess = new Int32Array(R);
  const annDecided = new Int32Array(R);
  let unsureLabels = 0;
  let pairableItems = 0;
  // Disputed items as parallel typed arrays (tens of thousands of them in a big campaign): item index, the shares of
  // agreeing pairs on the verdict and on the combined label (NaN when fewer than two), labels and unsure labels.
  const dItem = new Int32Array(nItems);
  const dVerdict = new Float64Array(nItems);
  const dLabel = new Float64Array(nItems);
  const dLabels = new Int32Array(nItems);
  const dUnsure = new Int32Array(nItems);
  let disputedCount = 0;

  for (let x = 0; x < nItems; x++) {
    const from = g.start[x]!;
    const to = g.start[x + 1]!;
    // Cleared by hand: a fill() call per item costs more than the few stores.
    vc[0] = vc[1] = 0;
    for (let c = 0; c < KC; c++) cc[c] = 0;
    let unsure = 0;
    for (let t = from; t < to; t++) {
      const i = g.order[t]!;
      const a = la[i]!;
      annLabels[a]!++;
      const v = lv[i]!;
      if (v < 0) {
        if (v === -1) {
          unsure++;
          annUnsure[a]!++;
        }
        continue;
      }
      annDecided[a]!++;
      if (v === 0) annSuccess[a]!++;
      vc[v]!++;
      const c = lc[i]!;
      cc[c]!++;
      // Every pair of this item's decided labels, annotator codes ordered a < b.
      for (let u = from; u < t; u++) {
        const j = g.order[u]!;
        const w = lv[j]!;
        if (w < 0) continue;
        const b = la[j]!;
        if (a < b) {
          verdictPairs.add(a, b, v, w);
          combinedPairs.add(a, b, c, lc[j]!);
        } else if (b < a) {
          verdictPairs.add(b, a, w, v);
          combinedPairs.add(b, a, lc[j]!, c);
        }
      }
    }
    unsureLabels += unsure;
    // The item's patterns (its category counts at each level): α, Fleiss' κ and the bootstrap patterns are counted
    // from the patterns and their multiplicities after this loop.
    const pv = (itemVerdictPattern[x] = verdictPatterns.add(vc));
    const pc = (itemCombinedPattern[x] = combinedPatterns.add(cc));
    if (pv === verdictShare.length) verdictShare.push(agreeingShare(vc, vc[0]! + vc[1]!));
    if (pc === combinedShare.length) combinedShare.push(agreeingShare(cc, vc[0]! + vc[1]!));
    const m = vc[0]! + vc[1]!;
    if (m >= 2) {
      pairableItems++;
      verdictShareSum += verdictShare[pv]!;
      combinedShareSum += combinedShare[pc]!;
    }
    // Disputed: the labels are not all the same, "unsure" being a label of its own.
    let distinct = unsure > 0 ? 1 : 0;
    for (let c = 0; c < KC; c++) if (cc[c]! > 0) distinct++;
    if (distinct > 1) {
      const d = disputedCount++;
      dItem[d] = x;
      dVerdict[d] = agreeingShare(vc, m);
      dLabel[d] = agreeingShare(cc, m);
      dLabels[d] = to - from;
      dUnsure[d] = unsure;
    }
  }
  const verdict = levelTotals(verdictPatterns, 0);
  const combined = levelTotals(combinedPatterns, 0);
  const category = levelTotals(combinedPatterns, 2, categoryNames);
  const percent = (sum: number) => ({ value: pairableItems ? sum / pairableItems : null, items: pairableItems });
  return {
    verdict,
    combined,
    category,
    verdictPercent: percent(verdictShareSum),
    combinedPercent: percent(combinedShareSum),
    verdictPairs,
    combinedPairs,
    itemVerdictPattern,
    itemCombinedPattern,
    verdictPatterns,
    combinedPatterns,
    annLabels,
    annUnsure,
    annSuccess,
    annDecided,
    unsureLabels,
    pairableItems,
    disputed: { dItem, dVerdict, dLabel, dLabels, dUnsure, count: disputedCount },
  };
}

/** One level's agreement (verdict, or verdict with category) with the bootstrap intervals of α and Fleiss' κ. */
function levelAgreement(
  categories: string[],
  alpha: KrippendorffResult,
  fleiss: FleissKappaResult,
  patterns: ItemPatterns,
  percent: LevelAgreement["percent"],
  memo: IntervalMemo,
): LevelAgreement {
  return {
    categories,
    alpha: { ...alpha, interval: krippendorffAlphaInterval(patterns, alpha, {}, memo) },
    fleiss: { ...fleiss, interval: fleissKappaInterval(patterns, fleiss, {}, memo) },
    percent,
  };
}

/** Cohen's κ and raw agreement of every pair of annotators who shared an item, with links to their items. */
function pairCells(l: CampaignLabelColumns, campaignId: number, tables: PairTables, k: number, level: "verdict" | "label"): PairCell[] {
  const R = l.dict.annotatorKey.length;
  const out: PairCell[] = [];
  for (let a = 0; a < R; a++) {
    for (let b = a + 1; b < R; b++) {
      const table = tables.table(a, b);
      let shared = 0;
      let agree = 0;
      for (let c = 0; c < k * k; c++) shared += table[c]!;
      if (shared === 0) continue;
      for (let c = 0; c < k; c++) agree += table[c * k + c]!;
      const keys = [l.dict.annotatorKey[a]!, l.dict.annotatorKey[b]!];
      out.push({
        ...kappaFromCounts(table, k, "none"),
        a: keys[0]!,
        b: keys[1]!,
        shared,
        agreement: agree / shared,
        fewShared: shared < MIN_SHARED_FOR_KAPPA,
        sel: { campaign: { campaignId, annotators: keys } },
        disagreeSel: { campaign: { campaignId, annotators: keys, disagree: true, level } },
      });
    }
  }
  return out;
}

/** The most disputed items (at most DISPUTED_LIMIT) with their trajectories and every label given to them. */
async function disputedItems(db: Db, l: CampaignLabelColumns, g: Grouped, found: ItemTally["disputed"]): Promise<DisputedItem[]> {
  const { dItem, dVerdict, dLabel, dLabels, dUnsure } = found;
  // Most disputed first: least verdict agreement, then least label agreement, more unsure labels, more labels, item id.
  const key = (v: number) => (Number.isNaN(v) ? 1 : v);
  const before = (p: number, q: number) =>
    key(dVerdict[p]!) - key(dVerdict[q]!) ||
    key(dLabel[p]!) - key(dLabel[q]!) ||
    dUnsure[q]! - dUnsure[p]! ||
    dLabels[q]! - dLabels[p]! ||
    g.items[dItem[p]!]! - g.items[dItem[q]!]!;
  const order = smallest(found.count, DISPUTED_LIMIT, before);
  const share = (v: number) => (Number.isNaN(v) ? null : v);
  const top = order.map((i) => ({ x: dItem[i]!, verdictAgreement: share(dVerdict[i]!), labelAgreement: share(dLabel[i]!) }));
  const topItemIds = top.map((d) => g.items[d.x]!);
  const trajectoryOfItem = new Map<number, number>();
  for (const d of top) trajectoryOfItem.set(g.items[d.x]!, l.col.trajectoryId[g.order[g.start[d.x]!]!]!);
  const rows = new Map((await trajectoryRows(db, [...trajectoryOfItem.values()])).map((r) => [r.id, r]));
  const labelRows = await labelsOfItems(db, topItemIds);
  return top.flatMap((d) => {
    const itemId = g.items[d.x]!;
    const trajectoryId = trajectoryOfItem.get(itemId)!;
    const row = rows.get(trajectoryId);
    if (!row) return [];
    return [
      {
        itemId,
        trajectoryId,
        externalTaskId: row.externalTaskId,
        site: row.site,
        runName: row.runName,
        intent: row.intent,
        verdictAgreement: d.verdictAgreement,
        labelAgreement: d.labelAgreement,
        labels: labelRows
          .filter((r) => r.itemId === itemId)
          .map((r) => ({ annotator: r.annotatorName, verdict: r.verdict, category: r.category, firstFailingStep: r.firstFailingStep, note: r.note })),
      },
    ];
  });
}

export interface UnqualifiedCount {
  annotators: number;
  labels: number;
}

export async function humanAgreement(db: Db, campaignId: number, by?: string, options: { includeFlagged?: boolean } = {}): Promise<HumanAgreementResult> {
  const head = (await listCampaignHeads(db)).find((c) => c.id === campaignId);
  if (!head) throw new NotFoundError("campaign", campaignId);
  // The labels and the trajectory facts read at once: on PostgreSQL each read has its own pooled connection.
  const [l] = await Promise.all([getCampaignLabels(db, campaignId), getFacts(db)]);
  const { excluded, items, flagged, base } = await itemsLeftOut(db, l, campaignId, options.includeFlagged === true);
  const unqualified = await unqualifiedAnnotators(db, (await getCampaign(db, campaignId))?.qualificationPassAt ?? null, campaignId, l.dict.annotatorKey);
  const g = groupByItem(l, excluded, unqualified);
  const R = l.dict.annotatorKey.length;
  const annotatorNames = await annotatorDisplayNames(db, l.dict.annotatorKey);
  const memo = await intervalMemoFor(db);
  const codes = labelCodes(l);
  const { KC, categoryNames, combinedNames } = codes;
  const t = tallyItems(l, g, codes, R);

  const specific = t.combined.counts.specific();
  const perCategory: CategoryAgreement[] = combinedNames
    .map((label, c) => ({ label, ...specific[c]!, sel: { campaign: { campaignId, label, minLabels: 2 } } }))
    .filter((row) => row.ratings > 0);
  const disputed = await disputedItems(db, l, g, t.disputed);
  const split = by
    ? await splitHumanAgreement(db, {
        l,
        g,
        by,
        base,
        campaignId,
        verdict: levelPatterns(t.verdictPatterns, t.itemVerdictPattern),
        combined: levelPatterns(t.combinedPatterns, t.itemCombinedPattern),
        combinedNames,
      })
    : null;

  return {
    campaign: {
      id: head.id,
      name: head.name,
      status: head.status,
      annotatorsPerItem: head.annotatorsPerItem,
      items,
      categories: head.labelSchema.categories,
    },
    decisions: tallyDecisions(await decisionTallies(db, [campaignId])),
    unqualified: leftOutLabels(l, unqualified),
    labelledItems: g.items.length,
    pairableItems: t.pairableItems,
    labels: g.order.length,
    unsureLabels: t.unsureLabels,
    annotators: l.dict.annotatorKey.map((key, a) =>
      annotatorSummary(key, annotatorNames[a]!, t.annLabels[a]!, t.annUnsure[a]!, t.annSuccess[a]!, t.annDecided[a]!),
    ),
    verdict: levelAgreement(
      ["success", "failure"],
      t.verdict.alpha.result(["success", "failure"]),
      fleissKappaFromTotals(t.verdict.shape, t.verdict.sumSquares, t.verdict.totals, ["success", "failure"]),
      t.verdictPatterns,
      t.verdictPercent,
      memo,
    ),
    combined: levelAgreement(
      combinedNames,
      t.combined.alpha.result(combinedNames),
      fleissKappaFromTotals(t.combined.shape, t.combined.sumSquares, t.combined.totals, combinedNames),
      t.combinedPatterns,
      t.combinedPercent,
      memo,
    ),
    failureCategory: withAlphaInterval(t.category.alpha.result(categoryNames.slice()), t.category.patterns, memo),
    pairwise: { verdict: pairCells(l, campaignId, t.verdictPairs, 2, "verdict"), combined: pairCells(l, campaignId, t.combinedPairs, KC, "label") },
    perCategory,
    disputedTotal: t.disputed.count,
    disputed,
    sel: { ...base, campaign: { campaignId } },
    disputedSel: { ...base, campaign: { campaignId, disagree: true } },
    split,
    flagged,
  };
}

/** One annotator's line in the human agreement view: how much they labelled and how often they said success. */
function annotatorSummary(key: string, name: string, labels: number, unsure: number, success: number, decided: number) {
  return { key, name, labels, unsure, successShare: decided ? success / decided : null };
}

/** Krippendorff's α on failure categories with its bootstrap interval over the same items. */
function withAlphaInterval<A extends Parameters<typeof krippendorffAlphaInterval>[1]>(
  alpha: A,
  patterns: Parameters<typeof krippendorffAlphaInterval>[0],
  memo: IntervalMemo,
): A & { interval: ReturnType<typeof krippendorffAlphaInterval> } {
  return { ...alpha, interval: krippendorffAlphaInterval(patterns, alpha, {}, memo) };
}

/** Human agreement per group of a split (site, run, any task attribute): both levels over each group's items. */
async function splitHumanAgreement(
  db: Db,
  a: {
    l: CampaignLabelColumns;
    g: Grouped;
    by: string;
    base: Selection;
    campaignId: number;
    verdict: LevelPatterns;
    combined: LevelPatterns;
    combinedNames: string[];
  },
): Promise<NonNullable<HumanAgreementResult["split"]>> {
  const { l, g, by, base, campaignId, verdict, combined, combinedNames } = a;
  const memo = await intervalMemoFor(db);
  const facts = await getFacts(db);
  const groups = await splitFacts(db, facts, resolveSplitKey(facts, by));
  const members: number[][] = groups.groups.map(() => []);
  for (let x = 0; x < g.items.length; x++) {
    const r = facts.rowOf(l.col.trajectoryId[g.order[g.start[x]!]!]!);
    const group = r < 0 ? -1 : groups.group[r]!;
    if (group >= 0) members[group]!.push(x);
  }
  return {
    by: groups.by,
    title: groups.title,
    rows: groups.groups.flatMap((group, i) =>
      members[i]!.length
        ? [
            {
              key: group.key,
              label: group.label,
              items: members[i]!.length,
              verdict: levelOfGroup(verdict, members[i]!, ["success", "failure"], memo),
              combined: levelOfGroup(combined, members[i]!, combinedNames, memo),
              sel: { ...base, ...group.sel, campaign: { campaignId } },
            },
          ]
        : [],
    ),
  };
}

// ---------------------------------------------------------------- consensus models

export type ConsensusLevel = "verdict" | "label";
export const CONSENSUS_ITEMS_LIMIT = 50;

export interface ConsensusAnnotator {
  key: string;
  name: string;
  /** Success/failure labels this annotator gave (unsure ones are left out, as in the other statistics). */
  labels: number;
  /** Share of their labels equal to the majority vote, on trajectories that have one. */
  majorityAgreement: number | null;
  /** Dawid–Skene: estimated accuracy Σ_k p_k π[k][k]. */
  accuracy: number | null;
  /** MACE: probability that a label reflects the trajectory rather than a habit. */
  competence: number | null;
  /** MACE: the label this annotator gives when not paying attention, and how much of their spam it is. */
  habit: { label: string; share: number } | null;
}

export interface ConsensusModelSummary {
  iterations: number;
  converged: boolean;
  /** Trajectories whose most probable label differs from the majority vote (or that have no majority). */
  differFromMajority: number;
  /** Trajectories whose most probable label has a posterior below 0.9. */
  uncertain: number;
}

export interface ConsensusItem extends AgreementItemRef {
  /** The majority label, null on a tie. */
  majority: string | null;
  dawidSkene: { label: string; probability: number };
  mace: { label: string; probability: number };
  labels: { annotator: string; verdict: string; category: string | null }[];
}

export interface HumanConsensusResult {
  campaignId: number;
  level: ConsensusLevel;
  classes: string[];
  /** Trajectories with at least one success/failure label. */
  items: number;
  /** Trajectories whose labels are tied, so the majority vote has no answer. */
  noMajority: number;
  dawidSkene: ConsensusModelSummary & { classPrior: { label: string; share: number }[] };
  mace: ConsensusModelSummary & { restarts: number; bestRestart: number };
  annotators: ConsensusAnnotator[];
  /** Trajectories where a model departs from the majority vote, most confident departures first. */
  departures: ConsensusItem[];
  departuresTotal: number;
}

/**
 * Dawid–Skene and MACE over a campaign's success/failure labels (unsure left out), at the verdict level or the
 * combined label (success, or failure with its error category): each annotator's estimated reliability next to
 * how often they side with the majority, and the trajectories where a model would consolidate differently from
 * the vote. Both fits run over distinct label patterns, so this stays well under the view budget at 100,000
 * trajectories (`npm run bench -- analytics`).
 */
/** The decided labels of a campaign (gold items left out) coded for the consensus models, items numbered densely. */
function consensusInput(l: CampaignLabelColumns, gold: ReadonlySet<number>, level: ConsensusLevel) {
  const R = l.dict.annotatorKey.length;
  const verdictWord = l.dict.verdict.map((v) => (v === "success" ? 0 : v === "failure" ? 1 : -1));
  const classes =
    level === "verdict" ? ["success", "failure"] : ["success", combinedLabel("failure", null), ...l.dict.category.map((c) => combinedLabel("failure", c))];
  const K = classes.length;

  // Decided labels only, items numbered densely in order of first appearance.
  let maxItem = 0;
  for (const v of l.col.itemId) if (v > maxItem) maxItem = v;
  const itemIndex = new Int32Array(maxItem + 1).fill(-1);
  const itemIds: number[] = [];
  const trajectoryOf: number[] = [];
  const item = new Int32Array(l.length);
  const annotator = new Int32Array(l.length);
  const label = new Int32Array(l.length);
  const { verdict: verdictCol, category: categoryCol, itemId: itemCol, trajectoryId: trajectoryCol, annotatorKey: annotatorCol } = l.col;
  const byVerdictOnly = level === "verdict";
  let n = 0;
  for (let i = 0; i < l.length; i++) {
    const v = verdictWord[verdictCol[i]!]!;
    if (v < 0) continue;
    const c = categoryCol[i]!;
    const id = itemCol[i]!;
    if (gold.size && gold.has(id)) continue;
    let x = itemIndex[id]!;
    if (x < 0) {
      x = itemIndex[id] = itemIds.length;
      itemIds.push(id);
      trajectoryOf.push(trajectoryCol[i]!);
    }
    item[n] = x;
    annotator[n] = annotatorCol[i]!;
    label[n] = byVerdictOnly || v === 0 ? v : c < 0 ? 1 : 2 + c;
    n++;
  }
  const data: ConsensusLabels = {
    items: itemIds.length,
    annotators: R,
    classes: K,
    item: item.subarray(0, n),
    annotator: annotator.subarray(0, n),
    label: label.subarray(0, n),
  };
  return { data, classes, itemIds, trajectoryOf };
}

type ConsensusFits = ReturnType<typeof consensusInput> & {
  majority: ReturnType<typeof majorityClasses>;
  ds: ReturnType<typeof dawidSkene>;
  mc: ReturnType<typeof mace>;
};

/**
 * The fits of a campaign's labels, kept with the labels they were fitted on: the packed columns getCampaignLabels hands
 * out are a new object whenever a label of the campaign changes (dataset.ts), so an entry can never outlive its labels;
 * the gold items, which no change counter follows, are part of the key. Dawid–Skene and MACE (seeded restarts) give
 * the same answer for the same input, so the human agreement page, opened again, refits nothing.
 */
const fitsOfLabels = new WeakMap<CampaignLabelColumns, Map<string, ConsensusFits>>();
const FITS_PER_LABELS = 8;

function consensusFits(l: CampaignLabelColumns, gold: ReadonlySet<number>, level: ConsensusLevel): ConsensusFits {
  let fits = fitsOfLabels.get(l);
  if (!fits) fitsOfLabels.set(l, (fits = new Map()));
  const key = `${level}:${[...gold].sort((a, b) => a - b).join(",")}`;
  let hit = fits.get(key);
  if (!hit) {
    const input = consensusInput(l, gold, level);
    const labels = groupConsensusLabels(input.data);
    hit = { ...input, majority: majorityClasses(labels), ds: dawidSkene(labels), mc: mace(labels) };
    if (fits.size >= FITS_PER_LABELS) fits.delete(fits.keys().next().value!);
    fits.set(key, hit);
  }
  return hit;
}

export async function humanConsensus(db: Db, campaignId: number, level: ConsensusLevel): Promise<HumanConsensusResult> {
  const head = (await listCampaignHeads(db)).find((c) => c.id === campaignId);
  if (!head) throw new NotFoundError("campaign", campaignId);
  const l = await getCampaignLabels(db, campaignId);
  const gold = await goldItemIds(db, campaignId);
  const R = l.dict.annotatorKey.length;
  const { data, classes, itemIds, trajectoryOf, majority, ds, mc } = consensusFits(l, gold, level);
  const K = classes.length;
  const n = data.label.length;

  const summary = (fit: { label: Int32Array; posterior: Float64Array; iterations: number; converged: boolean }): ConsensusModelSummary => {
    let differ = 0;
    let uncertain = 0;
    for (let x = 0; x < data.items; x++) {
      if (fit.label[x] !== majority[x]) differ++;
      if (fit.posterior[x * K + fit.label[x]!]! < 0.9) uncertain++;
    }
    return { iterations: fit.iterations, converged: fit.converged, differFromMajority: differ, uncertain };
  };
  let noMajority = 0;
  for (let x = 0; x < data.items; x++) if (majority[x] === MISSING) noMajority++;

  const agreeWithMajority = new Int32Array(R);
  const withMajority = new Int32Array(R);
  const given = new Int32Array(R);
  for (let t = 0; t < n; t++) {
    const a = data.annotator[t]!;
    given[a]!++;
    const m = majority[data.item[t]!]!;
    if (m === MISSING) continue;
    withMajority[a]!++;
    if (data.label[t] === m) agreeWithMajority[a]!++;
  }
  const names = await annotatorDisplayNames(db, l.dict.annotatorKey);
  const annotators: ConsensusAnnotator[] = l.dict.annotatorKey.map((key, a) => {
    let habit: ConsensusAnnotator["habit"] = null;
    if (given[a]) {
      let top = 0;
      for (let k = 1; k < K; k++) if (mc.spamming[a * K + k]! > mc.spamming[a * K + top]!) top = k;
      habit = { label: classes[top]!, share: mc.spamming[a * K + top]! };
    }
    return {
      key,
      name: names[a]!,
      labels: given[a]!,
      majorityAgreement: withMajority[a] ? agreeWithMajority[a]! / withMajority[a]! : null,
      accuracy: ds.accuracy[a] ?? null,
      competence: mc.competence[a] ?? null,
      habit,
    };
  });

  // Departures from the vote: a model's label differs from the majority (or there is none). Most confident first,
  // by the larger of the two models' posteriors on their own label, then by item id.
  const departing: number[] = [];
  const confidence: number[] = [];
  for (let x = 0; x < data.items; x++) {
    if (ds.label[x] === majority[x] && mc.label[x] === majority[x]) continue;
    departing.push(x);
    confidence.push(Math.max(ds.posterior[x * K + ds.label[x]!]!, mc.posterior[x * K + mc.label[x]!]!));
  }
  const order = smallest(
    departing.length,
    CONSENSUS_ITEMS_LIMIT,
    (p, q) => confidence[q]! - confidence[p]! || itemIds[departing[p]!]! - itemIds[departing[q]!]!,
  );
  const shown = order.map((d) => departing[d]!);
  const rows = new Map(
    (
      await trajectoryRows(
        db,
        shown.map((x) => trajectoryOf[x]!),
      )
    ).map((r) => [r.id, r]),
  );
  const labelRows = await labelsOfItems(
    db,
    shown.map((x) => itemIds[x]!),
  );
  const departures: ConsensusItem[] = shown.flatMap((x) => {
    const row = rows.get(trajectoryOf[x]!);
    if (!row) return [];
    const itemId = itemIds[x]!;
    return [
      {
        itemId,
        trajectoryId: row.id,
        externalTaskId: row.externalTaskId,
        site: row.site,
        runName: row.runName,
        intent: row.intent,
        majority: majority[x] === MISSING ? null : classes[majority[x]!]!,
        dawidSkene: { label: classes[ds.label[x]!]!, probability: ds.posterior[x * K + ds.label[x]!]! },
        mace: { label: classes[mc.label[x]!]!, probability: mc.posterior[x * K + mc.label[x]!]! },
        labels: labelRows.filter((r) => r.itemId === itemId).map((r) => ({ annotator: r.annotatorName, verdict: r.verdict, category: r.category })),
      },
    ];
  });

  return {
    campaignId,
    level,
    classes,
    items: data.items,
    noMajority,
    dawidSkene: { ...summary(ds), classPrior: classes.map((c, k) => ({ label: c, share: ds.classPrior[k]! })) },
    mace: { ...summary(mc), restarts: mc.restarts, bestRestart: mc.bestRestart },
    annotators,
    departures,
    departuresTotal: departing.length,
  };
}
