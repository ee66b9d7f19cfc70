/**
 * Campaigns: created by researchers over a selection of trajectories (explicit ids or the trajectory list's
 * filter), with a label schema, the number of annotators each trajectory needs, who may annotate and whether
 * labelling is blind.
 */
import type { Db } from "../../../db/database";
import { getUsers } from "../../../db/repositories/accounts/users";
import { getRun, getTask, getTaskSet } from "../../../db/repositories/catalog";
import {
  type CampaignCounts,
  annotatorProgress,
  campaignCounts,
  campaignItemIds,
  complianceItems,
  getCampaign,
  getCampaignByName,
  insertCampaign,
  insertCampaignItems,
  addCampaignMembers,
  campaignMemberList,
  isCampaignAnnotator,
  removeCampaignMembers,
  listCampaigns,
  listCampaignsOfAnnotator,
  updateCampaign,
} from "../../../db/repositories/annotation/campaigns";
import { existingTrajectoryIds } from "../../../db/repositories/trajectories";
import { labelGuidelineVersionCounts, ownLabelCounts } from "../../../db/repositories/annotation/labels";
import { pairwiseProgress } from "../../../db/repositories/annotation/pairwise";
import { campaignsLabellingBlind } from "../../../db/repositories/access/blind-rule";
import { DEFAULT_SAMPLE_SEED, matchingTrajectoryIds, type SelectionFilter } from "../trajectory-views";
import type { CampaignRow, CampaignSelection, CampaignStatus } from "../../../db/schema/index";
import { hasRole, requireRole, type Actor } from "../../domain/access/actor";
import { usesTriage } from "../../domain/trajectory-list-query";
import { buildLabelSchema, LabelValidationError, type LabelSchema } from "../../domain/annotation/label-schema";
import { getTemplate, protocolCompliance, requirementsOf, TEMPLATE_IDS, type TemplateId } from "../../domain/annotation/protocols";
import { AppError, ConflictError, ValidationError } from "../../errors";
import { describeFilter } from "../../domain/annotation/selection-description";
import { shuffleNumbers } from "./item-numbers";
import { recomputeItem } from "./consolidation";
import { assertMayTriage } from "../access";
import { checkRevealEvaluator } from "./reveal";
import { requireCampaign } from "./campaign-lookup";
import { withTransaction } from "../../../db/database";

export const MAX_ANNOTATORS_PER_ITEM = 20;
export const MAX_CAMPAIGN_ITEMS = 200_000;

export interface CampaignInput {
  name: string;
  /**
   * The protocol template to start from: its label schema, guidelines and annotators per item, each overridden by
   * the fields given here. The campaign keeps its own copy, so later template versions do not change it.
   */
  template?: TemplateId;
  /** Guidelines (markdown) shown to annotators; the template's when omitted. */
  instructions?: string;
  labelSchema?: Partial<LabelSchema>;
  annotatorsPerItem?: number;
  blind?: boolean;
  reservationMinutes?: number;
  /** Annotators (user ids) who may label. */
  annotatorIds?: string[];
  /** Users (typically annotators) who may do the QA review besides researchers. */
  qaReviewerIds?: string[];
  /** The selection: explicit trajectory ids, or a trajectory-list filter (all matching trajectories). */
  trajectoryIds?: number[];
  filter?: SelectionFilter;
  /** Shown with the campaign; derived from the filter when omitted. */
  selectionDescription?: string;
  /** Blind → reveal → revise: the evaluator id ("key|k|prompt version") shown after each blind submit (see reveal.ts). */
  revealEvaluator?: string | null;
}

function schemaOrError(input: Partial<LabelSchema> | undefined): LabelSchema {
  try {
    return buildLabelSchema(input ?? {});
  } catch (e) {
    if (e instanceof LabelValidationError) throw new ValidationError(e.message);
    throw e;
  }
}

function checkSettings(input: { annotatorsPerItem?: number; reservationMinutes?: number; name?: string }): void {
  if (input.name !== undefined) {
    if (!input.name.trim()) throw new ValidationError("name: cannot be empty");
    if (input.name.length > 200) throw new ValidationError("name: at most 200 characters");
  }
  if (
    input.annotatorsPerItem !== undefined &&
    (!Number.isInteger(input.annotatorsPerItem) || input.annotatorsPerItem < 1 || input.annotatorsPerItem > MAX_ANNOTATORS_PER_ITEM)
  ) {
    throw new ValidationError(`annotatorsPerItem: a whole number from 1 to ${MAX_ANNOTATORS_PER_ITEM}, got ${input.annotatorsPerItem}`);
  }
  if (
    input.reservationMinutes !== undefined &&
    (!Number.isInteger(input.reservationMinutes) || input.reservationMinutes < 1 || input.reservationMinutes > 24 * 60)
  ) {
    throw new ValidationError(`reservationMinutes: a whole number of minutes from 1 to 1440, got ${input.reservationMinutes}`);
  }
}

