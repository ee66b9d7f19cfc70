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
import { and, asc, count, eq, gt, inArray, isNotNull, sql, type SQL } from "drizzle-orm";
import { dialectOf, first, rawAll, tablesOf, type Db } from "../database";
import type { ChangeCounter } from "../schema/changes";
import { ofJudgeSetting, type JudgeSetting } from "./evaluation/verdicts";
import { withTaskAndRun } from "./trajectory-joins";

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

interface GroupedQuery<K extends string> {
  table: string;
  fields: Record<K, FieldSpec>;
  where?: SQL;
  /** GROUP BY expressions, in the covering index's column order; by default the group fields. */
  groupBy?: string[];
  /**
   * The order of rows inside a group: SQLite reads them in index order (the index's next columns, then the row id);
   * PostgreSQL aggregates in no set order unless told, so it is told the same order and both engines give the
   * same rows in the same order.
   */
  within: string;
}

/**
 * Reads `fields` of the rows of `table` that satisfy `where` through a covering index: the `group` fields (text or
 * integer, few distinct values) become the GROUP BY, in the index's column order so that SQLite walks one index range
 * without sorting, and each other field (integers) comes back as one comma-separated list per group. Far less text
 * is built than with one record per row, which is what made the per-row scan of wide tables slow. Rows come out
 * grouped, in the same order on both engines. A list that does not parse as integers (a non-integer stored in an
 * integer column, which SQLite allows) sends that group through a row-by-row read, so the result is exact either way.
 */
