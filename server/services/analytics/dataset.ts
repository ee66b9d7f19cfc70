/**
 * The analytics data in memory: trajectory facts (run, task set, site, difficulty, step count), the consolidated
 * human label of each trajectory, and evaluator verdicts, all as typed arrays indexed by a trajectory's *row* (its
 * position in `facts`). The views aggregate over these; the drill-down resolves a selection over the same arrays,
 * so a figure's n and the list behind it cannot drift apart.
 *
 * Loaded data is kept per connection while the tables it was read from are unchanged (per-table change counters,
 * db/schema/changes.ts): moving between views, or from a figure to its drill-down, reuses it, and a write reloads
 * only what depends on the table written (a new label reloads that campaign's labels, not the trajectories or the
 * verdicts).
 */
import type { Db } from "../../../db/database";
import {
  labelsChangedSince,
  loadCampaignLabelColumns,
  loadConsolidatedColumns,
  loadTaskAttributes,
  loadTaskColumns,
  loadTrajectoryColumns,
  loadVerdictColumns,
  notAttemptedTrajectories,
  NULL_INT,
  tableVersions,
  verdictsChangedSince,
  type ChangedLabel,
  type ChangedVerdict,
} from "../../../db/repositories/analytics";
import { flaggedTasks } from "../../../db/repositories/catalog/task-flags";
import { LABEL_REMOVALS_COUNTER, VERDICT_REMOVALS_COUNTER, type ChangeCounter, type CountedTable } from "../../../db/schema/changes";
import type { ReferenceSpec } from "../../domain/analytics/reference";
import type { DifficultyDimension, EvaluatorIdentity, Selection } from "../../domain/analytics/selection";
import { DIFFICULTY_DIMENSIONS } from "../../domain/analytics/selection";
import type { BootstrapMemo, InstrumentErrors } from "../../domain/analytics/evaluator-measures";
import type { CoefficientInterval, IntervalMemo } from "../../domain/agreement";
import { forgetAnalyticsMemos, persistedMemo } from "./memos";
import { countLoad, countReuse, forgetAnalyticsSnapshots, storedSnapshot, storedVersions, storeSnapshot } from "./snapshots";

export interface TrajectoryFacts {
  n: number;
  id: Int32Array;
  runId: Int32Array;
  taskId: Int32Array;
  taskSetId: Int32Array;
  stepCount: Int32Array;
  /** Site code into `sites`, -1 = none. */
  site: Int32Array;
  sites: string[];
  difficulty: Record<DifficultyDimension, Int32Array>;
  difficultyValues: Record<DifficultyDimension, string[]>;
  /** Row of a trajectory id, -1 when absent. */
  rowOf(id: number): number;
  /** 1 = infrastructure error, 2 = blocked: not the agent's attempt, left out of every scope and counted apart. */
  notAttempted: Uint8Array;
  /**
   * 1 = the trajectory's task is flagged in the validity ledger (broken, outdated, ambiguous, wrong reference): left
   * out of every scope unless the scope includes flagged tasks, and counted apart.
   */
  flagged: Uint8Array;
  /**
   * Task attributes (the source's own task fields, e.g. `lang`), by name: each row's value as a code into `values`,
   * -1 when its task does not carry the attribute. Names in code-unit order.
   */
  attributes: Map<string, { values: string[]; code: Int32Array }>;
}

export async function loadFacts(db: Db): Promise<TrajectoryFacts> {
  const [t, tr, notAttemptedRows, taskAttributes, flags] = await Promise.all([
    loadTaskColumns(db),
    loadTrajectoryColumns(db),
    notAttemptedTrajectories(db),
    loadTaskAttributes(db),
    flaggedTasks(db),
  ]);
  let maxTask = 0;
  for (const v of t.col.id) if (v > maxTask) maxTask = v;
  const taskRow = new Int32Array(maxTask + 1).fill(-1);
  t.col.id.forEach((v, i) => (taskRow[v] = i));

  const n = tr.length;
  const site = new Int32Array(n);
  const taskSetId = new Int32Array(n);
  const difficulty = Object.fromEntries(DIFFICULTY_DIMENSIONS.map((d) => [d, new Int32Array(n)])) as Record<DifficultyDimension, Int32Array>;
  for (let r = 0; r < n; r++) {
    const row = taskRow[tr.col.taskId[r]!] ?? -1;
    site[r] = row >= 0 ? t.col.site[row]! : -1;
    taskSetId[r] = row >= 0 ? t.col.taskSetId[row]! : -1;
    for (const d of DIFFICULTY_DIMENSIONS) difficulty[d][r] = row >= 0 ? t.col[d][row]! : -1;
  }
  const flaggedTask = new Set(flags.map((f) => f.taskId));
  const flagged = new Uint8Array(n);
  if (flaggedTask.size) for (let r = 0; r < n; r++) if (flaggedTask.has(tr.col.taskId[r]!)) flagged[r] = 1;
  const rowOf = rowIndexOf(tr.col.id);
  const notAttempted = new Uint8Array(n);
  for (const t of notAttemptedRows) {
    const r = rowOf(t.id);
    if (r >= 0) notAttempted[r] = t.outcome === "infra_error" ? 1 : 2;
  }
  // Attribute codes per row, through the task: values coded in order of first appearance, then sorted by name.
  const attributesOfTask = new Map(taskAttributes.map((a) => [a.id, a.attributes]));
  const building = new Map<string, { index: Map<string, number>; values: string[]; code: Int32Array }>();
  if (attributesOfTask.size) {
    for (let r = 0; r < n; r++) {
      const attrs = attributesOfTask.get(tr.col.taskId[r]!);
      if (!attrs) continue;
      for (const [name, value] of Object.entries(attrs)) {
        let a = building.get(name);
        if (!a) building.set(name, (a = { index: new Map(), values: [], code: new Int32Array(n).fill(-1) }));
        let c = a.index.get(value);
        if (c === undefined) {
          c = a.values.length;
          a.index.set(value, c);
          a.values.push(value);
        }
        a.code[r] = c;
      }
    }
  }
  const attributes = new Map(
    [...building.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, a]) => [name, { values: a.values, code: a.code }]),
  );
  return {
    notAttempted,
    flagged,
    attributes,
    n,
    id: tr.col.id,
    runId: tr.col.runId,
    taskId: tr.col.taskId,
    taskSetId,
    stepCount: tr.col.stepCount,
    site,
    sites: t.dict.site,
    difficulty,
    difficultyValues: { overall: t.dict.overall, reasoning: t.dict.reasoning, visual: t.dict.visual },
    rowOf,
  };
}

