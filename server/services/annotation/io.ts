/**
 * A campaign's labels as files: export (CSV and JSONL, one record per annotation plus one per consolidated
 * label), and import of labels made elsewhere from a CSV or a workbook sheet with a column mapping (e.g.
 * AgentRewardBench's expert annotations, a study's evaluation workbook with one column pair per evaluator), into
 * a new or an existing campaign. Re-importing the same file changes nothing.
 */
import type { Db } from "../../../db/database";
import { shuffleNumbers } from "./item-numbers";
import {
  getCampaignByName,
  getItemByTrajectory,
  importedAnnotatorKey,
  insertCampaign,
  insertCampaignItems,
  trajectoryIdentities,
} from "../../../db/repositories/annotation/campaigns";
import { exportConsolidatedRows, exportLabelRows, getLabelByKey, insertLabel, insertRevision, updateLabel } from "../../../db/repositories/annotation/labels";
import type { CampaignRow } from "../../../db/schema/index";
import { requireRole, type Actor } from "../../domain/access/actor";
import { parseCsvTable, type CsvTable } from "../../domain/csv";
import { labelFileKind, readWorkbookTable } from "../../domain/annotation/label-workbook";
import {
  labelExportCsv,
  labelExportJsonl,
  marksForExport,
  normalizeTaskId,
  readLabelRows,
  stepNumber,
  type ImportedLabelRow,
  type LabelExportRow,
  type LabelImportMapping,
} from "../../domain/annotation/label-io";
import {
  buildLabelSchema,
  diffLabelValues,
  LabelValidationError,
  MAX_CATEGORIES,
  DEFAULT_ERROR_CATEGORIES,
  validateLabel,
  type LabelSchema,
  type LabelValues,
} from "../../domain/annotation/label-schema";
import { answersForExport } from "../../domain/annotation/questions";
import { ConflictError, ValidationError } from "../../errors";
import { campaignForExport, csvOrJsonlFile, requireCampaign } from "./campaign-lookup";
import { recomputeItem } from "./consolidation";
import { withTransaction } from "../../../db/database";

// ---------------------------------------------------------------- export

/** The item's and its trajectory's columns, in the order every exported row lists them. */
function itemColumns(
  r: Pick<
    Awaited<ReturnType<typeof exportConsolidatedRows>>[number],
    "itemNo" | "itemState" | "taskSet" | "benchmark" | "externalTaskId" | "site" | "runId" | "runName" | "agentName" | "model" | "attempt"
  >,
  trajectoryId: number,
) {
  return {
    // The number the annotator saw (`/annotate/<campaign>/<item_no>`).
    item_no: r.itemNo,
    item_state: r.itemState,
    trajectory_id: trajectoryId,
    task_set: r.taskSet,
    benchmark: r.benchmark,
    task_id: r.externalTaskId,
    site: r.site,
    run_id: r.runId,
    run_name: r.runName,
    agent: r.agentName,
    model: r.model,
    attempt: r.attempt,
  };
}

