/**
 * Triage of the trajectory list: what humans and evaluators said about each trajectory, as SQL conditions the list's
 * queries add to their WHERE clause (never a scan in JavaScript), as sort keys, and as the few columns a page shows.
 *
 * Definitions, the same as the analytics views':
 * - a trajectory's human label is the consolidated label of the most recent campaign (highest id) that consolidated
 *   it; its category is that label's error category;
 * - its item state is the state of its item in the most recent campaign that holds it;
 * - an evaluator is one identity (key, k, prompt version): "judge:3" at k = 1 with prompt v2 is not the same
 *   evaluator as at k = 3;
 * - the rule result is the verdict of the benchmark's rule evaluators (keys "rule:…"); heuristics ("heuristic:…")
 *   are evaluators of their own, chosen like judges.
 *
 * Every condition is `trajectories.id [not] in (subquery)`: the engine builds each subquery's set once, from the
 * evaluator_verdicts / consolidated_labels / campaign_items indexes, and the list's other conditions stay on
 * `trajectories`. Raw table names inside the subqueries (drizzle leaves single-table columns unqualified); the SQL
 * is the same on SQLite and PostgreSQL.
 */
import { sql, type SQL } from "drizzle-orm";
import type { TriageColumns } from "../../server/domain/triage-columns";
import { parseEvaluatorRef, type EvaluatorRef } from "../../server/domain/trajectory-list-query";
import { rawAll, type Db } from "../database";

export type { TriageColumns } from "../../server/domain/triage-columns";

export interface TriageFilter {
  human?: "success" | "failure" | "unsure" | "none";
  state?: "open" | "agreed" | "disputed" | "adjudicated" | "none";
  category?: string;
  /** `<key>|<k>|<prompt version>` (see parseEvaluatorRef). */
  evaluator?: string;
  verdict?: "success" | "failure" | "unparseable" | "not_evaluable" | "none";
  agreement?: "agree" | "disagree" | "no_human";
  rule?: "success" | "failure" | "not_evaluable" | "none";
  /** Trajectories of tasks flagged in the validity ledger: left out, kept (absent) or alone. */
  flagged?: "exclude" | "include" | "only";
}

/** The evaluator a filter names; a malformed one is an error, not a silently dropped filter. */
export function evaluatorOf(f: Pick<TriageFilter, "evaluator">): EvaluatorRef | undefined {
  if (f.evaluator === undefined) return undefined;
  const ref = parseEvaluatorRef(f.evaluator);
  if (!ref) throw new Error(`evaluator: write it as <evaluator key>|<k>|<prompt version>, got ${JSON.stringify(f.evaluator)}`);
  return ref;
}

/**
 * Trajectories whose latest consolidated label (the one of the newest campaign that consolidated them) matches `where`
 * (on columns verdict, category): a label with no newer one for its trajectory, one probe of
 * consolidated_labels_trajectory_latest_idx per label. A window numbering each trajectory's labels newest first
 * sorted every consolidated label on each use instead (the index is ascending on campaign_id): at 10,000 trajectories
 * 9.9 against 3.7 ms of CPU per condition on SQLite, and the list's page and count each use it. A trajectory has one
 * consolidated label per campaign (one item per campaign and trajectory), so "no newer one" picks exactly one.
 */
function latestLabelIds(where: SQL): SQL {
  return sql`(select latest_labels.trajectory_id from consolidated_labels latest_labels where ${where} and not exists (select 1 from consolidated_labels newer
    where newer.trajectory_id = latest_labels.trajectory_id and newer.campaign_id > latest_labels.campaign_id))`;
}

/** Trajectories whose item in the latest campaign holding them is in `state`, the same way over campaign_items_trajectory_latest_idx. */
function latestStateIds(state: string): SQL {
  return sql`(select latest_items.trajectory_id from campaign_items latest_items where latest_items.state = ${state} and not exists (select 1 from campaign_items newer
    where newer.trajectory_id = latest_items.trajectory_id and newer.campaign_id > latest_items.campaign_id))`;
}

