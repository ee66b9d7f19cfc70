/**
 * Error analysis over the consolidated human labels: how failures split into error categories (WebVoyager's
 * Table 3), by site and by agent run, and where the first failing step sits (its index, and its decile of the
 * trajectory). Every count carries its selection.
 */
import { resolveSplitKey, splitFacts } from "./splits";
import type { Db } from "../../../db/database";
import { NULL_INT } from "../../../db/repositories/analytics";
import { positionDecile, positionDecileLabel } from "../../domain/analytics/measures";
import type { Selection } from "../../domain/analytics/selection";
import { runNames } from "./common";
import {
  flaggedInScope,
  getFacts,
  getReference,
  REF_FAILURE,
  REF_SUCCESS,
  REF_UNSURE,
  scopeMask,
  scopeSelection,
  type FlaggedCount,
  type Scope,
} from "./dataset";

export interface ErrorAnalysisInput {
  scope: Scope;
  campaignId?: number;
  /** A split key (splits.ts): the category distribution per group as well. */
  by?: string;
}

export interface CategoryCount {
  /** null = failures without a category. */
  category: string | null;
  count: number;
  /** Share of all failures in the group. */
  share: number | null;
  sel: Selection;
}

export interface ErrorGroupRow {
  key: string;
  label: string;
  site?: string | null;
  runId?: number;
  /** Consolidated labels in the group: success, failure, unsure. */
  labelled: number;
  failures: number;
  failureSel: Selection;
  categories: CategoryCount[];
}

export interface StepBin {
  key: string;
  label: string;
  count: number;
  sel: Selection;
}

export interface ErrorAnalysisResult {
  scope: Scope;
  campaignId: number | null;
  trajectories: number;
  labelled: number;
  successes: number;
  failures: number;
  unsure: number;
  /** Category names in the order of their overall counts (most frequent first), null last. */
  categoryOrder: (string | null)[];
  overall: CategoryCount[];
  bySite: ErrorGroupRow[];
  byRun: ErrorGroupRow[];
  /** Per group of the split asked for (`by`); null when none. */
  split: { by: string; title: string; rows: ErrorGroupRow[] } | null;
  firstFailingStep: {
    /** Failures with a first failing step marked. */
    marked: number;
    byIndex: StepBin[];
    byDecile: StepBin[];
    /** Mean decile position per category (1 = first tenth of the trajectory). */
    meanPositionByCategory: { category: string | null; marked: number; meanPosition: number | null }[];
  };
  /** Tasks flagged in the validity ledger and their trajectories, left out unless the scope includes them. */
  flagged: FlaggedCount;
}

