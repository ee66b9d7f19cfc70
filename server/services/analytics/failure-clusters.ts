/**
 * Failure clusters (server/domain/analytics/failure-clusters.ts for the method): a researcher picks any trajectory
 * list slice and which failures (by the human label, by a judge, or disputed between them); a worker reads what those
 * trajectories' text says went wrong, groups it and saves the run; the page polls the job, then shows the saved run,
 * where clusters can be named, merged, opened as a list slice or made into a campaign.
 *
 * Who: researchers and admins who label nothing blind, as every analytics view (clusters are made of judges'
 * rationales and humans' labels). The worker checks the role of whoever asked again when it runs.
 */
import { withTransaction, type Db } from "../../../db/database";
import {
  failureFacts,
  failureTexts,
  getClusterRun,
  insertClusterRun,
  recentClusterRuns,
  updateClusterRunResult,
  type FailureFacts,
  type FailureTextRow,
} from "../../../db/repositories/analytics/failure-clusters";
import type { AppContext } from "../../context";
import type { Actor } from "../../domain/access/actor";
import { failureFilter, type ClusterSlice } from "../../domain/analytics/cluster-slice";
import {
  clusterDocuments,
  mergeClusters,
  shareBy,
  type ClusterDocument,
  type ClusteringResult,
  type SavedCluster,
} from "../../domain/analytics/failure-clusters";
import { parseEvaluatorRef } from "../../domain/trajectory-list-query";
import { NotFoundError, ValidationError } from "../../errors";
import { assertSeesWholeCatalog } from "../access";
import { enqueueRequestedJob, requestedJob, type RequestedJobPayload, type RequestedJobView } from "../jobs";
import { matchingTrajectoryIds } from "../trajectory-views";

export const FAILURE_CLUSTERS_JOB_TYPE = "analytics.failure-clusters";
/**
 * Most failures one run groups. The grouping runs on a worker's thread in one go (the bench: 2,000 failures in about
 * a second of CPU), so this keeps a run to seconds, well inside the job's lease; a larger slice is refused with this
 * figure rather than cut short without a word.
 */
export const MAX_CLUSTER_FAILURES = 5_000;
/** How many of a trajectory's last steps say what it was doing when it failed. */
export const LAST_STEPS = 3;
export const EXAMPLES_PER_CLUSTER = 5;
const MAX_NAME = 80;

export interface ClusterJobPayload extends RequestedJobPayload {
  slice: ClusterSlice;
}

/** A saved run's clusters and how they were found. */
export interface ClusterRunResult extends Omit<ClusteringResult, "clusters"> {
  clusters: SavedCluster[];
  /** The key the next merged cluster takes. */
  nextKey: number;
}

export interface ClusterProgress {
  stage: "selecting" | "reading" | "clustering" | "saving";
  /** Share of the whole work done, 0 to 1. */
  done: number;
}

/** The slice's failures, or a refusal naming how many there are when they are more than one run groups. */
async function failureIds(db: Db, slice: ClusterSlice, most = MAX_CLUSTER_FAILURES): Promise<number[]> {
  const ids = await matchingTrajectoryIds(db, failureFilter(slice), most + 1);
  if (ids.length > most) {
    throw new ValidationError(
      `this slice has more than ${most.toLocaleString("en")} failures, more than one run groups: narrow it (a site, an agent run, a search) and cluster each part`,
    );
  }
  return ids;
}

/** Queues a run over `slice` for a worker; resolves to the job's id. */
export async function startFailureClusters(ctx: Pick<AppContext, "db">, actor: Actor, slice: ClusterSlice): Promise<number> {
  await assertSeesWholeCatalog(ctx.db, actor, "failure clusters");
  // A slice that cannot select failures, or selects too many, is refused now, not by the worker later.
  await failureIds(ctx.db, slice);
  const payload: ClusterJobPayload = { requestedBy: actor.userId, uploadBytes: 0, slice };
  return await enqueueRequestedJob(ctx, FAILURE_CLUSTERS_JOB_TYPE, payload);
}

/** The run as the page that started it polls it: its progress, then the saved run's id. */
export async function failureClustersJob(ctx: Pick<AppContext, "db">, actor: Actor, id: number): Promise<RequestedJobView<{ runId: number }>> {
  await assertSeesWholeCatalog(ctx.db, actor, "failure clusters");
  return await requestedJob<{ runId: number }>(ctx, actor, FAILURE_CLUSTERS_JOB_TYPE, id);
}

/** Each trajectory's pieces of text: its notes, rationales, last steps, answer, error and error category. */
function documentsOf(ids: readonly number[], texts: readonly FailureTextRow[], facts: readonly FailureFacts[]): ClusterDocument[] {
  const pieces = new Map<number, string[]>(ids.map((id) => [id, []]));
  for (const t of texts) pieces.get(t.trajectoryId)?.push(t.body);
  for (const f of facts) if (f.category) pieces.get(f.id)?.push(f.category);
  return [...pieces.entries()].map(([id, texts]) => ({ id, texts }));
}

