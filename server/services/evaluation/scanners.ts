/**
 * Scanners (server/domain/evaluation/scanners): the built-in ones and researchers' own, run over a slice of the
 * trajectory list as a worker job (./scanner-job.ts), their matches stored per step, and their precision and recall
 * against people's labels. Researchers and admins write and run them; what they found is an evaluation like a
 * judge's verdict, so the blind hides it from annotators exactly as it hides verdicts.
 */
import { loadSharp } from "../images";
import type { Db } from "../../../db/database";
import {
  consolidatedCategoriesOf,
  deleteStoredScanner,
  getStoredScanner,
  insertStoredScanner,
  labelAnswersOf,
  listStoredScanners,
  matchCountOf,
  matchesOf,
  matchesOfTrajectory,
  saveScanResult,
  scanCounts,
  scansOf,
  updateStoredScanner,
} from "../../../db/repositories/evaluation/scanners";
import { getTrajectoryDetail } from "../../../db/repositories/trajectories";
import type { ScannerRow } from "../../../db/schema/index";
import { requireRole, type Actor } from "../../domain/access/actor";
import {
  applyConsecutive,
  BUILT_IN_SCANNERS,
  builtInScanner,
  checkScanner,
  definitionHash,
  regexRules,
  scannerInput,
  shownMatch,
  stepTexts,
  cutFieldsProblem,
  type RuleHit,
  type ScannerDefinition,
  type ScannerField,
  type ScannerInput,
} from "../../domain/evaluation/scanners/definitions";
import {
  measureScanner,
  notAskedNote,
  sameCategory,
  stepLabelsOf,
  trajectoryLabelOf,
  type MeasuredItem,
  type ScannerMeasure,
} from "../../domain/evaluation/scanners/measure";
import { BLANK_THUMBNAIL_SIDE, describeUniformity, uniformity, type Uniformity } from "../../domain/evaluation/scanners/pixels";
import { PatternRefused } from "../../domain/evaluation/scanners/regex-guard";
import { NotFoundError, ValidationError } from "../../errors";
import type { ScreenshotStore } from "../../storage/screenshot-store";
import { assertMayViewEvaluations, assertSeesWholeCatalog, assertTrajectoryBrowsable, mayViewEvaluations } from "../access";
import { checkPatternsSafe, matchInSandbox, ScanTimeout } from "./scanner-sandbox";

function fromRow(row: ScannerRow): ScannerDefinition {
  return {
    key: row.key,
    name: row.name,
    description: row.description,
    category: row.category,
    rules: row.rules,
    minConsecutive: row.minConsecutive,
    builtIn: false,
  };
}

/** Every scanner: the built-in ones first, then researchers' own by key. */
export async function allScanners(db: Db): Promise<ScannerDefinition[]> {
  return [...BUILT_IN_SCANNERS, ...(await listStoredScanners(db)).map(fromRow)];
}

export async function requireScanner(db: Db, key: string): Promise<ScannerDefinition> {
  const builtIn = builtInScanner(key);
  if (builtIn) return builtIn;
  const row = await getStoredScanner(db, key);
  if (!row) throw new NotFoundError("scanner", key);
  return fromRow(row);
}

export { definitionHash };

/** A researcher's scanner checked in full (schema, static pattern guard, probe); refusals name the field. */
function validated(input: unknown): ScannerDefinition {
  const parsed = scannerInput.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join(".").replace(/\.(\d+)/g, "[$1]");
    throw new ValidationError(`${field || "scanner"}: ${issue.message}`, field || undefined);
  }
  try {
    const def = checkScanner(parsed.data);
    checkPatternsSafe(def.rules.flatMap((r, i) => (r.kind === "regex" ? [{ pattern: r.pattern, flags: r.flags, field: `rules[${i}].pattern` }] : [])));
    return def;
  } catch (e) {
    if (e instanceof PatternRefused) throw new ValidationError(e.message, e.field);
    throw e;
  }
}

export async function createScanner(db: Db, actor: Actor, input: ScannerInput): Promise<ScannerDefinition> {
  requireRole(actor, "researcher", "write scanners");
  const def = validated(input);
  if (await getStoredScanner(db, def.key)) throw new ValidationError(`key: a scanner "${def.key}" exists already`, "key");
  const { builtIn: _builtIn, ...values } = def;
  await insertStoredScanner(db, { ...values, createdBy: actor.userId });
  return def;
}

