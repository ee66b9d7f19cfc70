/**
 * Judge configurations, judge batches and evaluator verdicts: every query on them lives here.
 *
 * API keys: `getJudgeApiKey` is the only function that reads `judge_config_secrets`; everything else returns
 * configurations without a key (with `hasStoredKey` at most), so a router or an export cannot leak one.
 */
import { and, asc, count, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Db } from "../client";
import { trajectoryWhere, type TrajectoryFilter } from "./trajectories";
import {
  agentRuns,
  evaluatorVerdicts,
  judgeBatches,
  judgeConfigSecrets,
  judgeConfigs,
  judgeEndpointSettings,
  tasks,
  trajectories,
  type EvaluatorVerdictRow,
  type JudgeBatchRow,
  type JudgeConfigRow,
} from "../schema/index";

// ---- judge configurations ----

export type JudgeConfigValues = Omit<typeof judgeConfigs.$inferInsert, "id" | "createdAt" | "updatedAt">;
export type PublicJudgeConfig = JudgeConfigRow & { hasStoredKey: boolean };

const hasStoredKey = sql<number>`exists (select 1 from ${judgeConfigSecrets} where ${judgeConfigSecrets.configId} = ${judgeConfigs.id})`;

function withKeyFlag(row: JudgeConfigRow & { storedKey: number }): PublicJudgeConfig {
  const { storedKey, ...rest } = row;
  return { ...rest, hasStoredKey: !!storedKey };
}

export function insertJudgeConfig(db: Db, v: JudgeConfigValues): number {
  return db.insert(judgeConfigs).values(v).returning({ id: judgeConfigs.id }).get().id;
}

export function updateJudgeConfig(db: Db, id: number, patch: Partial<JudgeConfigValues>): void {
  db.update(judgeConfigs).set({ ...patch, updatedAt: new Date() }).where(eq(judgeConfigs.id, id)).run();
}

export function deleteJudgeConfig(db: Db, id: number): boolean {
  return db.delete(judgeConfigs).where(eq(judgeConfigs.id, id)).run().changes > 0;
}

export function getJudgeConfig(db: Db, id: number): PublicJudgeConfig | undefined {
  const row = db.select({ ...getTableColumns(), storedKey: hasStoredKey }).from(judgeConfigs).where(eq(judgeConfigs.id, id)).get();
  return row ? withKeyFlag(row) : undefined;
}

export function getJudgeConfigByName(db: Db, name: string): PublicJudgeConfig | undefined {
  const row = db.select({ ...getTableColumns(), storedKey: hasStoredKey }).from(judgeConfigs).where(eq(judgeConfigs.name, name)).get();
  return row ? withKeyFlag(row) : undefined;
}

export function listJudgeConfigs(db: Db): PublicJudgeConfig[] {
  return db
    .select({ ...getTableColumns(), storedKey: hasStoredKey })
    .from(judgeConfigs)
    .orderBy(asc(judgeConfigs.name))
    .all()
    .map(withKeyFlag);
}

function getTableColumns() {
  return {
    id: judgeConfigs.id,
    name: judgeConfigs.name,
    baseUrl: judgeConfigs.baseUrl,
    model: judgeConfigs.model,
    apiKeyEnv: judgeConfigs.apiKeyEnv,
    temperature: judgeConfigs.temperature,
    seed: judgeConfigs.seed,
    maxOutputTokens: judgeConfigs.maxOutputTokens,
    timeoutMs: judgeConfigs.timeoutMs,
    maxRetries: judgeConfigs.maxRetries,
    promptVersion: judgeConfigs.promptVersion,
    options: judgeConfigs.options,
    priceInputPerMTok: judgeConfigs.priceInputPerMTok,
    priceOutputPerMTok: judgeConfigs.priceOutputPerMTok,
    createdAt: judgeConfigs.createdAt,
    updatedAt: judgeConfigs.updatedAt,
  };
}

