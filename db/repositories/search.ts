/**
 * Behaviour search as SQL: each clause of a parsed query (server/domain/trajectories/search-query.ts) becomes
 * `trajectories.id [not] in (entries matching it)` beside the list's other conditions, so a search is a filter of the
 * trajectory list like any other (its pages, counts, samples, campaigns and exports included). Matching runs on the
 * engine's own full-text index over search_entries (db/schema/search.ts): FTS5 MATCH on SQLite, a tsquery against
 * the stored, GIN-indexed tsvector on PostgreSQL; both split words the same way, so a query matches the same entries.
 *
 * What a viewer may search is part of every condition: annotators' queries never look at judges' rationales nor at
 * notes other than their own, so a word found only there matches nothing for them, in the list and in its counts.
 */
import { sql, type SQL } from "drizzle-orm";
import { fts5Match, pgTsQuery, positiveClauses, type SearchQuery, type TextClause } from "../../server/domain/trajectories/search-query";
import { parseEvaluatorRef } from "../../server/domain/trajectory-list-query";
import { dialectOf, rawAll, type Db, type Dialect } from "../database";
import { triageConditions } from "./triage";

/** A parsed query and what the viewer may search with it. */
export interface ScopedSearch {
  query: SearchQuery;
  /** Whose notes the query reads: one annotator key (an annotator: their own), or undefined for everyone's. */
  notesOf?: string;
  /** Whether judges' rationales are searched (researchers and admins outside any blind). */
  rationales: boolean;
  /** The current definition hash of each scanner a `scanner:` clause names: only scans made with it count. */
  scannerHashes?: Readonly<Record<string, string>>;
}

/**
 * The entry's words on PostgreSQL: a stored tsvector column with the GIN index on it (migration 0018), so a phrase's
 * order is checked against the stored words rather than by splitting every candidate's text again.
 */
const PG_VECTOR = sql.raw(`e.body_words`);

function matchSql(clause: TextClause, dialect: Dialect): SQL {
  if (dialect === "sqlite") return sql`e.id in (select rowid from search_fts where search_fts match ${fts5Match(clause)})`;
  return sql`${PG_VECTOR} @@ to_tsquery('simple', ${pgTsQuery(clause)})`;
}

/** Which entries a clause may look at for this viewer. */
function fieldSql(clause: TextClause, scope: ScopedSearch): SQL {
  const own = scope.notesOf;
  if (clause.field === "rationale" && !scope.rationales) return sql`1 = 0`;
  if (clause.field === "note") return own === undefined ? sql`e.field = 'note'` : sql`e.field = 'note' and e.owner = ${own}`;
  if (clause.field !== null) return sql`e.field = ${clause.field}`;
  const notes = own === undefined ? sql`e.field = 'note'` : sql`(e.field = 'note' and e.owner = ${own})`;
  return scope.rationales ? sql`(e.field <> 'note' or ${notes})` : sql`(e.field not in ('note', 'rationale') or ${notes})`;
}

function entrySql(clause: TextClause, scope: ScopedSearch, dialect: Dialect): SQL {
  return sql`(${fieldSql(clause, scope)} and ${matchSql(clause, dialect)})`;
}

const ID = sql.raw("trajectories.id");