/** Row of each trajectory id (-1 when absent), from the ids in row order. */
function rowIndexOf(ids: Int32Array): (id: number) => number {
  let maxId = 0;
  for (const v of ids) if (v > maxId) maxId = v;
  const index = new Int32Array(maxId + 1).fill(-1);
  ids.forEach((v, r) => (index[v] = r));
  return (id: number) => (id >= 0 && id < index.length ? index[id]! : -1);
}

export interface Scope {
  taskSetId?: number;
  runId?: number;
  /** null = tasks without a site. */
  site?: string | null;
  /** Count trajectories of tasks flagged in the validity ledger too (left out by default). */
  includeFlagged?: boolean;
}

/** 1 for rows inside the scope. */
export function scopeMask(facts: TrajectoryFacts, scope: Scope): Uint8Array {
  const mask = new Uint8Array(facts.n).fill(1);
  // An infrastructure error or a blocked page is not the agent's success or failure.
  for (let r = 0; r < facts.n; r++) if (facts.notAttempted[r]) mask[r] = 0;
  // A flagged task (broken, outdated, ambiguous, wrong reference) says nothing about the agent or the judge.
  if (!scope.includeFlagged) for (let r = 0; r < facts.n; r++) if (facts.flagged[r]) mask[r] = 0;
  if (scope.taskSetId !== undefined) for (let r = 0; r < facts.n; r++) if (facts.taskSetId[r] !== scope.taskSetId) mask[r] = 0;
  if (scope.runId !== undefined) for (let r = 0; r < facts.n; r++) if (facts.runId[r] !== scope.runId) mask[r] = 0;
  if (scope.site !== undefined) {
    const code = scope.site === null ? -1 : facts.sites.indexOf(scope.site);
    // A site nobody has matches nothing (code -2 is never stored).
    const want = scope.site !== null && code < 0 ? -2 : code;
    for (let r = 0; r < facts.n; r++) if (facts.site[r] !== want) mask[r] = 0;
  }
  return mask;
}

/** Trajectories of the scope left out because the agent never got to try: shown apart from the rates. */
export function notAttemptedInScope(facts: TrajectoryFacts, scope: Scope): { infraErrors: number; blocked: number } {
  const out = { infraErrors: 0, blocked: 0 };
  const code = scope.site === undefined ? undefined : scope.site === null ? -1 : facts.sites.indexOf(scope.site);
  for (let r = 0; r < facts.n; r++) {
    const k = facts.notAttempted[r];
    if (!k) continue;
    if (scope.taskSetId !== undefined && facts.taskSetId[r] !== scope.taskSetId) continue;
    if (scope.runId !== undefined && facts.runId[r] !== scope.runId) continue;
    if (code !== undefined && facts.site[r] !== (scope.site !== null && code < 0 ? -2 : code)) continue;
    if (k === 1) out.infraErrors++;
    else out.blocked++;
  }
  return out;
}

export interface FlaggedCount {
  tasks: number;
  trajectories: number;
  /** The scope counts them (the toggle is off); otherwise they are left out. */
  included: boolean;
}

/**
 * What the validity ledger takes out of a scope: the flagged tasks and their trajectories that would otherwise count
 * (attempted, inside the scope's set, run and site), or would be taken out had the scope not included them.
 */
export function flaggedInScope(facts: TrajectoryFacts, scope: Scope): FlaggedCount {
  const inScope = scopeMask(facts, { ...scope, includeFlagged: true });
  const tasks = new Set<number>();
  let trajectories = 0;
  for (let r = 0; r < facts.n; r++) {
    if (!inScope[r] || !facts.flagged[r]) continue;
    trajectories++;
    tasks.add(facts.taskId[r]!);
  }
  return { tasks: tasks.size, trajectories, included: scope.includeFlagged === true };
}