async function readGrouped<K extends string>(db: Db, q: GroupedQuery<K>): Promise<PackedColumns<K>> {
  const { table, fields, where } = q;
  const postgres = dialectOf(db) === "postgres";
  const names = Object.keys(fields) as K[];
  const groupNames = names.filter((n) => fields[n].group);
  const listNames = names.filter((n) => !fields[n].group);
  for (const n of listNames) if (fields[n].kind !== "int") throw new Error(`readGrouped: ${table}.${n} must be an integer or a group field`);
  // The GROUP BY must follow the covering index's leading columns, or SQLite sorts every row first. Group fields
  // may be expressions of those columns (evaluated once per group).
  const groupBy = q.groupBy ?? groupNames.map((n) => fields[n].expr);
  // PostgreSQL sorts the input of each ordered aggregate apart, so its lists come interleaved in one aggregate (one
  // sort per group instead of one per list: 265 → 205 ms of server CPU for 300,000 labels); SQLite reads the index in
  // order and concatenates each list as it goes.
  const interleaved = `string_agg(concat_ws(',', ${listNames.map((n) => `coalesce(cast(${fields[n].expr} as text), '')`).join(", ")}), ',' order by ${q.within}) as l0`;
  const select = [
    ...groupNames.map((n, i) => `${fields[n].expr} as g${i}`),
    // The group's key as text, to find its rows again if its lists do not parse.
    ...groupBy.map((e, i) => `cast(${e} as text) as k${i}`),
    "count(*) as n",
    ...(postgres ? [interleaved] : listNames.map((n, i) => `group_concat(coalesce(${fields[n].expr}, ''), ',') as l${i}`)),
  ];
  const whereSql = where ? sql` where ${where}` : sql``;
  // Ordered by the group keys so both engines hand the groups over in the same order (SQLite's index order). Text
  // keys compare byte by byte on PostgreSQL too (collation "C", SQLite's BINARY), whatever the server's locale: the
  // order decides which annotator, category or evaluator comes first in the views.
  const textKeys = new Set(groupNames.filter((n) => fields[n].kind === "text").map((n) => fields[n].expr));
  const order = groupBy.map((e) => `${e}${postgres && textKeys.has(e) ? ' collate "C"' : ""} asc nulls first`).join(", ");
  const groups = await rawAll<Record<string, unknown>>(
    db,
    sql`select ${sql.raw(select.join(", "))} from ${sql.raw(table)}${whereSql} group by ${sql.raw(groupBy.join(", "))} order by ${sql.raw(order)}`,
  );

  const cols = Object.fromEntries(names.map((n) => [n, new ColumnBuilder(1024)])) as Record<K, ColumnBuilder>;
  const dicts = Object.fromEntries(names.map((n) => [n, new Dictionary()])) as Record<K, Dictionary>;
  const listCols = listNames.map((n) => cols[n]);
  for (const g of groups) {
    const n = Number(g.n);
    const start = listCols[0]!.length;
    let ok = true;
    if (postgres) ok = appendIntLists(g.l0 as string | null, n, listCols);
    else for (let i = 0; i < listCols.length && ok; i++) ok = appendIntLists(g[`l${i}`] as string | null, n, [listCols[i]!]);
    if (!ok) {
      for (const c of listCols) c.truncate(start);
      // The group's rows one by one, found again by its key.
      const sameGroup = groupBy.map((e, i) => {
        const key = g[`k${i}`];
        return key === null || key === undefined ? sql`${sql.raw(e)} is null` : sql`cast(${sql.raw(e)} as text) = cast(${String(key)} as text)`;
      });
      const rows = await rawAll<Record<string, unknown>>(
        db,
        sql`select ${sql.raw(listNames.map((n, i) => `${fields[n].expr} as r${i}`).join(", "))} from ${sql.raw(table)} where ${sql.join(where ? [where, ...sameGroup] : sameGroup, sql` and `)} order by ${sql.raw(q.within)}`,
      );
      for (const row of rows) {
        listCols.forEach((c, i) => {
          const v = row[`r${i}`];
          c.push(v === null || v === undefined ? NULL_INT : Math.trunc(Number(v)));
        });
      }
    }
    const added = listCols[0]!.length - start;
    groupNames.forEach((name, i) => {
      const v = g[`g${i}`];
      const code =
        v === null || v === undefined ? (fields[name].kind === "int" ? NULL_INT : -1) : fields[name].kind === "int" ? Number(v) : dicts[name].code(String(v));
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

/**
 * Appends a comma-separated list of `expected` integers per column ("" = NULL), the columns' values interleaved
 * (row 1's of each column, then row 2's …); false when it is not exactly that.
 */
function appendIntLists(s: string | null, expected: number, outs: ColumnBuilder[]): boolean {
  if (s === null) return false;
  const len = s.length;
  const width = outs.length;
  let count = 0;
  let i = 0;
  for (;;) {
    const out = outs[count % width]!;
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
  return count === expected * width;
}

// ---------------------------------------------------------------- packed loaders

/** Difficulty as a text value of one dimension of the JSON column (null when absent or not JSON). */
function difficultyExpr(db: Db, dim: "overall" | "reasoning" | "visual"): string {
  // PostgreSQL keeps difficulty as jsonb, always valid JSON; SQLite's text column may hold anything.
  return dialectOf(db) === "postgres"
    ? `(difficulty ->> '${dim}')`
    : `case when json_valid(difficulty) then cast(json_extract(difficulty, '$.${dim}') as text) end`;
}

/** Tasks (tasks_site_analytics_idx): grouped by site, task set and the raw difficulty JSON, whose few values are parsed once per group. */
export function loadTaskColumns(db: Db) {
  return readGrouped(db, {
    table: "tasks",
    fields: {
      site: { expr: "site", kind: "text", group: true },
      taskSetId: { expr: "task_set_id", kind: "int", group: true },
      overall: { expr: difficultyExpr(db, "overall"), kind: "text", group: true },
      reasoning: { expr: difficultyExpr(db, "reasoning"), kind: "text", group: true },
      visual: { expr: difficultyExpr(db, "visual"), kind: "text", group: true },
      id: { expr: "id", kind: "int" },
    },
    groupBy: ["site", "task_set_id", "difficulty"],
    within: "id",
  });
}

/** Tasks that carry attributes (their source's own fields), with them: few tasks, read whole. */
export async function loadTaskAttributes(db: Db): Promise<{ id: number; attributes: Record<string, string> }[]> {
  const { tasks } = tablesOf(db);
  const rows = await db.select({ id: tasks.id, attributes: tasks.attributes }).from(tasks).where(isNotNull(tasks.attributes)).orderBy(asc(tasks.id));
  return rows.flatMap((r) => (r.attributes ? [{ id: r.id, attributes: r.attributes }] : []));
}

/**
 * Per trajectory that has timed steps: the seconds its timed steps took and how many of its steps were timed (a
 * trajectory counts as timed only when that is all of them).
 */
export async function trajectoryStepTimes(db: Db): Promise<{ id: number; seconds: number; timedSteps: number }[]> {
  const { steps } = tablesOf(db);
  const rows = await db
    .select({ id: steps.trajectoryId, ms: sql<number | string>`sum(${steps.durationMs})`, timedSteps: count(steps.durationMs) })
    .from(steps)
    .where(isNotNull(steps.durationMs))
    .groupBy(steps.trajectoryId);
  return rows.map((r) => ({ id: r.id, seconds: Number(r.ms) / 1000, timedSteps: Number(r.timedSteps) }));
}

/** Tasks whose source says how many steps a person took on them (Online-Mind2Web's `reference_length`). */
export async function taskHumanSteps(db: Db): Promise<Map<number, number>> {
  const { tasks } = tablesOf(db);
  const rows = await db.select({ id: tasks.id, extra: tasks.extra }).from(tasks).where(isNotNull(tasks.extra));
  const out = new Map<number, number>();
  for (const r of rows) {
    const n = (r.extra as Record<string, unknown> | null)?.reference_length;
    if (typeof n === "number" && Number.isInteger(n) && n > 0) out.set(r.id, n);
  }
  return out;
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
    within: "task_id, id",
  });
}

/**
 * Trajectories that say nothing about their agent (trajectories_outcome_idx): an infrastructure error or a page that
 * blocked the agent. Success rates and agreement leave them out and count them apart.
 */
export async function notAttemptedTrajectories(db: Db): Promise<{ id: number; outcome: string }[]> {
  const { trajectories } = tablesOf(db);
  return db
    .select({ id: trajectories.id, outcome: trajectories.outcome })
    .from(trajectories)
    .where(inArray(trajectories.outcome, ["infra_error", "blocked"]))
    .orderBy(asc(trajectories.id));
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
    where: campaignId === undefined ? undefined : sql`campaign_id = ${campaignId}`,
    within: "trajectory_id, first_failing_step, id",
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
    where: evaluatorKey === undefined ? undefined : sql`evaluator_key = ${evaluatorKey}`,
    within: "trajectory_id, id",
  });
}

/** A verdict row as the analytics hold it, read one by one when only a few changed. */
export interface ChangedVerdict {
  trajectoryId: number;
  evaluatorKey: string;
  k: string;
  promptVersion: string;
  verdict: string;
  sampleCount: number | null;
  sampleSuccesses: number | null;
  sampleFailures: number | null;
  firstFailingStep: number | null;
}

/**
 * Verdicts written after the evaluator_verdicts counter stood at `version` (rows stamp the counter of their last
 * counted write, evaluator_verdicts_change_idx), at most `limit` of them: the caller reads everything again when
 * more changed than patching is worth. Of one evaluator key when given.
 */
export async function verdictsChangedSince(db: Db, version: number, limit: number, evaluatorKey?: string): Promise<ChangedVerdict[]> {
  const { evaluatorVerdicts: v } = tablesOf(db);
  return db
    .select({
      trajectoryId: v.trajectoryId,
      evaluatorKey: v.evaluatorKey,
      k: v.k,
      promptVersion: v.promptVersion,
      verdict: v.verdict,
      sampleCount: v.sampleCount,
      sampleSuccesses: v.sampleSuccesses,
      sampleFailures: v.sampleFailures,
      firstFailingStep: v.firstFailingStep,
    })
    .from(v)
    .where(and(gt(v.changeVersion, version), evaluatorKey === undefined ? undefined : eq(v.evaluatorKey, evaluatorKey)))
    .orderBy(asc(v.changeVersion))
    .limit(limit);
}

/** A label row of a campaign as the analytics hold it, read one by one when only a few changed (active or not). */
export interface ChangedLabel {
  itemId: number;
  annotatorKey: string;
  status: string;
  verdict: string;
  category: string | null;
  trajectoryId: number;
  firstFailingStep: number | null;
}

/**
 * Labels of a campaign written after the labels counter stood at `version` (rows stamp the counter of their last
 * counted write, labels_change_idx), whatever their status now, at most `limit` of them.
 */
export async function labelsChangedSince(db: Db, campaignId: number, version: number, limit: number): Promise<ChangedLabel[]> {
  const { labels: l } = tablesOf(db);
  return db
    .select({
      itemId: l.itemId,
      annotatorKey: l.annotatorKey,
      status: l.status,
      verdict: l.verdict,
      category: l.category,
      trajectoryId: l.trajectoryId,
      firstFailingStep: l.firstFailingStep,
    })
    .from(l)
    .where(and(gt(l.changeVersion, version), eq(l.campaignId, campaignId)))
    .orderBy(asc(l.changeVersion))
    .limit(limit);
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
    where: sql`campaign_id = ${campaignId} and status = 'active'`,
    within: "item_id, trajectory_id, first_failing_step, id",
  });
}

