/**
 * Judge configurations, judge batches and evaluator verdicts: every query on them lives here.
 *
 * API keys: `getJudgeApiKey` is the only function that reads `judge_config_secrets`; everything else returns
 * configurations without a key (with `hasStoredKey` at most), so a router or an export cannot leak one.
 */
import { and, asc, count, desc, eq, getTableColumns, inArray, sql, type SQL } from "drizzle-orm";
import {
  pickColumns,
  insertReturningId,
  affectedRows,
  deleteBy,
  first,
  rawAll,
  rowBy,
  tablesOf,
  updateBy,
  withTransaction,
  type Db,
  type Tables,
} from "../../database";
import type { EvaluatorKind } from "../../../server/domain/evaluation/verdicts";
import type { evaluatorVerdicts, judgeBatches, judgeConfigs, EvaluatorVerdictRow, JudgeBatchRow, JudgeConfigRow } from "../../schema/index";

// ---- judge configurations ----

export type JudgeConfigValues = Omit<typeof judgeConfigs.$inferInsert, "id" | "createdAt" | "updatedAt">;
export type PublicJudgeConfig = JudgeConfigRow & { hasStoredKey: boolean };

/** Whether a configuration has a stored key (SQLite answers 0/1, PostgreSQL a boolean). */
function hasStoredKey(t: Tables) {
  return sql<number | boolean>`exists (select 1 from ${t.judgeConfigSecrets} where ${t.judgeConfigSecrets.configId} = ${t.judgeConfigs.id})`;
}

function withKeyFlag(row: JudgeConfigRow & { storedKey: number | boolean }): PublicJudgeConfig {
  const { storedKey, ...rest } = row;
  return { ...rest, hasStoredKey: !!storedKey };
}

export async function insertJudgeConfig(db: Db, v: JudgeConfigValues): Promise<number> {
  return insertReturningId(db, tablesOf(db).judgeConfigs, v);
}

export async function updateJudgeConfig(db: Db, id: number, patch: Partial<JudgeConfigValues>): Promise<void> {
  await updateBy(db, tablesOf(db).judgeConfigs, { id }, { ...patch, updatedAt: new Date() });
}

export async function deleteJudgeConfig(db: Db, id: number): Promise<boolean> {
  return (await deleteBy(db, tablesOf(db).judgeConfigs, { id })) > 0;
}

/** Judge configurations as they may be shown: every column (the key is kept in another table) and whether a key is stored. */
function publicConfigs(db: Db) {
  const t = tablesOf(db);
  return db.select({ ...getTableColumns(t.judgeConfigs), storedKey: hasStoredKey(t) }).from(t.judgeConfigs);
}

export async function getJudgeConfig(db: Db, id: number): Promise<PublicJudgeConfig | undefined> {
  const { judgeConfigs } = tablesOf(db);
  const row = await first(publicConfigs(db).where(eq(judgeConfigs.id, id)).limit(1));
  return row ? withKeyFlag(row) : undefined;
}

export async function getJudgeConfigByName(db: Db, name: string): Promise<PublicJudgeConfig | undefined> {
  const { judgeConfigs } = tablesOf(db);
  const row = await first(publicConfigs(db).where(eq(judgeConfigs.name, name)).limit(1));
  return row ? withKeyFlag(row) : undefined;
}

export async function listJudgeConfigs(db: Db): Promise<PublicJudgeConfig[]> {
  const { judgeConfigs } = tablesOf(db);
  const rows = await publicConfigs(db).orderBy(asc(judgeConfigs.name), asc(judgeConfigs.id));
  return rows.map(withKeyFlag);
}

export async function setJudgeApiKey(db: Db, configId: number, apiKey: string): Promise<void> {
  const { judgeConfigSecrets } = tablesOf(db);
  await db
    .insert(judgeConfigSecrets)
    .values({ configId, apiKey })
    .onConflictDoUpdate({ target: judgeConfigSecrets.configId, set: { apiKey, updatedAt: new Date() } });
}

export async function clearJudgeApiKey(db: Db, configId: number): Promise<void> {
  const { judgeConfigSecrets } = tablesOf(db);
  await db.delete(judgeConfigSecrets).where(eq(judgeConfigSecrets.configId, configId));
}

