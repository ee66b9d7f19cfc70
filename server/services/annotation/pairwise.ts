/**
 * Pairwise campaigns: researchers create one over a selection of trajectories; each item is two attempts at one task
 * by different agents (runs). Annotators see the two side by side and answer left, right, tie or both fail; the
 * answer is stored as A/B of the pair (see server/domain/annotation/pairwise-pairs.ts), one per annotator per item,
 * every revision kept. Researchers read a Bradley–Terry ranking of the agents and export the answers as preference
 * pairs.
 *
 * The blind: an annotator never gets a trajectory id, run, agent, model or link key of either side, and what they
 * send is left/right, which only the server turns into A/B. The ranking and the export name the agents, so only
 * researchers and admins who do not still answer in the campaign may read them.
 */
import type { Db } from "../../../db/database";
import { withTransaction } from "../../../db/database";
import {
  getCampaign,
  getCampaignByName,
  getCampaignForMember,
  insertCampaign,
  addCampaignAnnotators,
  isCampaignAnnotator,
} from "../../../db/repositories/annotation/campaigns";
import {
  insertPairwiseItems,
  nextPairwiseItemFor,
  pairCandidatesOf,
  pairwiseAnswerHistory,
  pairwiseAnswerOf,
  pairwiseAnswersOfCampaign,
  pairwiseItemByNumber,
  pairwiseProgress,
  savePairwiseAnswer,
  type PairwiseAnswerExportRow,
} from "../../../db/repositories/annotation/pairwise";
import type { CampaignRow } from "../../../db/schema/index";
import { requireRole, type Actor } from "../../domain/access/actor";
import { buildLabelSchema } from "../../domain/annotation/label-schema";
import { choiceOfOutcome, outcomeOfChoice, planPairs, sideOfA, type PairwiseChoice } from "../../domain/annotation/pairwise-pairs";
import { rankAgents, type PairwiseComparison } from "../../domain/annotation/pairwise-ranking";
import { AppError, ConflictError, NotFoundError, ValidationError } from "../../errors";
import { assertMayTriage, withAgentHidden } from "../access";
import { usesTriage } from "../../domain/trajectory-list-query";
import { getStepWindow, getTrajectoryForPlayer, type SelectionFilter } from "../trajectory-views";
import { checkAnnotators, describeFilterNamed, MAX_ANNOTATORS_PER_ITEM, resolveSelection } from "./campaigns";
import { shuffleNumbers } from "./item-numbers";

export const DEFAULT_PAIRWISE_SEED = 1;

export interface PairwiseCampaignInput {
  name: string;
  instructions?: string;
  /** How many annotators answer each pair (default 1). */
  annotatorsPerItem?: number;
  annotatorIds?: string[];
  trajectoryIds?: number[];
  filter?: SelectionFilter;
  /** Drives which attempt of an agent is paired, which pairs are kept and the sides (default 1). */
  seed?: number;
  /** At most this many pairs per task (all pairs of the task's agents when omitted). */
  pairsPerTask?: number;
}

const DEFAULT_INSTRUCTIONS =
  "Two attempts at the same task are shown side by side. Press 1 if the left attempt is better, 2 if the right one is, 3 when they are equally good, 4 when both fail the task.";

function checkPairwiseSettings(input: PairwiseCampaignInput): void {
  if (!input.name.trim()) throw new ValidationError("name: cannot be empty");
  if (input.name.length > 200) throw new ValidationError("name: at most 200 characters");
  const k = input.annotatorsPerItem;
  if (k !== undefined && (!Number.isInteger(k) || k < 1 || k > MAX_ANNOTATORS_PER_ITEM))
    throw new ValidationError(`annotatorsPerItem: a whole number from 1 to ${MAX_ANNOTATORS_PER_ITEM}, got ${k}`);
}

