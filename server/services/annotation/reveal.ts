/**
 * Blind → reveal → revise. In a campaign with a reveal evaluator, once an annotator has submitted their blind
 * label on an item, Verdict shows them that evaluator's verdict, rationale and the screenshots it was sent, and
 * asks them to keep or revise their label with a reason. Both stages are kept (db/schema/reveal.ts):
 *
 * - nothing of the evaluator is shown before the blind submit: `revealItem` refuses while the annotator has no
 *   active label on the item, and waits while they still label another trajectory of the same task blind (a
 *   rationale reads the task and would anchor that label too);
 * - the blind label is frozen by the reveal: `assertBlindLabelOpen` (called by submit and undo) refuses to change
 *   a label whose evaluator was shown, so the blind stage cannot be rewritten after the fact;
 * - the informed stage is decided once.
 */
import type { Db } from "../../../db/database";
import { withTransaction } from "../../../db/database";
import { LABELLING_TRANSACTION } from "./transactions";
import { recordReveal, taskLabelledBlindBy } from "../../../db/repositories/access/blind-rule";
import { getItemByNumber, isCampaignAnnotator, trajectoryStepCount, userAnnotatorKey } from "../../../db/repositories/annotation/campaigns";
import { findVerdict } from "../../../db/repositories/evaluation/verdicts";
import { getLabelByKey, labelHistory } from "../../../db/repositories/annotation/labels";
import { insertRevealOnce, revealOfLabel, setRevealDecision, stepScreenshotsAt, trajectoryTaskId } from "../../../db/repositories/annotation/reveals";
import type { LabelRevealRow, RevealDecision } from "../../../db/schema/index";
import type { Actor } from "../../domain/access/actor";
import { parseEvaluatorId } from "../../domain/analytics/measures";
import { LabelValidationError, validateLabel } from "../../domain/annotation/label-schema";
import { AppError, ConflictError, NotFoundError, ValidationError } from "../../errors";
import { requireCampaign } from "./campaign-lookup";

/** Checks a campaign's reveal evaluator setting: an analytics evaluator id "key|k|prompt version", or null. */
export function checkRevealEvaluator(value: string | null | undefined, blind: boolean): string | null {
  if (value === undefined || value === null || value === "") return null;
  if (!parseEvaluatorId(value))
    throw new ValidationError(`revealEvaluator: an evaluator id such as "judge:1|3|v2" (key|k|prompt version), got ${JSON.stringify(value)}`);
  if (!blind) throw new ValidationError("revealEvaluator: revealing an evaluator after the blind submit needs a blind campaign (blind: true)");
  return value;
}

/** Refuses to change a label whose evaluator was already shown to its annotator (the blind stage is final). */
export async function assertBlindLabelOpen(db: Db, labelId: number): Promise<void> {
  if (await revealOfLabel(db, labelId)) {
    throw new ConflictError(
      "Your blind label on this item is final: the evaluator's verdict was shown to you after it. Keep or revise it in the reveal panel (the informed stage) instead",
    );
  }
}

async function requireAnnotatorItem(db: Db, actor: Actor, campaignId: number, itemNo: number) {
  const campaign = await requireCampaign(db, campaignId);
  if (!(await isCampaignAnnotator(db, campaignId, actor.userId)))
    throw new AppError("FORBIDDEN", `You are not an annotator of campaign ${JSON.stringify(campaign.name)}`);
  const item = await getItemByNumber(db, campaignId, itemNo);
  if (!item) throw new NotFoundError(`item of campaign ${campaignId}`, itemNo);
  if (!campaign.revealEvaluator)
    throw new AppError("PRECONDITION_FAILED", `Campaign ${JSON.stringify(campaign.name)} does not reveal an evaluator after the blind label`);
  return { campaign, item };
}

export interface RevealView {
  /** revealed: shown below; waiting: another trajectory of this task is still to be labelled blind; no_verdict: the evaluator has none here. */
  status: "revealed" | "waiting" | "no_verdict";
  message: string | null;
  evaluator: { name: string; verdict: string; rationale: string | null; firstFailingStep: number | null; k: string } | null;
  /** The screenshots the evaluator was sent (step index 0-based, image hash), oldest first. */
  screenshots: { step: number; hash: string }[];
  blind: { verdict: string; category: string | null; firstFailingStep: number | null; note: string | null; at: Date } | null;
  informed: { decision: RevealDecision; verdict: string; category: string | null; firstFailingStep: number | null; reason: string; at: Date } | null;
}

