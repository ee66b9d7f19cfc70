/**
 * Verdicts posted by an evaluator that runs outside Verdict (a lab's own judge, a CI check) through the API. They
 * are stored like imported judges' verdicts, under the evaluator key `external:<name>`, so the agreement views,
 * the player and the exports treat them as any other judge.
 *
 * Posting is idempotent: a verdict is identified by (trajectory, evaluator, k, prompt version), as every verdict
 * is. Sending the same content again, or the same client key again, changes nothing and says "unchanged"; sending
 * new content for the same identity replaces the verdict and says "replaced".
 */
import { z } from "zod";
import { findVerdict, upsertVerdict } from "../../../db/repositories/evaluation/verdicts";
import { getTrajectoryHead } from "../../../db/repositories/trajectories";
import type { Db } from "../../../db/database";
import { NotFoundError, ValidationError } from "../../errors";

export const EXTERNAL_EVALUATOR_PREFIX = "external:";

export const externalVerdictInput = z.object({
  trajectoryId: z.number().int().positive(),
  /** The evaluator's name as people should read it ("lab-judge-v3"). */
  evaluator: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[\w .:@/+-]+$/u, "evaluator: letters, digits, spaces and . : @ / + - _ only"),
  verdict: z.enum(["success", "failure", "not_evaluable"]),
  score: z.number().finite().min(0).max(1).nullable().default(null),
  rationale: z.string().max(20_000).nullable().default(null),
  /** 0-based index of the first step the evaluator says went wrong. */
  firstFailingStep: z.number().int().nonnegative().nullable().default(null),
  /** How many last screenshots the evaluator saw ("1", "3", "full"); empty when that does not apply. */
  k: z
    .string()
    .max(20)
    .regex(/^(|full|[1-9]\d{0,3})$/, 'k: a positive number, "full", or empty')
    .default(""),
  promptVersion: z.string().trim().max(100).default(""),
  model: z.string().trim().max(200).nullable().default(null),
  /** A key of the client's choosing (e.g. a run id + trajectory): a retry with the same key changes nothing. */
  key: z.string().trim().min(1).max(200).nullable().default(null),
});

export type ExternalVerdictInput = z.infer<typeof externalVerdictInput>;

export interface RecordedVerdict {
  id: number;
  status: "created" | "replaced" | "unchanged";
  evaluatorKey: string;
}

function sameContent(
  stored: { verdict: string; score: number | null; rationale: string | null; firstFailingStep: number | null; model: string | null },
  v: ExternalVerdictInput,
): boolean {
  return (
    stored.verdict === v.verdict &&
    stored.score === v.score &&
    stored.rationale === v.rationale &&
    stored.firstFailingStep === v.firstFailingStep &&
    stored.model === v.model
  );
}

export async function recordExternalVerdict(db: Db, v: ExternalVerdictInput, postedBy: string): Promise<RecordedVerdict> {
  const head = await getTrajectoryHead(db, v.trajectoryId);
  if (!head) throw new NotFoundError("trajectory", v.trajectoryId);
  if (v.firstFailingStep !== null && v.firstFailingStep >= head.trajectory.stepCount) {
    throw new ValidationError(
      `firstFailingStep: trajectory ${v.trajectoryId} has ${head.trajectory.stepCount} steps (0 to ${head.trajectory.stepCount - 1}), not ${v.firstFailingStep + 1}`,
    );
  }
  const evaluatorKey = `${EXTERNAL_EVALUATOR_PREFIX}${v.evaluator}`;
  const identity = { trajectoryId: v.trajectoryId, evaluatorKey, k: v.k, promptVersion: v.promptVersion };
  const stored = await findVerdict(db, identity);
  const storedKey = (stored?.details as { clientKey?: unknown } | null | undefined)?.clientKey;
  if (stored && ((v.key !== null && storedKey === v.key) || sameContent(stored, v))) return { id: stored.id, status: "unchanged", evaluatorKey };
  const { id } = await upsertVerdict(db, {
    ...identity,
    kind: "judge",
    origin: "import",
    evaluatorName: v.evaluator,
    verdict: v.verdict,
    score: v.score,
    rationale: v.rationale,
    firstFailingStep: v.firstFailingStep,
    model: v.model,
    rawReply: JSON.stringify(v),
    details: { postedBy, via: "api", ...(v.key !== null ? { clientKey: v.key } : {}) },
  });
  return { id, status: stored ? "replaced" : "created", evaluatorKey };
}