/** Both counts of what a scope leaves out: trajectories the agent never got to try, and flagged tasks. */
export function leftOutOfScope(facts: TrajectoryFacts, scope: Scope): { notCounted: { infraErrors: number; blocked: number }; flagged: FlaggedCount } {
  return { notCounted: notAttemptedInScope(facts, scope), flagged: flaggedInScope(facts, scope) };
}

export function scopeOf(sel: Selection): Scope {
  const s: Scope = {};
  if (sel.includeFlagged) s.includeFlagged = true;
  if (sel.taskSetId !== undefined) s.taskSetId = sel.taskSetId;
  if (sel.runId !== undefined) s.runId = sel.runId;
  if (sel.site !== undefined) s.site = sel.site;
  return s;
}

export function scopeSelection(scope: Scope): Selection {
  return scopeOf(scope as Selection);
}

// ---------------------------------------------------------------- consolidated human labels

export const REF_NONE = -1;
export const REF_FAILURE = 0;
export const REF_SUCCESS = 1;
export const REF_UNSURE = 2;
/** A majority reference with as many success as failure labels: no reference, counted apart. */
export const REF_TIE = 3;
export const REF_VERDICTS = ["failure", "success", "unsure", "tie"] as const;

export interface Reference {
  /** Per facts row: REF_* code. */
  verdict: Int8Array;
  /** Per row: category code into `categories`, -1 = none. */
  category: Int32Array;
  categories: string[];
  /** Per row: first failing step index, NULL_INT = not marked. */
  firstFailingStep: Int32Array;
  /** Per row: the campaign the label comes from, 0 = none. */
  campaignId: Int32Array;
  /** Campaign asked for, if any. */
  requestedCampaignId: number | undefined;
  /** What the reference is (consolidated labels unless said otherwise) and, for an annotator, their name as shown. */
  spec?: ReferenceSpec;
  annotatorName?: string;
}

/**
 * The consolidated label of each trajectory: of `campaignId` when given, else of the most recent campaign (highest
 * id) that consolidated the trajectory.
 */
export async function loadReference(db: Db, facts: TrajectoryFacts, campaignId?: number): Promise<Reference> {
  const c = await loadConsolidatedColumns(db, campaignId);
  const verdict = new Int8Array(facts.n).fill(REF_NONE);
  const category = new Int32Array(facts.n).fill(-1);
  const firstFailingStep = new Int32Array(facts.n).fill(NULL_INT);
  const fromCampaign = new Int32Array(facts.n);
  const verdictCode = c.dict.verdict.map((v) => (v === "success" ? REF_SUCCESS : v === "failure" ? REF_FAILURE : v === "unsure" ? REF_UNSURE : REF_NONE));
  for (let i = 0; i < c.length; i++) {
    const r = facts.rowOf(c.col.trajectoryId[i]!);
    if (r < 0) continue;
    const camp = c.col.campaignId[i]!;
    if (camp < fromCampaign[r]!) continue;
    fromCampaign[r] = camp;
    verdict[r] = verdictCode[c.col.verdict[i]!]!;
    category[r] = c.col.category[i]!;
    firstFailingStep[r] = c.col.firstFailingStep[i]!;
  }
  return { verdict, category, categories: c.dict.category, firstFailingStep, campaignId: fromCampaign, requestedCampaignId: campaignId };
}

// ---------------------------------------------------------------- evaluator verdicts

export const V_SUCCESS = 0;
export const V_FAILURE = 1;
export const V_UNPARSEABLE = 2;
export const V_NOT_EVALUABLE = 3;
export const VERDICT_CODES = ["success", "failure", "unparseable", "not_evaluable"] as const;

export type EvaluatorKind = "judge" | "rule" | "import";

export interface VerdictSet {
  identity: EvaluatorIdentity;
  /** Facts rows that have a verdict (one per row: the identity is unique per trajectory). */
  rows: Int32Array;
  /** V_* code per entry of `rows`. */
  verdict: Uint8Array;
  /** Per entry: samples asked for, and those that said success / failure, when the judge was sampled several times; NULL_INT = one sample. */
  sampleCount: Int32Array;
  sampleSuccesses: Int32Array;
  sampleFailures: Int32Array;
  /** Per entry: the evaluator's first failing step, NULL_INT = none given. */
  firstFailingStep: Int32Array;
}

function verdictCode(v: string): number {
  const i = (VERDICT_CODES as readonly string[]).indexOf(v);
  // A value outside the vocabulary cannot be counted as a decision; it sits with not_evaluable.
  return i < 0 ? V_NOT_EVALUABLE : i;
}

