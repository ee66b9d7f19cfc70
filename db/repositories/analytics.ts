/**
 * Read queries behind the analytics views: every SQL query they run lives here.
 *
 * The tables behind the views (tasks, trajectories, evaluator verdicts, labels, consolidated labels) are read as
 * *packed columns*: each through a covering index, grouped by its few-valued fields (site, run, evaluator setting,
 * verdict, annotator, category …) in the index's column order, with its integer fields (ids, step numbers) as one
 * `group_concat` list per group; the lists are parsed into typed arrays and text becomes codes into a per-column
 * dictionary (readGrouped). The services then join on trajectory id in typed arrays.
 * Why this shape (measured on the bench dataset, scripts/bench/analytics.ts, 100,000 trajectories × 3 labels + 3
 * verdicts): GROUP BY and joins in SQL sort every row through a temporary B-tree and probe an index per join, 3–5×
 * slower than one read per table plus an in-memory join; fetching rows one by one through the driver is slower still;
 * one concatenated record per row spends most of its time building text for the repeated words and walking the wide
 * table rows, and takes 2–3× longer than the grouped index read (verdicts 270 → 60–100 ms, labels 270 → 110 ms).
 * Group keys come back as real SQL values, so any text (separators, empty strings, NULL) stays exact.
 */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type Database from "better-sqlite3";
import type { Db } from "../client";
import type { CountedTable } from "../schema/changes";
import {
  agentRuns,
  annotationCampaigns,
  campaignItems,
  evaluatorVerdicts,
  judgeConfigs,
  labels,
  taskSets,
  tasks,
  trajectories,
  users,
} from "../schema/index";

type FieldKind = "int" | "text";

interface FieldSpec {
  /** SQL expression over the table's columns. */
  expr: string;
  kind: FieldKind;
  /** A group key (one value per group, from the row with the group's columns); else an integer read as a list. */
  group?: boolean;
}

/** One table read as columns: every field an Int32Array (ints as they are, null = NULL_INT; text as dictionary codes, null = -1). */
export interface PackedColumns<K extends string> {
  length: number;
  col: Record<K, Int32Array>;
  /** Dictionary of each text field: code → value. */
  dict: Record<K, string[]>;
}

/** Stand-in for SQL NULL in integer columns. */
export const NULL_INT = -2147483648;