// ---------------------------------------------------------------- small look-ups

export async function listRunNames(db: Db) {
  const { agentRuns } = tablesOf(db);
  return db
    .select({ id: agentRuns.id, name: agentRuns.name, agentName: agentRuns.agentName, model: agentRuns.model })
    .from(agentRuns)
    .orderBy(asc(agentRuns.name), asc(agentRuns.id));
}

export async function listTaskSetNames(db: Db) {
  const { taskSets } = tablesOf(db);
  return db.select({ id: taskSets.id, name: taskSets.name, benchmark: taskSets.benchmark }).from(taskSets).orderBy(asc(taskSets.name), asc(taskSets.id));
}

export async function listCampaignHeads(db: Db) {
  const { annotationCampaigns } = tablesOf(db);
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
    .orderBy(asc(annotationCampaigns.id));
}

/** Number of items of each campaign (for "how far along" next to agreement figures). */
export async function campaignItemCounts(db: Db): Promise<Map<number, number>> {
  const { campaignItems } = tablesOf(db);
  const rows = await db.select({ campaignId: campaignItems.campaignId, n: count() }).from(campaignItems).groupBy(campaignItems.campaignId);
  return new Map(rows.map((r) => [r.campaignId, Number(r.n)]));
}

/** Active labels per campaign (campaigns with none are absent). */
export async function campaignLabelCounts(db: Db): Promise<Map<number, number>> {
  const { labels } = tablesOf(db);
  const rows = await db.select({ campaignId: labels.campaignId, n: count() }).from(labels).where(eq(labels.status, "active")).groupBy(labels.campaignId);
  return new Map(rows.map((r) => [r.campaignId, Number(r.n)]));
}