export function setJudgeApiKey(db: Db, configId: number, apiKey: string): void {
  db.insert(judgeConfigSecrets)
    .values({ configId, apiKey })
    .onConflictDoUpdate({ target: judgeConfigSecrets.configId, set: { apiKey, updatedAt: new Date() } })
    .run();
}

export function clearJudgeApiKey(db: Db, configId: number): void {
  db.delete(judgeConfigSecrets).where(eq(judgeConfigSecrets.configId, configId)).run();
}

/** The stored key of a configuration. Only the judge service calls this, to build its HTTP client. */
export function getJudgeApiKey(db: Db, configId: number): string | undefined {
  return db
    .select({ apiKey: judgeConfigSecrets.apiKey })
    .from(judgeConfigSecrets)
    .where(eq(judgeConfigSecrets.configId, configId))
    .get()?.apiKey;
}

// ---- judge endpoint settings (admins') ----

export interface JudgeEndpointSettingsRow {
  allowedHosts: string[];
  allowLoopback: boolean;
  updatedBy: string | null;
  updatedAt: Date | null;
}

/** The admins' saved settings; nothing allowed beyond the environment until they save some. */
export function getJudgeEndpointSettings(db: Db): JudgeEndpointSettingsRow {
  const row = db.select().from(judgeEndpointSettings).where(eq(judgeEndpointSettings.id, 1)).get();
  return row
    ? { allowedHosts: row.allowedHosts, allowLoopback: row.allowLoopback, updatedBy: row.updatedBy, updatedAt: row.updatedAt }
    : { allowedHosts: [], allowLoopback: false, updatedBy: null, updatedAt: null };
}

export function saveJudgeEndpointSettings(db: Db, v: { allowedHosts: string[]; allowLoopback: boolean; updatedBy: string | null }): void {
  const values = { ...v, updatedAt: new Date() };
  db.insert(judgeEndpointSettings)
    .values({ id: 1, ...values })
    .onConflictDoUpdate({ target: judgeEndpointSettings.id, set: values })
    .run();
}

// ---- batches ----

export type JudgeBatchValues = Omit<typeof judgeBatches.$inferInsert, "id" | "createdAt">;

export function insertJudgeBatch(db: Db, v: JudgeBatchValues): number {
  return db.insert(judgeBatches).values(v).returning({ id: judgeBatches.id }).get().id;
}

export function updateJudgeBatch(db: Db, id: number, patch: Partial<JudgeBatchValues>): void {
  db.update(judgeBatches).set(patch).where(eq(judgeBatches.id, id)).run();
}

export function getJudgeBatch(db: Db, id: number): JudgeBatchRow | undefined {
  return db.select().from(judgeBatches).where(eq(judgeBatches.id, id)).get();
}

export function listJudgeBatches(db: Db, limit = 50) {
  return db
    .select({
      id: judgeBatches.id,
      judgeConfigId: judgeBatches.judgeConfigId,
      configName: judgeConfigs.name,
      model: judgeConfigs.model,
      selectionLabel: judgeBatches.selectionLabel,
      trajectoryCount: sql<number>`json_array_length(${judgeBatches.trajectoryIds})`,
      kValues: judgeBatches.kValues,
      concurrency: judgeBatches.concurrency,
      force: judgeBatches.force,
      status: judgeBatches.status,
      totalPairs: judgeBatches.totalPairs,
      skippedExisting: judgeBatches.skippedExisting,
      estimatedCalls: judgeBatches.estimatedCalls,
      estimatedCostUsd: judgeBatches.estimatedCostUsd,
      succeeded: judgeBatches.succeeded,
      failed: judgeBatches.failed,
      cancelled: judgeBatches.cancelled,
      createdAt: judgeBatches.createdAt,
      startedAt: judgeBatches.startedAt,
      finishedAt: judgeBatches.finishedAt,
    })
    .from(judgeBatches)
    .innerJoin(judgeConfigs, eq(judgeConfigs.id, judgeBatches.judgeConfigId))
    .orderBy(desc(judgeBatches.id))
    .limit(limit)
    .all();
}

