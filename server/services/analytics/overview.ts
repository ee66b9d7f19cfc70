/**
 * Overview: success rates of the agents as each evaluator sees them (the consolidated human label, every judge
 * setting, rule checks and imported verdicts), per site, agent run, site × run, difficulty and trajectory length,
 * each with a 95% Wilson interval, its n and the selection behind it. WebVoyager's Table 1 (success per site and
 * agent) and VisualWebArena's breakdowns by difficulty and trajectory length come out of this.
 */
import type { Db } from "../../../db/database";
import {
  countedVerdicts,
  lengthBucket,
  lengthBucketLabel,
  lengthBucketRange,
  lengthBucketWidth,
  type UnparseablePolicy,
} from "../../domain/analytics/measures";
import type { DifficultyDimension, Selection } from "../../domain/analytics/selection";
import {
  COUNT_SLOTS,
  C_FAILURE,
  C_SUCCESS,
  C_UNSURE,
  countVerdictsByGroup,
  evaluatorsInScope,
  rateCell,
  runNames,
  type EvaluatorInfo,
  type RateCell,
  type RunName,
} from "./common";
import { resolveSplitKey, splitFacts } from "./splits";
import {
  getFacts,
  getReference,
  getVerdictSets,
  REF_FAILURE,
  REF_SUCCESS,
  REF_UNSURE,
  scopeMask,
  leftOutOfScope,
  type FlaggedCount,
  scopeSelection,
  type Reference,
  type Scope,
  type TrajectoryFacts,
  type VerdictSet,
} from "./dataset";

export const HUMAN_EVALUATOR_ID = "human";

export interface OverviewInput {
  scope: Scope;
  /** Campaign whose consolidated labels are the human column; default: each trajectory's latest. */
  campaignId?: number;
  unparseable: UnparseablePolicy;
  difficulty: DifficultyDimension;
  /** A split key (splits.ts: a task attribute, site, run, difficulty…): rates per group as well. */
  by?: string;
}

export interface OverviewColumn {
  id: string;
  kind: "human" | EvaluatorInfo["kind"];
  label: string;
  info: EvaluatorInfo | null;
  total: RateCell;
}

export interface RateRow {
  key: string;
  label: string;
  /** Trajectories of the group in scope (whatever evaluated them). */
  trajectories: number;
  sel: Selection;
  site?: string | null;
  runId?: number;
  /** Cells by column id; a column without verdicts in the group has n = 0. */
  cells: Record<string, RateCell>;
}

export interface OverviewResult {
  scope: Scope;
  campaignId: number | null;
  unparseable: UnparseablePolicy;
  difficulty: DifficultyDimension;
  trajectories: number;
  /** Trajectories of the scope left out of every rate: infrastructure errors and pages that blocked the agent. */
  notCounted: { infraErrors: number; blocked: number };
  /** Tasks flagged in the validity ledger and their trajectories: left out unless the scope includes them. */
  flagged: FlaggedCount;
  columns: OverviewColumn[];
  runs: RunName[];
  bySite: RateRow[];
  byRun: RateRow[];
  bySiteRun: RateRow[];
  byDifficulty: RateRow[];
  byLength: RateRow[];
  lengthBucketWidth: number;
  /** Rates per group of the split asked for (`by`); null when none. */
  split: { by: string; title: string; rows: RateRow[] } | null;
}

interface Grouping {
  /** Group index per facts row, -1 outside the scope. */
  group: Int32Array;
  /** Numeric key of each group index. */
  keys: number[];
  sizes: number[];
}

/** Keys are small integers ≥ -1 (codes, ids, buckets), so groups are found through a dense array, not a Map. */
function makeGrouping(facts: TrajectoryFacts, mask: Uint8Array, keyOf: (r: number) => number): Grouping {
  const group = new Int32Array(facts.n).fill(-1);
  const raw = new Int32Array(facts.n);
  let maxKey = -1;
  for (let r = 0; r < facts.n; r++) {
    if (!mask[r]) continue;
    const key = keyOf(r);
    raw[r] = key;
    if (key > maxKey) maxKey = key;
  }
  const index = new Int32Array(maxKey + 2).fill(-1);
  const keys: number[] = [];
  const sizes: number[] = [];
  for (let r = 0; r < facts.n; r++) {
    if (!mask[r]) continue;
    const key = raw[r]!;
    let g = index[key + 1]!;
    if (g < 0) {
      g = index[key + 1] = keys.length;
      keys.push(key);
      sizes.push(0);
    }
    group[r] = g;
    sizes[g]!++;
  }
  return { group, keys, sizes };
}

/** Counts of the human reference per group (success, failure, unsure). */
function countReference(ref: Reference, group: Int32Array, groups: number): Float64Array {
  const counts = new Float64Array(groups * COUNT_SLOTS);
  for (let r = 0; r < group.length; r++) {
    const g = group[r]!;
    if (g < 0) continue;
    const v = ref.verdict[r]!;
    if (v === REF_SUCCESS) counts[g * COUNT_SLOTS + C_SUCCESS]!++;
    else if (v === REF_FAILURE) counts[g * COUNT_SLOTS + C_FAILURE]!++;
    else if (v === REF_UNSURE) counts[g * COUNT_SLOTS + C_UNSURE]!++;
  }
  return counts;
}