export async function campaignLabelRows(db: Db, campaignId: number): Promise<LabelExportRow[]> {
  const campaign = await requireCampaign(db, campaignId);
  const base = { campaign_id: campaign.id, campaign_name: campaign.name };
  const rows: LabelExportRow[] = [];
  for (const r of await exportLabelRows(db, campaignId)) {
    const l = r.label;
    rows.push({
      kind: "annotation",
      ...base,
      item_id: l.itemId,
      ...itemColumns(r, r.trajectoryId),
      label_id: l.id,
      annotator_id: l.userId,
      annotator_name: l.annotatorName,
      label_origin: l.origin,
      verdict: l.verdict,
      category: l.category,
      first_failing_step_number: stepNumber(l.firstFailingStep),
      note: l.note,
      time_spent_ms: l.timeSpentMs,
      steps_viewed_numbers: l.stepsViewed ? l.stepsViewed.map((i) => stepNumber(i)) : null,
      revision: l.revision,
      // 1 when the label's current values were submitted after the annotator had seen evaluations of the trajectory.
      after_reveal: r.afterReveal ? 1 : 0,
      labelled_at: l.createdAt.toISOString(),
      updated_at: l.updatedAt.toISOString(),
      consolidation_method: null,
      adjudicator: null,
      reason: null,
      guideline_version: l.guidelineVersion,
      confidence: null,
      disagreement_source: null,
      qa_decision: null,
      qa_reviewer: null,
      answers: answersForExport(campaign.labelSchema.questions ?? [], l.answers),
      marks: marksForExport(l.marks),
    });
  }
  for (const r of await exportConsolidatedRows(db, campaignId)) {
    const c = r.consolidated;
    rows.push({
      kind: "consolidated",
      ...base,
      item_id: c.itemId,
      ...itemColumns(r, c.trajectoryId),
      label_id: null,
      annotator_id: c.adjudicatorId,
      annotator_name: c.adjudicatorName,
      label_origin: null,
      verdict: c.verdict,
      category: c.category,
      first_failing_step_number: stepNumber(c.firstFailingStep),
      note: null,
      time_spent_ms: null,
      steps_viewed_numbers: null,
      revision: null,
      after_reveal: null,
      labelled_at: c.createdAt.toISOString(),
      updated_at: c.updatedAt.toISOString(),
      consolidation_method: c.method,
      adjudicator: c.adjudicatorName,
      reason: c.reason,
      guideline_version: null,
      confidence: c.confidence,
      disagreement_source: c.disagreementSource,
      qa_decision: c.qaDecision,
      qa_reviewer: c.qaReviewerName,
    });
  }
  // Annotations of an item, then its consolidated label; items in id order.
  rows.sort((a, b) => (a.item_id as number) - (b.item_id as number) || (a.kind === b.kind ? 0 : a.kind === "annotation" ? -1 : 1));
  return rows;
}

export async function exportCampaignLabels(
  db: Db,
  actor: Actor,
  campaignId: number,
  format: "csv" | "jsonl",
): Promise<{ fileName: string; contentType: string; body: string }> {
  const { campaign, slug } = await campaignForExport(db, actor, campaignId);
  const rows = await campaignLabelRows(db, campaignId);
  const questionIds = (campaign.labelSchema.questions ?? []).map((q) => q.id);
  return csvOrJsonlFile(slug, "labels", format, {
    csv: () => labelExportCsv(rows, { questionIds }),
    jsonl: () => labelExportJsonl(rows, { questionIds }),
  });
}

// ---------------------------------------------------------------- import

export interface LabelImportRequest {
  /** The file as text (CSV for importLabelsCsv). */
  csv: string;
  /** File name, for error messages. */
  source: string;
  mapping: LabelImportMapping;
  /** Into an existing campaign, or a new one made for the import. */
  campaign: { id: number } | { name: string; annotatorsPerItem?: number; labelSchema?: Partial<LabelSchema>; instructions?: string };
  /** Check and report without writing. */
  dryRun?: boolean;
  /** How many unmatched rows the report lists (default 50; the command line lists them all). */
  unmatchedLimit?: number;
}

export interface LabelImportReport {
  campaignId: number | null;
  /** The file's rows (after the header). */
  rows: number;
  /** Labels read from them: one a row, or one per annotator column pair with a verdict in the wide layout. */
  labels: number;
  /** The workbook sheet the labels were read from. */
  sheet?: string;
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
  /** Rows whose trajectory is not in this installation, or matched several (with line numbers; first 50 by default). */
  unmatched: { line: number; reason: string }[];
  unmatchedCount: number;
  /** Trajectories the import added to the campaign. */
  itemsAdded: number;
  annotators: string[];
}

interface Identity {
  id: number;
  stepCount: number;
  externalTaskId: string;
  benchmark: string;
  taskSetName: string;
  model: string | null;
  agentName: string;
  runName: string;
}