// ---- verdicts ----

export type VerdictValues = Omit<typeof evaluatorVerdicts.$inferInsert, "id" | "createdAt" | "updatedAt">;

export interface VerdictIdentity {
  trajectoryId: number;
  evaluatorKey: string;
  k: string;
  promptVersion: string;
}

/**
 * Stores a verdict, replacing the one with the same identity (trajectory, evaluator, k, prompt version) if any.
 * One INSERT … ON CONFLICT DO UPDATE statement on the unique index: two writers of the same identity always end
 * with one row.
 */
export function upsertVerdict(db: Db, v: VerdictValues): { id: number } {
  const now = new Date();
  const k = v.k ?? "";
  const promptVersion = v.promptVersion ?? "";
  return db
    .insert(evaluatorVerdicts)
    .values({ ...v, k, promptVersion, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: [evaluatorVerdicts.trajectoryId, evaluatorVerdicts.evaluatorKey, evaluatorVerdicts.k, evaluatorVerdicts.promptVersion],
      set: { ...nullFill(v), updatedAt: now },
    })
    .returning({ id: evaluatorVerdicts.id })
    .get();
}

const REPLACED_COLUMNS = Object.keys(nullFill({} as VerdictValues)) as (keyof ReturnType<typeof nullFill>)[];

/**
 * Stores many verdicts like upsertVerdict, a few hundred per statement: for evaluators that decide thousands of
 * trajectories in a second (heuristics), where building one statement per verdict would be most of the work. Every
 * field is taken from the new verdict on replace (left-out fields become null, as in upsertVerdict).
 */
export function upsertVerdicts(db: Db, rows: VerdictValues[]): void {
  const now = new Date();
  const excluded = (column: string) => sql.raw(`excluded.${column}`);
  for (let i = 0; i < rows.length; i += 200) {
    const values = rows.slice(i, i + 200).map((v) => ({ ...nullFill(v), trajectoryId: v.trajectoryId, evaluatorKey: v.evaluatorKey, k: v.k ?? "", promptVersion: v.promptVersion ?? "", createdAt: now, updatedAt: now }));
    db.insert(evaluatorVerdicts)
      .values(values)
      .onConflictDoUpdate({
        target: [evaluatorVerdicts.trajectoryId, evaluatorVerdicts.evaluatorKey, evaluatorVerdicts.k, evaluatorVerdicts.promptVersion],
        // Every column but the identity and createdAt takes the new row's value.
        set: Object.fromEntries([...REPLACED_COLUMNS, "updatedAt" as const].map((f) => [f, excluded(evaluatorVerdicts[f].name)])),
      })
      .run();
  }
}

/** On replace, fields the new verdict leaves out are cleared rather than kept from the old one. */
function nullFill(rest: VerdictValues) {
  return {
    kind: rest.kind,
    origin: rest.origin,
    evaluatorName: rest.evaluatorName,
    judgeConfigId: rest.judgeConfigId ?? null,
    batchId: rest.batchId ?? null,
    stepIndices: rest.stepIndices ?? null,
    verdict: rest.verdict,
    score: rest.score ?? null,
    rationale: rest.rationale ?? null,
    rawReply: rest.rawReply ?? null,
    details: rest.details ?? null,
    model: rest.model ?? null,
    inputTokens: rest.inputTokens ?? null,
    outputTokens: rest.outputTokens ?? null,
    latencyMs: rest.latencyMs ?? null,
    costUsd: rest.costUsd ?? null,
    sampleCount: rest.sampleCount ?? null,
    sampleSuccesses: rest.sampleSuccesses ?? null,
    sampleFailures: rest.sampleFailures ?? null,
    firstFailingStep: rest.firstFailingStep ?? null,
  };
}

