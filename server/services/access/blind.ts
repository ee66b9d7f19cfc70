/**
 * The blind rule, enforced on the server: a user who is an annotator of a blind campaign containing a trajectory
 * (open or closed), and has not yet submitted their own label for it there, is shown none of that trajectory's
 * evaluations (judge verdicts, rule-based results, other people's labels) nor which agent made it.
 *
 * Every procedure that returns such data calls `assertMayViewEvaluations` (one trajectory) or filters with
 * `visibleEvaluationFilter` (lists). Both are cheap indexed look-ups. When a campaign's annotator is shown
 * evaluations of one of its trajectories, the first such moment is recorded, so a label or revision they submit
 * afterwards is flagged as made after seeing the evaluations (an anchoring measure).
 */
import type { SQL } from "drizzle-orm";
import type { Db } from "../../../db/database";
import { userAnnotatorKey, isCampaignAnnotator } from "../../../db/repositories/annotation/campaigns";
import { labelsOfTrajectory } from "../../../db/repositories/annotation/labels";
import {
  blindedTrajectoryIds,
  isAgentHiddenFor,
  isBlindedFor,
  labelsInBlindCampaign,
  recordReveal,
  isInAnnotatorCampaigns,
  visibleToUserSql,
} from "../../../db/repositories/access/blind-rule";
import { hasRole, type Actor } from "../../domain/access/actor";
import type { PlayerTrajectory } from "../trajectory-views";
import { AppError } from "../../errors";

export class BlindError extends AppError {
  // No trajectory id in the message: annotators must not learn which id an item of theirs has.
  constructor() {
    super(
      "FORBIDDEN",
      "This trajectory is in your blind labelling queue: its evaluations and other people's labels are hidden until you submit your own label",
    );
    this.name = "BlindError";
  }
}

/** Throws FORBIDDEN when the blind rule hides this trajectory's evaluations from the user. */
export async function assertMayViewEvaluations(db: Db, userId: string, trajectoryId: number): Promise<void> {
  if (await isBlindedFor(db, userId, trajectoryId)) throw new BlindError();
  // Noted for anyone who labels the trajectory somewhere, labelled yet or not (a campaign made non-blind, or one
  // they join later): any label they submit afterwards is flagged as made after seeing evaluations.
  if ((await labelsInBlindCampaign(db, userId, trajectoryId)) || (await isInAnnotatorCampaigns(db, userId, trajectoryId)))
    await recordReveal(db, userId, trajectoryId);
}

export async function mayViewEvaluations(db: Db, userId: string, trajectoryId: number): Promise<boolean> {
  return !(await isBlindedFor(db, userId, trajectoryId));
}

export interface EvaluationFilter {
  /** Trajectories whose evaluations are hidden from this user. */
  hidden: ReadonlySet<number>;
  isVisible(trajectoryId: number): boolean;
  /** Keeps the rows whose trajectory the user may see evaluations of. */
  filter<T>(rows: readonly T[], trajectoryIdOf: (row: T) => number): T[];
  /**
   * An SQL condition for list queries: true for rows whose trajectory column is visible. For example
   * `.where(and(cond, filter.visibleSql(evaluatorVerdicts.trajectoryId)))`.
   */
  visibleSql(trajectoryIdColumn: SQL | { getSQL(): SQL }): SQL;
}

/** The blind rule for one user, for filtering lists of evaluations. */
export async function visibleEvaluationFilter(db: Db, userId: string): Promise<EvaluationFilter> {
  const hidden = new Set(await blindedTrajectoryIds(db, userId));
  return {
    hidden,
    isVisible: (id) => !hidden.has(id),
    filter: (rows, idOf) => (hidden.size ? rows.filter((r) => !hidden.has(idOf(r))) : [...rows]),
    visibleSql: (column) => visibleToUserSql(column, userId),
  };
}

/**
 * Labels on a trajectory that a viewer may see: always their own; other people's only when the blind rule allows
 * it, and for annotators only in campaigns they label in. Researchers and admins see every campaign's labels.
 */