/**
 * A filter as people read it (server/domain/annotation/selection-description.ts), with the task set, run and task it
 * names by id looked up: a campaign's selection, the New campaign page's preview.
 */
export async function describeFilterNamed(db: Db, f: SelectionFilter): Promise<string> {
  const [taskSet, run, task] = await Promise.all([
    f.taskSetId === undefined ? undefined : getTaskSet(db, f.taskSetId),
    f.runId === undefined ? undefined : getRun(db, f.runId),
    f.taskId === undefined ? undefined : getTask(db, f.taskId),
  ]);
  return describeFilter(f, { taskSetId: taskSet?.name, runId: run?.name, taskId: task?.task.externalId }, DEFAULT_SAMPLE_SEED);
}

/** Trajectory ids a filter (or the seeded sample of it) selects, in the list's id order. */
export async function resolveSelection(db: Db, input: { trajectoryIds?: number[]; filter?: SelectionFilter }): Promise<number[]> {
  if (input.trajectoryIds) {
    const unique = [...new Set(input.trajectoryIds)];
    const found = new Set(await existingTrajectoryIds(db, unique));
    const missing = unique.filter((id) => !found.has(id));
    if (missing.length)
      throw new ValidationError(
        `trajectoryIds: no trajectory with id ${missing.slice(0, 10).join(", ")}${missing.length > 10 ? ` (and ${missing.length - 10} more)` : ""}`,
      );
    return unique;
  }
  if (input.filter) {
    const ids = await matchingTrajectoryIds(db, input.filter);
    if (ids.length > MAX_CAMPAIGN_ITEMS)
      throw new ValidationError(`the filter selects ${ids.length} trajectories; a campaign holds at most ${MAX_CAMPAIGN_ITEMS}`);
    return ids;
  }
  throw new ValidationError("a campaign needs a selection: trajectoryIds or a filter");
}

/** The user ids, each checked to exist (an error names the missing ones). */
export async function checkAnnotators(db: Db, ids: string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  const found = new Set((await getUsers(db, unique)).map((u) => u.id));
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length) throw new ValidationError(`annotatorIds: no user with id ${missing.map((m) => JSON.stringify(m)).join(", ")}`);
  return unique;
}

function templateOrError(id: string | undefined) {
  if (id === undefined) return null;
  try {
    return getTemplate(id);
  } catch {
    throw new ValidationError(`template: one of ${TEMPLATE_IDS.join(", ")}, got ${JSON.stringify(id)}`);
  }
}

export async function createCampaign(db: Db, actor: Actor, input: CampaignInput): Promise<CampaignRow> {
  requireRole(actor, "researcher", "create campaigns");
  checkSettings({ ...input, name: input.name });
  const template = templateOrError(input.template);
  const labelSchema = schemaOrError({ ...template?.labelSchema, ...input.labelSchema });
  // A selection by labels or verdicts reveals them (through its size at least): not while labelling blind.
  if (input.filter && usesTriage(input.filter)) await assertMayTriage(db, actor);
  const trajectoryIds = await resolveSelection(db, input);
  if (!trajectoryIds.length) throw new ValidationError("the selection is empty: no trajectory matches");
  const annotatorIds = await checkAnnotators(db, input.annotatorIds ?? []);
  const qaReviewerIds = await checkAnnotators(db, input.qaReviewerIds ?? []);
  const name = input.name.trim();
  const revealEvaluator = checkRevealEvaluator(input.revealEvaluator, input.blind ?? true);
  const selection: CampaignSelection = input.trajectoryIds
    ? { description: input.selectionDescription ?? `${trajectoryIds.length} chosen trajectories` }
    : { description: input.selectionDescription ?? (await describeFilterNamed(db, input.filter!)), filter: input.filter as Record<string, unknown> };
  return withTransaction(db, async () => {
    if (await getCampaignByName(db, name)) throw new ConflictError(`A campaign named ${JSON.stringify(name)} already exists`);
    const id = await insertCampaign(db, {
      name,
      instructions: input.instructions ?? template?.guidelines ?? "",
      guidelineVersion: 1,
      templateId: template?.id ?? null,
      templateVersion: template?.version ?? null,
      labelSchema,
      annotatorsPerItem: input.annotatorsPerItem ?? template?.annotatorsPerItem ?? 3,
      blind: input.blind ?? true,
      reservationMinutes: input.reservationMinutes ?? 30,
      revealEvaluator,
      origin: "native",
      selection,
      createdBy: actor.userId,
    });
    await insertCampaignItems(db, id, trajectoryIds, shuffleNumbers);
    await addCampaignMembers(db, "annotators", id, annotatorIds);
    await addCampaignMembers(db, "qaReviewers", id, qaReviewerIds);
    return (await getCampaign(db, id))!;
  });
}