/** Replaces a researcher's scanner (its key stays); its earlier results are dropped. Built-in scanners are read-only. */
export async function updateScanner(db: Db, actor: Actor, input: ScannerInput): Promise<ScannerDefinition> {
  requireRole(actor, "researcher", "write scanners");
  if (builtInScanner(input.key)) throw new ValidationError(`key: "${input.key}" is built in and cannot be edited; save a copy under another key`, "key");
  if (!(await getStoredScanner(db, input.key))) throw new NotFoundError("scanner", input.key);
  const def = validated(input);
  const { builtIn: _builtIn, key, ...values } = def;
  await updateStoredScanner(db, key, values);
  return def;
}

export async function removeScanner(db: Db, actor: Actor, key: string): Promise<void> {
  requireRole(actor, "researcher", "delete scanners");
  if (builtInScanner(key)) throw new ValidationError(`"${key}" is built in and cannot be deleted`, "key");
  if (!(await getStoredScanner(db, key))) throw new NotFoundError("scanner", key);
  await deleteStoredScanner(db, key);
}

// ---------------------------------------------------------------- scanning

export interface ScanDeps {
  db: Db;
  store: ScreenshotStore;
}

export interface ScannerRunReport {
  trajectories: number;
  /** Trajectory ids the selection named that no longer exist. */
  missing: number;
  byScanner: Record<string, { scanned: number; fired: number; stepsMatched: number; problems: number }>;
  /** Each scan that could not finish, with why (never counted as "nothing found"). */
  problems: { scannerKey: string; trajectoryId: number; problem: string }[];
}

/** Greyscale thumbnails' uniformity by screenshot hash, each screenshot decoded once per run; null when unreadable. */
class ScreenshotUniformity {
  private readonly known = new Map<string, Uniformity | null>();
  constructor(private readonly store: ScreenshotStore) {}

  async of(hash: string): Promise<Uniformity | null> {
    if (this.known.has(hash)) return this.known.get(hash)!;
    let value: Uniformity | null;
    try {
      const sharp = await loadSharp();
      const img = await sharp(this.store.localPath(hash) ?? (await this.store.read(hash)), { failOn: "none" })
        .flatten({ background: "#ffffff" })
        .greyscale()
        .resize(BLANK_THUMBNAIL_SIDE, BLANK_THUMBNAIL_SIDE, { fit: "fill" })
        .raw()
        .toBuffer({ resolveWithObject: true });
      const ch = img.info.channels;
      value = uniformity(ch === 1 ? img.data : img.data.filter((_, i) => i % ch === 0));
    } catch {
      value = null;
    }
    this.known.set(hash, value);
    return value;
  }
}

type Detail = NonNullable<Awaited<ReturnType<typeof getTrajectoryDetail>>>;

async function pixelHits(def: ScannerDefinition, detail: Detail, pixels: ScreenshotUniformity): Promise<{ hits: RuleHit[]; unreadable: number }> {
  const hits: RuleHit[] = [];
  let unreadable = 0;
  for (const [ruleIndex, rule] of def.rules.entries()) {
    if (rule.kind !== "blank_screenshot") continue;
    for (const step of detail.steps) {
      const hash = step.rawScreenshotHash ?? step.screenshotHash;
      if (!hash) continue;
      const u = await pixels.of(hash);
      if (!u) unreadable++;
      else if (u.share >= rule.minShare) hits.push({ stepIndex: step.index, ruleIndex, field: "screenshot", text: describeUniformity(u) });
    }
  }
  return { hits, unreadable };
}

/**
 * Why a scanner cannot see what it looks for in this trajectory, or null when one of its rules can: a pixel rule
 * needs screenshots, a text rule one of the fields it reads. Such a scan is not "nothing found": it is stored with
 * this problem and left out of the measures and of `-scanner:`.
 */
function nothingToRead(def: ScannerDefinition, detail: Detail, texts: readonly { field: ScannerField }[]): string | null {
  const recorded = new Set(texts.map((t) => t.field));
  const screenshots = detail.steps.some((s) => s.rawScreenshotHash ?? s.screenshotHash);
  const missing = new Set<string>();
  for (const rule of def.rules) {
    if (rule.kind === "blank_screenshot" ? screenshots : rule.fields.some((f) => recorded.has(f))) return null;
    if (rule.kind === "blank_screenshot") missing.add("screenshots");
    else missing.add(`${rule.fields.join(" or ")} text`);
  }
  return `nothing to read: this trajectory has no ${[...missing].join(", no ")}`;
}