export async function visibleLabelsOfTrajectory(db: Db, viewer: Actor, trajectoryId: number) {
  const rows = await labelsOfTrajectory(db, trajectoryId);
  const ownKey = userAnnotatorKey(viewer.userId);
  const mayViewOthers = await mayViewEvaluations(db, viewer.userId, trajectoryId);
  const researcher = hasRole(viewer, "researcher");
  const memberOf = new Map<number, boolean>();
  const visible: typeof rows = [];
  for (const row of rows) {
    const { label } = row;
    if (label.annotatorKey !== ownKey) {
      if (!mayViewOthers) continue;
      if (!researcher) {
        if (!memberOf.has(label.campaignId)) memberOf.set(label.campaignId, await isCampaignAnnotator(db, label.campaignId, viewer.userId));
        if (!memberOf.get(label.campaignId)) continue;
      }
    }
    visible.push(row);
  }
  if (visible.some((r) => r.label.annotatorKey !== ownKey)) await assertMayViewEvaluations(db, viewer.userId, trajectoryId);
  return {
    hiddenByBlind: !mayViewOthers,
    labels: visible.map(({ label, campaignName }) => ({
      id: label.id,
      campaignId: label.campaignId,
      campaignName,
      annotatorName: label.annotatorName,
      own: label.annotatorKey === ownKey,
      origin: label.origin,
      verdict: label.verdict,
      category: label.category,
      firstFailingStep: label.firstFailingStep,
      note: label.note,
      revision: label.revision,
      updatedAt: label.updatedAt,
    })),
  };
}

/**
 * For views that show evaluations of many trajectories at once (analytics, a campaign's label export): refused
 * while the user still has trajectories to label blind, since any of them could be among those shown.
 */
export async function assertNotLabellingBlind(db: Db, userId: string): Promise<void> {
  const hidden = await blindedTrajectoryIds(db, userId);
  if (hidden.length) {
    throw new AppError(
      "FORBIDDEN",
      `You are labelling ${hidden.length} trajector${hidden.length === 1 ? "y" : "ies"} blind; views with judge verdicts and other people's labels open once you have labelled them`,
    );
  }
}

// ---------------------------------------------------------------- agent identity

/**
 * Which agent (run, model) made a trajectory is hidden by the same rule as its evaluations: knowing "this is the
 * GPT-4V run" biases a grade as much as seeing the judge's. Shown in place of the run's name.
 */
export const HIDDEN_AGENT = "Agent hidden (blind)";

interface AgentFields {
  runId: number;
  runName: string;
  agentName: string;
  model: string | null;
}

/** A list row with its agent replaced when `hidden` holds its trajectory; `agentHidden` says which. */
export function hideAgentInRow<R extends AgentFields & { id: number }>(row: R, hidden: ReadonlySet<number>): R & { agentHidden: boolean } {
  if (!hidden.has(row.id)) return { ...row, agentHidden: false };
  return { ...row, runId: 0, runName: HIDDEN_AGENT, agentName: HIDDEN_AGENT, model: null, agentHidden: true };
}

/**
 * The player's trajectory as a blind labeller may see it: no run, model or source system, no trajectory id,
 * import times, source format or path (ids and times follow import order, so they would line trajectories up
 * with runs), and no reference answers or rule configuration (evaluator information). Unchanged when the rule
 * does not hide the trajectory's agent from this user: it does while they have not labelled it, and after that
 * while another attempt at its task is still theirs to label blind in a campaign that is not closed.
 */
export async function hideAgentInTrajectory(db: Db, userId: string, t: PlayerTrajectory): Promise<PlayerTrajectory> {
  if (!(await isAgentHiddenFor(db, userId, t.trajectory.id))) return t;
  return withAgentHidden(t);
}

/**
 * The player's trajectory with everything that could name its agent taken out (see hideAgentInTrajectory), for
 * viewers who never learn the agent whatever the blind rule says: annotators reviewing QA.
 */
export function withAgentHidden(t: PlayerTrajectory): PlayerTrajectory {
  return {
    ...t,
    trajectory: { ...t.trajectory, id: 0, sourcePath: null, sourceFormat: HIDDEN_AGENT, createdAt: new Date(0), updatedAt: new Date(0) },
    task: { ...t.task, referenceAnswers: [], hasEvaluatorConfig: false },
    run: { id: 0, name: HIDDEN_AGENT, agentName: HIDDEN_AGENT, model: null, sourceSystem: HIDDEN_AGENT },
    agentHidden: true,
  };
}