class ColumnBuilder {
  data: Int32Array;
  length = 0;
  constructor(capacity: number) {
    this.data = new Int32Array(Math.max(16, capacity));
  }
  push(v: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = v;
  }
  pushRepeated(v: number, count: number): void {
    if (this.length + count > this.data.length) this.grow(this.length + count);
    this.data.fill(v, this.length, this.length + count);
    this.length += count;
  }
  private grow(atLeast: number): void {
    const next = new Int32Array(Math.max(atLeast, this.data.length * 2));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
  truncate(length: number): void {
    this.length = length;
  }
  finish(): Int32Array {
    return this.data.subarray(0, this.length);
  }
}

class Dictionary {
  readonly values: string[] = [];
  private readonly index = new Map<string, number>();
  code(v: string): number {
    let c = this.index.get(v);
    if (c === undefined) {
      c = this.values.length;
      this.index.set(v, c);
      this.values.push(v);
    }
    return c;
  }
}

const statementCache = new WeakMap<Database.Database, Map<string, Database.Statement>>();

function prepared(db: Db, text: string): Database.Statement {
  let cache = statementCache.get(db.$client);
  if (!cache) statementCache.set(db.$client, (cache = new Map()));
  let stmt = cache.get(text);
  if (!stmt) {
    stmt = db.$client.prepare(text);
    cache.set(text, stmt);
  }
  return stmt;
}

/**
 * Reads `fields` of the rows of `table` that satisfy `where` through a covering index: the `group` fields (text or
 * integer, few distinct values) become the GROUP BY, in the index's column order so that SQLite walks one index range
 * without sorting, and each other field (integers) comes back as one comma-separated list per group. Far less text
 * is built than with one record per row, which is what made the per-row scan of wide tables slow. Rows come out
 * grouped, not in rowid order. A list that does not parse as integers (a non-integer stored in an integer column)
 * sends that group through a row-by-row read, so the result is exact either way.
 */
function readGrouped<K extends string>(db: Db, q: { table: string; fields: Record<K, FieldSpec>; where?: string; params?: unknown[]; groupBy?: string[] }): PackedColumns<K> {
  const { table, fields, where = "", params = [] } = q;
  const names = Object.keys(fields) as K[];
  const groupNames = names.filter((n) => fields[n].group);
  const listNames = names.filter((n) => !fields[n].group);
  for (const n of listNames) if (fields[n].kind !== "int") throw new Error(`readGrouped: ${table}.${n} must be an integer or a group field`);
  // The GROUP BY must follow the covering index's leading columns, or SQLite sorts every row first. Group fields
  // may be expressions of those columns (evaluated once per group).
  const groupBy = q.groupBy ?? groupNames.map((n) => fields[n].expr);
  const select = [
    ...groupNames.map((n, i) => `${fields[n].expr} as g${i}`),
    ...groupBy.map((e, i) => `${e} as k${i}`),
    "count(*) as n",
    ...listNames.map((n, i) => `group_concat(ifnull(${fields[n].expr}, ''), ',') as l${i}`),
  ];
  const groupedSql = `select ${select.join(", ")} from ${table} ${where ? `where ${where}` : ""} group by ${groupBy.join(", ")}`;
  // One group again, row by row (its GROUP BY values as parameters after the query's own).
  const rowSql = `select ${listNames.map((n) => fields[n].expr).join(", ")} from ${table} where ${where ? `(${where}) and ` : ""}${groupBy.map((e) => `${e} is ?`).join(" and ")}`;

  const cols = Object.fromEntries(names.map((n) => [n, new ColumnBuilder(1024)])) as Record<K, ColumnBuilder>;
  const dicts = Object.fromEntries(names.map((n) => [n, new Dictionary()])) as Record<K, Dictionary>;
  const listCols = listNames.map((n) => cols[n]);
  for (const g of prepared(db, groupedSql).iterate(...params) as Iterable<Record<string, unknown>>) {
    const n = Number(g.n);
    const start = listCols[0]!.length;
    let ok = true;
    for (let i = 0; i < listCols.length && ok; i++) ok = appendIntList(g[`l${i}`] as string | null, n, listCols[i]!);
    if (!ok) {
      for (const c of listCols) c.truncate(start);
      const keys = groupBy.map((_, i) => g[`k${i}`]);
      for (const row of prepared(db, rowSql).raw(true).iterate(...params, ...keys) as Iterable<unknown[]>) {
        listCols.forEach((c, i) => c.push(row[i] === null || row[i] === undefined ? NULL_INT : Math.trunc(Number(row[i]))));
      }
    }
    const added = listCols[0]!.length - start;
    groupNames.forEach((name, i) => {
      const v = g[`g${i}`];
      const code = v === null || v === undefined ? (fields[name].kind === "int" ? NULL_INT : -1) : fields[name].kind === "int" ? Number(v) : dicts[name].code(String(v));
      cols[name].pushRepeated(code, added);
    });
  }
  const col = {} as Record<K, Int32Array>;
  const dict = {} as Record<K, string[]>;
  for (const name of names) {
    col[name] = cols[name].finish();
    dict[name] = dicts[name].values;
  }
  return { length: listCols[0]!.length, col, dict };
}

/** Appends a comma-separated list of `expected` integers ("" = NULL); false when it is not exactly that. */
function appendIntList(s: string | null, expected: number, out: ColumnBuilder): boolean {
  if (s === null) return false;
  const len = s.length;
  let count = 0;
  let i = 0;
  for (;;) {
    let c = i < len ? s.charCodeAt(i) : 44;
    if (c === 44) {
      out.push(NULL_INT);
    } else {
      let sign = 1;
      if (c === 45) {
        sign = -1;
        c = ++i < len ? s.charCodeAt(i) : 44;
      }
      let v = 0;
      let digits = 0;
      while (c >= 48 && c <= 57) {
        v = v * 10 + (c - 48);
        digits++;
        c = ++i < len ? s.charCodeAt(i) : 44;
      }
      // Beyond 9 digits an id could leave the Int32 range; such a list goes the row-by-row way (and fails loudly there).
      if (digits === 0 || digits > 9 || c !== 44) return false;
      out.push(sign * v);
    }
    count++;
    if (i >= len) break;
    i++;
  }
  return count === expected;
}

// ---------------------------------------------------------------- packed loaders

/** Difficulty as a text value of one dimension of the JSON column (null when absent or not JSON). */
const difficultyExpr = (dim: string) => `case when json_valid(difficulty) then cast(json_extract(difficulty, '$.${dim}') as text) end`;

/** Tasks (tasks_site_analytics_idx): grouped by site, task set and the raw difficulty JSON, whose few values are parsed once per group. */
export function loadTaskColumns(db: Db) {
  return readGrouped(db, {
    table: "tasks",
    fields: {
      site: { expr: "site", kind: "text", group: true },
      taskSetId: { expr: "task_set_id", kind: "int", group: true },
      overall: { expr: difficultyExpr("overall"), kind: "text", group: true },
      reasoning: { expr: difficultyExpr("reasoning"), kind: "text", group: true },
      visual: { expr: difficultyExpr("visual"), kind: "text", group: true },
      id: { expr: "id", kind: "int" },
    },
    groupBy: ["site", "task_set_id", "difficulty"],
  });
}

/** Trajectories (trajectories_steps_idx), grouped by step count and run. */
export function loadTrajectoryColumns(db: Db) {
  return readGrouped(db, {
    table: "trajectories",
    fields: {
      stepCount: { expr: "step_count", kind: "int", group: true },
      runId: { expr: "run_id", kind: "int", group: true },
      taskId: { expr: "task_id", kind: "int" },
      id: { expr: "id", kind: "int" },
    },
  });
}

/**
 * Trajectories that say nothing about their agent (trajectories_outcome_idx): an infrastructure error or a page that
 * blocked the agent. Success rates and agreement leave them out and count them apart.
 */
export function notAttemptedTrajectories(db: Db): { id: number; outcome: string }[] {
  return prepared(db, "SELECT id, outcome FROM trajectories WHERE outcome IN ('infra_error', 'blocked')").all() as { id: number; outcome: string }[];
}

/** Consolidated labels of one campaign, or of every campaign (consolidated_labels_campaign_analytics_idx). */
export function loadConsolidatedColumns(db: Db, campaignId?: number) {
  return readGrouped(db, {
    table: "consolidated_labels",
    fields: {
      campaignId: { expr: "campaign_id", kind: "int", group: true },
      verdict: { expr: "verdict", kind: "text", group: true },
      category: { expr: "category", kind: "text", group: true },
      trajectoryId: { expr: "trajectory_id", kind: "int" },
      firstFailingStep: { expr: "first_failing_step", kind: "int" },
    },
    where: campaignId === undefined ? "" : "campaign_id = ?",
    params: campaignId === undefined ? [] : [campaignId],
  });
}

/** Evaluator verdicts, of one evaluator or of all (evaluator_verdicts_analytics_idx). */
export function loadVerdictColumns(db: Db, evaluatorKey?: string) {
  return readGrouped(db, {
    table: "evaluator_verdicts",
    fields: {
      evaluatorKey: { expr: "evaluator_key", kind: "text", group: true },
      k: { expr: "k", kind: "text", group: true },
      promptVersion: { expr: "prompt_version", kind: "text", group: true },
      verdict: { expr: "verdict", kind: "text", group: true },
      trajectoryId: { expr: "trajectory_id", kind: "int" },
      sampleCount: { expr: "sample_count", kind: "int" },
      sampleSuccesses: { expr: "sample_successes", kind: "int" },
      sampleFailures: { expr: "sample_failures", kind: "int" },
      firstFailingStep: { expr: "first_failing_step", kind: "int" },
    },
    where: evaluatorKey === undefined ? "" : "evaluator_key = ?",
    params: evaluatorKey === undefined ? [] : [evaluatorKey],
  });
}

/**
 * Active (not withdrawn) labels of one campaign: the pre-adjudication labels human agreement is computed from
 * (labels_campaign_analytics_idx).
 */
export function loadCampaignLabelColumns(db: Db, campaignId: number) {
  return readGrouped(db, {
    table: "labels",
    fields: {
      annotatorKey: { expr: "annotator_key", kind: "text", group: true },
      verdict: { expr: "verdict", kind: "text", group: true },
      category: { expr: "category", kind: "text", group: true },
      itemId: { expr: "item_id", kind: "int" },
      trajectoryId: { expr: "trajectory_id", kind: "int" },
      firstFailingStep: { expr: "first_failing_step", kind: "int" },
    },
    where: "campaign_id = ? and status = 'active'",
    params: [campaignId],
  });
}

// ---------------------------------------------------------------- small look-ups

export function listRunNames(db: Db) {
  return db
    .select({ id: agentRuns.id, name: agentRuns.name, agentName: agentRuns.agentName, model: agentRuns.model })
    .from(agentRuns)
    .orderBy(asc(agentRuns.name), asc(agentRuns.id))
    .all();
}

export function listTaskSetNames(db: Db) {
  return db.select({ id: taskSets.id, name: taskSets.name, benchmark: taskSets.benchmark }).from(taskSets).orderBy(asc(taskSets.name)).all();
}

export function listCampaignHeads(db: Db) {
  return db
    .select({
      id: annotationCampaigns.id,
      name: annotationCampaigns.name,
      status: annotationCampaigns.status,
      annotatorsPerItem: annotationCampaigns.annotatorsPerItem,
      labelSchema: annotationCampaigns.labelSchema,
      createdAt: annotationCampaigns.createdAt,
    })
    .from(annotationCampaigns)
    .orderBy(asc(annotationCampaigns.id))
    .all();
}

/** Number of items of each campaign (for "how far along" next to agreement figures). */
export function campaignItemCounts(db: Db): Map<number, number> {
  const rows = db
    .select({ campaignId: campaignItems.campaignId, n: sql<number>`count(*)` })
    .from(campaignItems)
    .groupBy(campaignItems.campaignId)
    .all();
  return new Map(rows.map((r) => [r.campaignId, r.n]));
}

/** Number of items of one campaign. */
export function campaignItemCount(db: Db, campaignId: number): number {
  return (prepared(db, "select count(*) as n from campaign_items where campaign_id = ?").get(campaignId) as { n: number }).n;
}

export function judgeConfigNames(db: Db): Map<number, { name: string; model: string }> {
  return new Map(db.select({ id: judgeConfigs.id, name: judgeConfigs.name, model: judgeConfigs.model }).from(judgeConfigs).all().map((r) => [r.id, { name: r.name, model: r.model }]));
}

/** Display name of each evaluator key (as its verdicts carry it). */
export function evaluatorNames(db: Db): Map<string, string> {
  // One probe per distinct key through the (evaluator_key, k) index instead of a scan of every verdict.
  const rows = prepared(
    db,
    `select e.evaluator_key as key, (select v.evaluator_name from evaluator_verdicts v where v.evaluator_key = e.evaluator_key limit 1) as name
     from (select distinct evaluator_key from evaluator_verdicts) e`,
  ).all() as { key: string; name: string }[];
  return new Map(rows.map((r) => [r.key, r.name]));
}

/** Names of accounts, for annotator keys "user:<id>". */
export function userNames(db: Db, ids: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 500) {
    for (const r of db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, ids.slice(i, i + 500))).all()) out.set(r.id, r.name);
  }
  return out;
}