/** One scanner over one stored trajectory: its matches, or why the scan could not finish. */
async function scanOne(def: ScannerDefinition, detail: Detail, pixels: ScreenshotUniformity): Promise<{ hits: RuleHit[]; problem: string | null }> {
  const last = detail.steps.length - 1;
  const texts = detail.steps.flatMap((s, i) => stepTexts(s, detail.trajectory.finalAnswer, i === last).map((t) => ({ ...t, stepIndex: s.index })));
  const blind = nothingToRead(def, detail, texts);
  if (blind) return { hits: [], problem: blind };
  let textHits: RuleHit[];
  try {
    textHits = matchInSandbox(regexRules(def), texts);
  } catch (e) {
    if (e instanceof ScanTimeout) return { hits: [], problem: e.message };
    throw e;
  }
  const { hits: imageHits, unreadable } = await pixelHits(def, detail, pixels);
  const hits = applyConsecutive([...textHits, ...imageHits], def.minConsecutive);
  if (hits.length) return { hits, problem: null };
  const problem = unreadable ? `${unreadable} screenshot${unreadable === 1 ? "" : "s"} could not be read` : cutFieldsProblem(def, texts);
  return { hits, problem };
}

/**
 * Runs the scanners over the trajectories, storing each scan (replacing earlier ones). Reports progress per
 * trajectory and stops between trajectories when `signal` fires.
 */
export async function scanTrajectories(
  deps: ScanDeps,
  defs: readonly ScannerDefinition[],
  trajectoryIds: readonly number[],
  opts: { onProgress?: (done: number, total: number) => void; signal?: AbortSignal } = {},
): Promise<ScannerRunReport> {
  const report: ScannerRunReport = { trajectories: 0, missing: 0, byScanner: {}, problems: [] };
  for (const d of defs) report.byScanner[d.key] = { scanned: 0, fired: 0, stepsMatched: 0, problems: 0 };
  const hashes = new Map(defs.map((d) => [d.key, definitionHash(d)]));
  const pixels = new ScreenshotUniformity(deps.store);
  for (const [n, id] of trajectoryIds.entries()) {
    opts.signal?.throwIfAborted();
    const detail = await getTrajectoryDetail(deps.db, id);
    if (!detail) report.missing++;
    else {
      report.trajectories++;
      for (const def of defs) {
        const { hits, problem } = await scanOne(def, detail, pixels);
        const matches = hits.map((h) => ({ stepIndex: h.stepIndex, ruleIndex: h.ruleIndex, field: h.field, matchedText: shownMatch(h.text) }));
        await saveScanResult(deps.db, { scannerKey: def.key, trajectoryId: id, definitionHash: hashes.get(def.key)!, problem, matches });
        const counts = report.byScanner[def.key]!;
        const steps = new Set(hits.map((h) => h.stepIndex)).size;
        counts.scanned++;
        counts.stepsMatched += steps;
        if (steps) counts.fired++;
        if (problem) {
          counts.problems++;
          report.problems.push({ scannerKey: def.key, trajectoryId: id, problem });
        }
      }
    }
    opts.onProgress?.(n + 1, trajectoryIds.length);
  }
  return report;
}

// ---------------------------------------------------------------- measures

export interface ScannerMeasures {
  trajectory: ScannerMeasure;
  /** Null when no scanned trajectory has steps marked by people for this category. */
  step: ScannerMeasure | null;
  /** Scans whose result is unknown (a problem and no match, or nothing to read): left out of both measures. */
  unfinished: number;
  /**
   * Set when no campaign that labelled a scanned trajectory offers the scanner's category: the trajectory measure is
   * then empty rather than a precision of 0 (notAskedNote).
   */
  trajectoryNote: string | null;
}

/**
 * Precision and recall of one scanner's current results against people's labels (./measure.ts in the domain). Only
 * labels of campaigns whose schema offers the scanner's category count; a scan with a problem and no match is left
 * out as unfinished.
 */
export async function measureAgainstLabels(db: Db, def: ScannerDefinition): Promise<ScannerMeasures> {
  const scans = await scansOf(db, def.key, definitionHash(def));
  const finished = scans.filter((s) => !(s.problem && s.matchCount === 0));
  const ids = finished.map((s) => s.trajectoryId);
  const fired = new Set(finished.filter((s) => s.matchCount > 0).map((s) => s.trajectoryId));
  const labels = await consolidatedCategoriesOf(db, ids);
  const labelled = new Map<number, boolean>();
  for (const label of labels) {
    const positive = trajectoryLabelOf(label, def.category);
    if (positive !== null) labelled.set(label.trajectoryId, (labelled.get(label.trajectoryId) ?? false) || positive);
  }
  const trajectoryItems: MeasuredItem[] = [...labelled].map(([id, positive]) => ({ fired: fired.has(id), positive }));
  const asked = labels.some((l) => l.offered.some((o) => sameCategory(o, def.category)));
  return {
    trajectory: measureScanner(trajectoryItems),
    step: await stepMeasure(db, def, ids),
    unfinished: scans.length - finished.length,
    trajectoryNote: asked ? null : notAskedNote(def.category),
  };
}