/** Computes the clusters of a slice's failures (not saved). */
export async function computeFailureClusters(
  db: Db,
  slice: ClusterSlice,
  onProgress: (p: ClusterProgress) => void = () => undefined,
  /** Most failures grouped in one run (MAX_CLUSTER_FAILURES). */
  mostFailures = MAX_CLUSTER_FAILURES,
): Promise<ClusterRunResult> {
  onProgress({ stage: "selecting", done: 0 });
  const ids = await failureIds(db, slice, mostFailures);
  onProgress({ stage: "reading", done: 0.1 });
  // Only the rationale of the judge the failures were chosen by (at its k and prompt version); human failures are
  // grouped by what people and the trajectory say, not by any judge's wording.
  const evaluator = slice.basis === "human" || slice.filter.evaluator === undefined ? undefined : parseEvaluatorRef(slice.filter.evaluator);
  const texts = await failureTexts(db, ids, { lastSteps: LAST_STEPS, rationaleOf: evaluator });
  const facts = await failureFacts(db, ids);
  onProgress({ stage: "clustering", done: 0.4 });
  const result = clusterDocuments(documentsOf(ids, texts, facts), {
    k: slice.k,
    onProgress: (d) => onProgress({ stage: "clustering", done: 0.4 + 0.55 * d }),
  });
  const byId = new Map(facts.map((f) => [f.id, f]));
  const clusters = result.clusters.map((c, i): SavedCluster => ({
    ...c,
    key: i + 1,
    name: null,
    bySite: shareBy(c.members, (id) => byId.get(id)?.site ?? "(no site)"),
    byRun: shareBy(c.members, (id) => byId.get(id)?.runName ?? "(unknown run)"),
  }));
  return { ...result, clusters, nextKey: clusters.length + 1 };
}

/** Saves a computed run as `actor`'s; resolves to its id. */
export async function saveFailureClusters(db: Db, actor: Actor, slice: ClusterSlice, result: ClusterRunResult): Promise<number> {
  return await insertClusterRun(db, { slice, result, createdBy: actor.userId, createdByName: actor.name });
}

/** The saved runs, newest first, for the page's "earlier runs". */
export async function clusterRuns(db: Db, actor: Actor) {
  await assertSeesWholeCatalog(db, actor, "failure clusters");
  const rows = await recentClusterRuns(db, 20);
  return rows.map((r) => ({ id: r.id, slice: r.slice as ClusterSlice, createdByName: r.createdByName, createdAt: r.createdAt, updatedAt: r.updatedAt }));
}

async function loadRun(db: Db, id: number) {
  const row = await getClusterRun(db, id);
  if (!row) throw new NotFoundError("failure-cluster run", id);
  return { ...row, slice: row.slice as ClusterSlice, result: row.result as ClusterRunResult };
}

/** A saved run as the page shows it: each cluster with its examples described, its members' ids and its shares. */
export async function clusterRun(db: Db, actor: Actor, id: number) {
  await assertSeesWholeCatalog(db, actor, "failure clusters");
  const run = await loadRun(db, id);
  const exampleIds = run.result.clusters.flatMap((c) => c.members.slice(0, EXAMPLES_PER_CLUSTER));
  const facts = new Map((await failureFacts(db, exampleIds)).map((f) => [f.id, f]));
  const clusters = run.result.clusters.map(({ means: _means, similarity, members, ...c }) => ({
    ...c,
    size: members.length,
    members,
    examples: members.slice(0, EXAMPLES_PER_CLUSTER).map((m, i) => {
      const f = facts.get(m);
      return {
        id: m,
        similarity: similarity[i]!,
        externalTaskId: f?.externalTaskId ?? null,
        intent: f?.intent ?? null,
        site: f?.site ?? null,
        runName: f?.runName ?? null,
      };
    }),
  }));
  const { clusters: _all, ...stats } = run.result;
  return { id: run.id, slice: run.slice, createdByName: run.createdByName, createdAt: run.createdAt, updatedAt: run.updatedAt, ...stats, clusters };
}

function clusterOf(result: ClusterRunResult, key: number): SavedCluster {
  const c = result.clusters.find((x) => x.key === key);
  if (!c) throw new ValidationError(`cluster ${key}: there is no such cluster in this run (it may have been merged)`);
  return c;
}

/** Names a cluster (an empty name clears it). */
export async function renameCluster(db: Db, actor: Actor, input: { runId: number; key: number; name: string }): Promise<void> {
  await assertSeesWholeCatalog(db, actor, "failure clusters");
  const name = input.name.trim().replace(/\s+/g, " ");
  if (name.length > MAX_NAME) throw new ValidationError(`name: at most ${MAX_NAME} characters`);
  await withTransaction(db, async () => {
    const run = await loadRun(db, input.runId);
    clusterOf(run.result, input.key).name = name || null;
    await updateClusterRunResult(db, run.id, run.result);
  });
}

/** Merges cluster `from` into `into`: the merged cluster takes `into`'s place and a new key. */
export async function mergeClusterPair(db: Db, actor: Actor, input: { runId: number; into: number; from: number }): Promise<{ key: number }> {
  await assertSeesWholeCatalog(db, actor, "failure clusters");
  if (input.into === input.from) throw new ValidationError("merge: choose two different clusters");
  return await withTransaction(db, async () => {
    const run = await loadRun(db, input.runId);
    const into = clusterOf(run.result, input.into);
    const from = clusterOf(run.result, input.from);
    const merged = mergeClusters(into, from, run.result.nextKey);
    const clusters = run.result.clusters.filter((c) => c.key !== from.key).map((c) => (c.key === into.key ? merged : c));
    await updateClusterRunResult(db, run.id, { ...run.result, clusters, k: clusters.length, nextKey: run.result.nextKey + 1 });
    return { key: merged.key };
  });
}