export function findVerdict(db: Db, id: VerdictIdentity): EvaluatorVerdictRow | undefined {
  return db
    .select()
    .from(evaluatorVerdicts)
    .where(
      and(
        eq(evaluatorVerdicts.trajectoryId, id.trajectoryId),
        eq(evaluatorVerdicts.evaluatorKey, id.evaluatorKey),
        eq(evaluatorVerdicts.k, id.k),
        eq(evaluatorVerdicts.promptVersion, id.promptVersion),
      ),
    )
    .get();
}

/** Which (trajectory, k) pairs already have a verdict from an evaluator at a prompt version: keys "trajectoryId:k". */
export function existingVerdictKeys(
  db: Db,
  evaluatorKey: string,
  promptVersion: string,
  trajectoryIds: number[],
  kValues: string[],
): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < trajectoryIds.length; i += 500) {
    const rows = db
      .select({ t: evaluatorVerdicts.trajectoryId, k: evaluatorVerdicts.k })
      .from(evaluatorVerdicts)
      .where(
        and(
          eq(evaluatorVerdicts.evaluatorKey, evaluatorKey),
          eq(evaluatorVerdicts.promptVersion, promptVersion),
          inArray(evaluatorVerdicts.trajectoryId, trajectoryIds.slice(i, i + 500)),
          inArray(evaluatorVerdicts.k, kValues),
        ),
      )
      .all();
    for (const r of rows) out.add(`${r.t}:${r.k}`);
  }
  return out;
}

export interface VerdictFilter {
  trajectoryId?: number;
  trajectoryIds?: number[];
  evaluatorKey?: string;
  batchId?: number;
  kind?: string;
  k?: string;
}

function verdictWhere(f: VerdictFilter): SQL | undefined {
  const conds: SQL[] = [];
  if (f.trajectoryId !== undefined) conds.push(eq(evaluatorVerdicts.trajectoryId, f.trajectoryId));
  if (f.trajectoryIds) conds.push(f.trajectoryIds.length ? inArray(evaluatorVerdicts.trajectoryId, f.trajectoryIds) : sql`0`);
  if (f.evaluatorKey !== undefined) conds.push(eq(evaluatorVerdicts.evaluatorKey, f.evaluatorKey));
  if (f.batchId !== undefined) conds.push(eq(evaluatorVerdicts.batchId, f.batchId));
  if (f.kind !== undefined) conds.push(eq(evaluatorVerdicts.kind, f.kind as EvaluatorVerdictRow["kind"]));
  if (f.k !== undefined) conds.push(eq(evaluatorVerdicts.k, f.k));
  return conds.length ? and(...conds) : undefined;
}

export function listVerdicts(db: Db, f: VerdictFilter = {}, limit = 100_000): EvaluatorVerdictRow[] {
  return db
    .select()
    .from(evaluatorVerdicts)
    .where(verdictWhere(f))
    .orderBy(asc(evaluatorVerdicts.trajectoryId), asc(evaluatorVerdicts.evaluatorKey), asc(evaluatorVerdicts.k))
    .limit(limit)
    .all();
}

export function countVerdicts(db: Db, f: VerdictFilter = {}): number {
  return db.select({ n: count() }).from(evaluatorVerdicts).where(verdictWhere(f)).get()!.n;
}

/** Verdict counts by value (success / failure / unparseable / not_evaluable), plus summed tokens and cost. */
export function verdictTotals(db: Db, f: VerdictFilter) {
  const rows = db
    .select({
      verdict: evaluatorVerdicts.verdict,
      n: count(),
      inputTokens: sql<number>`coalesce(sum(${evaluatorVerdicts.inputTokens}), 0)`,
      outputTokens: sql<number>`coalesce(sum(${evaluatorVerdicts.outputTokens}), 0)`,
      costUsd: sql<number | null>`sum(${evaluatorVerdicts.costUsd})`,
    })
    .from(evaluatorVerdicts)
    .where(verdictWhere(f))
    .groupBy(evaluatorVerdicts.verdict)
    .all();
  const byVerdict: Record<string, number> = { success: 0, failure: 0, unparseable: 0, not_evaluable: 0 };
  let inputTokens = 0;
  let outputTokens = 0;
  let costUsd: number | null = null;
  for (const r of rows) {
    byVerdict[r.verdict] = r.n;
    inputTokens += Number(r.inputTokens);
    outputTokens += Number(r.outputTokens);
    if (r.costUsd != null) costUsd = (costUsd ?? 0) + Number(r.costUsd);
  }
  return { byVerdict, inputTokens, outputTokens, costUsd };
}