/** The stored key of a configuration. Only the judge service calls this, to build its HTTP client. */
export async function getJudgeApiKey(db: Db, configId: number): Promise<string | undefined> {
  const { judgeConfigSecrets } = tablesOf(db);
  const row = await first(db.select({ apiKey: judgeConfigSecrets.apiKey }).from(judgeConfigSecrets).where(eq(judgeConfigSecrets.configId, configId)).limit(1));
  return row?.apiKey;
}

// ---- judge endpoint settings (admins') ----

export interface JudgeEndpointSettingsRow {
  allowedHosts: string[];
  allowLoopback: boolean;
  updatedBy: string | null;
  updatedAt: Date | null;
}

/** The admins' saved settings; nothing allowed beyond the environment until they save some. */
export async function getJudgeEndpointSettings(db: Db): Promise<JudgeEndpointSettingsRow> {
  const row = await rowBy(db, tablesOf(db).judgeEndpointSettings, { id: 1 });
  return row
    ? { allowedHosts: row.allowedHosts, allowLoopback: row.allowLoopback, updatedBy: row.updatedBy, updatedAt: row.updatedAt }
    : { allowedHosts: [], allowLoopback: false, updatedBy: null, updatedAt: null };
}

export async function saveJudgeEndpointSettings(db: Db, v: { allowedHosts: string[]; allowLoopback: boolean; updatedBy: string | null }): Promise<void> {
  const { judgeEndpointSettings } = tablesOf(db);
  const values = { ...v, updatedAt: new Date() };
  // id 1 is the settings row's fixed key (a one-row table), not a generated identity.
  await db
    .insert(judgeEndpointSettings)
    .values({ id: 1, ...values })
    .onConflictDoUpdate({ target: judgeEndpointSettings.id, set: values });
}

// ---- batches ----

export type JudgeBatchValues = Omit<typeof judgeBatches.$inferInsert, "id" | "createdAt">;

export async function insertJudgeBatch(db: Db, v: JudgeBatchValues): Promise<number> {
  return insertReturningId(db, tablesOf(db).judgeBatches, v);
}

export async function updateJudgeBatch(db: Db, id: number, patch: Partial<JudgeBatchValues>): Promise<void> {
  await updateBy(db, tablesOf(db).judgeBatches, { id }, patch);
}

export async function getJudgeBatch(db: Db, id: number): Promise<JudgeBatchRow | undefined> {
  return rowBy(db, tablesOf(db).judgeBatches, { id });
}

/** What every list of judge batches shows of one: its selection, status and how far its pairs got. */
export function batchProgressColumns(db: Db) {
  const { judgeBatches } = tablesOf(db);
  return {
    id: judgeBatches.id,
    selectionLabel: judgeBatches.selectionLabel,
    status: judgeBatches.status,
    totalPairs: judgeBatches.totalPairs,
    succeeded: judgeBatches.succeeded,
    failed: judgeBatches.failed,
    cancelled: judgeBatches.cancelled,
    createdAt: judgeBatches.createdAt,
  };
}

export async function listJudgeBatches(db: Db, limit = 50) {
  const { judgeBatches, judgeConfigs } = tablesOf(db);
  return db
    .select({
      ...batchProgressColumns(db),
      judgeConfigId: judgeBatches.judgeConfigId,
      configName: judgeConfigs.name,
      model: judgeConfigs.model,
      // json_array_length exists on both engines (PostgreSQL's for its json type).
      trajectoryCount: sql<number>`json_array_length(${judgeBatches.trajectoryIds})`.mapWith(Number),
      kValues: judgeBatches.kValues,
      concurrency: judgeBatches.concurrency,
      force: judgeBatches.force,
      skippedExisting: judgeBatches.skippedExisting,
      estimatedCalls: judgeBatches.estimatedCalls,
      estimatedCostUsd: judgeBatches.estimatedCostUsd,
      startedAt: judgeBatches.startedAt,
      finishedAt: judgeBatches.finishedAt,
    })
    .from(judgeBatches)
    .innerJoin(judgeConfigs, eq(judgeConfigs.id, judgeBatches.judgeConfigId))
    .orderBy(desc(judgeBatches.id))
    .limit(limit);
}

// ---- verdicts ----

export type VerdictValues = Omit<typeof evaluatorVerdicts.$inferInsert, "id" | "createdAt" | "updatedAt">;

/** A judge setting: one evaluator at one screenshot window (k) and prompt version. */
export interface JudgeSetting {
  evaluatorKey: string;
  k: string;
  promptVersion: string;
}

