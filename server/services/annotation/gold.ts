/**
 * Gold items and the campaign's quality settings (researchers): mark a trajectory of a campaign as gold with its
 * known answer, promote items whose labels were unanimous or adjudicated, take gold back, and each annotator's
 * accuracy on gold against the warn and block thresholds.
 *
 * A gold item's known answer becomes its consolidated label (method "adjudicated", by the researcher who set it),
 * so judges are compared against it too, and the item is frozen like an adjudicated one, except that annotators
 * may still label it: every annotator of the campaign is handed every gold item once, mixed into their queue at
 * the campaign's gold rate (see labelling.ts). Annotators are never told an item is gold: to them it looks and
 * behaves like any other item (its state shows "open"; its consolidated label is not shown to them).
 */
import type { Db } from "../../../db/database";
import { getItemByTrajectory, trajectoryStepCount, updateCampaign } from "../../../db/repositories/annotation/campaigns";
import { activeLabelsOfItem, getConsolidated } from "../../../db/repositories/annotation/labels";
import {
  campaignsOfTrajectory,
  deleteGoldItem,
  getGoldItem,
  goldAnswers,
  goldItemsOfCampaign,
  upsertGoldItem,
} from "../../../db/repositories/annotation/quality";
import type { CampaignRow } from "../../../db/schema/index";
import { requireRole, type Actor } from "../../domain/access/actor";
import {
  ASSIGNMENT_STRATEGIES,
  goldStanding,
  isGoldCorrect,
  type AssignmentStrategy,
  type GoldStanding,
  type GoldThresholds,
} from "../../domain/annotation/assignment";
import { LabelValidationError, validateLabel, type LabelValues } from "../../domain/annotation/label-schema";
import { ConflictError, NotFoundError, ValidationError } from "../../errors";
import { requireCampaign } from "./campaign-lookup";
import { basedOnOf, recordAdjudication } from "./consolidation";
import { withTransaction } from "../../../db/database";

// ---------------------------------------------------------------- settings

export interface QualitySettingsPatch {
  assignmentStrategy?: AssignmentStrategy;
  goldRate?: number;
  goldWarnBelow?: number | null;
  goldBlockBelow?: number | null;
  goldMinAnswered?: number;
}

export function qualitySettingsOf(c: CampaignRow) {
  return {
    assignmentStrategy: c.assignmentStrategy,
    goldRate: c.goldRate,
    goldWarnBelow: c.goldWarnBelow,
    goldBlockBelow: c.goldBlockBelow,
    goldMinAnswered: c.goldMinAnswered,
  };
}

function share(v: number | null | undefined, field: string): void {
  if (v === null || v === undefined) return;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > 1)
    throw new ValidationError(`${field}: a share from 0 to 1 (0.1 = 10 %), got ${JSON.stringify(v)}`);
}

/** Changes a campaign's assignment strategy, gold rate and thresholds (researchers). */
export async function updateQualitySettings(db: Db, actor: Actor, campaignId: number, patch: QualitySettingsPatch): Promise<CampaignRow> {
  requireRole(actor, "researcher", "change campaigns");
  if (patch.assignmentStrategy !== undefined && !ASSIGNMENT_STRATEGIES.includes(patch.assignmentStrategy)) {
    throw new ValidationError(`assignmentStrategy: one of ${ASSIGNMENT_STRATEGIES.join(", ")}, got ${JSON.stringify(patch.assignmentStrategy)}`);
  }
  share(patch.goldRate, "goldRate");
  if (patch.goldRate === null) throw new ValidationError("goldRate: a share from 0 to 1; 0 turns gold mixing off");
  share(patch.goldWarnBelow, "goldWarnBelow");
  share(patch.goldBlockBelow, "goldBlockBelow");
  if (patch.goldMinAnswered !== undefined && (!Number.isInteger(patch.goldMinAnswered) || patch.goldMinAnswered < 1 || patch.goldMinAnswered > 1000)) {
    throw new ValidationError(`goldMinAnswered: a whole number from 1 to 1000, got ${JSON.stringify(patch.goldMinAnswered)}`);
  }
  return withTransaction(db, async () => {
    const c = await requireCampaign(db, campaignId);
    const warn = patch.goldWarnBelow !== undefined ? patch.goldWarnBelow : c.goldWarnBelow;
    const block = patch.goldBlockBelow !== undefined ? patch.goldBlockBelow : c.goldBlockBelow;
    if (warn !== null && block !== null && block > warn)
      throw new ValidationError(`goldBlockBelow (${block}) is above goldWarnBelow (${warn}): annotators would be blocked before anyone is warned`);
    const next: Partial<CampaignRow> = {};
    for (const k of ["assignmentStrategy", "goldRate", "goldWarnBelow", "goldBlockBelow", "goldMinAnswered"] as const) {
      if (patch[k] !== undefined) (next as Record<string, unknown>)[k] = patch[k];
    }
    await updateCampaign(db, campaignId, next);
    return await requireCampaign(db, campaignId);
  });
}

// ---------------------------------------------------------------- marking gold