/**
 * Every evaluator that has verdicts, split by k and prompt version, with counts: what the agreement views offer
 * as "evaluator" columns.
 */
export function listEvaluatorSummaries(db: Db) {
  return db
    .select({
      evaluatorKey: evaluatorVerdicts.evaluatorKey,
      evaluatorName: sql<string>`max(${evaluatorVerdicts.evaluatorName})`,
      kind: evaluatorVerdicts.kind,
      origin: evaluatorVerdicts.origin,
      k: evaluatorVerdicts.k,
      promptVersion: evaluatorVerdicts.promptVersion,
      total: count(),
      success: sql<number>`sum(case when ${evaluatorVerdicts.verdict} = 'success' then 1 else 0 end)`,
      failure: sql<number>`sum(case when ${evaluatorVerdicts.verdict} = 'failure' then 1 else 0 end)`,
      unparseable: sql<number>`sum(case when ${evaluatorVerdicts.verdict} = 'unparseable' then 1 else 0 end)`,
      notEvaluable: sql<number>`sum(case when ${evaluatorVerdicts.verdict} = 'not_evaluable' then 1 else 0 end)`,
    })
    .from(evaluatorVerdicts)
    .groupBy(evaluatorVerdicts.evaluatorKey, evaluatorVerdicts.kind, evaluatorVerdicts.origin, evaluatorVerdicts.k, evaluatorVerdicts.promptVersion)
    .orderBy(asc(evaluatorVerdicts.evaluatorKey), asc(evaluatorVerdicts.k))
    .all();
}

export function deleteVerdicts(db: Db, f: VerdictFilter): number {
  const where = verdictWhere(f);
  if (!where) throw new Error("deleteVerdicts: refusing to delete without a filter");
  return db.delete(evaluatorVerdicts).where(where).run().changes;
}

/** Every trajectory id matching the browser's filter, for a batch over "what the list shows". */
export function trajectoryIdsMatching(db: Db, f: TrajectoryFilter, limit = 1_000_000): number[] {
  return db
    .select({ id: trajectories.id })
    .from(trajectories)
    .innerJoin(tasks, eq(tasks.id, trajectories.taskId))
    .innerJoin(agentRuns, eq(agentRuns.id, trajectories.runId))
    .where(trajectoryWhere(f))
    .orderBy(asc(trajectories.id))
    .limit(limit)
    .all()
    .map((r) => r.id);
}

/** Trajectories that exist among `ids` (batches drop ids deleted since selection). */
export function existingTrajectoryIds(db: Db, ids: number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    out.push(
      ...db
        .select({ id: trajectories.id })
        .from(trajectories)
        .where(inArray(trajectories.id, ids.slice(i, i + 500)))
        .all()
        .map((r) => r.id),
    );
  }
  return out;
}

/**
 * Replaces the verdicts an import brought for one trajectory (origin "import") with `verdicts`; verdicts Verdict
 * computed itself are left alone. Used by ingest when a trajectory is created or its source changed.
 */
export function replaceImportedVerdicts(db: Db, trajectoryId: number, verdicts: VerdictValues[]): void {
  db.$client.transaction(() => {
    db.delete(evaluatorVerdicts)
      .where(and(eq(evaluatorVerdicts.trajectoryId, trajectoryId), eq(evaluatorVerdicts.origin, "import")))
      .run();
    for (const v of verdicts) upsertVerdict(db, v);
  })();
}