/** The condition that a verdict is of this judge setting. */
export function ofJudgeSetting(db: Db, setting: JudgeSetting): SQL | undefined {
  const { evaluatorVerdicts } = tablesOf(db);
  return and(
    eq(evaluatorVerdicts.evaluatorKey, setting.evaluatorKey),
    eq(evaluatorVerdicts.k, setting.k),
    eq(evaluatorVerdicts.promptVersion, setting.promptVersion),
  );
}

/** The columns of a judge setting, to group verdicts by (with its evaluator's name: `judgeSettingColumns`). */
export function judgeSettingKey(db: Db) {
  const { evaluatorVerdicts } = tablesOf(db);
  return [evaluatorVerdicts.evaluatorKey, evaluatorVerdicts.k, evaluatorVerdicts.promptVersion] as const;
}

/** A judge setting's columns and its evaluator's name, in a query grouped by the setting (`judgeSettingKey`). */
export function judgeSettingColumns(db: Db) {
  const { evaluatorVerdicts } = tablesOf(db);
  return {
    evaluatorKey: evaluatorVerdicts.evaluatorKey,
    evaluatorName: sql<string>`max(${evaluatorVerdicts.evaluatorName})`,
    k: evaluatorVerdicts.k,
    promptVersion: evaluatorVerdicts.promptVersion,
  };
}

export interface VerdictIdentity extends JudgeSetting {
  trajectoryId: number;
}

/**
 * Stores a verdict, replacing the one with the same identity (trajectory, evaluator, k, prompt version) if any.
 * One INSERT … ON CONFLICT DO UPDATE statement on the unique index: two writers of the same identity always end
 * with one row.
 */
export async function upsertVerdict(db: Db, v: VerdictValues): Promise<{ id: number }> {
  const { evaluatorVerdicts } = tablesOf(db);
  const now = new Date();
  const k = v.k ?? "";
  const promptVersion = v.promptVersion ?? "";
  const [row] = await db
    .insert(evaluatorVerdicts)
    .values({ ...v, k, promptVersion, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: [evaluatorVerdicts.trajectoryId, evaluatorVerdicts.evaluatorKey, evaluatorVerdicts.k, evaluatorVerdicts.promptVersion],
      set: { ...nullFill(v), updatedAt: now },
    })
    .returning({ id: evaluatorVerdicts.id });
  return row!;
}

const REPLACED_COLUMNS = Object.keys(nullFill({} as VerdictValues)) as (keyof ReturnType<typeof nullFill>)[];

/**
 * Stores many verdicts like upsertVerdict, a few hundred per statement: for evaluators that decide thousands of
 * trajectories in a second (heuristics), where building one statement per verdict would be most of the work. Every
 * field is taken from the new verdict on replace (left-out fields become null, as in upsertVerdict).
 */