/** Verdicts grouped by evaluator setting (key, k, prompt version); of one evaluator key when given. */
export async function loadVerdictSets(db: Db, facts: TrajectoryFacts, evaluatorKey?: string): Promise<VerdictSet[]> {
  const v = await loadVerdictColumns(db, evaluatorKey);
  const codeOf = v.dict.verdict.map(verdictCode);
  const nk = v.dict.k.length;
  const np = v.dict.promptVersion.length;
  // One group per (key, k, prompt version) code combination, found by arithmetic instead of a string key per row.
  const groups: (
    { identity: EvaluatorIdentity; rows: number[]; verdict: number[]; samples: number[]; successes: number[]; failures: number[]; step: number[] } | undefined
  )[] = [];
  for (let i = 0; i < v.length; i++) {
    const r = facts.rowOf(v.col.trajectoryId[i]!);
    if (r < 0) continue;
    const code = (v.col.evaluatorKey[i]! * nk + v.col.k[i]!) * np + v.col.promptVersion[i]!;
    let g = groups[code];
    if (!g) {
      const identity = { key: v.dict.evaluatorKey[v.col.evaluatorKey[i]!]!, k: v.dict.k[v.col.k[i]!]!, pv: v.dict.promptVersion[v.col.promptVersion[i]!]! };
      g = groups[code] = { identity, rows: [], verdict: [], samples: [], successes: [], failures: [], step: [] };
    }
    g.rows.push(r);
    g.verdict.push(codeOf[v.col.verdict[i]!]!);
    g.samples.push(v.col.sampleCount[i]!);
    g.successes.push(v.col.sampleSuccesses[i]!);
    g.failures.push(v.col.sampleFailures[i]!);
    g.step.push(v.col.firstFailingStep[i]!);
  }
  const sets: VerdictSet[] = [];
  for (const g of groups) {
    if (!g) continue;
    sets.push({
      identity: g.identity,
      rows: Int32Array.from(g.rows),
      verdict: Uint8Array.from(g.verdict),
      sampleCount: Int32Array.from(g.samples),
      sampleSuccesses: Int32Array.from(g.successes),
      sampleFailures: Int32Array.from(g.failures),
      firstFailingStep: Int32Array.from(g.step),
    });
  }
  sets.sort((a, b) => compareIdentity(a.identity, b.identity));
  return sets;
}

/** Evaluator keys first, then k numerically (1, 3, 5, full), then prompt version. */
export function compareIdentity(a: EvaluatorIdentity, b: EvaluatorIdentity): number {
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  if (a.k !== b.k) {
    const na = /^\d+$/.test(a.k) ? Number(a.k) : Infinity;
    const nb = /^\d+$/.test(b.k) ? Number(b.k) : Infinity;
    if (na !== nb) return na - nb;
    return a.k < b.k ? -1 : 1;
  }
  return a.pv === b.pv ? 0 : a.pv < b.pv ? -1 : 1;
}

export function sameIdentity(a: EvaluatorIdentity, b: EvaluatorIdentity): boolean {
  return a.key === b.key && a.k === b.k && a.pv === b.pv;
}

/**
 * `previous` with the verdicts in `changed` written in (a verdict replaces the one of its identity and trajectory,
 * or joins its set, or starts a new set): what loadVerdictSets would read now, when nothing was removed since
 * `previous` was read. Sets without a change are the same objects; changed ones are copies, so a view still
 * computing over the old arrays is not disturbed.
 */
export function patchVerdictSets(previous: readonly VerdictSet[], changed: readonly ChangedVerdict[], facts: TrajectoryFacts): VerdictSet[] {
  const byIdentity = new Map<string, ChangedVerdict[]>();
  const idKey = (key: string, k: string, pv: string) => JSON.stringify([key, k, pv]);
  for (const c of changed) {
    const id = idKey(c.evaluatorKey, c.k, c.promptVersion);
    const list = byIdentity.get(id);
    if (list) list.push(c);
    else byIdentity.set(id, [c]);
  }
  const out: VerdictSet[] = [];
  const int = (v: number | null) => (v === null ? NULL_INT : Math.trunc(v));
  const patchOne = (base: VerdictSet, changes: ChangedVerdict[]): VerdictSet => {
    // Entry of each facts row in the set, -1 = none; rows new to the set are appended in the order first written.
    const entry = new Int32Array(facts.n).fill(-1);
    base.rows.forEach((r, i) => (entry[r] = i));
    const added: number[] = [];
    for (const c of changes) {
      const r = facts.rowOf(c.trajectoryId);
      if (r >= 0 && entry[r] === -1) {
        entry[r] = base.rows.length + added.length;
        added.push(r);
      }
    }
    const n = base.rows.length + added.length;
    // A copy of the same kind, long enough for the appended rows.
    const grown = <A extends Int32Array | Uint8Array>(from: A): A => {
      const to = new (from.constructor as new (length: number) => A)(n);
      to.set(from);
      return to;
    };
    const set: VerdictSet = {
      identity: base.identity,
      rows: grown(base.rows),
      verdict: grown(base.verdict),
      sampleCount: grown(base.sampleCount),
      sampleSuccesses: grown(base.sampleSuccesses),
      sampleFailures: grown(base.sampleFailures),
      firstFailingStep: grown(base.firstFailingStep),
    };
    set.rows.set(added, base.rows.length);
    // In the order written, so a verdict written twice ends as its last write.
    for (const c of changes) {
      const r = facts.rowOf(c.trajectoryId);
      if (r < 0) continue;
      const i = entry[r]!;
      set.verdict[i] = verdictCode(c.verdict);
      set.sampleCount[i] = int(c.sampleCount);
      set.sampleSuccesses[i] = int(c.sampleSuccesses);
      set.sampleFailures[i] = int(c.sampleFailures);
      set.firstFailingStep[i] = int(c.firstFailingStep);
    }
    return set;
  };
  for (const set of previous) {
    const id = idKey(set.identity.key, set.identity.k, set.identity.pv);
    const changes = byIdentity.get(id);
    byIdentity.delete(id);
    out.push(changes ? patchOne(set, changes) : set);
  }
  for (const changes of byIdentity.values()) {
    const c = changes[0]!;
    const empty: VerdictSet = {
      identity: { key: c.evaluatorKey, k: c.k, pv: c.promptVersion },
      rows: new Int32Array(0),
      verdict: new Uint8Array(0),
      sampleCount: new Int32Array(0),
      sampleSuccesses: new Int32Array(0),
      sampleFailures: new Int32Array(0),
      firstFailingStep: new Int32Array(0),
    };
    const set = patchOne(empty, changes);
    if (set.rows.length) out.push(set);
  }
  out.sort((a, b) => compareIdentity(a.identity, b.identity));
  return out;
}