const humanVerdictIds = (verdict: string) => latestLabelIds(sql`verdict = ${verdict}`);

function verdictIds(e: EvaluatorRef, verdict?: string): SQL {
  return sql`(select v.trajectory_id from evaluator_verdicts v where v.evaluator_key = ${e.key} and v.k = ${e.k} and v.prompt_version = ${e.pv}${
    verdict === undefined ? sql`` : sql` and v.verdict = ${verdict}`
  })`;
}

/** Rule evaluators' keys all start "rule:": a range on the verdicts index ("rule;" is the next string after the prefix). */
function ruleIds(verdict?: string): SQL {
  return sql`(select v.trajectory_id from evaluator_verdicts v where v.evaluator_key >= 'rule:' and v.evaluator_key < 'rule;'${
    verdict === undefined ? sql`` : sql` and v.verdict = ${verdict}`
  })`;
}

const ID = sql.raw("trajectories.id");

export function triageConditions(f: TriageFilter): SQL[] {
  const conds: SQL[] = [];
  if (f.human === "none") conds.push(sql`${ID} not in (select trajectory_id from consolidated_labels)`);
  else if (f.human) conds.push(sql`${ID} in ${humanVerdictIds(f.human)}`);
  if (f.category !== undefined) conds.push(sql`${ID} in ${latestLabelIds(sql`category = ${f.category}`)}`);
  if (f.state === "none") conds.push(sql`${ID} not in (select trajectory_id from campaign_items)`);
  else if (f.state) conds.push(sql`${ID} in ${latestStateIds(f.state)}`);
  const e = evaluatorOf(f);
  if (e && f.verdict === "none") conds.push(sql`${ID} not in ${verdictIds(e)}`);
  else if (e && f.verdict) conds.push(sql`${ID} in ${verdictIds(e, f.verdict)}`);
  if (e && (f.agreement === "agree" || f.agreement === "disagree")) {
    // Correlated, so SQLite drives it from the list's other filters: per trajectory, one probe for the latest label
    // and one for the verdict (at 100,000 trajectories and one site, ~30 ms against ~160 ms for the set-based form).
    const latest = sql`(select c.verdict from consolidated_labels c where c.trajectory_id = ${ID} order by c.campaign_id desc limit 1)`;
    const compare = f.agreement === "agree" ? sql`v.verdict = ${latest}` : sql`v.verdict <> ${latest}`;
    conds.push(sql`exists (select 1 from evaluator_verdicts v where v.trajectory_id = ${ID} and v.evaluator_key = ${e.key} and v.k = ${e.k}
      and v.prompt_version = ${e.pv} and v.verdict in ('success', 'failure') and ${compare} and ${latest} in ('success', 'failure'))`);
  } else if (e && f.agreement === "no_human") {
    // Nothing to compare the evaluator with: no consolidated label, or one that says "unsure".
    conds.push(sql`${ID} not in ${latestLabelIds(sql`verdict in ('success', 'failure')`)}`);
  }
  if (f.rule === "none") conds.push(sql`${ID} not in ${ruleIds()}`);
  else if (f.rule) conds.push(sql`${ID} in ${ruleIds(f.rule)}`);
  if (f.flagged === "exclude") conds.push(sql`trajectories.task_id not in ${FLAGGED_TASK_IDS}`);
  else if (f.flagged === "only") conds.push(sql`trajectories.task_id in ${FLAGGED_TASK_IDS}`);
  return conds;
}

/** Tasks whose newest revision in the validity ledger flags them (db/repositories/catalog/task-flags.ts). */
const FLAGGED_TASK_IDS = sql`(select f.task_id from task_flags f where f.id in (select max(id) from task_flags group by task_id) and f.status <> 'valid')`;

/**
 * The sort key for the human label or the chosen evaluator's verdict: failures first when ascending, then unsure or
 * unparseable, then successes; trajectories without one last in either direction (a rank past either end). One
 * index probe per trajectory (consolidated_labels_trajectory_latest_idx, evaluator_verdicts_identity_uq).
 */