const DIFFICULTY_ORDER = ["easy", "medium", "hard"];

function compareKeys(a: (number | string)[], b: (number | string)[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (typeof x === "number" && typeof y === "number") return x - y;
    return String(x).localeCompare(String(y));
  }
  return a.length - b.length;
}

/** How many trajectories the scope holds, and the longest of them (the length buckets' width follows from it). */
function scopeSize(facts: TrajectoryFacts, mask: Uint8Array): { inScope: number; maxSteps: number } {
  let inScope = 0;
  let maxSteps = 0;
  for (let r = 0; r < facts.n; r++) {
    if (!mask[r]) continue;
    inScope++;
    if (facts.stepCount[r]! > maxSteps) maxSteps = facts.stepCount[r]!;
  }
  return { inScope, maxSteps };
}

/** What every rate cell of the overview is computed from: the human reference, the evaluators in scope, the scope. */
interface RateColumns {
  ref: Awaited<ReturnType<typeof getReference>>;
  hasHuman: boolean;
  active: Awaited<ReturnType<typeof evaluatorsInScope>>;
  base: Selection;
  policy: OverviewInput["unparseable"];
  campaignId: number | undefined;
}

/** Cells of every column (the human label, then each evaluator setting) for one grouping. */
function rateCells(c: RateColumns, g: Grouping, extraOf: (groupIndex: number) => Selection): Record<string, RateCell>[] {
  const humanSel = (extra: Selection, verdicts: ("success" | "failure")[]): Selection => ({
    ...c.base,
    ...extra,
    reference: { ...(c.campaignId !== undefined ? { campaignId: c.campaignId } : {}), verdicts },
  });
  const judgeSel = (set: VerdictSet, extra: Selection, verdicts: ("success" | "failure" | "unparseable")[]): Selection => ({
    ...c.base,
    ...extra,
    evaluator: { ...set.identity, verdicts },
  });
  const out: Record<string, RateCell>[] = g.keys.map(() => ({}));
  if (c.hasHuman) {
    const counts = countReference(c.ref, g.group, g.keys.length);
    g.keys.forEach((_, i) => {
      out[i]![HUMAN_EVALUATOR_ID] = rateCell(
        counts,
        i * COUNT_SLOTS,
        "exclude",
        humanSel(extraOf(i), ["success", "failure"]),
        humanSel(extraOf(i), ["success"]),
      );
    });
  }
  for (const { set, info } of c.active) {
    const counts = new Float64Array(g.keys.length * COUNT_SLOTS);
    countVerdictsByGroup(set, g.group, counts);
    g.keys.forEach((_, i) => {
      out[i]![info.id] = rateCell(
        counts,
        i * COUNT_SLOTS,
        c.policy,
        judgeSel(set, extraOf(i), countedVerdicts(c.policy)),
        judgeSel(set, extraOf(i), ["success"]),
      );
    });
  }
  return out;
}

/** One group of a grouping as a row: its key and label, the selection it stands for, and how it sorts. */
interface Described {
  key: string;
  label: string;
  extra: Selection;
  site?: string | null;
  runId?: number;
  /** Sort key, compared element by element. */
  order: (number | string)[];
}

/** The rows of one grouping, each with its cells, in the order their descriptions give. */
function rateRows(c: RateColumns, g: Grouping, describe: (key: number) => Described): RateRow[] {
  const described = g.keys.map(describe);
  const cells = rateCells(c, g, (i) => described[i]!.extra);
  const rows = described.map((d, i) => ({
    d,
    row: { key: d.key, label: d.label, trajectories: g.sizes[i]!, sel: { ...c.base, ...d.extra }, cells: cells[i]! } as RateRow,
  }));
  rows.sort((a, b) => compareKeys(a.d.order, b.d.order));
  return rows.map(({ d, row }) => {
    if (d.site !== undefined) row.site = d.site;
    if (d.runId !== undefined) row.runId = d.runId;
    return row;
  });
}