export function evaluatorKindOf(key: string): EvaluatorKind {
  if (key.startsWith("judge:")) return "judge";
  // Heuristic evaluators are programmatic checks like rules: listed with them.
  if (key.startsWith("rule:") || key.startsWith("heuristic:")) return "rule";
  return "import";
}

// ---------------------------------------------------------------- cache

const MAX_CACHED = 12;

/** What each kind of cached data is read from; rows are facts rows, so everything indexed by them depends on facts. */
const FACTS_TABLES: CountedTable[] = ["tasks", "trajectories", "task_flags"];
const REFERENCE_TABLES: CountedTable[] = [...FACTS_TABLES, "consolidated_labels"];
const VERDICT_TABLES: CountedTable[] = [...FACTS_TABLES, "evaluator_verdicts"];
const LABEL_TABLES: CountedTable[] = ["labels"];
/** A reference made from the annotators' labels (majority, one annotator): indexed by facts rows, read from labels. */
export const LABEL_REFERENCE_TABLES: CountedTable[] = [...FACTS_TABLES, "labels"];

interface CacheEntry {
  /** Versions of the tables the value was read from, when it was read. */
  stamp: string;
  /** The value, or its load while it is under way (callers at the same time share one load). */
  value: Promise<unknown>;
  /** Every counter as read before the value was, for values that can be brought up to date instead of read again. */
  versions: Record<ChangeCounter, number>;
}

/**
 * Brings a cached value read at counters `then` up to counters `now`, or says null (read everything again).
 * `previous` gives the cached value (in memory, possibly still loading, or read from the store).
 */
type Patch<T> = (previous: () => Promise<T>, then: Record<ChangeCounter, number>, now: Record<ChangeCounter, number>) => Promise<T> | null;

/**
 * A value kept in the table analytics_snapshots too (snapshots.ts), so a restarted process starts from it: how it is
 * stored (only plain data and typed arrays) and rebuilt, and which counters say how far behind a stored row is.
 */
interface Stored<T> {
  toStored?: (value: T) => unknown;
  fromStored?: (stored: unknown) => T;
  /** Tables whose writes a patch reads; the value is stored again once this many of them happened since its row. */
  patchedFrom?: ChangeCounter[];
}

/** Rows written since a stored value after which the value, brought up to date in memory, is stored again. */
const RESTORE_AFTER_CHANGES = 1_000;

/**
 * Per database, in least-recently-used order (a Map iterates in insertion order; a hit is re-inserted). Keyed by
 * the Db object, which is one per opened database (SQLite file or PostgreSQL pool).
 */
const caches = new WeakMap<object, Map<string, CacheEntry>>();

function stampOf(versions: Record<ChangeCounter, number>, tables: CountedTable[]): string {
  return tables.map((t) => versions[t] ?? 0).join(":");
}

/** Tables every judge measure is computed from (facts, consolidated labels, verdicts). */
export const JUDGE_MEASURE_TABLES: CountedTable[] = [...FACTS_TABLES, "consolidated_labels", "evaluator_verdicts"];

/**
 * A value computed from analytics data, kept per database until one of `tables` changes: figures that cost more
 * than a pass over the arrays (bootstraps) are computed once per write, not once per page view. With `stored`, kept
 * across restarts too (plain data and typed arrays only, see snapshots.ts).
 */
export async function cachedAnalytics<T>(
  db: Db,
  key: string,
  tables: CountedTable[],
  compute: () => Promise<T>,
  options: { stored?: boolean } = {},
): Promise<T> {
  return cached(db, `computed:${key}`, tables, compute, undefined, options.stored ? {} : undefined);
}

/**
 * The cache is only as good as its stamp, so the stamp is the counters read from the database on every call,
 * never a version remembered in this process: the worker, the CLI or another web server may have written (on
 * PostgreSQL, several servers share one database), and their writes bumped the counters through the triggers.
 *
 * With `stored`, a value this process does not hold is taken from the table analytics_snapshots when its row is
 * current, or brought up to date from it by `patch`; otherwise (and after a patch that left the row far behind) the
 * value is read and stored for the next process.
 */