/** Creates a pairwise campaign: plans the pairs of the selection with the seed and numbers them in a shuffled order. */
export async function createPairwiseCampaign(db: Db, actor: Actor, input: PairwiseCampaignInput) {
  requireRole(actor, "researcher", "create campaigns");
  checkPairwiseSettings(input);
  const seed = input.seed ?? DEFAULT_PAIRWISE_SEED;
  // A selection by labels or verdicts reveals them (through its size at least): not while labelling blind.
  if (input.filter && usesTriage(input.filter)) await assertMayTriage(db, actor);
  const trajectoryIds = await resolveSelection(db, input);
  const plan = planPairs(await pairCandidatesOf(db, trajectoryIds), { seed, pairsPerTask: input.pairsPerTask });
  if (!plan.pairs.length)
    throw new ValidationError(`the selection gives no pair: each of its ${plan.tasksWithoutPair.length} tasks was attempted by only one agent (run)`);
  const annotatorIds = await checkAnnotators(db, input.annotatorIds ?? []);
  const name = input.name.trim();
  const what = input.trajectoryIds ? `${trajectoryIds.length} chosen trajectories` : await describeFilterNamed(db, input.filter!);
  const description = `${plan.pairs.length} pairs (seed ${seed}${input.pairsPerTask ? `, at most ${input.pairsPerTask} per task` : ""}) of ${what}`;
  return withTransaction(db, async () => {
    if (await getCampaignByName(db, name)) throw new ConflictError(`A campaign named ${JSON.stringify(name)} already exists`);
    const id = await insertCampaign(db, {
      name,
      kind: "pairwise",
      instructions: input.instructions ?? DEFAULT_INSTRUCTIONS,
      guidelineVersion: 1,
      templateId: null,
      templateVersion: null,
      labelSchema: buildLabelSchema({}),
      annotatorsPerItem: input.annotatorsPerItem ?? 1,
      blind: true,
      reservationMinutes: 30,
      revealEvaluator: null,
      origin: "native",
      selection: { description, ...(input.filter ? { filter: input.filter as Record<string, unknown> } : {}) },
      createdBy: actor.userId,
    });
    const numbers = shuffleNumbers(plan.pairs.map((_, i) => i + 1));
    await insertPairwiseItems(
      db,
      plan.pairs.map((p, i) => ({
        campaignId: id,
        itemNo: numbers[i]!,
        taskId: p.taskId,
        trajectoryA: p.trajectoryA,
        trajectoryB: p.trajectoryB,
        sideSeed: p.sideSeed,
      })),
    );
    await addCampaignAnnotators(db, id, annotatorIds);
    return {
      campaign: (await getCampaign(db, id))!,
      pairs: plan.pairs.length,
      tasksWithoutPair: plan.tasksWithoutPair.length,
      repeatsLeftOut: plan.repeatsLeftOut,
    };
  });
}

function requirePairwise(c: CampaignRow): CampaignRow {
  if (c.kind !== "pairwise") throw new ValidationError(`campaign ${JSON.stringify(c.name)} is not a pairwise campaign`);
  return c;
}

/** The campaign, for one of its annotators (anyone else is refused, researchers included). */
async function requirePairwiseAnnotator(db: Db, actor: Actor, campaignId: number): Promise<CampaignRow> {
  const found = await getCampaignForMember(db, campaignId, actor.userId);
  if (!found) throw new NotFoundError("campaign", campaignId);
  if (!found.isAnnotator) throw new AppError("FORBIDDEN", `You are not an annotator of campaign ${JSON.stringify(found.campaign.name)}`);
  return requirePairwise(found.campaign);
}

async function requirePairwiseItem(db: Db, actor: Actor, campaignId: number, itemNo: number) {
  const campaign = await requirePairwiseAnnotator(db, actor, campaignId);
  const item = await pairwiseItemByNumber(db, campaignId, itemNo);
  if (!item) throw new NotFoundError(`item of campaign ${campaignId}`, itemNo);
  return { campaign, item };
}

/** What an annotator of a pairwise campaign needs: guidelines and their own progress, nothing of others' answers. */
export async function pairwiseCampaignForAnnotator(db: Db, actor: Actor, campaignId: number) {
  const c = await requirePairwiseAnnotator(db, actor, campaignId);
  const p = await pairwiseProgress(db, campaignId, actor.userId, c.annotatorsPerItem);
  return { id: c.id, name: c.name, instructions: c.instructions, status: c.status, items: p.items, answered: p.mine };
}