export async function analyticsOverview(db: Db, input: OverviewInput): Promise<OverviewResult> {
  // Read at once, not one after another: on PostgreSQL each read has its own pooled connection.
  const [facts, ref, sets] = await Promise.all([getFacts(db), getReference(db, input.campaignId), getVerdictSets(db)]);
  const mask = scopeMask(facts, input.scope);
  const runs = await runNames(db);
  const runName = new Map(runs.map((r) => [r.id, r.name]));
  const base = scopeSelection(input.scope);
  const policy = input.unparseable;

  const { inScope, maxSteps } = scopeSize(facts, mask);
  const width = lengthBucketWidth(maxSteps);
  let maxRun = 0;
  for (const r of facts.runId) if (r > maxRun) maxRun = r;

  const siteName = (code: number): string | null => (code < 0 ? null : facts.sites[code]!);
  const difficultyValues = facts.difficultyValues[input.difficulty];
  const difficultyCol = facts.difficulty[input.difficulty];

  // Columns: the human label when any trajectory in scope has one, then every evaluator setting with verdicts in scope.
  const active = await evaluatorsInScope(db, sets, mask);
  let hasHuman = false;
  for (let r = 0; r < facts.n && !hasHuman; r++) if (mask[r] && ref.verdict[r]! >= 0) hasHuman = true;

  const columnsOf: RateColumns = { ref, hasHuman, active, base, policy, campaignId: input.campaignId };
  const rowsFor = (g: Grouping, describe: (key: number) => Described): RateRow[] => rateRows(columnsOf, g, describe);
  const cellsFor = (g: Grouping, extraOf: (groupIndex: number) => Selection) => rateCells(columnsOf, g, extraOf);

  // Sites by name with "(no site)" last; runs by name.
  const siteOrder = (site: string | null): (number | string)[] => (site === null ? [1, ""] : [0, site.toLowerCase()]);
  const runOrder = (id: number): (number | string)[] => [(runName.get(id) ?? "").toLowerCase(), id];

  const siteG = makeGrouping(facts, mask, (r) => facts.site[r]!);
  const bySite = rowsFor(siteG, (code) => {
    const site = siteName(code);
    return { key: `site:${site}`, label: site ?? "(no site)", extra: { site }, site, order: siteOrder(site) };
  });

  const runG = makeGrouping(facts, mask, (r) => facts.runId[r]!);
  const byRun = rowsFor(runG, (id) => ({ key: `run:${id}`, label: runName.get(id) ?? `run ${id}`, extra: { runId: id }, runId: id, order: runOrder(id) }));

  const siteRunG = makeGrouping(facts, mask, (r) => (facts.site[r]! + 1) * (maxRun + 1) + facts.runId[r]!);
  const bySiteRun = rowsFor(siteRunG, (key) => {
    const site = siteName(Math.floor(key / (maxRun + 1)) - 1);
    const runId = key % (maxRun + 1);
    return {
      key: `site:${site}|run:${runId}`,
      label: `${site ?? "(no site)"} · ${runName.get(runId) ?? `run ${runId}`}`,
      extra: { site, runId },
      site,
      runId,
      order: [...siteOrder(site), ...runOrder(runId)],
    };
  });

  const diffG = makeGrouping(facts, mask, (r) => difficultyCol[r]!);
  const byDifficulty = rowsFor(diffG, (code) => {
    const value = code < 0 ? null : difficultyValues[code]!;
    const rank = value === null ? 2000 : DIFFICULTY_ORDER.includes(value.toLowerCase()) ? DIFFICULTY_ORDER.indexOf(value.toLowerCase()) : 1000;
    return { key: `difficulty:${value}`, label: value ?? "(not given)", extra: { difficulty: { dim: input.difficulty, value } }, order: [rank, value ?? ""] };
  });

  const lenG = makeGrouping(facts, mask, (r) => lengthBucket(facts.stepCount[r]!, width));
  const byLength = rowsFor(lenG, (bucket) => ({
    key: `steps:${bucket}`,
    label: lengthBucketLabel(bucket, width),
    extra: { steps: lengthBucketRange(bucket, width) },
    order: [bucket],
  }));

  // Groups keep the split's own order (by label, "not given" last).
  const s = input.by ? await splitFacts(db, facts, resolveSplitKey(facts, input.by)) : null;
  const split = s && {
    by: s.by,
    title: s.title,
    rows: rowsFor(
      makeGrouping(facts, mask, (r) => s.group[r]!),
      (i) => ({ key: s.groups[i]!.key, label: s.groups[i]!.label, extra: s.groups[i]!.sel, order: [i] }),
    ),
  };

  // Column totals over the whole scope.
  const allG: Grouping = { group: Int32Array.from(mask, (m) => (m ? 0 : -1)), keys: [0], sizes: [inScope] };
  const totals = cellsFor(allG, () => ({}))[0]!;
  const columns: OverviewColumn[] = [];
  if (hasHuman) columns.push({ id: HUMAN_EVALUATOR_ID, kind: "human", label: "Human (consolidated)", info: null, total: totals[HUMAN_EVALUATOR_ID]! });
  for (const { info } of active) columns.push({ id: info.id, kind: info.kind, label: info.label, info, total: totals[info.id]! });

  return {
    scope: input.scope,
    campaignId: input.campaignId ?? null,
    unparseable: policy,
    difficulty: input.difficulty,
    trajectories: inScope,
    ...leftOutOfScope(facts, input.scope),
    columns,
    runs,
    bySite,
    byRun,
    bySiteRun,
    byDifficulty,
    byLength,
    lengthBucketWidth: width,
    split,
  };
}