async function cached<T>(db: Db, key: string, tables: CountedTable[], load: () => Promise<T>, patch?: Patch<T>, stored?: Stored<T>): Promise<T> {
  // Read before loading: a write that lands while loading makes the stamp stale, so the next call reloads.
  const versions = await tableVersions(db);
  const stamp = stampOf(versions, tables);
  let entries = caches.get(db);
  if (!entries) caches.set(db, (entries = new Map()));
  const hit = entries.get(key);
  entries.delete(key);
  if (hit && hit.stamp === stamp) {
    entries.set(key, hit);
    return hit.value as Promise<T>;
  }
  const patched = hit && patch?.(() => hit.value as Promise<T>, hit.versions, versions);
  let value: Promise<T>;
  if (patched) {
    value = patched;
    if (stored)
      void value.then(
        (v) => restoreIfBehind(db, key, stamp, versions, v, stored),
        () => undefined,
      );
  } else if (stored) {
    value = fromStoreOrLoad(db, key, stamp, versions, load, patch, stored);
  } else {
    countLoad(db, key);
    value = load();
  }
  const entry: CacheEntry = { stamp, value, versions };
  entries.set(key, entry);
  if (entries.size > MAX_CACHED) entries.delete(entries.keys().next().value!);
  // A failed load is not kept: the next call tries again.
  void value.catch(() => {
    if (entries.get(key) === entry) entries.delete(key);
  });
  return value;
}

/** Stores a value brought up to date in memory when its stored row is many writes behind (a later start patches less). */
function restoreIfBehind<T>(db: Db, key: string, stamp: string, versions: Record<ChangeCounter, number>, value: T, stored: Stored<T>): void {
  const at = storedVersions(db, key);
  const behind = at ? (stored.patchedFrom ?? []).reduce((sum, c) => sum + (versions[c] ?? 0) - (at[c] ?? 0), 0) : Infinity;
  if (behind >= RESTORE_AFTER_CHANGES) storeSnapshot(db, key, stamp, versions, () => (stored.toStored ? stored.toStored(value) : value));
}

async function fromStoreOrLoad<T>(
  db: Db,
  key: string,
  stamp: string,
  versions: Record<ChangeCounter, number>,
  load: () => Promise<T>,
  patch: Patch<T> | undefined,
  stored: Stored<T>,
): Promise<T> {
  const row = await storedSnapshot(db, key);
  if (row) {
    const read = async (): Promise<T> => {
      const raw = await row.value();
      // Replaced by another process between the two reads: not this stamp any more.
      if (raw === undefined) throw new StaleSnapshot();
      return stored.fromStored ? stored.fromStored(raw) : (raw as T);
    };
    try {
      if (row.stamp === stamp) {
        const value = await read();
        countReuse(db, false);
        return value;
      }
      const brought = patch?.(read, row.versions, versions);
      if (brought) {
        const value = await brought;
        countReuse(db, true);
        restoreIfBehind(db, key, stamp, versions, value, stored);
        return value;
      }
    } catch (error) {
      // The store is a shortcut: a row that cannot be read (damaged, or written by a build that packed it otherwise)
      // costs a read of the tables, and is said in the log.
      if (!(error instanceof StaleSnapshot)) console.warn(`analytics snapshot ${key} not used: ${(error as Error).message}`);
    }
  }
  countLoad(db, key);
  const value = await load();
  storeSnapshot(db, key, stamp, versions, () => (stored.toStored ? stored.toStored(value) : value));
  return value;
}

class StaleSnapshot extends Error {}

/**
 * Forgets this process's analytics data of a database, as a restart does (benchmarks measure cold computations with
 * this): the stored starting data stay, as a restarted server finds them. With `stored`, those rows are deleted too,
 * as on a database's first start.
 */
export async function clearAnalyticsCache(db: Db, options: { stored?: boolean } = {}): Promise<void> {
  caches.delete(db);
  await forgetAnalyticsMemos(db);
  await forgetAnalyticsSnapshots(db, options);
}

/** Bootstrap results of this database's judge measures (clustered error rates) by their input, kept across restarts. */
export async function bootstrapMemoFor(db: Db): Promise<BootstrapMemo> {
  return persistedMemo<InstrumentErrors>(db, "clustered-error-rates");
}

/** Fleiss' κ and α intervals of this database's human agreement views by their input, kept across restarts. */
export async function intervalMemoFor(db: Db): Promise<IntervalMemo> {
  return persistedMemo<CoefficientInterval>(db, "coefficient-interval");
}

/** Facts are stored without `rowOf` (a function), which is rebuilt from the ids. */
const STORED_FACTS: Stored<TrajectoryFacts> = {
  toStored: ({ rowOf: _rowOf, ...rest }) => rest,
  fromStored: (stored) => {
    const facts = stored as Omit<TrajectoryFacts, "rowOf">;
    return { ...facts, rowOf: rowIndexOf(facts.id) };
  },
};

export async function getFacts(db: Db): Promise<TrajectoryFacts> {
  return cached(db, "facts", FACTS_TABLES, () => loadFacts(db), undefined, STORED_FACTS);
}

export async function getReference(db: Db, campaignId?: number): Promise<Reference> {
  return cached(db, `reference:${campaignId ?? "latest"}`, REFERENCE_TABLES, async () => loadReference(db, await getFacts(db), campaignId), undefined, {});
}

