/**
 * A campaign's blind and informed stages as a CUAVerifierBench-like file (researchers; see
 * server/domain/agreement/reveal-export.ts for the columns). Closed to anyone still labelling blind, like every
 * label export.
 */
import type { Db } from "../../../db/database";
import { revealRowsOfCampaign } from "../../../db/repositories/annotation/reveals";
import type { Actor } from "../../domain/access/actor";
import { revealStagesCsv, revealStagesJsonl, type RevealStageRow } from "../../domain/agreement/reveal-export";
import { parseEvaluatorId } from "../../domain/analytics/measures";
import { campaignForExport, csvOrJsonlFile } from "./campaign-lookup";

const stepNumber = (index: number | null) => (index === null ? null : index + 1);

/** The stages of every reveal in a campaign: a blind row each, and an informed row once the annotator decided. */
export async function revealStageRows(db: Db, campaignId: number): Promise<RevealStageRow[]> {
  const out: RevealStageRow[] = [];
  for (const { reveal: r, itemNo, externalTaskId, agentName } of await revealRowsOfCampaign(db, campaignId)) {
    const common = { trajectoryId: r.trajectoryId, itemNo: itemNo ?? 0, reviewer: r.annotatorName, taskId: externalTaskId, agent: agentName };
    out.push({
      ...common,
      stage: "blind",
      verdict: r.blindVerdict,
      reasoning: r.blindNote,
      category: r.blindCategory,
      failureStepNumber: stepNumber(r.blindFirstFailingStep),
      evaluatorShown: null,
      evaluatorId: null,
      evaluatorVerdict: null,
      decision: null,
      at: r.blindAt.toISOString(),
    });
    if (r.decision && r.informedVerdict && r.decidedAt) {
      const k = parseEvaluatorId(r.evaluatorId)?.k;
      out.push({
        ...common,
        stage: "informed",
        verdict: r.informedVerdict,
        reasoning: r.reason,
        category: r.informedCategory,
        failureStepNumber: stepNumber(r.informedFirstFailingStep),
        evaluatorShown: k ? `${r.evaluatorName} · k = ${k}` : r.evaluatorName,
        evaluatorId: r.evaluatorId,
        evaluatorVerdict: r.evaluatorVerdict,
        decision: r.decision,
        at: r.decidedAt.toISOString(),
      });
    }
  }
  return out;
}

export async function exportRevealStages(
  db: Db,
  actor: Actor,
  campaignId: number,
  format: "csv" | "jsonl",
): Promise<{ fileName: string; contentType: string; body: string }> {
  const { slug } = await campaignForExport(db, actor, campaignId);
  const rows = await revealStageRows(db, campaignId);
  return csvOrJsonlFile(slug, "reveal-stages", format, { csv: () => revealStagesCsv(rows), jsonl: () => revealStagesJsonl(rows) });
}