async function matcher(db: Db, normalize: boolean) {
  const all = (await trajectoryIdentities(db)) as Identity[];
  const byId = new Map(all.map((t) => [t.id, t]));
  const byTask = new Map<string, Identity[]>();
  for (const t of all) {
    const k = normalize ? normalizeTaskId(t.externalTaskId) : t.externalTaskId;
    const list = byTask.get(k) ?? [];
    list.push(t);
    byTask.set(k, list);
  }
  return (row: ImportedLabelRow): { trajectory: Identity } | { problem: string } => {
    if (row.key.kind === "id") {
      const t = byId.get(row.key.trajectoryId);
      return t ? { trajectory: t } : { problem: `no trajectory with id ${row.key.trajectoryId}` };
    }
    const { taskId, model, benchmark } = row.key;
    let candidates = byTask.get(normalize ? normalizeTaskId(taskId) : taskId) ?? [];
    if (benchmark) candidates = candidates.filter((t) => t.benchmark === benchmark || t.taskSetName === benchmark);
    // Agent names also match with spaces written as underscores (Online-Mind2Web's "Browser_Use" for "Browser Use").
    const spelled = (name: string | null) => name !== null && (name === model || name.trim().replace(/\s+/g, "_") === model);
    if (model) candidates = candidates.filter((t) => spelled(t.model) || spelled(t.agentName) || spelled(t.runName));
    const what = `task ${JSON.stringify(taskId)}${model ? ` by ${JSON.stringify(model)}` : ""}${benchmark ? ` in ${JSON.stringify(benchmark)}` : ""}`;
    if (candidates.length === 0) return { problem: `no trajectory of ${what}` };
    if (candidates.length > 1)
      return {
        problem: `${candidates.length} trajectories of ${what} (ids ${candidates.map((c) => c.id).join(", ")}); add a model or benchmark column to the mapping`,
      };
    return { trajectory: candidates[0]! };
  };
}

/** A schema for a campaign made by an import: the defaults plus whatever categories the file uses. */
function schemaForImport(rows: ImportedLabelRow[], requested: Partial<LabelSchema> | undefined, source: string): LabelSchema {
  const used = [...new Set(rows.map((r) => r.category).filter((c): c is string => c !== null))];
  const base = requested?.categories ?? [...DEFAULT_ERROR_CATEGORIES];
  const categories = [...base, ...used.filter((c) => !base.includes(c))];
  if (categories.length > MAX_CATEGORIES)
    throw new ValidationError(
      `${source}: the file uses ${used.length} categories; with the schema's they exceed ${MAX_CATEGORIES}: give labelSchema.categories explicitly`,
    );
  try {
    return buildLabelSchema({
      requireCategory: false,
      allowUnsure: rows.some((r) => r.verdict === "unsure"),
      allowNotExecutable: rows.some((r) => r.verdict === "not_executable"),
      firstFailingStep: true,
      note: true,
      ...requested,
      categories,
    });
  } catch (e) {
    if (e instanceof LabelValidationError) throw new ValidationError(e.message);
    throw e;
  }
}

export async function importLabelsCsv(db: Db, actor: Actor, req: LabelImportRequest, now = Date.now()): Promise<LabelImportReport> {
  requireRole(actor, "researcher", "import labels");
  const table: CsvTable = parseCsvTable(req.csv, { source: req.source });
  return await importLabelTable(db, actor, table, req, now);
}

/**
 * Imports a label file given as its bytes: a CSV (UTF-8) or one sheet of an .xlsx workbook (`sheet`: its name or
 * position; needed when several sheets hold data). Any other kind of file is refused with what it is.
 */
