/**
 * A staged judge's criteria against a labelled campaign's consolidated labels (server/domain/evaluation/
 * criteria-agreement.ts), with how many of its citations could not be checked. For `judge-criteria` and the API.
 */
import type { Db } from "../../../db/database";
import { campaignItemsWithLabels } from "../../../db/repositories/evaluation/improvement";
import { citationTotals, criteriaOfSetting } from "../../../db/repositories/evaluation/verdict-evidence";
import { listVerdicts } from "../../../db/repositories/evaluation/verdicts";
import { criteriaAgreement, type CriteriaAgreement, type LabelledVerdict } from "../../domain/evaluation/criteria-agreement";
import { protocolOfVersion } from "../../domain/evaluation/judge-protocol";
import { isStagedVersion } from "../../domain/evaluation/staged-protocols";
import { formatK, type CriterionResult, type JudgeK } from "../../domain/evaluation/verdicts";
import { ValidationError } from "../../errors";
import { judgeEvaluatorKey, requireJudgeConfig } from "./judge-configs";
import { requireCampaignRef } from "./stress-tests";

export interface CriteriaReport extends CriteriaAgreement {
  config: { id: number; name: string; protocol: string };
  campaign: { id: number; name: string };
  k: string;
  promptVersion: string;
  /** Campaign items without a consolidated success or failure (left out). */
  leftOut: number;
  /** Labelled items without a verdict of this setting yet. */
  missing: number;
  citations: { verdicts: number; citations: number; unverifiable: number };
}

export async function criteriaReport(db: Db, req: { config: number | string; campaign: number | string; k: JudgeK }): Promise<CriteriaReport> {
  const config = await requireJudgeConfig(db, req.config);
  if (!isStagedVersion(config.promptVersion)) {
    throw new ValidationError(
      `judge configuration ${config.name} uses the ${protocolOfVersion(config.promptVersion)} protocol, which grades no criteria: choose a key-points or rubric configuration`,
    );
  }
  const campaign = await requireCampaignRef(db, req.campaign);
  const k = formatK(req.k);
  const evaluatorKey = judgeEvaluatorKey(config.id);
  const setting = { evaluatorKey, k, promptVersion: config.promptVersion };
  const verdicts = new Map(
    (await listVerdicts(db, { evaluatorKey, k })).filter((v) => v.promptVersion === config.promptVersion).map((v) => [v.trajectoryId, v]),
  );
  const items: LabelledVerdict[] = [];
  let leftOut = 0;
  for (const it of await campaignItemsWithLabels(db, campaign.id)) {
    if (it.verdict !== "success" && it.verdict !== "failure") {
      leftOut++;
      continue;
    }
    const v = verdicts.get(it.trajectoryId);
    const process = (v?.details as { process?: CriterionResult } | null)?.process ?? null;
    items.push({ trajectoryId: it.trajectoryId, taskId: it.taskId, human: it.verdict, verdict: v?.verdict ?? null, process });
  }
  const labelled = new Set(items.map((i) => i.trajectoryId));
  const rows = (await criteriaOfSetting(db, setting)).filter((r) => labelled.has(r.trajectoryId));
  const cites = (await citationTotals(db, evaluatorKey)).find((c) => c.k === k && c.promptVersion === config.promptVersion);
  return {
    config: { id: config.id, name: config.name, protocol: protocolOfVersion(config.promptVersion) },
    campaign: { id: campaign.id, name: campaign.name },
    k,
    promptVersion: config.promptVersion,
    leftOut,
    missing: items.filter((i) => i.verdict === null).length,
    citations: { verdicts: cites?.verdicts ?? 0, citations: cites?.citations ?? 0, unverifiable: cites?.unverifiable ?? 0 },
    ...criteriaAgreement(items, rows),
  };
}