function informedOf(r: LabelRevealRow): RevealView["informed"] {
  if (!r.decision || !r.informedVerdict || !r.decidedAt) return null;
  return {
    decision: r.decision,
    verdict: r.informedVerdict,
    category: r.informedCategory,
    firstFailingStep: r.informedFirstFailingStep,
    reason: r.reason ?? "",
    at: r.decidedAt,
  };
}

/**
 * Shows the campaign's evaluator on an item the annotator has labelled blind, recording the moment (which freezes
 * the blind label). Idempotent: a reload shows the same reveal and the blind stage as first recorded.
 */
export async function revealItem(db: Db, actor: Actor, campaignId: number, itemNo: number, now = Date.now()): Promise<RevealView> {
  return withTransaction(
    db,
    async () => {
      const { campaign, item } = await requireAnnotatorItem(db, actor, campaignId, itemNo);
      const label = await getLabelByKey(db, item.id, userAnnotatorKey(actor.userId));
      if (!label || label.status !== "active") {
        throw new AppError("FORBIDDEN", "Submit your own label first: the evaluator's verdict is shown only after your blind label on this trajectory");
      }
      const empty = { evaluator: null, screenshots: [], blind: null, informed: null };
      const existing = await revealOfLabel(db, label.id);
      if (!existing) {
        const taskId = await trajectoryTaskId(db, item.trajectoryId);
        if (taskId !== undefined && (await taskLabelledBlindBy(db, actor.userId, taskId))) {
          return {
            status: "waiting",
            message:
              "You still have another trajectory of this task to label blind; the evaluator's verdict on this one is shown once you have labelled it (come back to this item from your done list).",
            ...empty,
          };
        }
      }
      const identity = parseEvaluatorId(campaign.revealEvaluator!)!;
      const verdict = await findVerdict(db, { trajectoryId: item.trajectoryId, evaluatorKey: identity.key, k: identity.k, promptVersion: identity.pv });
      if (!existing && !verdict)
        return {
          status: "no_verdict",
          message: "The campaign's evaluator has no verdict on this trajectory: your blind label stands, nothing to review.",
          ...empty,
        };
      let reveal = existing;
      if (!reveal) {
        // When the blind label was last submitted (its newest submit still in effect).
        const submits = (await labelHistory(db, label.id)).filter((r) => r.action === "submit" && r.undoneByRevisionId === null);
        const blindAt = submits.length ? submits[submits.length - 1]!.createdAt : label.updatedAt;
        reveal = await insertRevealOnce(db, {
          campaignId: campaign.id,
          itemId: item.id,
          labelId: label.id,
          trajectoryId: item.trajectoryId,
          annotatorKey: label.annotatorKey,
          userId: actor.userId,
          annotatorName: actor.name,
          evaluatorId: campaign.revealEvaluator!,
          evaluatorName: verdict!.evaluatorName,
          evaluatorVerdict: verdict!.verdict,
          evaluatorRationale: verdict!.rationale,
          blindVerdict: label.verdict,
          blindCategory: label.category,
          blindFirstFailingStep: label.firstFailingStep,
          blindNote: label.note,
          blindAt,
          revealedAt: new Date(now),
        });
        await recordReveal(db, actor.userId, item.trajectoryId);
      }
      const shownSteps = verdict?.stepIndices ?? [];
      const screenshots = (await stepScreenshotsAt(db, item.trajectoryId, shownSteps))
        .map((s) => ({ step: s.index, hash: s.screenshotHash ?? s.rawScreenshotHash }))
        .filter((s): s is { step: number; hash: string } => !!s.hash);
      return {
        status: "revealed",
        message: null,
        // As recorded when it was shown: a later re-run of the evaluator does not change what this annotator saw.
        evaluator: {
          name: reveal.evaluatorName,
          verdict: reveal.evaluatorVerdict,
          rationale: reveal.evaluatorRationale,
          firstFailingStep: verdict?.firstFailingStep ?? null,
          k: identity.k,
        },
        screenshots,
        blind: {
          verdict: reveal.blindVerdict,
          category: reveal.blindCategory,
          firstFailingStep: reveal.blindFirstFailingStep,
          note: reveal.blindNote,
          at: reveal.blindAt,
        },
        informed: informedOf(reveal),
      };
    },
    LABELLING_TRANSACTION,
  );
}