export async function importLabelsFile(
  db: Db,
  actor: Actor,
  req: Omit<LabelImportRequest, "csv"> & { bytes: Uint8Array; sheet?: string },
  now = Date.now(),
): Promise<LabelImportReport> {
  requireRole(actor, "researcher", "import labels");
  const kind = labelFileKind(req.bytes);
  if (kind.kind === "unsupported") throw new ValidationError(`${req.source} is ${kind.type}, which Verdict cannot read labels from; ${kind.advice}`);
  if (kind.kind === "text") {
    if (req.sheet !== undefined) throw new ValidationError(`${req.source} is a text file, not a workbook: it has no sheets to choose from`);
    return await importLabelsCsv(db, actor, { ...req, csv: new TextDecoder("utf-8").decode(req.bytes) }, now);
  }
  const table = await readWorkbookTable(req.bytes, req.source, req.sheet);
  const report = await importLabelTable(db, actor, table, { ...req, source: `${req.source} (sheet ${JSON.stringify(table.sheet)})` }, now);
  return { ...report, sheet: table.sheet };
}

/** The campaign an import's labels go to: the one named by id, or a new one made from the rows' labels. */
async function campaignForImport(
  db: Db,
  actor: Actor,
  req: Omit<LabelImportRequest, "csv">,
  matched: { row: ImportedLabelRow; trajectory: Identity }[],
): Promise<CampaignRow> {
  if ("id" in req.campaign) return await requireCampaign(db, req.campaign.id);
  const name = req.campaign.name.trim();
  if (!name) throw new ValidationError("campaign.name: cannot be empty");
  if (await getCampaignByName(db, name)) throw new ConflictError(`A campaign named ${JSON.stringify(name)} already exists; import into it by id`);
  const k = req.campaign.annotatorsPerItem ?? 1;
  if (!Number.isInteger(k) || k < 1 || k > 20) throw new ValidationError(`campaign.annotatorsPerItem: 1 to 20, got ${k}`);
  const id = await insertCampaign(db, {
    name,
    instructions: req.campaign.instructions ?? "",
    labelSchema: schemaForImport(
      matched.map((m) => m.row),
      req.campaign.labelSchema,
      req.source,
    ),
    annotatorsPerItem: k,
    // Imported labels were made elsewhere; nobody labels here, so nothing needs hiding.
    blind: false,
    origin: "import",
    selection: { description: `imported from ${req.source}` },
    createdBy: actor.userId,
  });
  return await requireCampaign(db, id);
}