/** Number of items of one campaign. */
export async function campaignItemCount(db: Db, campaignId: number): Promise<number> {
  const { campaignItems } = tablesOf(db);
  const row = await first(db.select({ n: count() }).from(campaignItems).where(eq(campaignItems.campaignId, campaignId)).limit(1));
  return Number(row?.n ?? 0);
}

export async function judgeConfigNames(db: Db): Promise<Map<number, { name: string; model: string }>> {
  const { judgeConfigs } = tablesOf(db);
  const rows = await db.select({ id: judgeConfigs.id, name: judgeConfigs.name, model: judgeConfigs.model }).from(judgeConfigs);
  return new Map(rows.map((r) => [r.id, { name: r.name, model: r.model }]));
}

/** Display name of each evaluator key (as its verdicts carry it). */
export async function evaluatorNames(db: Db): Promise<Map<string, string>> {
  // The distinct keys found by skipping from one key to the next through the (evaluator_key, …) index, one probe per
  // key: PostgreSQL has no skip scan, and its DISTINCT walked all 300,000 index entries of a large study on every
  // view (50 ms of server CPU, against 2 ms). Of the names one key's verdicts carry, the same one on both engines
  // whatever their collation: its first verdict's.
  const rows = await rawAll<{ key: string; name: string }>(
    db,
    sql`with recursive keys(k) as (
          select min(evaluator_key) from evaluator_verdicts
          union all
          select (select min(f.evaluator_key) from evaluator_verdicts f where f.evaluator_key > keys.k) from keys where keys.k is not null
        )
        select keys.k as "key",
          (select v.evaluator_name from evaluator_verdicts v
           where v.id = (select min(f.id) from evaluator_verdicts f where f.evaluator_key = keys.k)) as "name"
        from keys where keys.k is not null`,
  );
  return new Map(rows.map((r) => [r.key, r.name]));
}