export interface CampaignPatch {
  name?: string;
  instructions?: string;
  annotatorsPerItem?: number;
  blind?: boolean;
  reservationMinutes?: number;
  status?: CampaignStatus;
  /** Categories can be added, renamed or reordered; one already used in a label cannot be removed. */
  labelSchema?: Partial<LabelSchema>;
}

export async function updateCampaignSettings(db: Db, actor: Actor, id: number, patch: CampaignPatch): Promise<CampaignRow> {
  requireRole(actor, "researcher", "change campaigns");
  checkSettings(patch);
  return withTransaction(db, async () => {
    const c = await requireCampaign(db, id);
    const next: Partial<CampaignRow> = {};
    if (patch.name !== undefined && patch.name.trim() !== c.name) {
      if (await getCampaignByName(db, patch.name.trim())) throw new ConflictError(`A campaign named ${JSON.stringify(patch.name.trim())} already exists`);
      next.name = patch.name.trim();
    }
    // Labels record the guideline version they were made under, so an edit starts a new version.
    if (patch.instructions !== undefined && patch.instructions !== c.instructions) {
      next.instructions = patch.instructions;
      next.guidelineVersion = c.guidelineVersion + 1;
    }
    if (patch.blind !== undefined) next.blind = patch.blind;
    // The blind is not the labeller's to lift: someone still labelling here blind cannot turn it off themselves.
    if (patch.blind === false && c.blind && (await campaignsLabellingBlind(db, actor.userId)).has(id)) {
      throw new AppError("FORBIDDEN", `You label campaign ${JSON.stringify(c.name)} blind; another researcher or an admin can lift its blind`);
    }
    // The reveal is measured against a blind first label: lifting the blind would let the evaluator be seen first.
    if (patch.blind === false && c.revealEvaluator)
      throw new ValidationError("blind: this campaign reveals an evaluator after the blind label, so it stays blind");
    if (patch.reservationMinutes !== undefined) next.reservationMinutes = patch.reservationMinutes;
    if (patch.status !== undefined) {
      if (patch.status !== "active" && patch.status !== "closed") throw new ValidationError(`status: active or closed, got ${JSON.stringify(patch.status)}`);
      next.status = patch.status;
    }
    if (patch.labelSchema !== undefined) next.labelSchema = schemaOrError({ ...c.labelSchema, ...patch.labelSchema });
    if (patch.annotatorsPerItem !== undefined) next.annotatorsPerItem = patch.annotatorsPerItem;
    await updateCampaign(db, id, next);
    const updated = await requireCampaign(db, id);
    // A new k or agreement rule changes which items are complete and which agree.
    if (next.annotatorsPerItem !== undefined || next.labelSchema !== undefined) {
      const at = new Date();
      for (const item of await campaignItemIds(db, id)) await recomputeItem(db, updated, item, at);
    }
    return updated;
  });
}

export async function addTrajectoriesToCampaign(
  db: Db,
  actor: Actor,
  id: number,
  selection: { trajectoryIds?: number[]; filter?: SelectionFilter },
): Promise<{ added: number }> {
  requireRole(actor, "researcher", "change campaigns");
  const ids = await resolveSelection(db, selection);
  return withTransaction(db, async () => {
    await requireCampaign(db, id);
    return { added: await insertCampaignItems(db, id, ids, shuffleNumbers) };
  });
}

export async function setCampaignAnnotators(db: Db, actor: Actor, id: number, change: MemberChange): Promise<{ added: number; removed: number }> {
  return changeCampaignMembers(db, actor, id, "annotators", change, "choose annotators", async (c) => {
    // Leaving would end the blind on the items still to label: another researcher or an admin decides that.
    if ((change.remove ?? []).includes(actor.userId) && (await campaignsLabellingBlind(db, actor.userId)).has(id)) {
      throw new AppError("FORBIDDEN", `You label campaign ${JSON.stringify(c.name)} blind; another researcher or an admin can take you off it`);
    }
  });
}