export function triageSortKey(sort: "human" | "verdict", f: TriageFilter, dir: "asc" | "desc"): SQL {
  const missing = dir === "asc" ? 99 : -1;
  if (sort === "human") {
    const latest = sql`(select c.verdict from consolidated_labels c where c.trajectory_id = ${ID} order by c.campaign_id desc limit 1)`;
    return sql`coalesce((case ${latest} when 'failure' then 0 when 'unsure' then 1 when 'success' then 2 end), ${sql.raw(String(missing))})`;
  }
  const e = evaluatorOf(f);
  if (!e) throw new Error("sorting by verdict needs an evaluator");
  const verdict = sql`(select v.verdict from evaluator_verdicts v where v.trajectory_id = ${ID} and v.evaluator_key = ${e.key} and v.k = ${e.k} and v.prompt_version = ${e.pv})`;
  return sql`coalesce((case ${verdict} when 'failure' then 0 when 'unparseable' then 1 when 'not_evaluable' then 2 when 'success' then 3 end), ${sql.raw(String(missing))})`;
}

/** What a page of the list shows about each of its trajectories (a page: a few hundred ids at most). */
export async function triageColumnsOf(db: Db, ids: number[], evaluator?: string): Promise<Map<number, TriageColumns>> {
  const out = new Map<number, TriageColumns>(ids.map((id) => [id, { human: null, state: null, verdict: null, rules: [], flags: [] }]));
  if (!ids.length) return out;
  const idList = sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );
  const labels = await rawAll<{ trajectory_id: number; campaign_id: number; verdict: string; category: string | null }>(
    db,
    sql`select trajectory_id, campaign_id, verdict, category from consolidated_labels where trajectory_id in (${idList})`,
  );
  for (const l of labels) {
    const row = out.get(l.trajectory_id)!;
    if (!row.human || l.campaign_id > row.human.campaignId) row.human = { verdict: l.verdict, category: l.category, campaignId: l.campaign_id };
  }
  const items = await rawAll<{ trajectory_id: number; campaign_id: number; state: string }>(
    db,
    sql`select trajectory_id, campaign_id, state from campaign_items where trajectory_id in (${idList})`,
  );
  for (const i of items) {
    const row = out.get(i.trajectory_id)!;
    if (!row.state || i.campaign_id > row.state.campaignId) row.state = { state: i.state, campaignId: i.campaign_id };
  }
  const e = evaluator === undefined ? undefined : evaluatorOf({ evaluator });
  const chosen = e ? sql` or (evaluator_key = ${e.key} and k = ${e.k} and prompt_version = ${e.pv})` : sql``;
  const verdicts = await rawAll<{ trajectory_id: number; evaluator_key: string; evaluator_name: string; k: string; prompt_version: string; verdict: string }>(
    db,
    sql`select trajectory_id, evaluator_key, evaluator_name, k, prompt_version, verdict from evaluator_verdicts
      where trajectory_id in (${idList}) and ((evaluator_key >= 'heuristic:' and evaluator_key < 'heuristic;') or (evaluator_key >= 'rule:' and evaluator_key < 'rule;')${chosen})
      order by trajectory_id, evaluator_key`,
  );
  for (const v of verdicts) {
    const row = out.get(v.trajectory_id)!;
    if (e && v.evaluator_key === e.key && v.k === e.k && v.prompt_version === e.pv) row.verdict = v.verdict;
    if (v.evaluator_key.startsWith("rule:")) row.rules.push({ name: v.evaluator_name, verdict: v.verdict });
    else if (v.evaluator_key.startsWith("heuristic:") && v.verdict === "failure") row.flags.push(v.evaluator_name);
  }
  return out;
}

/** Error categories present in consolidated labels, for the list's category menu. */
export async function consolidatedCategories(db: Db): Promise<string[]> {
  const rows = await rawAll<{ category: string }>(db, sql`select distinct category from consolidated_labels where category is not null order by category`);
  return rows.map((r) => r.category);
}