export async function errorAnalysis(db: Db, input: ErrorAnalysisInput): Promise<ErrorAnalysisResult> {
  const facts = await getFacts(db);
  const mask = scopeMask(facts, input.scope);
  const ref = await getReference(db, input.campaignId);
  const base = scopeSelection(input.scope);
  const K = ref.categories.length + 1; // slot 0 = no category
  const refCond = (extra: NonNullable<Selection["reference"]>): Selection["reference"] => ({
    ...(input.campaignId !== undefined ? { campaignId: input.campaignId } : {}),
    ...extra,
  });
  const categoryName = (slot: number): string | null => (slot === 0 ? null : ref.categories[slot - 1]!);

  const runs = await runNames(db);
  const runIndex = new Map(runs.map((r, i) => [r.id, i]));
  const S = facts.sites.length + 1; // slot 0 = no site
  const siteCounts = new Float64Array(S * K);
  const siteLabelled = new Float64Array(S);
  const runCounts = new Float64Array(runs.length * K);
  const runLabelled = new Float64Array(runs.length);
  const overall = new Float64Array(K);
  let trajectories = 0;
  let labelled = 0;
  let successes = 0;
  let unsure = 0;
  let maxStep = 0;
  const marked: { r: number; slot: number; step: number }[] = [];
  const split = input.by ? await splitFacts(db, facts, resolveSplitKey(facts, input.by)) : null;
  const G = split?.groups.length ?? 0;
  const splitCounts = new Float64Array(G * K);
  const splitLabelled = new Float64Array(G);

  for (let r = 0; r < facts.n; r++) {
    if (!mask[r]) continue;
    trajectories++;
    const v = ref.verdict[r]!;
    if (v !== REF_SUCCESS && v !== REF_FAILURE && v !== REF_UNSURE) continue;
    labelled++;
    const site = facts.site[r]! + 1;
    const run = runIndex.get(facts.runId[r]!) ?? -1;
    siteLabelled[site]!++;
    if (run >= 0) runLabelled[run]!++;
    const group = split ? split.group[r]! : -1;
    if (group >= 0) splitLabelled[group]!++;
    if (v === REF_SUCCESS) successes++;
    if (v === REF_UNSURE) unsure++;
    if (v !== REF_FAILURE) continue;
    const slot = ref.category[r]! + 1;
    overall[slot]!++;
    siteCounts[site * K + slot]!++;
    if (run >= 0) runCounts[run * K + slot]!++;
    if (group >= 0) splitCounts[group * K + slot]!++;
    const step = ref.firstFailingStep[r]!;
    if (step !== NULL_INT) {
      marked.push({ r, slot, step });
      if (step > maxStep) maxStep = step;
    }
  }
  const failures = trajectories === 0 ? 0 : overall.reduce((a, b) => a + b, 0);
  const order = Array.from({ length: K }, (_, s) => s)
    .filter((s) => overall[s]! > 0)
    .sort((a, b) => (a === 0 ? 1 : b === 0 ? -1 : overall[b]! - overall[a]! || ref.categories[a - 1]!.localeCompare(ref.categories[b - 1]!)));

  const categoriesOf = (counts: Float64Array, offset: number, total: number, extra: Selection): CategoryCount[] =>
    order.map((slot) => ({
      category: categoryName(slot),
      count: counts[offset + slot]!,
      share: total ? counts[offset + slot]! / total : null,
      sel: { ...base, ...extra, reference: refCond({ verdicts: ["failure"], category: categoryName(slot) }) },
    }));

  const groupRow = (key: string, label: string, extra: Selection, counts: Float64Array, offset: number, labelledN: number): ErrorGroupRow => {
    let f = 0;
    for (let s = 0; s < K; s++) f += counts[offset + s]!;
    return {
      key,
      label,
      labelled: labelledN,
      failures: f,
      failureSel: { ...base, ...extra, reference: refCond({ verdicts: ["failure"] }) },
      categories: categoriesOf(counts, offset, f, extra),
    };
  };

  const bySite: ErrorGroupRow[] = [];
  for (let s = 0; s < S; s++) {
    if (siteLabelled[s] === 0) continue;
    const site = s === 0 ? null : facts.sites[s - 1]!;
    bySite.push({ ...groupRow(`site:${site}`, site ?? "(no site)", { site }, siteCounts, s * K, siteLabelled[s]!), site });
  }
  bySite.sort((a, b) => (a.site === null ? 1 : b.site === null ? -1 : a.label.localeCompare(b.label)));
  const byRun: ErrorGroupRow[] = [];
  runs.forEach((run, i) => {
    if (runLabelled[i] === 0) return;
    byRun.push({ ...groupRow(`run:${run.id}`, run.name, { runId: run.id }, runCounts, i * K, runLabelled[i]!), runId: run.id });
  });

  const stepSel = (extra: NonNullable<Selection["reference"]>): Selection => ({ ...base, reference: refCond({ verdicts: ["failure"], ...extra }) });
  const firstFailingStep = firstFailingSteps(marked, maxStep, facts.stepCount, order, categoryName, stepSel);

  return {
    scope: input.scope,
    campaignId: input.campaignId ?? null,
    trajectories,
    labelled,
    successes,
    failures,
    unsure,
    flagged: flaggedInScope(facts, input.scope),
    categoryOrder: order.map(categoryName),
    overall: categoriesOf(overall, 0, failures, {}),
    bySite,
    byRun,
    split: split && {
      by: split.by,
      title: split.title,
      rows: split.groups.flatMap((g, i) => (splitLabelled[i] ? [groupRow(g.key, g.label, g.sel, splitCounts, i * K, splitLabelled[i]!)] : [])),
    },
    firstFailingStep,
  };
}

/** Where the marked first failing steps fall: by step index (up to the largest marked), by decile, and per category. */
function firstFailingSteps(
  marked: { r: number; slot: number; step: number }[],
  maxStep: number,
  stepCount: ArrayLike<number>,
  order: number[],
  categoryName: (slot: number) => string | null,
  stepSel: (extra: NonNullable<Selection["reference"]>) => Selection,
): ErrorAnalysisResult["firstFailingStep"] {
  const byIndexCounts = new Float64Array(maxStep + 1);
  const byDecileCounts = new Float64Array(11);
  const positionSum = new Map<number, number>();
  const positionN = new Map<number, number>();
  for (const m of marked) {
    byIndexCounts[m.step]!++;
    const decile = positionDecile(m.step, stepCount[m.r]!);
    byDecileCounts[decile]!++;
    positionSum.set(m.slot, (positionSum.get(m.slot) ?? 0) + decile);
    positionN.set(m.slot, (positionN.get(m.slot) ?? 0) + 1);
  }
  const byIndex: StepBin[] = marked.length
    ? Array.from(byIndexCounts, (count, step) => ({ key: `step:${step}`, label: String(step + 1), count, sel: stepSel({ step: { min: step, max: step } }) }))
    : [];
  const byDecile: StepBin[] = marked.length
    ? Array.from({ length: 10 }, (_, i) => ({
        key: `decile:${i + 1}`,
        label: positionDecileLabel(i + 1),
        count: byDecileCounts[i + 1]!,
        sel: stepSel({ position: i + 1 }),
      }))
    : [];
  return {
    marked: marked.length,
    byIndex,
    byDecile,
    meanPositionByCategory: order.map((slot) => {
      const n = positionN.get(slot) ?? 0;
      return { category: categoryName(slot), marked: n, meanPosition: n ? positionSum.get(slot)! / n : null };
    }),
  };
}
