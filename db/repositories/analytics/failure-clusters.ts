/**
 * What failure clusters read and keep: the text of failed trajectories (from the behaviour-search entries, which
 * already hold every note, rationale, thought, action, URL, answer and error, db/schema/search.ts), their latest
 * error category, site and agent run, and the saved cluster runs (db/schema/clusters.ts). Written once for SQLite
 * and PostgreSQL.
 */
import { desc, eq, inArray, sql } from "drizzle-orm";
import { insertReturningId, first, rawAll, tablesOf, type Db } from "../../database";
import { withTaskAndRun } from "../trajectory-joins";

/** Ids per query: well under SQLite's parameter limit. */
const CHUNK = 500;

function chunks<T>(xs: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += CHUNK) out.push(xs.slice(i, i + CHUNK));
  return out;
}

export interface FailureTextRow {
  trajectoryId: number;
  field: string;
  stepIndex: number | null;
  body: string;
}

/**
 * The text of each trajectory that says what went wrong: its answer and error, every annotator's note, the rationale
 * of one evaluator setting (`rationaleOf`: the judge the failures were chosen by, at its k and prompt version; none
 * when not given, so other judges' wording cannot steer the clusters), and the thoughts, actions, URLs and errors of
 * its last `lastSteps` steps. Ordered by trajectory, step (its own text first) and entry.
 */
export async function failureTexts(
  db: Db,
  ids: readonly number[],
  opts: { lastSteps: number; rationaleOf?: { key: string; k: string; pv: string } },
): Promise<FailureTextRow[]> {
  const out: FailureTextRow[] = [];
  const of = opts.rationaleOf;
  const rationale =
    of === undefined
      ? sql`1 = 0`
      : sql`(e.field = 'rationale' and e.owner = ${of.key} and e.source_id in (select v.id from evaluator_verdicts v where v.evaluator_key = ${of.key} and v.k = ${of.k} and v.prompt_version = ${of.pv}))`;
  for (const part of chunks(ids)) {
    const list = sql.join(
      part.map((id) => sql`${id}`),
      sql`, `,
    );
    const rows = await rawAll<{ trajectory_id: number; field: string; step_index: number | null; body: string }>(
      db,
      sql`select e.trajectory_id, e.field, e.step_index, e.body
        from search_entries e
        left join (select trajectory_id, max(idx) as last_idx from steps where trajectory_id in (${list}) group by trajectory_id) last_steps
          on last_steps.trajectory_id = e.trajectory_id
        where e.trajectory_id in (${list})
          and (
            (e.step_id is null and (e.field in ('answer', 'error', 'note') or ${rationale}))
            or (e.step_id is not null and e.field in ('thought', 'action', 'url', 'error') and e.step_index > last_steps.last_idx - ${opts.lastSteps})
          )
        order by e.trajectory_id, coalesce(e.step_index, -1), e.id`,
    );
    for (const r of rows) {
      out.push({ trajectoryId: Number(r.trajectory_id), field: r.field, stepIndex: r.step_index === null ? null : Number(r.step_index), body: r.body });
    }
  }
  return out;
}

export interface FailureFacts {
  id: number;
  site: string | null;
  runId: number;
  runName: string;
  externalTaskId: string;
  intent: string;
  /** The error category of its latest consolidated label, if any. */
  category: string | null;
}

/** Site, agent run, task and latest error category of each trajectory. */
export async function failureFacts(db: Db, ids: readonly number[]): Promise<FailureFacts[]> {
  const { trajectories, tasks, agentRuns, consolidatedLabels } = tablesOf(db);
  const out: FailureFacts[] = [];
  for (const part of chunks(ids)) {
    const rows = await withTaskAndRun(
      db,
      db
        .select({
          id: trajectories.id,
          site: tasks.site,
          runId: agentRuns.id,
          runName: agentRuns.name,
          externalTaskId: tasks.externalId,
          intent: tasks.intent,
        })
        .from(trajectories)
        .$dynamic(),
    ).where(inArray(trajectories.id, part));
    const labels = await db
      .select({ trajectoryId: consolidatedLabels.trajectoryId, campaignId: consolidatedLabels.campaignId, category: consolidatedLabels.category })
      .from(consolidatedLabels)
      .where(inArray(consolidatedLabels.trajectoryId, part));
    const latest = new Map<number, { campaignId: number; category: string | null }>();
    for (const l of labels) {
      const seen = latest.get(l.trajectoryId);
      if (!seen || l.campaignId > seen.campaignId) latest.set(l.trajectoryId, { campaignId: l.campaignId, category: l.category });
    }
    for (const r of rows) out.push({ ...r, category: latest.get(r.id)?.category ?? null });
  }
  return out.sort((a, b) => a.id - b.id);
}

export interface ClusterRunRow {
  id: number;
  slice: unknown;
  result: unknown;
  createdBy: string | null;
  createdByName: string;
  createdAt: Date;
  updatedAt: Date;
}

export async function insertClusterRun(db: Db, v: { slice: unknown; result: unknown; createdBy: string; createdByName: string }): Promise<number> {
  return insertReturningId(db, tablesOf(db).failureClusterRuns, v);
}

export async function getClusterRun(db: Db, id: number): Promise<ClusterRunRow | undefined> {
  const { failureClusterRuns } = tablesOf(db);
  return first(db.select().from(failureClusterRuns).where(eq(failureClusterRuns.id, id)).limit(1));
}

/** The newest saved runs, without their clusters. */
export async function recentClusterRuns(db: Db, limit: number): Promise<Omit<ClusterRunRow, "result">[]> {
  const { failureClusterRuns: r } = tablesOf(db);
  return db
    .select({ id: r.id, slice: r.slice, createdBy: r.createdBy, createdByName: r.createdByName, createdAt: r.createdAt, updatedAt: r.updatedAt })
    .from(r)
    .orderBy(desc(r.id))
    .limit(limit);
}

export async function updateClusterRunResult(db: Db, id: number, result: unknown): Promise<void> {
  const { failureClusterRuns } = tablesOf(db);
  await db.update(failureClusterRuns).set({ result, updatedAt: new Date() }).where(eq(failureClusterRuns.id, id));
}