/** Chooses the campaign's designated QA reviewers (researchers and admins may always review). */
export async function setCampaignQaReviewers(db: Db, actor: Actor, id: number, change: MemberChange): Promise<{ added: number; removed: number }> {
  return changeCampaignMembers(db, actor, id, "qaReviewers", change, "choose QA reviewers");
}

type MemberChange = { add?: string[]; remove?: string[] };

/**
 * Adds and removes a campaign's members of one kind (a researcher's choice, `what` naming it in the refusal); the
 * accounts to add must exist. `check` may refuse the change once the campaign is found, inside the transaction.
 */
async function changeCampaignMembers(
  db: Db,
  actor: Actor,
  id: number,
  kind: Parameters<typeof addCampaignMembers>[1],
  change: MemberChange,
  what: string,
  check?: (campaign: CampaignRow) => Promise<void>,
): Promise<{ added: number; removed: number }> {
  requireRole(actor, "researcher", what);
  const add = await checkAnnotators(db, change.add ?? []);
  return withTransaction(db, async () => {
    const c = await requireCampaign(db, id);
    await check?.(c);
    return { added: await addCampaignMembers(db, kind, id, add), removed: await removeCampaignMembers(db, kind, id, change.remove ?? []) };
  });
}

/**
 * How far a campaign meets its protocol: annotators per item against the template's minimum, QA reviews done
 * and pending, and the guideline versions its labels were made under.
 */
export async function campaignCompliance(db: Db, c: CampaignRow) {
  const requirements = requirementsOf(c.templateId, c.annotatorsPerItem, c.labelSchema.qaReview ?? false);
  return {
    templateId: c.templateId,
    templateVersion: c.templateVersion,
    templateName: c.templateId && (TEMPLATE_IDS as readonly string[]).includes(c.templateId) ? getTemplate(c.templateId).name : null,
    requirements,
    ...protocolCompliance({
      requirements,
      items: await complianceItems(db, c.id),
      labelGuidelineVersions: await labelGuidelineVersionCounts(db, c.id),
      guidelineVersion: c.guidelineVersion,
    }),
  };
}

export interface CampaignSummary {
  id: number;
  name: string;
  status: CampaignStatus;
  origin: CampaignRow["origin"];
  /** label (one trajectory per item) or pairwise (two attempts at a task per item: server/services/annotation/pairwise.ts). */
  kind: CampaignRow["kind"];
  blind: boolean;
  annotatorsPerItem: number;
  /** Null where the viewer labels (see `restricted`): a selection such as "runId = 2" names the agent. */
  selection: CampaignSelection | null;
  createdAt: Date;
  /** How many trajectories the campaign holds. */
  items: number;
  /** Labels the viewer has given in it. */
  myLabels: number;
  /** Per-state and everyone's counts; null where the viewer labels (they would show others' agreement). */
  counts: CampaignCounts | null;
  /** True when the summary is the annotator's view: no selection, no one else's progress. */
  restricted: boolean;
}

/**
 * Campaigns the actor can see: all for researchers and admins, their own for annotators. Annotators get their
 * own progress only, and no selection; so do researchers for the campaigns in which they still label blind.
 */
export async function listCampaignSummaries(db: Db, actor: Actor): Promise<CampaignSummary[]> {
  const researcher = hasRole(actor, "researcher");
  const rows = researcher ? await listCampaigns(db) : await listCampaignsOfAnnotator(db, actor.userId);
  const counts = await campaignCounts(
    db,
    rows.map((r) => r.id),
  );
  const mine = await ownLabelCounts(
    db,
    actor.userId,
    rows.map((r) => r.id),
  );
  const labellingBlind = researcher ? await campaignsLabellingBlind(db, actor.userId) : null;
  // A pairwise campaign's items are its pairs and its labels the answers (server/services/annotation/pairwise.ts).
  const pairwise = new Map(
    await Promise.all(
      rows.filter((c) => c.kind === "pairwise").map(async (c) => [c.id, await pairwiseProgress(db, c.id, actor.userId, c.annotatorsPerItem)] as const),
    ),
  );
  return rows.map((c) => {
    const restricted = !labellingBlind || labellingBlind.has(c.id);
    const p = pairwise.get(c.id);
    const all: CampaignCounts = p
      ? { items: p.items, open: p.items - p.complete, agreed: 0, disputed: 0, adjudicated: 0, labels: p.answers, annotators: counts.get(c.id)!.annotators }
      : counts.get(c.id)!;
    return {
      id: c.id,
      name: c.name,
      status: c.status,
      origin: c.origin,
      kind: c.kind,
      blind: c.blind,
      annotatorsPerItem: c.annotatorsPerItem,
      selection: restricted ? null : c.selection,
      createdAt: c.createdAt,
      items: all.items,
      myLabels: p ? p.mine : (mine.get(c.id) ?? 0),
      counts: restricted ? null : all,
      restricted,
    };
  });
}