/** The next pair for the annotator (by item number), or null when they have answered every pair still needing answers. */
export async function nextPairwiseItem(db: Db, actor: Actor, campaignId: number): Promise<{ itemNo: number } | null> {
  const c = await requirePairwiseAnnotator(db, actor, campaignId);
  if (c.status !== "active") return null;
  const item = await nextPairwiseItemFor(db, campaignId, actor.userId, c.annotatorsPerItem);
  return item ? { itemNo: item.itemNo } : null;
}

/** One side as the annotator sees it: the player's trajectory with everything naming the agent or the trajectory taken out. */
async function sideView(db: Db, trajectoryId: number) {
  const t = withAgentHidden(await getTrajectoryForPlayer(db, trajectoryId));
  return { ...t, trajectory: { ...t.trajectory, linkKey: "", attempt: 0 }, task: { ...t.task, id: 0 }, taskSet: { id: 0, name: "", benchmark: "" } };
}

/** A pair for its annotator: the task, the left and right attempts (agents hidden) and their own answer so far. */
export async function pairwiseItem(db: Db, actor: Actor, campaignId: number, itemNo: number) {
  const { item } = await requirePairwiseItem(db, actor, campaignId, itemNo);
  const aLeft = sideOfA(item.sideSeed) === "left";
  const [a, b] = await Promise.all([sideView(db, item.trajectoryA), sideView(db, item.trajectoryB)]);
  const mine = await pairwiseAnswerOf(db, item.id, actor.userId);
  return {
    itemNo,
    left: aLeft ? a : b,
    right: aLeft ? b : a,
    myAnswer: mine ? { choice: choiceOfOutcome(mine.outcome, item.sideSeed), revision: mine.revision } : null,
  };
}

/** A window of one side's steps, under the same check as the pair. */
export async function pairwiseStepWindow(db: Db, actor: Actor, q: { campaignId: number; itemNo: number; side: "left" | "right"; from: number; count: number }) {
  const { item } = await requirePairwiseItem(db, actor, q.campaignId, q.itemNo);
  const aLeft = sideOfA(item.sideSeed) === "left";
  const id = (q.side === "left") === aLeft ? item.trajectoryA : item.trajectoryB;
  return await getStepWindow(db, id, q.from, q.count);
}

/** Stores (or revises) the annotator's answer; returns it as they gave it, with the revision number. */
export async function submitPairwiseAnswer(
  db: Db,
  actor: Actor,
  input: { campaignId: number; itemNo: number; choice: PairwiseChoice; timeSpentMs?: number },
  at = new Date(),
) {
  if (input.timeSpentMs !== undefined && (!Number.isInteger(input.timeSpentMs) || input.timeSpentMs < 0))
    throw new ValidationError(`timeSpentMs: a whole number of milliseconds, got ${input.timeSpentMs}`);
  return withTransaction(db, async () => {
    const { campaign, item } = await requirePairwiseItem(db, actor, input.campaignId, input.itemNo);
    if (campaign.status !== "active") throw new ConflictError(`Campaign ${JSON.stringify(campaign.name)} is closed`);
    const outcome = outcomeOfChoice(input.choice, item.sideSeed);
    const saved = await savePairwiseAnswer(db, {
      campaignId: campaign.id,
      itemId: item.id,
      userId: actor.userId,
      annotatorName: actor.name,
      outcome,
      timeSpentMs: input.timeSpentMs ?? null,
      at,
    });
    return { itemNo: input.itemNo, choice: input.choice, revision: saved.revision };
  });
}

