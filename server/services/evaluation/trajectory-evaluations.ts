/**
 * Everything known about how good one trajectory is, for the evaluations panel beside the player: every judge
 * verdict (configuration, k, prompt version, the steps whose screenshots it saw, rationale and raw reply), rule
 * results with the rule they checked, imported verdicts, each annotator's latest label with its revisions, and
 * each campaign's consolidated label with its history.
 *
 * The blind rule applies as in `judge.verdicts.forTrajectory` and `labelling.ofTrajectory`: a viewer who is still
 * to label the trajectory blind gets `hidden: true` and nothing else, not even how many evaluations exist.
 */
import type { Db } from "../../../db/database";
import { getItemByTrajectory, isCampaignAnnotator } from "../../../db/repositories/annotation/campaigns";
import { consolidatedOfTrajectory, consolidationHistory, labelHistory } from "../../../db/repositories/annotation/labels";
import { isGoldItem } from "../../../db/repositories/annotation/quality";
import { getJudgeConfig, listEvaluatorSummaries, listVerdicts } from "../../../db/repositories/evaluation/verdicts";
import { getTrajectoryDetail } from "../../../db/repositories/trajectories";
import { hasRole, type Actor } from "../../domain/access/actor";
import { EVALUATIONS_HIDDEN } from "../../domain/access/evaluations-hidden";
import { screenshotWindow, type ScreenshotWindow } from "../../domain/evaluation/screenshot-window";
import type { CriterionResult, JudgeOptions } from "../../domain/evaluation/verdicts";
import { evidenceOfVerdicts, type VerdictEvidence } from "../../../db/repositories/evaluation/verdict-evidence";
import { NotFoundError } from "../../errors";
import { assertMayViewEvaluations, assertTrajectoryBrowsable, mayViewEvaluations, visibleLabelsOfTrajectory } from "../access";
import { screenshotFor } from "./judge-verdict";

export type TrajectoryEvaluations = Awaited<ReturnType<typeof trajectoryEvaluations>>;