/** More changed verdicts than this and reading them all again is as quick as patching them in. */
const VERDICT_PATCH_LIMIT = 5_000;

/**
 * Brings cached verdict sets up to date by reading only the verdict rows written since (judges write one verdict at
 * a time, and every open view would otherwise read all of them again after each): possible while the trajectories
 * and tasks (the rows everything is indexed by) are unchanged and no verdict was removed.
 */
function verdictPatch(db: Db, evaluatorKey?: string): Patch<VerdictSet[]> {
  return (previous, then, now) => {
    if (then.tasks !== now.tasks || then.trajectories !== now.trajectories) return null;
    if (then[VERDICT_REMOVALS_COUNTER] !== now[VERDICT_REMOVALS_COUNTER] || then.evaluator_verdicts === undefined) return null;
    return (async () => {
      const base = await previous();
      const changed = await verdictsChangedSince(db, then.evaluator_verdicts, VERDICT_PATCH_LIMIT + 1, evaluatorKey);
      const facts = await getFacts(db);
      return changed.length > VERDICT_PATCH_LIMIT ? loadVerdictSets(db, facts, evaluatorKey) : patchVerdictSets(base, changed, facts);
    })();
  };
}

/** Verdict sets of every evaluator, or of one key (taken from the full list when that is loaded and current). */
export async function getVerdictSets(db: Db, evaluatorKey?: string): Promise<VerdictSet[]> {
  if (evaluatorKey === undefined)
    return cached(db, "verdicts:*", VERDICT_TABLES, async () => loadVerdictSets(db, await getFacts(db)), verdictPatch(db), STORED_VERDICTS);
  const all = caches.get(db)?.get("verdicts:*");
  if (all && all.stamp === stampOf(await tableVersions(db), VERDICT_TABLES)) {
    return ((await all.value) as VerdictSet[]).filter((s) => s.identity.key === evaluatorKey);
  }
  return cached(
    db,
    `verdicts:${evaluatorKey}`,
    VERDICT_TABLES,
    async () => loadVerdictSets(db, await getFacts(db), evaluatorKey),
    verdictPatch(db, evaluatorKey),
    STORED_VERDICTS,
  );
}

const STORED_VERDICTS: Stored<VerdictSet[]> = { patchedFrom: ["evaluator_verdicts"] };
const STORED_LABELS: Stored<CampaignLabelColumns> = { patchedFrom: ["labels"] };

export type CampaignLabelColumns = Awaited<ReturnType<typeof loadCampaignLabelColumns>>;

/** Active labels of a campaign as packed columns. */
export async function getCampaignLabels(db: Db, campaignId: number): Promise<CampaignLabelColumns> {
  return cached(db, `labels:${campaignId}`, LABEL_TABLES, () => loadCampaignLabelColumns(db, campaignId), labelPatch(db, campaignId), STORED_LABELS);
}

/** More changed labels than this and reading the campaign's labels again is as quick as patching them in. */
const LABEL_PATCH_LIMIT = 5_000;

/**
 * Brings a campaign's cached labels up to date by reading only the label rows written since (an annotator's submit
 * would otherwise make every open view read all of the campaign's labels again): possible while no label row was
 * deleted or moved to another campaign, item or annotator (the labels_removed counter).
 */
function labelPatch(db: Db, campaignId: number): Patch<CampaignLabelColumns> {
  return (previous, then, now) => {
    if (then.labels === undefined || then[LABEL_REMOVALS_COUNTER] === undefined || then[LABEL_REMOVALS_COUNTER] !== now[LABEL_REMOVALS_COUNTER]) return null;
    return (async () => {
      const base = await previous();
      const changed = await labelsChangedSince(db, campaignId, then.labels, LABEL_PATCH_LIMIT + 1);
      return changed.length > LABEL_PATCH_LIMIT ? loadCampaignLabelColumns(db, campaignId) : patchCampaignLabels(base, changed);
    })();
  };
}

/**
 * Text in the order SQLite's BINARY and PostgreSQL's "C" collation give it (UTF-8 bytes, that is code points):
 * JavaScript compares UTF-16 code units, which puts characters above U+FFFF before U+E000–U+FFFF.
 */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x = x < 0xe000 ? x + 0x2000 : x - 0x800;
    if (y >= 0xd800) y = y < 0xe000 ? y + 0x2000 : y - 0x800;
    return x - y;
  }
  return a.length - b.length;
}

/** The label columns in the read's order of rows; the first three are text (dictionary codes). */
const LABEL_FIELDS = ["annotatorKey", "verdict", "category", "itemId", "trajectoryId", "firstFailingStep"] as const;
const LABEL_TEXT_FIELDS = ["annotatorKey", "verdict", "category"] as const;
type LabelTextField = (typeof LABEL_TEXT_FIELDS)[number];

/**
 * `base` (a campaign's active labels as loadCampaignLabelColumns read them) with the label rows in `changed` (that
 * campaign's rows written since, in the order written, active or withdrawn now) written in: exactly what
 * loadCampaignLabelColumns would read now, rows in the same order and text in the same dictionary codes. A label row
 * is one annotator's label on one item (labels_item_annotator_uq), so a changed row replaces the row of its item and
 * annotator, or is left out when it is no longer active. New arrays: a view still computing over `base` is not disturbed.
 */
