/**
 * Read queries behind the analytics views: every SQL query they run lives here.
 *
 * The big tables (trajectories, evaluator verdicts, labels, consolidated labels) are read as *packed columns*:
 * one sequential scan per table emits `group_concat` of its rows, and the string is parsed into typed arrays
 * (integers as they are, text as codes into a per-column dictionary). The services then join on trajectory id in
 * typed arrays. Why not GROUP BY and joins in SQL: at 100,000 trajectories × 3 labels + verdicts, SQLite's GROUP BY
 * sorts every row through a temporary B-tree and each join is a random index probe, so the same aggregates took
 * 3–5× longer than one scan per table plus an in-memory join (measured on the bench dataset, scripts/bench/analytics.ts);
 * fetching rows one by one through the driver is slower still.
 *
 * Records are separated by 0x1E and fields by 0x1F; a non-null value of a nullable text column is prefixed with
 * 0x1C so that NULL, "" and every text stay distinct. The parser is strict: a value containing a separator (no
 * importer writes such text, but nothing forbids it) shows up as a misaligned record, and that window is read again
 * row by row, so the result is exact either way. Scans go in rowid windows to bound the size of one string.
 */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type Database from "better-sqlite3";
import type { Db } from "../client";
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

const RECORD = 0x1e;
const FIELD = 0x1f;
/** Prefix of a non-null value of a nullable text field (so that null, "" and any text stay apart). */
const PRESENT = "\x1c";
/** Rows per scan window: bounds one packed string to a few tens of MB. */
const WINDOW = 400_000;

type FieldKind = "int" | "text";