export async function trajectoryEvaluations(db: Db, viewer: Actor, trajectoryId: number) {
  // The functions of other parts (annotation, trajectories) are awaited whether or not they are asynchronous yet.
  await assertTrajectoryBrowsable(db, viewer, trajectoryId);
  const detail = await getTrajectoryDetail(db, trajectoryId);
  if (!detail) throw new NotFoundError("trajectory", trajectoryId);
  if (!(await mayViewEvaluations(db, viewer.userId, trajectoryId))) {
    return EVALUATIONS_HIDDEN;
  }
  // Records the first reveal to an annotator of a blind campaign, so later revisions are flagged as anchored.
  await assertMayViewEvaluations(db, viewer.userId, trajectoryId);

  const configs = new Map<number, { name: string; model: string; screenshots: JudgeOptions["screenshots"] } | null>();
  const configOf = async (id: number | null) => {
    if (id === null) return null;
    if (!configs.has(id)) {
      const c = await getJudgeConfig(db, id);
      configs.set(id, c ? { name: c.name, model: c.model, screenshots: c.options.screenshots } : null);
    }
    return configs.get(id)!;
  };

  const rows = await listVerdicts(db, { trajectoryId });
  const evidence = await evidenceOfVerdicts(
    db,
    rows.filter((v) => v.kind === "judge").map((v) => v.id),
  );
  const positionOf = new Map(detail.steps.map((s, i) => [s.index, i]));
  const verdicts = [];
  for (const v of rows) {
    const config = await configOf(v.judgeConfigId);
    // The judge sends the marked screenshot unless its configuration asks for raw ones; imports are assumed marked.
    const pref = config?.screenshots ?? "marked";
    const window: ScreenshotWindow = screenshotWindow(
      { k: v.k, stepIndices: v.stepIndices },
      detail.steps.map((s) => ({ index: s.index, hasScreenshot: screenshotFor(s, pref) !== null })),
    );
    verdicts.push({
      id: v.id,
      kind: v.kind,
      origin: v.origin,
      evaluatorKey: v.evaluatorKey,
      evaluatorName: v.evaluatorName,
      config: config ? { id: v.judgeConfigId!, name: config.name, model: config.model } : null,
      k: v.k,
      promptVersion: v.promptVersion,
      window,
      verdict: v.verdict,
      score: v.score,
      rationale: v.rationale,
      rawReply: v.rawReply,
      details: v.details,
      model: v.model,
      latencyMs: v.latencyMs,
      costUsd: v.costUsd,
      updatedAt: v.updatedAt,
      ...evidenceView(evidence.get(v.id), v.details, positionOf),
    });
  }

  const researcher = hasRole(viewer, "researcher");
  const { labels } = await visibleLabelsOfTrajectory(db, viewer, trajectoryId);
  const members = new Map<number, boolean>();
  const mayOpenCampaign = async (campaignId: number) => {
    if (researcher) return true;
    if (!members.has(campaignId)) members.set(campaignId, await isCampaignAnnotator(db, campaignId, viewer.userId));
    return members.get(campaignId)!;
  };

  const labelsWithHistory = [];
  for (const l of labels) {
    labelsWithHistory.push({
      ...l,
      history: (await labelHistory(db, l.id)).map((h) => ({
        revision: h.revision,
        action: h.action,
        actorName: h.actorName,
        status: h.status,
        values: h.values,
        changedFields: h.changes.map((c) => c.field),
        afterReveal: h.afterReveal,
        undone: h.undoneByRevisionId !== null,
        createdAt: h.createdAt,
      })),
    });
  }

  const consolidated = [];
  for (const { consolidated: c, campaignName, itemState } of await consolidatedOfTrajectory(db, trajectoryId)) {
    // A gold item's consolidated label is its known answer: annotators must not learn which items are gold.
    if (!(await mayOpenCampaign(c.campaignId)) || (!researcher && (await isGoldItem(db, c.itemId)))) continue;
    consolidated.push({
      campaignId: c.campaignId,
      campaignName,
      itemState,
      verdict: c.verdict,
      category: c.category,
      firstFailingStep: c.firstFailingStep,
      method: c.method,
      adjudicatorName: c.adjudicatorName,
      reason: c.reason,
      updatedAt: c.updatedAt,
      history: (await consolidationHistory(db, c.itemId)).map((e) => ({
        state: e.state,
        values: e.values,
        method: e.method,
        actorName: e.actorName,
        reason: e.reason,
        createdAt: e.createdAt,
      })),
    });
  }

  // Researchers see where each campaign holding the labels stands (open, agreed, disputed…), to adjudicate from there.
  const items = [];
  if (researcher) {
    for (const [campaignId, campaignName] of new Map(labels.map((l) => [l.campaignId, l.campaignName]))) {
      const item = await getItemByTrajectory(db, campaignId, trajectoryId);
      if (item) items.push({ campaignId, campaignName, trajectoryId, state: item.state, qaReviewed: item.qaReviewedAt !== null });
    }
  }

  return {
    hidden: false as const,
    /** The task's benchmark evaluator config (VisualWebArena `eval`), the rule that rule verdicts checked. */
    ruleConfig: (detail.task.evaluatorConfig ?? null) as unknown,
    verdicts,
    labels: labelsWithHistory,
    consolidated,
    items,
  };
}

/**
 * What a verdict rests on, for the panel: the criteria a staged protocol graded, the process and failure cause
 * of the rubric, each screenshot's relevance score (key points), and the citations with the player position
 * (0-based) of the step each names. Positions are null where the stored step is gone or never existed.
 */
export function evidenceView(e: VerdictEvidence | undefined, details: Record<string, unknown> | null, positionOf: Map<number, number>) {
  const d = details ?? {};
  const relevance = Array.isArray(d.relevance)
    ? (d.relevance as { stepIndex: number; score: number | null; problem: string | null }[]).map((r) => ({
        position: positionOf.get(r.stepIndex) ?? null,
        score: r.score,
        problem: r.problem,
      }))
    : null;
  const citations = (e?.citations ?? []).map((c) => ({
    position: c.position,
    stepNumber: c.stepNumber,
    playerPosition: c.stepIndex === null ? null : (positionOf.get(c.stepIndex) ?? null),
    box: c.box,
    note: c.note,
    problem: c.problem,
  }));
  return {
    criteria: (e?.criteria ?? []).map((c) => ({ position: c.position, kind: c.kind, text: c.text, result: c.result })),
    process: typeof d.process === "string" ? (d.process as CriterionResult) : null,
    failureCause: typeof d.failureCause === "string" ? d.failureCause : null,
    relevance,
    threshold: typeof d.threshold === "number" ? d.threshold : null,
    citations,
    unverifiableCitations: citations.filter((c) => c.problem !== null).length,
  };
}

/** A trajectory's stored verdicts (the caller has applied the blind rule). */
export async function verdictsOfTrajectory(db: Db, trajectoryId: number) {
  return listVerdicts(db, { trajectoryId });
}

/** Evaluators with verdicts, by k and prompt version: the agreement views' evaluator choices. */
export async function evaluatorSummaries(db: Db) {
  return listEvaluatorSummaries(db);
}