async function stepMeasure(db: Db, def: ScannerDefinition, ids: number[]): Promise<ScannerMeasure | null> {
  const marked = new Map<number, { stepCount: number; positives: Set<number> }>();
  for (const row of await labelAnswersOf(db, ids)) {
    const { labelled, positiveSteps } = stepLabelsOf(row.labelSchema.questions, row.answers, def.category);
    if (!labelled) continue;
    const entry = marked.get(row.trajectoryId) ?? { stepCount: row.stepCount, positives: new Set<number>() };
    for (const s of positiveSteps) entry.positives.add(s);
    marked.set(row.trajectoryId, entry);
  }
  if (!marked.size) return null;
  const current = await matchesOf(db, def.key, definitionHash(def), { trajectoryIds: [...marked.keys()] });
  const matched = new Set(current.map((m) => `${m.trajectoryId}:${m.stepIndex}`));
  const items: MeasuredItem[] = [];
  for (const [id, { stepCount, positives }] of marked) {
    for (let s = 0; s < stepCount; s++) items.push({ fired: matched.has(`${id}:${s}`), positive: positives.has(s) });
  }
  return measureScanner(items);
}

// ---------------------------------------------------------------- views

export interface ScannerSummary extends ScannerDefinition {
  /** Trajectories scanned with the current definition, and those it matched. */
  scanned: number;
  fired: number;
  problems: number;
  /** Trajectories scanned with an earlier definition (before an edit of a built-in in a newer Verdict). */
  stale: number;
}

/**
 * Every scanner with what its current definition found so far. Findings over many trajectories at once: for
 * researchers and admins, not while they label blind (like judges' batch views).
 */
export async function scannerSummaries(db: Db, actor: Actor): Promise<ScannerSummary[]> {
  await assertSeesWholeCatalog(db, actor, "scanners' findings");
  return await summariesOf(db);
}

async function summariesOf(db: Db): Promise<ScannerSummary[]> {
  const counts = await scanCounts(db);
  return (await allScanners(db)).map((def) => {
    const hash = definitionHash(def);
    const mine = counts.filter((c) => c.scannerKey === def.key);
    const current = mine.find((c) => c.definitionHash === hash);
    const stale = mine.filter((c) => c.definitionHash !== hash).reduce((s, c) => s + c.scanned, 0);
    return { ...def, scanned: current?.scanned ?? 0, fired: current?.fired ?? 0, problems: current?.problems ?? 0, stale };
  });
}

/** One scanner's page: its definition and counts, precision and recall, and the steps it matched (first `limit`). */
export async function scannerDetail(db: Db, actor: Actor, key: string, limit = 200) {
  await assertSeesWholeCatalog(db, actor, "scanners' findings");
  const def = await requireScanner(db, key);
  const summary = (await summariesOf(db)).find((s) => s.key === key)!;
  const hash = definitionHash(def);
  return {
    scanner: summary,
    hash,
    measures: await measureAgainstLabels(db, def),
    matches: await matchesOf(db, key, hash, { limit }),
    matchCount: await matchCountOf(db, key, hash),
  };
}

/**
 * The scanners' matches on one trajectory, for the player. Hidden (with `hidden: true`) from a viewer the blind
 * keeps from this trajectory's evaluations; refused to anyone who may not open the trajectory at all.
 */
export async function trajectoryScannerMatches(db: Db, actor: Actor, trajectoryId: number) {
  await assertTrajectoryBrowsable(db, actor, trajectoryId);
  // Today a trajectory whose evaluations are blinded for someone is not browsable by them either, so this answer is
  // kept only for a browse rule that would one day let such a trajectory open.
  if (!(await mayViewEvaluations(db, actor.userId, trajectoryId))) return { hidden: true, matches: [] };
  const scanners = await allScanners(db);
  const names = new Map(scanners.map((s) => [s.key, s.name]));
  // Markers of the current definitions only: a scan made before an edit (or a newer built-in) no longer says it.
  const hashes = new Map(scanners.map((s) => [s.key, definitionHash(s)]));
  const rows = (await matchesOfTrajectory(db, trajectoryId))
    .filter((r) => hashes.get(r.scannerKey) === r.definitionHash)
    .map(({ definitionHash: _hash, ...r }) => r);
  // Someone who labels it (in a campaign that is not blind) has now seen an evaluation of it: noted like a verdict.
  if (rows.length) await assertMayViewEvaluations(db, actor.userId, trajectoryId);
  return { hidden: false, matches: rows.map((r) => ({ ...r, scannerName: names.get(r.scannerKey) ?? r.scannerKey })) };
}