interface FieldSpec {
  /** SQL expression over the scanned table's columns. */
  expr: string;
  kind: FieldKind;
  /** The expression can be NULL. */
  nullable?: boolean;
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
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
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
  /**
   * Code of s[from, to) without cutting it out when the dictionary is small (status words, k values, annotator
   * keys): comparing in place saves an allocation and a hash per row, which is most of the parse time.
   */
  codeOf(s: string, from: number, to: number): number {
    const values = this.values;
    if (values.length <= 8) {
      const len = to - from;
      for (let c = 0; c < values.length; c++) {
        const v = values[c]!;
        if (v.length === len && s.startsWith(v, from)) return c;
      }
    }
    return this.code(s.slice(from, to));
  }
  /**
   * Code of a known value that starts at s[from] and is followed by the separator `end`, or -1. Lets the parser
   * jump over a repeated value instead of reading it character by character.
   */
  matchAt(s: string, from: number, end: number): number {
    const values = this.values;
    if (values.length > 8) return -1;
    for (let c = 0; c < values.length; c++) {
      const v = values[c]!;
      if (s.charCodeAt(from + v.length) === end && s.startsWith(v, from)) return c;
    }
    return -1;
  }
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
 * Reads `fields` of every row of `table` that satisfies `where` (SQL over the table's columns, with `params`),
 * in rowid order.
 */
function readPacked<K extends string>(db: Db, table: string, fields: Record<K, FieldSpec>, where: string, params: unknown[]): PackedColumns<K> {
  const names = Object.keys(fields) as K[];
  const specs = names.map((n) => fields[n]);
  // concat_ws with literal separators builds each record in one allocation (chained || copies it per field); it
  // skips NULL arguments, so nullable expressions are wrapped and a NULL where the schema forbids one would show
  // up as a misaligned record.
  const record = specs.map((s) => (!s.nullable ? s.expr : s.kind === "int" ? `ifnull(${s.expr}, '')` : `ifnull('${PRESENT}' || ${s.expr}, '')`)).join(", ");
  const cond = where ? `(${where}) and ` : "";
  const packedSql = `select group_concat(concat_ws('\x1f', ${record}), '\x1e') as packed, count(*) as n from ${table} where ${cond}rowid > ? and rowid <= ?`;
  const rowSql = `select ${specs.map((s) => s.expr).join(", ")} from ${table} where ${cond}rowid > ? and rowid <= ?`;

  const bounds = prepared(db, `select min(rowid) as lo, max(rowid) as hi from ${table}`).get() as { lo: number | null; hi: number | null };
  const cols = specs.map(() => new ColumnBuilder(1024));
  const dicts = specs.map(() => new Dictionary());
  if (bounds.lo !== null && bounds.hi !== null) {
    for (let from = bounds.lo - 1; from < bounds.hi; from += WINDOW) {
      const to = Math.min(bounds.hi, from + WINDOW);
      const res = prepared(db, packedSql).get(...params, from, to) as { packed: string | null; n: number };
      if (res.packed === null) continue;
      const before = cols[0]!.length;
      if (!appendPacked(res.packed, res.n, specs, cols, dicts)) {
        // A text value contained a separator: this window is read again row by row.
        for (const c of cols) c.truncate(before);
        appendRows(prepared(db, rowSql).raw(true).iterate(...params, from, to) as Iterable<unknown[]>, specs, cols, dicts);
      }
    }
  }
  const col = {} as Record<K, Int32Array>;
  const dict = {} as Record<K, string[]>;
  names.forEach((n, i) => {
    col[n] = cols[i]!.finish();
    dict[n] = dicts[i]!.values;
  });
  return { length: cols[0]?.length ?? 0, col, dict };
}

/**
 * Parses one packed window. Strict: each field must end with exactly the separator its position calls for, so a
 * separator inside a value always shows up as a misaligned record (a text field meeting the wrong separator, an
 * integer field meeting a non-digit, or a record count that differs from the scan's); then the function returns
 * false and the caller reads the window row by row.
 */
function appendPacked(s: string, expected: number, specs: FieldSpec[], cols: ColumnBuilder[], dicts: Dictionary[]): boolean {
  const n = s.length;
  const last = specs.length - 1;
  const kinds = specs.map((f) => (f.kind === "int" ? 0 : f.nullable ? 2 : 1));
  let records = 0;
  let i = 0;
  while (i < n) {
    for (let f = 0; f <= last; f++) {
      const end = f === last ? RECORD : FIELD;
      // At the end of the string, the last field of the last record ends without a separator.
      let c = i < n ? s.charCodeAt(i) : RECORD;
      if (kinds[f] === 0) {
        if (c === end) {
          cols[f]!.push(NULL_INT);
        } else {
          let sign = 1;
          if (c === 45) {
            sign = -1;
            c = ++i < n ? s.charCodeAt(i) : RECORD;
          }
          let v = 0;
          let digits = 0;
          while (c >= 48 && c <= 57) {
            v = v * 10 + (c - 48);
            digits++;
            c = ++i < n ? s.charCodeAt(i) : RECORD;
          }
          if (digits === 0 || c !== end) return false;
          cols[f]!.push(sign * v);
        }
      } else {
        const nullable = kinds[f] === 2;
        if (nullable && c === end) {
          cols[f]!.push(-1);
        } else {
          const from = nullable ? i + 1 : i;
          const known = dicts[f]!.matchAt(s, from, end);
          if (known >= 0) {
            i = from + dicts[f]!.values[known]!.length;
            cols[f]!.push(known);
          } else {
            i = from;
            c = i < n ? s.charCodeAt(i) : RECORD;
            while (c !== FIELD && c !== RECORD) c = ++i < n ? s.charCodeAt(i) : RECORD;
            if (c !== end) return false;
            cols[f]!.push(dicts[f]!.codeOf(s, from, i));
          }
        }
      }
      if (i >= n && f !== last) return false;
      i++;
    }
    records++;
  }
  return records === expected;
}

function appendRows(rows: Iterable<unknown[]>, specs: FieldSpec[], cols: ColumnBuilder[], dicts: Dictionary[]): void {
  for (const row of rows) {
    specs.forEach((spec, f) => {
      const v = row[f];
      if (spec.kind === "int") cols[f]!.push(v === null || v === undefined ? NULL_INT : Number(v));
      else cols[f]!.push(v === null || v === undefined ? -1 : dicts[f]!.code(String(v)));
    });
  }
}

// ---------------------------------------------------------------- packed loaders

/** Difficulty as a text value of one dimension of the JSON column (null when absent or not JSON). */
const difficultyExpr = (dim: string) => `case when json_valid(difficulty) then cast(json_extract(difficulty, '$.${dim}') as text) end`;

export function loadTaskColumns(db: Db) {
  return readPacked(
    db,
    "tasks",
    {
      id: { expr: "id", kind: "int" },
      taskSetId: { expr: "task_set_id", kind: "int" },
      site: { expr: "site", kind: "text", nullable: true },
      overall: { expr: difficultyExpr("overall"), kind: "text", nullable: true },
      reasoning: { expr: difficultyExpr("reasoning"), kind: "text", nullable: true },
      visual: { expr: difficultyExpr("visual"), kind: "text", nullable: true },
    },
    "",
    [],
  );
}

export function loadTrajectoryColumns(db: Db) {
  return readPacked(
    db,
    "trajectories",
    {
      id: { expr: "id", kind: "int" },
      runId: { expr: "run_id", kind: "int" },
      taskId: { expr: "task_id", kind: "int" },
      stepCount: { expr: "step_count", kind: "int" },
    },
    "",
    [],
  );
}

/** Consolidated labels of one campaign, or of every campaign. */
export function loadConsolidatedColumns(db: Db, campaignId?: number) {
  return readPacked(
    db,
    "consolidated_labels",
    {
      trajectoryId: { expr: "trajectory_id", kind: "int" },
      campaignId: { expr: "campaign_id", kind: "int" },
      verdict: { expr: "verdict", kind: "text" },
      category: { expr: "category", kind: "text", nullable: true },
      firstFailingStep: { expr: "first_failing_step", kind: "int", nullable: true },
    },
    campaignId === undefined ? "" : "+campaign_id = ?",
    campaignId === undefined ? [] : [campaignId],
  );
}

/**
 * Evaluator verdicts, of one evaluator or of all. For one evaluator the (evaluator_key, k) index is used when that
 * evaluator holds a small share of the table (a probe per row is then cheaper than reading every row).
 */
export function loadVerdictColumns(db: Db, evaluatorKey?: string) {
  let where = "";
  const params: unknown[] = [];
  if (evaluatorKey !== undefined) {
    const total = (prepared(db, "select count(*) as n from evaluator_verdicts").get() as { n: number }).n;
    const mine = (prepared(db, "select count(*) as n from evaluator_verdicts where evaluator_key = ?").get(evaluatorKey) as { n: number }).n;
    where = mine * 8 < total ? "evaluator_key = ?" : "+evaluator_key = ?";
    params.push(evaluatorKey);
  }
  return readPacked(
    db,
    "evaluator_verdicts",
    {
      trajectoryId: { expr: "trajectory_id", kind: "int" },
      evaluatorKey: { expr: "evaluator_key", kind: "text" },
      k: { expr: "k", kind: "text" },
      promptVersion: { expr: "prompt_version", kind: "text" },
      verdict: { expr: "verdict", kind: "text" },
    },
    where,
    params,
  );
}

/** Active (not withdrawn) labels of one campaign: the pre-adjudication labels human agreement is computed from. */
export function loadCampaignLabelColumns(db: Db, campaignId: number) {
  return readPacked(
    db,
    "labels",
    {
      itemId: { expr: "item_id", kind: "int" },
      trajectoryId: { expr: "trajectory_id", kind: "int" },
      annotatorKey: { expr: "annotator_key", kind: "text" },
      verdict: { expr: "verdict", kind: "text" },
      category: { expr: "category", kind: "text", nullable: true },
      firstFailingStep: { expr: "first_failing_step", kind: "int", nullable: true },
    },
    "+campaign_id = ? and status = 'active'",
    [campaignId],
  );
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

/**
 * A value that changes whenever the database content may have changed: SQLite's data_version (bumped by commits
 * of other connections) with this connection's total_changes (its own writes). Cached analytics data is valid
 * while it stays the same.
 */
export function contentVersion(db: Db): string {
  const row = prepared(db, "select (select data_version from pragma_data_version) as v, total_changes() as c").get() as { v: number; c: number };
  return `${row.v}:${row.c}`;
}