export function patchCampaignLabels(base: CampaignLabelColumns, changed: readonly ChangedLabel[]): CampaignLabelColumns {
  if (!changed.length) return base;
  const { col, dict } = base;
  // The last write of each label row (item, annotator), in the order written.
  const last = new Map<string, ChangedLabel>();
  for (const c of changed) {
    const key = `${c.itemId}\u0000${c.annotatorKey}`;
    last.delete(key);
    last.set(key, c);
  }
  // Rows of the base that a write replaces or takes out: found through their item (few), then their annotator.
  let maxItem = 0;
  for (const c of changed) if (c.itemId > maxItem) maxItem = c.itemId;
  const touched = new Uint8Array(maxItem + 1);
  for (const c of changed) touched[c.itemId] = 1;
  const removed: number[] = [];
  const items = col.itemId;
  for (let r = 0; r < base.length; r++) {
    const item = items[r]!;
    if (item <= maxItem && touched[item] && last.has(`${item}\u0000${dict.annotatorKey[col.annotatorKey[r]!]}`)) removed.push(r);
  }
  // Text of the base and of the written rows in one dictionary per field, ranked in the database's order.
  const values = { annotatorKey: dict.annotatorKey.slice(), verdict: dict.verdict.slice(), category: dict.category.slice() };
  const codeOf = (f: LabelTextField, v: string | null): number => {
    if (v === null) return -1;
    const c = values[f].indexOf(v);
    return c >= 0 ? c : values[f].push(v) - 1;
  };
  const added = [...last.values()]
    .filter((c) => c.status === "active")
    .map((c) => [
      codeOf("annotatorKey", c.annotatorKey),
      codeOf("verdict", c.verdict),
      codeOf("category", c.category),
      c.itemId,
      c.trajectoryId,
      c.firstFailingStep === null ? NULL_INT : Math.trunc(c.firstFailingStep),
    ]);
  const rankOf = (f: LabelTextField): Int32Array => {
    const order = values[f].map((_, i) => i).sort((a, b) => compareCodePoints(values[f][a]!, values[f][b]!));
    const rank = new Int32Array(order.length);
    order.forEach((code, i) => (rank[code] = i));
    return rank;
  };
  const rank = [rankOf("annotatorKey"), rankOf("verdict"), rankOf("category")];
  // The read's order: annotator, verdict, category (none first), item, trajectory, first failing step (as numbers).
  const sortValue = (row: readonly number[], i: number): number => (i < 3 ? (row[i]! < 0 ? -1 : rank[i]![row[i]!]!) : row[i]!);
  const compareRows = (a: readonly number[], b: readonly number[]): number => {
    for (let i = 0; i < LABEL_FIELDS.length; i++) {
      const d = sortValue(a, i) - sortValue(b, i);
      if (d !== 0) return d;
    }
    return 0;
  };
  added.sort(compareRows);
  const cols = LABEL_FIELDS.map((f) => col[f]);
  const baseRow = (r: number) => cols.map((c) => c[r]!);
  // Where each written row goes: before the first base row that sorts after it (a base row equal to it is one it replaces).
  const insertAt = added.map((row) => {
    let lo = 0;
    let hi = base.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareRows(baseRow(mid), row) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  });

  // The base copied in runs between the rows taken out and the rows written in.
  const n = base.length - removed.length + added.length;
  const out = LABEL_FIELDS.map(() => new Int32Array(n));
  let from = 0;
  let o = 0;
  const copyUntil = (to: number) => {
    if (to > from) out.forEach((c, i) => c.set(cols[i]!.subarray(from, to), o));
    o += Math.max(0, to - from);
    from = Math.max(from, to);
  };
  let a = 0;
  for (let x = 0; x <= removed.length; x++) {
    const stop = x < removed.length ? removed[x]! : base.length;
    for (; a < added.length && insertAt[a]! <= stop; a++) {
      copyUntil(insertAt[a]!);
      out.forEach((c, i) => (c[o] = added[a]![i]!));
      o++;
    }
    copyUntil(stop);
    from = stop + 1;
  }
  // Codes in order of first appearance, as the read hands them out; values no row holds any more are dropped.
  const outDict = { ...dict };
  LABEL_TEXT_FIELDS.forEach((f, i) => {
    const c = out[i]!;
    const first = new Int32Array(values[f].length).fill(-1);
    for (let r = 0; r < n; r++) {
      const code = c[r]!;
      if (code >= 0 && first[code]! < 0) first[code] = r;
    }
    const order = values[f].map((_, code) => code).filter((code) => first[code]! >= 0);
    order.sort((x, y) => first[x]! - first[y]!);
    outDict[f] = order.map((code) => values[f][code]!);
    if (order.length === values[f].length && order.every((code, j) => code === j)) return;
    const remap = new Int32Array(values[f].length).fill(-1);
    order.forEach((code, j) => (remap[code] = j));
    for (let r = 0; r < n; r++) if (c[r]! >= 0) c[r] = remap[c[r]!]!;
  });
  const outCol = Object.fromEntries(LABEL_FIELDS.map((f, i) => [f, out[i]!])) as CampaignLabelColumns["col"];
  return { length: n, col: outCol, dict: outDict };
}
