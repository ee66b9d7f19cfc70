/**
 * Blind → reveal → revise on the judge-agreement view: per evaluator shown, how far its verdict moved the humans
 * (flip rates toward and away from it), Cohen's κ with it before and after the reveal with task-resampled
 * intervals, and which categories flipped (server/domain/agreement/reveal.ts has the definitions).
 */
import type { Db } from "../../../db/database";
import { revealRowsOfCampaign } from "../../../db/repositories/annotation/reveals";
import { revealMeasures, type RevealMeasures } from "../../domain/agreement/reveal";
import { parseEvaluatorId } from "../../domain/analytics/measures";

export interface RevealEvaluatorMeasures {
  evaluatorId: string;
  evaluatorName: string;
  /** Annotators who were shown this evaluator. */
  annotators: number;
  measures: RevealMeasures;
}

export interface RevealAgreementResult {
  /** The campaign the pairs come from, or null for every campaign with reveals. */
  campaignId: number | null;
  evaluators: RevealEvaluatorMeasures[];
}

export async function revealAgreement(
  db: Db,
  input: { campaignId?: number; bootstrap?: { replicates?: number; seed?: number } },
): Promise<RevealAgreementResult> {
  const rows = await revealRowsOfCampaign(db, input.campaignId);
  const groups = new Map<string, typeof rows>();
  for (const r of rows) {
    const list = groups.get(r.reveal.evaluatorId);
    if (list) list.push(r);
    else groups.set(r.reveal.evaluatorId, [r]);
  }
  const evaluators = [...groups.entries()].map(([evaluatorId, list]) => {
    const k = parseEvaluatorId(evaluatorId)?.k;
    const name = list[list.length - 1]!.reveal.evaluatorName;
    return {
      evaluatorId,
      evaluatorName: k ? `${name} · k = ${k}` : name,
      annotators: new Set(list.map((r) => r.reveal.annotatorKey)).size,
      measures: revealMeasures(
        list.map((r) => ({
          taskKey: r.taskId,
          evaluator: r.reveal.evaluatorVerdict,
          blindVerdict: r.reveal.blindVerdict,
          blindCategory: r.reveal.blindCategory,
          informedVerdict: r.reveal.decision ? r.reveal.informedVerdict : null,
          informedCategory: r.reveal.decision ? r.reveal.informedCategory : null,
        })),
        { replicates: input.bootstrap?.replicates ?? 1000, seed: input.bootstrap?.seed ?? 1 },
      ),
    };
  });
  evaluators.sort((a, b) => a.evaluatorName.localeCompare(b.evaluatorName) || a.evaluatorId.localeCompare(b.evaluatorId));
  return { campaignId: input.campaignId ?? null, evaluators };
}