/** The annotator's own answer on a pair with every revision, in their left/right terms. */
export async function myPairwiseAnswer(db: Db, actor: Actor, campaignId: number, itemNo: number) {
  const { item } = await requirePairwiseItem(db, actor, campaignId, itemNo);
  const mine = await pairwiseAnswerOf(db, item.id, actor.userId);
  if (!mine) return null;
  const history = await pairwiseAnswerHistory(db, mine.id);
  return {
    choice: choiceOfOutcome(mine.outcome, item.sideSeed),
    revision: mine.revision,
    history: history.map((h) => ({ revision: h.revision, choice: choiceOfOutcome(h.outcome, item.sideSeed), at: h.createdAt })),
  };
}

/** Researchers and admins, and not while they still have pairs to answer in the campaign (the ranking names the agents). */
async function requirePairwiseResearcher(db: Db, actor: Actor, campaignId: number, doing: string): Promise<CampaignRow> {
  requireRole(actor, "researcher", doing);
  const c = await getCampaign(db, campaignId);
  if (!c) throw new NotFoundError("campaign", campaignId);
  requirePairwise(c);
  if ((await isCampaignAnnotator(db, campaignId, actor.userId)) && (await nextPairwiseItemFor(db, campaignId, actor.userId, c.annotatorsPerItem)))
    throw new AppError("FORBIDDEN", `You answer in campaign ${JSON.stringify(c.name)}: its ranking opens once you have answered your pairs`);
  return c;
}

/** Agent names as shown: the run's name, with its id added where two runs share a name. */
function agentNames(rows: PairwiseAnswerExportRow[]): Map<number, string> {
  const byRun = new Map<number, string>();
  for (const r of rows) byRun.set(r.runA, r.runNameA).set(r.runB, r.runNameB);
  const seen = new Map<string, number>();
  for (const name of byRun.values()) seen.set(name, (seen.get(name) ?? 0) + 1);
  return new Map([...byRun].map(([id, name]) => [id, seen.get(name)! > 1 ? `${name} (run ${id})` : name]));
}

/** The Bradley–Terry ranking of a pairwise campaign's agents (runs), with intervals and the method in words. */
export async function pairwiseRanking(db: Db, actor: Actor, campaignId: number, options: { replicates?: number; seed?: number } = {}) {
  const c = await requirePairwiseResearcher(db, actor, campaignId, "see a pairwise ranking");
  const rows = await pairwiseAnswersOfCampaign(db, campaignId);
  const names = agentNames(rows);
  const comparisons: PairwiseComparison[] = rows.map((r) => ({ agentA: names.get(r.runA)!, agentB: names.get(r.runB)!, outcome: r.outcome }));
  const progress = await pairwiseProgress(db, campaignId, actor.userId, c.annotatorsPerItem);
  return {
    campaign: { id: c.id, name: c.name, status: c.status, annotatorsPerItem: c.annotatorsPerItem, selection: c.selection },
    progress: { items: progress.items, complete: progress.complete, answers: progress.answers },
    ranking: rankAgents(comparisons, options),
  };
}

/**
 * The answers as preference pairs, one JSON object a line: task (the benchmark's task id), a and b (the two agents,
 * by run name; a is the pair's lower trajectory id), winner ("a", "b", "tie" or "both_fail"), and the trajectory ids,
 * the item number, the annotator and the answer's revision.
 */
export async function pairwisePreferencePairs(db: Db, actor: Actor, campaignId: number): Promise<{ filename: string; jsonl: string; lines: number }> {
  const c = await requirePairwiseResearcher(db, actor, campaignId, "export pairwise answers");
  const rows = await pairwiseAnswersOfCampaign(db, campaignId);
  const names = agentNames(rows);
  const lines = rows.map((r) =>
    JSON.stringify({
      task: r.taskExternalId,
      a: names.get(r.runA),
      b: names.get(r.runB),
      winner: r.outcome,
      trajectory_a: r.trajectoryA,
      trajectory_b: r.trajectoryB,
      item: r.itemNo,
      annotator: r.annotatorName,
      revision: r.revision,
    }),
  );
  const slug = c.name.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 80) || "campaign";
  return { filename: `${slug}-preference-pairs.jsonl`, jsonl: lines.length ? `${lines.join("\n")}\n` : "", lines: lines.length };
}