/** Rows of the trajectory table for a page of drill-down results, in the order of `ids`. */
export function trajectoryRows(db: Db, ids: number[]) {
  if (ids.length === 0) return [];
  const rows = db
    .select({
      id: trajectories.id,
      outcome: trajectories.outcome,
      stepCount: trajectories.stepCount,
      finalAnswer: trajectories.finalAnswer,
      taskId: tasks.id,
      externalTaskId: tasks.externalId,
      site: tasks.site,
      intent: tasks.intent,
      runId: agentRuns.id,
      runName: agentRuns.name,
      model: agentRuns.model,
    })
    .from(trajectories)
    .innerJoin(tasks, eq(tasks.id, trajectories.taskId))
    .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId))
    .where(inArray(trajectories.id, ids))
    .all();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is NonNullable<typeof r> => r !== undefined);
}

/** The verdict of one evaluator identity on each of `trajectoryIds`, with its rationale (disagreement lists). */
export function verdictDetails(db: Db, identity: { evaluatorKey: string; k: string; promptVersion: string }, trajectoryIds: number[]) {
  if (trajectoryIds.length === 0) return new Map<number, { verdict: string; rationale: string | null; score: number | null }>();
  const rows = db
    .select({ trajectoryId: evaluatorVerdicts.trajectoryId, verdict: evaluatorVerdicts.verdict, rationale: evaluatorVerdicts.rationale, score: evaluatorVerdicts.score })
    .from(evaluatorVerdicts)
    .where(
      and(
        eq(evaluatorVerdicts.evaluatorKey, identity.evaluatorKey),
        eq(evaluatorVerdicts.k, identity.k),
        eq(evaluatorVerdicts.promptVersion, identity.promptVersion),
        inArray(evaluatorVerdicts.trajectoryId, trajectoryIds),
      ),
    )
    .all();
  return new Map(rows.map((r) => [r.trajectoryId, { verdict: r.verdict, rationale: r.rationale, score: r.score }]));
}

/** Active labels of the given campaign items, with their annotators' names (most-disputed list). */
export function labelsOfItems(db: Db, itemIds: number[]) {
  if (itemIds.length === 0) return [];
  return db
    .select({
      itemId: labels.itemId,
      annotatorKey: labels.annotatorKey,
      annotatorName: labels.annotatorName,
      verdict: labels.verdict,
      category: labels.category,
      firstFailingStep: labels.firstFailingStep,
      note: labels.note,
    })
    .from(labels)
    .where(and(inArray(labels.itemId, itemIds), eq(labels.status, "active")))
    .orderBy(asc(labels.itemId), asc(labels.annotatorKey))
    .all();
}

/** The change counter of every counted table (db/schema/changes.ts), bumped by triggers on each write. */
export function tableVersions(db: Db): Record<CountedTable, number> {
  const out = {} as Record<CountedTable, number>;
  for (const r of prepared(db, "select name, version from change_counters").all() as { name: CountedTable; version: number }[]) out[r.name] = r.version;
  return out;
}
