/**
 * Scanners and what they found (db/schema/scanners.ts), written once for SQLite and PostgreSQL: researchers'
 * scanner definitions, one scan row per scanner and trajectory (replaced when scanned again) with its matched
 * steps, and the human labels precision and recall are measured against.
 */
import { and, asc, count, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { ScannerValues } from "../../../server/domain/evaluation/scanners/definitions";
import type { LabelSchema, LabelVerdict } from "../../../server/domain/annotation/label-schema";
import type { LabelAnswers } from "../../../server/domain/annotation/questions";
import { deleteBy, rowBy, tablesOf, updateBy, withTransaction, type Db } from "../../database";
import type { ScannerRow } from "../../schema/index";

/** A researcher's scanner as stored: its definition (the built-in ones are not stored). */
export type StoredScannerValues = ScannerValues;

export async function listStoredScanners(db: Db): Promise<ScannerRow[]> {
  const { scanners } = tablesOf(db);
  return db.select().from(scanners).orderBy(asc(scanners.key));
}

export async function getStoredScanner(db: Db, key: string): Promise<ScannerRow | undefined> {
  return rowBy(db, tablesOf(db).scanners, { key });
}

export async function insertStoredScanner(db: Db, v: StoredScannerValues & { createdBy: string | null }): Promise<void> {
  const { scanners } = tablesOf(db);
  await db.insert(scanners).values(v);
}

/** Replaces a scanner's definition; its earlier results no longer describe it, so they go with the old version. */
export async function updateStoredScanner(db: Db, key: string, v: Omit<StoredScannerValues, "key">): Promise<void> {
  await withTransaction(db, async (tx) => {
    await updateBy(tx, tablesOf(tx).scanners, { key }, { ...v, updatedAt: new Date() });
    await deleteScannerResults(tx, key);
  });
}

export async function deleteStoredScanner(db: Db, key: string): Promise<void> {
  await withTransaction(db, async (tx) => {
    await deleteBy(tx, tablesOf(tx).scanners, { key });
    await deleteScannerResults(tx, key);
  });
}

async function deleteScannerResults(db: Db, key: string): Promise<void> {
  const { scannerScans, scannerMatches } = tablesOf(db);
  await db.delete(scannerMatches).where(eq(scannerMatches.scannerKey, key));
  await db.delete(scannerScans).where(eq(scannerScans.scannerKey, key));
}

export interface ScanResult {
  scannerKey: string;
  trajectoryId: number;
  definitionHash: string;
  problem: string | null;
  matches: { stepIndex: number; ruleIndex: number; field: string; matchedText: string }[];
}

/** Stores one scan of one trajectory, replacing the scanner's earlier result there. */
export async function saveScanResult(db: Db, r: ScanResult): Promise<void> {
  await withTransaction(db, async (tx) => {
    const { scannerScans, scannerMatches } = tablesOf(tx);
    await tx.delete(scannerMatches).where(and(eq(scannerMatches.scannerKey, r.scannerKey), eq(scannerMatches.trajectoryId, r.trajectoryId)));
    const steps = new Set(r.matches.map((m) => m.stepIndex));
    const scan = { definitionHash: r.definitionHash, matchCount: steps.size, problem: r.problem, scannedAt: new Date() };
    await tx
      .insert(scannerScans)
      .values({ scannerKey: r.scannerKey, trajectoryId: r.trajectoryId, ...scan })
      .onConflictDoUpdate({ target: [scannerScans.scannerKey, scannerScans.trajectoryId], set: scan });
    if (r.matches.length) await tx.insert(scannerMatches).values(r.matches.map((m) => ({ ...m, scannerKey: r.scannerKey, trajectoryId: r.trajectoryId })));
  });
}

export interface ScanCounts {
  scannerKey: string;
  definitionHash: string;
  scanned: number;
  fired: number;
  problems: number;
}

/** Per scanner and definition: trajectories scanned, those with a match, those whose scan could not finish. */
export async function scanCounts(db: Db): Promise<ScanCounts[]> {
  const { scannerScans: s } = tablesOf(db);
  const rows = await db
    .select({
      scannerKey: s.scannerKey,
      definitionHash: s.definitionHash,
      scanned: count(),
      fired: sql<number>`sum(case when ${s.matchCount} > 0 then 1 else 0 end)`,
      problems: count(s.problem),
    })
    .from(s)
    .groupBy(s.scannerKey, s.definitionHash);
  return rows.map((r) => ({ ...r, scanned: Number(r.scanned), fired: Number(r.fired ?? 0), problems: Number(r.problems) }));
}

/** The scans of one scanner made with its current definition: trajectory, steps matched, problem. */
export async function scansOf(db: Db, key: string, definitionHash: string) {
  const { scannerScans: s } = tablesOf(db);
  return db
    .select({ trajectoryId: s.trajectoryId, matchCount: s.matchCount, problem: s.problem })
    .from(s)
    .where(and(eq(s.scannerKey, key), eq(s.definitionHash, definitionHash)))
    .orderBy(asc(s.trajectoryId));
}

/** Matches of scans made with `definitionHash` (the scanner's current definition), in the given trajectories when given. */
function currentMatches(db: Db, key: string, definitionHash: string, trajectoryIds?: readonly number[]) {
  const { scannerMatches: m, scannerScans: s } = tablesOf(db);
  const current = and(eq(s.scannerKey, m.scannerKey), eq(s.trajectoryId, m.trajectoryId), eq(s.definitionHash, definitionHash));
  const where = trajectoryIds ? and(eq(m.scannerKey, key), inArray(m.trajectoryId, [...trajectoryIds])) : eq(m.scannerKey, key);
  return { m, current, where };
}

/**
 * The steps one scanner's current definition matched, with what it matched, for the given trajectories (all when
 * none are given), the first `limit` in trajectory and step order when a limit is given.
 */
export async function matchesOf(db: Db, key: string, definitionHash: string, opts: { trajectoryIds?: readonly number[]; limit?: number } = {}) {
  if (opts.trajectoryIds && !opts.trajectoryIds.length) return [];
  const { m, current, where } = currentMatches(db, key, definitionHash, opts.trajectoryIds);
  const query = db
    .select({ trajectoryId: m.trajectoryId, stepIndex: m.stepIndex, field: m.field, matchedText: m.matchedText })
    .from(m)
    .innerJoin(tablesOf(db).scannerScans, current)
    .where(where)
    .orderBy(asc(m.trajectoryId), asc(m.stepIndex), asc(m.id));
  return opts.limit === undefined ? await query : await query.limit(opts.limit);
}

/** How many matches (a step and a rule each) the scanner's current definition has stored. */
export async function matchCountOf(db: Db, key: string, definitionHash: string): Promise<number> {
  const { m, current, where } = currentMatches(db, key, definitionHash);
  const [row] = await db.select({ n: count() }).from(m).innerJoin(tablesOf(db).scannerScans, current).where(where);
  return Number(row?.n ?? 0);
}

/** Every scanner's matches on one trajectory, in step order, with the definition hash of the scan they came from. */
export async function matchesOfTrajectory(db: Db, trajectoryId: number) {
  const { scannerMatches: m, scannerScans: s } = tablesOf(db);
  return db
    .select({ scannerKey: m.scannerKey, stepIndex: m.stepIndex, field: m.field, matchedText: m.matchedText, definitionHash: s.definitionHash })
    .from(m)
    .innerJoin(s, and(eq(s.scannerKey, m.scannerKey), eq(s.trajectoryId, m.trajectoryId)))
    .where(eq(m.trajectoryId, trajectoryId))
    .orderBy(asc(m.stepIndex), asc(m.scannerKey), asc(m.id));
}

/**
 * The consolidated labels of the given trajectories (one row per campaign that settled one), with the error
 * categories their campaign offered: a label can only name a category its campaign asked about.
 */
export async function consolidatedCategoriesOf(db: Db, trajectoryIds: readonly number[]) {
  if (!trajectoryIds.length) return [];
  const { consolidatedLabels: c, annotationCampaigns: a } = tablesOf(db);
  const out: { trajectoryId: number; verdict: LabelVerdict; category: string | null; offered: string[] }[] = [];
  for (let i = 0; i < trajectoryIds.length; i += 1000) {
    const part = trajectoryIds.slice(i, i + 1000);
    const rows = await db
      .select({ trajectoryId: c.trajectoryId, verdict: c.verdict, category: c.category, labelSchema: a.labelSchema })
      .from(c)
      .innerJoin(a, eq(a.id, c.campaignId))
      .where(inArray(c.trajectoryId, part));
    out.push(...rows.map(({ labelSchema, ...r }) => ({ ...r, offered: labelSchema.categories ?? [] })));
  }
  return out;
}

/** Active labels with answers to campaign questions on the given trajectories, with their campaign's schema and step count. */
export async function labelAnswersOf(db: Db, trajectoryIds: readonly number[]) {
  if (!trajectoryIds.length) return [];
  const { labels: l, annotationCampaigns: c, trajectories: t } = tablesOf(db);
  const out: { trajectoryId: number; answers: LabelAnswers | null; labelSchema: LabelSchema; stepCount: number }[] = [];
  for (let i = 0; i < trajectoryIds.length; i += 1000) {
    const part = trajectoryIds.slice(i, i + 1000);
    out.push(
      ...(await db
        .select({ trajectoryId: l.trajectoryId, answers: l.answers, labelSchema: c.labelSchema, stepCount: t.stepCount })
        .from(l)
        .innerJoin(c, eq(c.id, l.campaignId))
        .innerJoin(t, eq(t.id, l.trajectoryId))
        .where(and(inArray(l.trajectoryId, part), eq(l.status, "active"), isNotNull(l.answers)))),
    );
  }
  return out;
}