export interface RevealDecisionInput {
  campaignId: number;
  itemNo: number;
  decision: RevealDecision;
  /** Revise: the informed label. */
  verdict?: string | null;
  category?: string | null;
  firstFailingStep?: number | null;
  /** Why the annotator keeps or revises their label (required). */
  reason: string;
}

/** Stores the informed stage: the blind label kept, or a revised one, with the annotator's reason. Once. */
export async function decideReveal(db: Db, actor: Actor, input: RevealDecisionInput, now = Date.now()): Promise<RevealView["informed"]> {
  if (input.decision !== "keep" && input.decision !== "revise") throw new ValidationError(`decision: keep or revise, got ${JSON.stringify(input.decision)}`);
  const reason = typeof input.reason === "string" ? input.reason.trim() : "";
  if (!reason) throw new ValidationError("reason: say why you keep or revise your label after seeing the evaluator");
  if (reason.length > 5000) throw new ValidationError("reason: at most 5000 characters");
  return withTransaction(
    db,
    async () => {
      const { campaign, item } = await requireAnnotatorItem(db, actor, input.campaignId, input.itemNo);
      if (campaign.status !== "active") throw new ConflictError(`Campaign ${JSON.stringify(campaign.name)} is closed`);
      const label = await getLabelByKey(db, item.id, userAnnotatorKey(actor.userId));
      const reveal = label && label.status === "active" ? await revealOfLabel(db, label.id) : undefined;
      if (!reveal)
        throw new AppError(
          "PRECONDITION_FAILED",
          "The evaluator's verdict has not been shown to you on this item yet: submit your blind label, then review the reveal",
        );
      if (reveal.decision)
        throw new ConflictError(
          `You already ${reveal.decision === "keep" ? "kept" : "revised"} your label on this item after the reveal; the informed stage is recorded once`,
        );
      let informed = { verdict: reveal.blindVerdict as string, category: reveal.blindCategory, firstFailingStep: reveal.blindFirstFailingStep };
      if (input.decision === "revise") {
        if (input.verdict === undefined || input.verdict === null) throw new ValidationError("verdict: a revised label needs its verdict");
        try {
          const v = validateLabel(
            campaign.labelSchema,
            {
              verdict: input.verdict,
              category: input.category ?? null,
              firstFailingStep: input.firstFailingStep ?? null,
              note: reason,
              ...(label!.answers ? { answers: label!.answers } : {}),
            },
            (await trajectoryStepCount(db, item.trajectoryId)) ?? 0,
          );
          informed = { verdict: v.verdict, category: v.category, firstFailingStep: v.firstFailingStep };
        } catch (e) {
          if (e instanceof LabelValidationError) throw new ValidationError(e.message);
          throw e;
        }
        if (
          informed.verdict === reveal.blindVerdict &&
          informed.category === reveal.blindCategory &&
          informed.firstFailingStep === reveal.blindFirstFailingStep
        ) {
          throw new ValidationError("verdict: the revised label is the same as your blind label; choose keep instead");
        }
      }
      const at = new Date(now);
      const values = {
        decision: input.decision,
        informedVerdict: informed.verdict as LabelRevealRow["informedVerdict"],
        informedCategory: informed.category,
        informedFirstFailingStep: informed.firstFailingStep,
        reason,
        decidedAt: at,
      };
      if (!(await setRevealDecision(db, reveal.id, values)))
        throw new ConflictError("You already kept or revised your label on this item after the reveal; the informed stage is recorded once");
      return informedOf({ ...reveal, ...values });
    },
    LABELLING_TRANSACTION,
  );
}