/** Names of accounts, for annotator keys "user:<id>". */
export async function userNames(db: Db, ids: string[]): Promise<Map<string, string>> {
  const { users } = tablesOf(db);
  const out = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 500) {
    for (const r of await db
      .select({ id: users.id, name: users.name })
      .from(users)
      .where(inArray(users.id, ids.slice(i, i + 500))))
      out.set(r.id, r.name);
  }
  return out;
}

/** Rows of the trajectory table for a page of drill-down results, in the order of `ids`. */
export async function trajectoryRows(db: Db, ids: number[]) {
  const { trajectories, tasks, agentRuns } = tablesOf(db);
  if (ids.length === 0) return [];
  const rows = await withTaskAndRun(
    db,
    db
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
      .$dynamic(),
  ).where(inArray(trajectories.id, ids));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is NonNullable<typeof r> => r !== undefined);
}

/** The verdict of one evaluator identity on each of `trajectoryIds`, with its rationale (disagreement lists). */
export async function verdictDetails(db: Db, identity: JudgeSetting, trajectoryIds: number[]) {
  const { evaluatorVerdicts } = tablesOf(db);
  if (trajectoryIds.length === 0) return new Map<number, { verdict: string; rationale: string | null; score: number | null }>();
  const rows = await db
    .select({
      trajectoryId: evaluatorVerdicts.trajectoryId,
      verdict: evaluatorVerdicts.verdict,
      rationale: evaluatorVerdicts.rationale,
      score: evaluatorVerdicts.score,
    })
    .from(evaluatorVerdicts)
    .where(and(ofJudgeSetting(db, identity), inArray(evaluatorVerdicts.trajectoryId, trajectoryIds)));
  return new Map(rows.map((r) => [r.trajectoryId, { verdict: r.verdict, rationale: r.rationale, score: r.score }]));
}

/** Active labels of the given campaign items, with their annotators' names (most-disputed list). */
export async function labelsOfItems(db: Db, itemIds: number[]) {
  const { labels } = tablesOf(db);
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
    .orderBy(asc(labels.itemId), asc(labels.annotatorKey), asc(labels.id));
}

/**
 * The change counter of every counted table (db/schema/changes.ts), bumped by triggers on each write. Read from the
 * database on every call, never remembered: another process (worker, CLI, a second web server) may have written.
 */
export async function tableVersions(db: Db): Promise<Record<ChangeCounter, number>> {
  const { changeCounters } = tablesOf(db);
  const out = {} as Record<ChangeCounter, number>;
  // bigint on PostgreSQL: Number() whatever the driver hands over.
  for (const r of await db.select({ name: changeCounters.name, version: changeCounters.version }).from(changeCounters))
    out[r.name as ChangeCounter] = Number(r.version);
  return out;
}