/** Imports labels from a table already read from a file (CSV, or a JSON format turned into rows: label-formats.ts). */
export async function importLabelTable(
  db: Db,
  actor: Actor,
  table: CsvTable,
  req: Omit<LabelImportRequest, "csv">,
  now = Date.now(),
): Promise<LabelImportReport> {
  requireRole(actor, "researcher", "import labels");
  const rowsRead = readLabelRows(table, req.mapping, req.source);
  const match = await matcher(db, req.mapping.normalizeTaskIds ?? false);
  const unmatched: { line: number; reason: string }[] = [];
  const matched: { row: ImportedLabelRow; trajectory: Identity }[] = [];
  const seen = new Map<string, number>();
  for (const row of rowsRead.rows) {
    const m = match(row);
    if ("problem" in m) {
      // A wide row holds several labels of one trajectory: the row is unmatched once.
      if (unmatched.at(-1)?.line !== row.line) unmatched.push({ line: row.line, reason: m.problem });
      continue;
    }
    const pair = `${m.trajectory.id}\u0000${row.annotator}`;
    const firstLine = seen.get(pair);
    if (firstLine !== undefined)
      throw new ValidationError(
        `${req.source}: line ${row.line} labels trajectory ${m.trajectory.id} again for annotator ${JSON.stringify(row.annotator)} (first on line ${firstLine})`,
      );
    seen.set(pair, row.line);
    matched.push({ row, trajectory: m.trajectory });
  }

  const report: LabelImportReport = {
    campaignId: null,
    rows: table.rows.length,
    labels: rowsRead.rows.length,
    created: 0,
    updated: 0,
    unchanged: 0,
    skipped: rowsRead.skipped.length,
    unmatched: unmatched.slice(0, req.unmatchedLimit ?? 50),
    unmatchedCount: unmatched.length,
    itemsAdded: 0,
    annotators: [...new Set(matched.map((m) => m.row.annotator))].sort(),
  };

  // On PostgreSQL the transaction may run more than once (serialization retries): it counts into a fresh tally
  // each time, and the report takes the tally of the run that committed.
  const run = async (): Promise<{ campaignId: number; itemsAdded: number; created: number; updated: number; unchanged: number }> => {
    const campaign = await campaignForImport(db, actor, req, matched);
    const tally = { campaignId: 0, itemsAdded: 0, created: 0, updated: 0, unchanged: 0 };
    tally.campaignId = campaign.id;
    tally.itemsAdded = await insertCampaignItems(db, campaign.id, [...new Set(matched.map((m) => m.trajectory.id))], shuffleNumbers);
    const at = new Date(now);
    const touched = new Map<number, { id: number; trajectoryId: number }>();
    for (const { row, trajectory } of matched) {
      let values: LabelValues;
      try {
        values = validateLabel(campaign.labelSchema, row, trajectory.stepCount);
      } catch (e) {
        if (e instanceof LabelValidationError) throw new ValidationError(`${req.source}: line ${row.line}: ${e.message}`);
        throw e;
      }
      const item = (await getItemByTrajectory(db, campaign.id, trajectory.id))!;
      if (item.state === "adjudicated")
        throw new ConflictError(`${req.source}: line ${row.line}: trajectory ${trajectory.id} is already adjudicated in this campaign`);
      const key = importedAnnotatorKey(row.annotator);
      const existing = await getLabelByKey(db, item.id, key);
      const before =
        existing && existing.status === "active"
          ? { verdict: existing.verdict, category: existing.category, firstFailingStep: existing.firstFailingStep, note: existing.note }
          : null;
      const changes = diffLabelValues(before, values);
      if (existing && existing.status === "active" && changes.length === 0) {
        tally.unchanged++;
        continue;
      }
      const label = existing
        ? await updateLabel(db, existing.id, { status: "active", ...values, revision: existing.revision + 1 })
        : await insertLabel(db, {
            campaignId: campaign.id,
            itemId: item.id,
            trajectoryId: trajectory.id,
            annotatorKey: key,
            userId: null,
            annotatorName: row.annotator,
            origin: "import",
            status: "active",
            ...values,
            revision: 1,
            createdAt: at,
            updatedAt: at,
          });
      await insertRevision(db, {
        labelId: label.id,
        campaignId: campaign.id,
        revision: label.revision,
        action: "import",
        actorId: actor.userId,
        actorName: `${actor.name} (import of ${req.source}, line ${row.line})`,
        status: "active",
        values,
        changes,
        createdAt: at,
      });
      if (existing) tally.updated++;
      else tally.created++;
      touched.set(item.id, { id: item.id, trajectoryId: trajectory.id });
    }
    for (const t of touched.values()) {
      const item = (await getItemByTrajectory(db, campaign.id, t.trajectoryId))!;
      await recomputeItem(db, campaign, item, at);
    }
    // A dry run reports what it would do and rolls everything back.
    if (req.dryRun) throw new DryRunDone(tally);
    return tally;
  };

  let tally;
  try {
    tally = await withTransaction(db, run);
  } catch (e) {
    if (!(e instanceof DryRunDone)) throw e;
    tally = e.tally;
    // Rolled back: a campaign the dry run created does not exist.
    if (!("id" in req.campaign)) tally.campaignId = null;
  }
  return { ...report, ...tally };
}

/** Thrown at the end of a dry run to roll back everything it wrote. */
class DryRunDone extends Error {
  constructor(readonly tally: { campaignId: number | null; itemsAdded: number; created: number; updated: number; unchanged: number }) {
    super("dry run");
  }
}