export async function upsertVerdicts(db: Db, rows: VerdictValues[]): Promise<void> {
  const { evaluatorVerdicts } = tablesOf(db);
  const now = new Date();
  const excluded = (column: string) => sql.raw(`excluded.${column}`);
  for (let i = 0; i < rows.length; i += 200) {
    const values = rows.slice(i, i + 200).map((v) => ({
      ...nullFill(v),
      trajectoryId: v.trajectoryId,
      evaluatorKey: v.evaluatorKey,
      k: v.k ?? "",
      promptVersion: v.promptVersion ?? "",
      createdAt: now,
      updatedAt: now,
    }));
    await db
      .insert(evaluatorVerdicts)
      .values(values)
      .onConflictDoUpdate({
        target: [evaluatorVerdicts.trajectoryId, evaluatorVerdicts.evaluatorKey, evaluatorVerdicts.k, evaluatorVerdicts.promptVersion],
        // Every column but the identity and createdAt takes the new row's value.
        set: Object.fromEntries([...REPLACED_COLUMNS, "updatedAt" as const].map((f) => [f, excluded(evaluatorVerdicts[f].name)])),
      });
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

export async function findVerdict(db: Db, id: VerdictIdentity): Promise<EvaluatorVerdictRow | undefined> {
  const { evaluatorVerdicts } = tablesOf(db);
  return first(
    db
      .select()
      .from(evaluatorVerdicts)
      .where(and(eq(evaluatorVerdicts.trajectoryId, id.trajectoryId), ofJudgeSetting(db, id)))
      .limit(1),
  );
}

/** Which (trajectory, k) pairs already have a verdict from an evaluator at a prompt version: keys "trajectoryId:k". */
export async function existingVerdictKeys(
  db: Db,
  evaluatorKey: string,
  promptVersion: string,
  trajectoryIds: number[],
  kValues: string[],
): Promise<Set<string>> {
  const { evaluatorVerdicts } = tablesOf(db);
  const out = new Set<string>();
  for (let i = 0; i < trajectoryIds.length; i += 500) {
    const rows = await db
      .select({ t: evaluatorVerdicts.trajectoryId, k: evaluatorVerdicts.k })
      .from(evaluatorVerdicts)
      .where(
        and(
          eq(evaluatorVerdicts.evaluatorKey, evaluatorKey),
          eq(evaluatorVerdicts.promptVersion, promptVersion),
          inArray(evaluatorVerdicts.trajectoryId, trajectoryIds.slice(i, i + 500)),
          inArray(evaluatorVerdicts.k, kValues),
        ),
      );
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

function verdictWhere({ evaluatorVerdicts }: Tables, f: VerdictFilter): SQL | undefined {
  const conds: SQL[] = [];
  if (f.trajectoryId !== undefined) conds.push(eq(evaluatorVerdicts.trajectoryId, f.trajectoryId));
  if (f.trajectoryIds) conds.push(f.trajectoryIds.length ? inArray(evaluatorVerdicts.trajectoryId, f.trajectoryIds) : sql`1 = 0`);
  if (f.evaluatorKey !== undefined) conds.push(eq(evaluatorVerdicts.evaluatorKey, f.evaluatorKey));
  if (f.batchId !== undefined) conds.push(eq(evaluatorVerdicts.batchId, f.batchId));
  if (f.kind !== undefined) conds.push(eq(evaluatorVerdicts.kind, f.kind as EvaluatorVerdictRow["kind"]));
  if (f.k !== undefined) conds.push(eq(evaluatorVerdicts.k, f.k));
  return conds.length ? and(...conds) : undefined;
}

export async function listVerdicts(db: Db, f: VerdictFilter = {}, limit = 100_000): Promise<EvaluatorVerdictRow[]> {
  const t = tablesOf(db);
  const { evaluatorVerdicts } = t;
  return db
    .select()
    .from(evaluatorVerdicts)
    .where(verdictWhere(t, f))
    .orderBy(asc(evaluatorVerdicts.trajectoryId), asc(evaluatorVerdicts.evaluatorKey), asc(evaluatorVerdicts.k), asc(evaluatorVerdicts.promptVersion))
    .limit(limit);
}

export async function countVerdicts(db: Db, f: VerdictFilter = {}): Promise<number> {
  const t = tablesOf(db);
  const row = await first(db.select({ n: count() }).from(t.evaluatorVerdicts).where(verdictWhere(t, f)).limit(1));
  return Number(row?.n ?? 0);
}

/** Verdict counts by value (success / failure / unparseable / not_evaluable), plus summed tokens and cost. */
export async function verdictTotals(db: Db, f: VerdictFilter) {
  const t = tablesOf(db);
  const { evaluatorVerdicts } = t;
  // Sums come back as text from PostgreSQL (numeric / bigint): read as numbers.
  const rows = await db
    .select({
      verdict: evaluatorVerdicts.verdict,
      n: count(),
      inputTokens: sql<number>`coalesce(sum(${evaluatorVerdicts.inputTokens}), 0)`.mapWith(Number),
      outputTokens: sql<number>`coalesce(sum(${evaluatorVerdicts.outputTokens}), 0)`.mapWith(Number),
      costUsd: sql<number | null>`sum(${evaluatorVerdicts.costUsd})`,
    })
    .from(evaluatorVerdicts)
    .where(verdictWhere(t, f))
    .groupBy(evaluatorVerdicts.verdict);
  const byVerdict: Record<string, number> = { success: 0, failure: 0, unparseable: 0, not_evaluable: 0 };
  let inputTokens = 0;
  let outputTokens = 0;
  let costUsd: number | null = null;
  for (const r of rows) {
    byVerdict[r.verdict] = Number(r.n);
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
export async function listEvaluatorSummaries(db: Db) {
  const { evaluatorVerdicts } = tablesOf(db);
  const tally = (verdict: string) => sql<number>`sum(case when ${evaluatorVerdicts.verdict} = ${verdict} then 1 else 0 end)`.mapWith(Number);
  const setting = judgeSettingKey(db);
  return db
    .select({
      ...judgeSettingColumns(db),
      kind: evaluatorVerdicts.kind,
      origin: evaluatorVerdicts.origin,
      total: count(),
      success: tally("success"),
      failure: tally("failure"),
      unparseable: tally("unparseable"),
      notEvaluable: tally("not_evaluable"),
    })
    .from(evaluatorVerdicts)
    .groupBy(...setting, evaluatorVerdicts.kind, evaluatorVerdicts.origin)
    .orderBy(...setting.map((c) => asc(c)), asc(evaluatorVerdicts.kind), asc(evaluatorVerdicts.origin));
}

/**
 * Every evaluator identity with verdicts (key, k, prompt version), with the name and kind its verdicts carry: the
 * trajectory list's evaluator menu. Unlike listEvaluatorSummaries nothing is counted: the identities are a DISTINCT
 * over evaluator_verdicts_analytics_idx (which SQLite answers by skipping from one identity to the next) and each
 * one's name is read from one of its rows, found through the same index. Counting every verdict to fill a menu read
 * every verdict row on each opening of the list: 150–260 ms for the pages bench's 30,000 verdicts on a loaded 2-core
 * machine, against 0.01 ms for this read. An identity's verdicts share its name unless a judge configuration was
 * renamed between batches; the menu then shows one of the names.
 */
export async function listEvaluatorIdentities(
  db: Db,
): Promise<{ evaluatorKey: string; k: string; promptVersion: string; evaluatorName: string; kind: EvaluatorKind }[]> {
  return rawAll(
    db,
    sql`select d.evaluator_key as "evaluatorKey", d.k as "k", d.prompt_version as "promptVersion", v.evaluator_name as "evaluatorName", v.kind as "kind"
      from (select distinct evaluator_key, k, prompt_version from evaluator_verdicts) d
      join evaluator_verdicts v on v.id = (select m.id from evaluator_verdicts m
        where m.evaluator_key = d.evaluator_key and m.k = d.k and m.prompt_version = d.prompt_version limit 1)
      order by d.evaluator_key, d.k, d.prompt_version`,
  );
}

export async function deleteVerdicts(db: Db, f: VerdictFilter): Promise<number> {
  const t = tablesOf(db);
  const where = verdictWhere(t, f);
  if (!where) throw new Error("deleteVerdicts: refusing to delete without a filter");
  return affectedRows(await db.delete(t.evaluatorVerdicts).where(where));
}

/** Which evaluator gave which verdict on which trajectory: the columns a verdict is listed by. */
export function verdictSummaryColumns(db: Db) {
  return pickColumns(tablesOf(db).evaluatorVerdicts, ["trajectoryId", "evaluatorKey", "evaluatorName", "k", "promptVersion", "verdict"]);
}

/** Verdicts stored as one of several runs of a judge (prompt version "run:<file>"), optionally of one evaluator. */
export async function listJudgeRunVerdicts(db: Db, evaluatorKey?: string) {
  const { evaluatorVerdicts } = tablesOf(db);
  return db
    .select(verdictSummaryColumns(db))
    .from(evaluatorVerdicts)
    .where(
      and(sql`${evaluatorVerdicts.promptVersion} like 'run:%'`, evaluatorKey === undefined ? undefined : eq(evaluatorVerdicts.evaluatorKey, evaluatorKey)),
    );
}

/** The verdicts an import stored for a trajectory (what its sources carried). */
export async function importedVerdictsOf(db: Db, trajectoryId: number): Promise<EvaluatorVerdictRow[]> {
  const { evaluatorVerdicts } = tablesOf(db);
  return db
    .select()
    .from(evaluatorVerdicts)
    .where(and(eq(evaluatorVerdicts.trajectoryId, trajectoryId), eq(evaluatorVerdicts.origin, "import")));
}

/**
 * Replaces the verdicts an import brought for one trajectory (origin "import") with `verdicts`; verdicts Verdict
 * computed itself are left alone. Used by ingest when a trajectory is created or its source changed.
 */
export async function replaceImportedVerdicts(db: Db, trajectoryId: number, verdicts: VerdictValues[]): Promise<void> {
  const { evaluatorVerdicts } = tablesOf(db);
  const replace = async () => {
    await db.delete(evaluatorVerdicts).where(and(eq(evaluatorVerdicts.trajectoryId, trajectoryId), eq(evaluatorVerdicts.origin, "import")));
    for (const v of verdicts) await upsertVerdict(db, v);
  };
  // Inside an import's transaction this joins it, so the trajectory and its verdicts are written together.
  await withTransaction(db, replace);
}