/** A campaign with its settings, counts and per-annotator progress (researchers and admins). */
export async function campaignOverview(db: Db, actor: Actor, id: number, nowMs = Date.now()) {
  requireRole(actor, "researcher", "see a campaign's progress");
  const c = await requireCampaign(db, id);
  // Per-annotator verdict counts and item states would tell a researcher who labels here what the others said.
  if ((await campaignsLabellingBlind(db, actor.userId)).has(id)) {
    throw new AppError("FORBIDDEN", `You label campaign ${JSON.stringify(c.name)} blind; its progress opens once you have labelled your items`);
  }
  const counts = (await campaignCounts(db, [id])).get(id)!;
  const annotators = await campaignMemberList(db, "annotators", id);
  const progress = await annotatorProgress(db, id, nowMs);
  const reservedBy = new Map(progress.reserved.map((r) => [r.userId, r.n]));
  const doneBy = new Map(progress.done.map((d) => [d.annotatorKey, d]));
  const perAnnotator = annotators.map((a) => {
    const d = doneBy.get(`user:${a.userId}`);
    doneBy.delete(`user:${a.userId}`);
    return {
      userId: a.userId as string | null,
      name: a.name,
      email: a.email as string | null,
      member: true,
      labelled: d?.labelled ?? 0,
      success: d?.success ?? 0,
      failure: d?.failure ?? 0,
      unsure: d?.unsure ?? 0,
      meanTimeMs: d?.meanTimeMs ?? null,
      lastAt: d?.lastAt ? new Date(d.lastAt) : null,
      reserved: reservedBy.get(a.userId) ?? 0,
    };
  });
  // Labels from people no longer on the campaign, and imported annotators.
  for (const d of doneBy.values()) {
    perAnnotator.push({
      userId: d.userId,
      name: d.name,
      email: null,
      member: false,
      labelled: d.labelled,
      success: d.success,
      failure: d.failure,
      unsure: d.unsure,
      meanTimeMs: d.meanTimeMs,
      lastAt: d.lastAt ? new Date(d.lastAt) : null,
      reserved: 0,
    });
  }
  const target = counts.items * c.annotatorsPerItem;
  return {
    campaign: c,
    counts,
    compliance: await campaignCompliance(db, c),
    qaReviewers: (await campaignMemberList(db, "qaReviewers", id)).map(({ userId, name, email }) => ({ userId, name, email })),
    /** Labels still needed for every item to reach k (disputed/agreed items count as complete). */
    labelsNeeded: Math.max(0, target - counts.labels),
    annotators: perAnnotator,
    warnings: [
      ...(annotators.length < c.annotatorsPerItem && c.origin === "native"
        ? [
            `${annotators.length} annotator${annotators.length === 1 ? "" : "s"} for ${c.annotatorsPerItem} labels per trajectory: items cannot be completed until more annotators are added`,
          ]
        : []),
      ...(c.templateId && c.annotatorsPerItem < requirementsOf(c.templateId, c.annotatorsPerItem, false).minAnnotatorsPerItem
        ? [
            `${c.annotatorsPerItem} annotator${c.annotatorsPerItem === 1 ? "" : "s"} per trajectory is below the ${getTemplate(c.templateId).name} protocol's ${requirementsOf(c.templateId, c.annotatorsPerItem, false).minAnnotatorsPerItem}`,
          ]
        : []),
    ],
  };
}

/** Only the campaign's annotators (and researchers/admins) may see it at all. */
export async function assertCampaignVisible(db: Db, actor: Actor, c: CampaignRow): Promise<void> {
  if (hasRole(actor, "researcher")) return;
  if (!(await isCampaignAnnotator(db, c.id, actor.userId))) throw new AppError("FORBIDDEN", "You are not an annotator of this campaign");
}

/** Every campaign, for the command line (which acts with an admin's rights). */
export async function listAllCampaigns(db: Db) {
  return await listCampaigns(db);
}