export interface MarkGoldInput {
  campaignId: number;
  trajectoryId: number;
  verdict: string;
  category?: string | null;
  /** The failure point (a 0-based step index): required for failures where the campaign's protocol asks for one. */
  firstFailingStep?: number | null;
  /** Answers to the campaign's questions, by question id: the required ones must be given, as for a label. */
  answers?: unknown;
  /** The researcher's note; where the protocol wants a failure's reasoning, this is it. */
  note?: string | null;
}

interface GoldAnswer {
  verdict: string;
  category: string | null;
  firstFailingStep: number | null;
  note: string | null;
  answers?: unknown;
}

/**
 * The field a label validation error belongs to, as the gold form names its fields: "verdict", "category",
 * "firstFailingStep", "note" or "answers.<question id>" (the error's own field also quotes the question).
 */
export function goldFieldOf(field: string): string {
  return /^answers\.[a-z0-9_]+/.exec(field)?.[0] ?? field.split(/[.[ ]/)[0]!;
}

/**
 * The known answer checked against the campaign's protocol as a label would be (failure point, reasoning and
 * required questions included), except that the category may be left open ("any category counts"). A promoted
 * answer was settled by labels that passed these checks already; only its verdict, category and failure point are
 * kept, so reasoning and questions are not asked again.
 */
async function checkedGoldAnswer(db: Db, campaign: CampaignRow, trajectoryId: number, answer: GoldAnswer, settled: boolean): Promise<LabelValues> {
  const schema = { ...campaign.labelSchema, requireCategory: false, ...(settled ? { requireReasoning: false, questions: [] } : {}) };
  let values: LabelValues;
  try {
    values = validateLabel(schema, answer, (await trajectoryStepCount(db, trajectoryId)) ?? 0);
  } catch (e) {
    if (e instanceof LabelValidationError) throw new ValidationError(e.message, goldFieldOf(e.field));
    throw e;
  }
  if (values.verdict === "unsure") throw new ValidationError(`verdict: a gold answer must be decided; "unsure" cannot be one`, "verdict");
  return values;
}

async function setGold(
  db: Db,
  actor: Actor,
  campaign: CampaignRow,
  item: { id: number; trajectoryId: number },
  answer: GoldAnswer,
  source: "marked" | "unanimous" | "adjudicated",
  note: string | null,
  at: Date,
) {
  const values = await checkedGoldAnswer(db, campaign, item.trajectoryId, answer, source !== "marked");
  const answers = values.answers && Object.keys(values.answers).length ? values.answers : null;
  await upsertGoldItem(db, {
    itemId: item.id,
    campaignId: campaign.id,
    verdict: values.verdict,
    category: values.category,
    firstFailingStep: values.firstFailingStep,
    answers,
    source,
    note,
    createdBy: actor.userId,
    createdAt: at,
  });
  await recordAdjudication(db, {
    campaignId: campaign.id,
    item,
    values,
    basedOn: basedOnOf(await activeLabelsOfItem(db, item.id)),
    actor,
    reason: "known answer",
    at,
  });
}

/**
 * Marks a trajectory of a campaign as gold with its known answer: a verdict and what the campaign's protocol asks
 * with it (a failure's category optionally, its failure point and reasoning where required, the required questions).
 */
export async function markGold(db: Db, actor: Actor, input: MarkGoldInput, now = Date.now()) {
  requireRole(actor, "researcher", "mark gold items");
  const note = input.note?.trim() || null;
  if (note && note.length > 5000) throw new ValidationError("note: at most 5000 characters", "note");
  return withTransaction(db, async () => {
    const campaign = await requireCampaign(db, input.campaignId);
    const item = await getItemByTrajectory(db, campaign.id, input.trajectoryId);
    if (!item) throw new NotFoundError(`trajectory in campaign ${campaign.id}`, input.trajectoryId);
    const answer = { verdict: input.verdict, category: input.category ?? null, firstFailingStep: input.firstFailingStep ?? null, note, answers: input.answers };
    await setGold(db, actor, campaign, item, answer, "marked", note, new Date(now));
    return (await getGoldItem(db, item.id))!;
  });
}

/**
 * Promotes items whose labels settled them to gold, their consolidated label as the answer: unanimous (agreed)
 * items, adjudicated ones, or both. Items already gold are left as they are. Returns how many were promoted.
 */
export async function promoteGold(
  db: Db,
  actor: Actor,
  input: { campaignId: number; trajectoryIds: number[] },
  now = Date.now(),
): Promise<{ promoted: number }> {
  requireRole(actor, "researcher", "promote gold items");
  return withTransaction(db, async () => {
    const campaign = await requireCampaign(db, input.campaignId);
    let promoted = 0;
    for (const trajectoryId of input.trajectoryIds) {
      const item = await getItemByTrajectory(db, campaign.id, trajectoryId);
      if (!item) throw new NotFoundError(`trajectory in campaign ${campaign.id}`, trajectoryId);
      if (await getGoldItem(db, item.id)) continue;
      if (item.state !== "agreed" && item.state !== "adjudicated") {
        throw new ConflictError(`Trajectory ${trajectoryId} is ${item.state}: only unanimous or adjudicated items can be promoted to gold`);
      }
      const c = await getConsolidated(db, item.id);
      if (!c) throw new ConflictError(`Trajectory ${trajectoryId} has no consolidated label to promote`);
      await setGold(
        db,
        actor,
        campaign,
        item,
        { verdict: c.verdict, category: c.category, firstFailingStep: c.firstFailingStep, note: null },
        item.state === "agreed" ? "unanimous" : "adjudicated",
        null,
        new Date(now),
      );
      promoted++;
    }
    return { promoted };
  });
}

/** Takes an item out of gold: annotators are no longer handed it; its consolidated label (the answer) stays. */
export async function unmarkGold(db: Db, actor: Actor, input: { campaignId: number; trajectoryId: number }): Promise<{ removed: boolean }> {
  requireRole(actor, "researcher", "change gold items");
  return withTransaction(db, async () => {
    const campaign = await requireCampaign(db, input.campaignId);
    const item = await getItemByTrajectory(db, campaign.id, input.trajectoryId);
    if (!item) throw new NotFoundError(`trajectory in campaign ${campaign.id}`, input.trajectoryId);
    return { removed: await deleteGoldItem(db, item.id) };
  });
}

// ---------------------------------------------------------------- accuracy

export function thresholdsOf(c: CampaignRow): GoldThresholds {
  return { goldWarnBelow: c.goldWarnBelow, goldBlockBelow: c.goldBlockBelow, goldMinAnswered: c.goldMinAnswered };
}

/** One annotator's standing on the campaign's gold items. */
export async function goldStandingOf(db: Db, campaign: CampaignRow, annotatorKey: string): Promise<GoldStanding> {
  const rows = await goldAnswers(db, campaign.id, annotatorKey);
  const correct = rows.filter((r) => isGoldCorrect({ verdict: r.goldVerdict, category: r.goldCategory }, r)).length;
  return goldStanding(correct, rows.length, thresholdsOf(campaign));
}

export interface AnnotatorGold extends GoldStanding {
  annotatorKey: string;
  name: string;
}

/** Every annotator's standing on the campaign's gold items (those who answered at least one). */
export async function goldStandings(db: Db, campaign: CampaignRow): Promise<AnnotatorGold[]> {
  const by = new Map<string, { name: string; correct: number; answered: number }>();
  for (const r of await goldAnswers(db, campaign.id)) {
    const e = by.get(r.annotatorKey) ?? { name: r.annotatorName, correct: 0, answered: 0 };
    e.answered++;
    if (isGoldCorrect({ verdict: r.goldVerdict, category: r.goldCategory }, r)) e.correct++;
    by.set(r.annotatorKey, e);
  }
  const t = thresholdsOf(campaign);
  return [...by]
    .map(([annotatorKey, e]) => ({ annotatorKey, name: e.name, ...goldStanding(e.correct, e.answered, t) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The campaign's gold items and every annotator's accuracy on them (researchers). */
export async function campaignGold(db: Db, actor: Actor, campaignId: number) {
  requireRole(actor, "researcher", "see gold items");
  const campaign = await requireCampaign(db, campaignId);
  return {
    settings: qualitySettingsOf(campaign),
    schema: goldFormSchemaOf(campaign),
    items: await goldItemsOfCampaign(db, campaignId),
    annotators: await goldStandings(db, campaign),
  };
}

/** What the gold form asks in a campaign: the parts of its label schema a known answer is given in. */
export function goldFormSchemaOf(c: CampaignRow) {
  const s = c.labelSchema;
  return {
    categories: s.categories,
    allowNotExecutable: s.allowNotExecutable ?? false,
    firstFailingStep: s.firstFailingStep,
    requireFailureStep: s.requireFailureStep ?? false,
    note: s.note,
    requireReasoning: s.requireReasoning ?? false,
    questions: s.questions ?? [],
  };
}
export type GoldFormSchema = ReturnType<typeof goldFormSchemaOf>;

/**
 * Where a trajectory can be marked gold (researchers, from the player or the trajectory list): every campaign it is
 * an item of, newest first, with what that campaign's gold form asks and the gold answer it has already.
 */
export async function goldChoices(db: Db, actor: Actor, trajectoryId: number) {
  requireRole(actor, "researcher", "mark gold items");
  const stepCount = await trajectoryStepCount(db, trajectoryId);
  if (stepCount === undefined) throw new NotFoundError("trajectory", trajectoryId);
  const rows = await campaignsOfTrajectory(db, trajectoryId);
  return {
    stepCount,
    campaigns: rows.map((r) => ({
      id: r.campaign.id,
      name: r.campaign.name,
      itemNo: r.itemNo ?? 0,
      schema: goldFormSchemaOf(r.campaign),
      gold: r.gold ? { verdict: r.gold.verdict, category: r.gold.category, firstFailingStep: r.gold.firstFailingStep, source: r.gold.source } : null,
    })),
  };
}
