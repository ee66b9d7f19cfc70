/**
 * A staged judge's criteria against a labelled campaign's consolidated labels (server/domain/evaluation/
 * criteria-agreement.ts), with how many of its citations could not be checked. For `judge-criteria` and the judge's
 * analytics page.
 */
import type { Db } from "../../../db/database";
import { campaignItemsWithLabels } from "../../../db/repositories/evaluation/improvement";
import { getCampaign } from "../../../db/repositories/annotation/campaigns";
import { getJudgeConfig, type PublicJudgeConfig } from "../../../db/repositories/evaluation/verdicts";
import { campaignsOverCriteriaOf, citationTotals, criteriaOfSetting } from "../../../db/repositories/evaluation/verdict-evidence";
import { listVerdicts } from "../../../db/repositories/evaluation/verdicts";
import { criteriaAgreement, type CriteriaAgreement, type LabelledVerdict } from "../../domain/evaluation/criteria-agreement";
import { effectivePromptVersion, protocolOfVersion } from "../../domain/evaluation/judge-protocol";
import { isStagedVersion } from "../../domain/evaluation/staged-protocols";
import { formatK, parseK, type CriterionResult, type JudgeK } from "../../domain/evaluation/verdicts";
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
  return await scoreCriteria(db, config, await requireCampaignRef(db, req.campaign), formatK(req.k));
}

/**
 * The prompt version this configuration's own verdicts carry: its version with a suffix per option that changes the
 * prompt (a judge asked for the first failing step, or shown no final answer, records "…+first-step", "…+no-answer").
 */
function storedPromptVersion(config: PublicJudgeConfig): string {
  return effectivePromptVersion(config.promptVersion, config.options);
}

/**
 * The criteria report of one setting on the judge's analytics page (`judge:<config id>`, k): against the named
 * campaign, else the newest campaign whose consolidated labels cover a trajectory the setting graded criteria on.
 * Null when the evaluator is no key-point or rubric judge configuration (there are no criteria to score); `campaign`
 * null when no labelled trajectory has criteria yet (the page's empty state).
 */
export async function judgeCriteriaOfSetting(
  db: Db,
  req: { evaluatorKey: string; k: string; campaignId?: number },
): Promise<{ report: CriteriaReport | null; protocol: string } | null> {
  const configId = /^judge:(\d+)$/.exec(req.evaluatorKey)?.[1];
  if (!configId || !req.k) return null;
  const config = await getJudgeConfig(db, Number(configId));
  if (!config || !isStagedVersion(config.promptVersion)) return null;
  const protocol = protocolOfVersion(config.promptVersion);
  const k = formatK(parseK(req.k));
  const setting = { evaluatorKey: req.evaluatorKey, k, promptVersion: storedPromptVersion(config) };
  const campaignId = req.campaignId ?? (await campaignsOverCriteriaOf(db, setting))[0];
  const campaign = campaignId === undefined ? undefined : await getCampaign(db, campaignId);
  if (!campaign) return { report: null, protocol };
  return { report: await scoreCriteria(db, config, campaign, k), protocol };
}

async function scoreCriteria(db: Db, config: PublicJudgeConfig, campaign: { id: number; name: string }, k: string): Promise<CriteriaReport> {
  const evaluatorKey = judgeEvaluatorKey(config.id);
  const promptVersion = storedPromptVersion(config);
  const setting = { evaluatorKey, k, promptVersion };
  const verdicts = new Map((await listVerdicts(db, { evaluatorKey, k })).filter((v) => v.promptVersion === promptVersion).map((v) => [v.trajectoryId, v]));
  const items: LabelledVerdict[] = [];
  let leftOut = 0;
  for (const it of await campaignItemsWithLabels(db, campaign.id)) {
    if (it.verdict !== "success" && it.verdict !== "failure") {
      leftOut++;
      continue;
    }
    const v = verdicts.get(it.trajectoryId);
    const process = (v?.details as { process?: CriterionResult } | null)?.process ?? null;
    items.push({
      trajectoryId: it.trajectoryId,
      taskId: it.taskId,
      taskExternalId: it.taskExternalId,
      human: it.verdict,
      verdict: v?.verdict ?? null,
      process,
    });
  }
  const labelled = new Set(items.map((i) => i.trajectoryId));
  const rows = (await criteriaOfSetting(db, setting)).filter((r) => labelled.has(r.trajectoryId));
  const cites = (await citationTotals(db, evaluatorKey)).find((c) => c.k === k && c.promptVersion === promptVersion);
  return {
    config: { id: config.id, name: config.name, protocol: protocolOfVersion(config.promptVersion) },
    campaign: { id: campaign.id, name: campaign.name },
    k,
    promptVersion,
    leftOut,
    missing: items.filter((i) => i.verdict === null).length,
    citations: { verdicts: cites?.verdicts ?? 0, citations: cites?.citations ?? 0, unverifiable: cites?.unverifiable ?? 0 },
    ...criteriaAgreement(items, rows),
  };
}