/** The conditions on `trajectories` a search adds to the list's WHERE. `evaluator`: the list's chosen evaluator, which judge: then means. */
export function searchConditions(scope: ScopedSearch, dialect: Dialect, evaluator?: string): SQL[] {
  const conds: SQL[] = [];
  for (const clause of scope.query.text) {
    const entries = sql`(select e.trajectory_id from search_entries e where ${entrySql(clause, scope, dialect)})`;
    conds.push(clause.negated ? sql`${ID} not in ${entries}` : sql`${ID} in ${entries}`);
  }
  const chosen = evaluator !== undefined ? parseEvaluatorRef(evaluator) : undefined;
  for (const v of scope.query.verdicts) {
    if (v.source === "human") {
      conds.push(...triageConditions({ human: v.value as "success" | "failure" | "unsure" | "none" }));
    } else if (chosen) {
      conds.push(
        sql`${ID} in (select v.trajectory_id from evaluator_verdicts v where v.evaluator_key = ${chosen.key} and v.k = ${chosen.k} and v.prompt_version = ${chosen.pv} and v.verdict = ${v.value})`,
      );
    } else {
      conds.push(sql`${ID} in (select v.trajectory_id from evaluator_verdicts v where v.kind = 'judge' and v.verdict = ${v.value})`);
    }
  }
  // A scanner's current scans only: `scanner:` where one matched a step, `-scanner:` where one ran to the end and
  // matched nothing (never scanned, scanned with an older definition or stopped by a problem is neither).
  for (const c of scope.query.scanners) {
    const hash = scope.scannerHashes?.[c.key];
    if (hash === undefined) throw new Error(`scanner:${c.key} reached the query without its definition (scopeSearch resolves it)`);
    const current = sql`ss.scanner_key = ${c.key} and ss.definition_hash = ${hash}`;
    const result = c.negated ? sql`ss.match_count = 0 and ss.problem is null` : sql`ss.match_count > 0`;
    conds.push(sql`${ID} in (select ss.trajectory_id from scanner_scans ss where ${current} and ${result})`);
  }
  return conds;
}

/** Whether relevance can order a search's results (it counts matches of clauses that are not negated). */
export function ranksByRelevance(scope: ScopedSearch | undefined): boolean {
  return !!scope && positiveClauses(scope.query).length > 0;
}

/**
 * The relevance of a trajectory to a search: how many of its entries match one of the query's (not negated) text
 * clauses, so a trajectory whose thoughts mention a captcha at five steps comes before one that mentions it once. A
 * table (trajectory_id, n) of the trajectories with any match, from one grouped pass over the matching entries (a
 * count per listed trajectory was several times slower for a word most trajectories hold).
 */
export function searchRelevanceTable(scope: ScopedSearch, dialect: Dialect): SQL {
  const any = sql.join(
    positiveClauses(scope.query).map((c) => entrySql(c, scope, dialect)),
    sql` or `,
  );
  return sql`(select e.trajectory_id, count(*) as n from search_entries e where ${any} group by e.trajectory_id)`;
}

export interface SearchHitRow {
  trajectoryId: number;
  stepIndex: number | null;
  field: string;
  body: string;
}

/** Hits shown per trajectory in the list. */
export const HITS_PER_TRAJECTORY = 3;

/**
 * The entries of the given trajectories that match the search's text clauses (steps in order, then the trajectory's
 * own text), at most `perTrajectory` each: what the list shows under each row.
 */
export async function searchHits(db: Db, trajectoryIds: readonly number[], scope: ScopedSearch, perTrajectory = HITS_PER_TRAJECTORY): Promise<SearchHitRow[]> {
  const clauses = positiveClauses(scope.query);
  if (!clauses.length || !trajectoryIds.length) return [];
  const dialect = dialectOf(db);
  const any = sql.join(
    clauses.map((c) => entrySql(c, scope, dialect)),
    sql` or `,
  );
  const ids = sql.join(
    trajectoryIds.map((id) => sql`${id}`),
    sql`, `,
  );
  const rows = await rawAll<{ trajectory_id: number; step_index: number | null; field: string; body: string }>(
    db,
    sql`select trajectory_id, step_index, field, body from (
      select e.trajectory_id, e.step_index, e.field, e.body,
        row_number() over (partition by e.trajectory_id order by case when e.step_index is null then 1 else 0 end, e.step_index, e.id) as n
      from search_entries e where e.trajectory_id in (${ids}) and (${any})
    ) ranked where n <= ${perTrajectory} order by trajectory_id, n`,
  );
  return rows.map((r) => ({
    trajectoryId: Number(r.trajectory_id),
    stepIndex: r.step_index === null ? null : Number(r.step_index),
    field: r.field,
    body: r.body,
  }));
}
