/**
 * Stress tests: how fragile a judge is to what it is shown. A judge configuration (or one of its alignment study's
 * prompt versions) is asked again about a labelled campaign's trajectories with its screenshots shuffled, with a
 * random subset of k of them, without the agent's final answer and without the action history, beside its own
 * prompt on the same items. Per perturbation the report gives the flip rate (Wilson interval), κ against the
 * consolidated human labels before and after with the paired change in κ (bootstrap interval), FPR/FNR, and the
 * flipped items.
 *
 * A stress test is a judge batch with one variant per perturbation plus the unperturbed prompt
 * (server/domain/evaluation/prompt-variants.ts): its calls run as the queue's judge jobs in any worker, are estimated
 * before anything is sent (dry run), and a cancelled or failed run resumes where it stopped. Unperturbed verdicts
 * already stored are reused, not paid for again.
 */
import { withTransaction, type Db } from "../../../db/database";
import { getCampaign, getCampaignByName } from "../../../db/repositories/annotation/campaigns";
import {
  campaignItemsWithLabels,
  getStressTest,
  insertStressTest,
  listStressTests as listStressTestRows,
} from "../../../db/repositories/evaluation/improvement";
import type { CampaignRow, JudgeBatchRow, JudgeStressTestRow } from "../../../db/schema/index";
import type { UnparseablePolicy } from "../../domain/analytics/measures";
import { compareOnItems, flippedItems, judgeOnItems, type Comparison, type FlippedItem, type JudgeOnItems } from "../../domain/evaluation/judge-comparison";
import {
  formatVariant,
  parseVariant,
  PERTURBATION_KINDS,
  PERTURBATION_LABELS,
  perturbationInapplicable,
  type Perturbation,
  type PerturbationKind,
} from "../../domain/evaluation/prompt-variants";
import { isStagedVersion } from "../../domain/evaluation/staged-protocols";
import { formatK, parseK, type JudgeK } from "../../domain/evaluation/verdicts";
import { NotFoundError, ValidationError } from "../../errors";
import { createJudgeBatch, estimateJudgeBatch, judgeBatchProgress, type BatchEstimate, type BatchProgress } from "./judge-batches";
import { requireJudgeConfig } from "./judge-configs";
import { resolveJudgeVariant, verdictsUnderVariants } from "./judge-variants";

export interface StressTestRequest {
  /** Judge configuration id or name. */
  config: number | string;
  /** The labelled campaign (id or name) whose consolidated labels the verdicts are compared with. */
  campaign: number | string;
  k: JudgeK;
  /** Default: all four. */
  perturbations?: PerturbationKind[];
  /** Screenshots a random subset keeps (default 2). */
  subsetK?: number;
  /** Seeds the shuffles and subsets (default 1): the same seed shows each trajectory the same screenshots. */
  seed?: number;
  /** Stress this prompt version of the configuration's alignment study instead of its own prompt. */
  promptVersionId?: number | null;
  /** Only the campaign's items among these trajectories (a list filter's); absent: the whole campaign. */
  onlyTrajectoryIds?: number[];
  /** How the selection is named in the batch's label ("list filter ?site=shop"). */
  selectionLabel?: string | null;
  concurrency?: number;
  createdBy?: string | null;
}

export interface StressTestPlan {
  configId: number;
  configName: string;
  campaignId: number;
  campaignName: string;
  k: string;
  seed: number;
  /** Campaign items with a consolidated success or failure: the items asked about. */
  trajectoryIds: number[];
  /** Campaign items left out, and why. */
  leftOut: { trajectoryId: number; reason: string }[];
  /** Campaign items outside the selection (0 without one). */
  outsideSelection: number;
  /** The unperturbed way of asking ("" = the configuration's own prompt, "pv12" = a prompt version). */
  base: string;
  perturbations: { perturbation: string; label: string; variant: string }[];
  /** Perturbations asked for that would change nothing for this configuration, and why. */
  skipped: { perturbation: string; reason: string }[];
  estimate: BatchEstimate;
}

export const DEFAULT_SUBSET_K = 2;
const DEFAULT_CONCURRENCY = 4;

function perturbationOf(kind: PerturbationKind, seed: number, subsetK: number): Perturbation {
  if (kind === "shuffle") return { kind, seed };
  if (kind === "subset") return { kind, k: subsetK, seed };
  return { kind };
}

export async function requireCampaignRef(db: Db, ref: number | string): Promise<CampaignRow> {
  const c = typeof ref === "number" || /^\d+$/.test(ref) ? await getCampaign(db, Number(ref)) : await getCampaignByName(db, ref);
  if (!c) throw new NotFoundError("campaign", ref);
  return c;
}

function labelOf(verdict: string | null): "success" | "failure" | null {
  return verdict === "success" || verdict === "failure" ? verdict : null;
}

/** Works out what a stress test will ask and what it will cost, without sending or storing anything. */
export async function planStressTest(db: Db, req: StressTestRequest): Promise<StressTestPlan> {
  const config = await requireJudgeConfig(db, req.config);
  const campaign = await requireCampaignRef(db, req.campaign);
  const seed = req.seed ?? 1;
  if (!Number.isInteger(seed) || seed < 0 || seed > 4_294_967_295) throw new ValidationError(`seed: a whole number from 0 to 4294967295, got ${seed}`);
  const subsetK = req.subsetK ?? DEFAULT_SUBSET_K;
  if (!Number.isInteger(subsetK) || subsetK < 1) throw new ValidationError(`subset k: a whole number of screenshots from 1, got ${subsetK}`);
  const kinds = req.perturbations ?? [...PERTURBATION_KINDS];
  if (kinds.length === 0) throw new ValidationError(`choose at least one perturbation (${PERTURBATION_KINDS.join(", ")})`);
  for (const kind of kinds)
    if (!PERTURBATION_KINDS.includes(kind)) throw new ValidationError(`unknown perturbation ${JSON.stringify(kind)}: one of ${PERTURBATION_KINDS.join(", ")}`);

  const base = req.promptVersionId != null ? formatVariant({ promptVersionId: req.promptVersionId }) : "";
  const resolvedBase = await resolveJudgeVariant(db, config, base);
  const perturbations: StressTestPlan["perturbations"] = [];
  const skipped: StressTestPlan["skipped"] = [];
  for (const kind of [...new Set(kinds)]) {
    const p = perturbationOf(kind, seed, subsetK);
    const text = formatVariant({ perturbation: p });
    let why = perturbationInapplicable(p, resolvedBase.configOptions, isStagedVersion(config.promptVersion));
    if (!why && kind === "shuffle" && req.k === 1) why = "k = 1 shows one screenshot: there is no order to shuffle";
    if (!why && kind === "subset" && typeof req.k === "number" && req.k <= subsetK)
      why = `k = ${req.k} already shows at most ${subsetK} screenshot(s): a subset of ${subsetK} is no smaller`;
    if (why) skipped.push({ perturbation: text, reason: why });
    else perturbations.push({ perturbation: text, label: PERTURBATION_LABELS[kind], variant: formatVariant({ ...parseVariant(base), perturbation: p }) });
  }
  if (perturbations.length === 0)
    throw new ValidationError(
      `no perturbation changes anything for judge configuration ${config.name}: ${skipped.map((s) => `${s.perturbation} (${s.reason})`).join("; ")}`,
    );

  const items = await campaignItemsWithLabels(db, campaign.id);
  const trajectoryIds: number[] = [];
  const leftOut: StressTestPlan["leftOut"] = [];
  const within = req.onlyTrajectoryIds ? new Set(req.onlyTrajectoryIds) : null;
  let outsideSelection = 0;
  for (const it of items) {
    if (within && !within.has(it.trajectoryId)) outsideSelection++;
    else if (labelOf(it.verdict)) trajectoryIds.push(it.trajectoryId);
    else leftOut.push({ trajectoryId: it.trajectoryId, reason: it.verdict ? `consolidated label ${it.verdict}` : "no consolidated label yet" });
  }
  if (trajectoryIds.length === 0)
    throw new ValidationError(
      `campaign ${campaign.name} has no item with a consolidated success or failure${within ? " among the selected trajectories" : ""} to compare the judge with`,
    );
  const estimate = await estimateJudgeBatch(db, {
    config: config.id,
    trajectoryIds,
    kValues: [req.k],
    concurrency: req.concurrency ?? DEFAULT_CONCURRENCY,
    variants: [base, ...perturbations.map((p) => p.variant)],
  });
  const { plan: _plan, ...rest } = estimate;
  void _plan;
  return {
    configId: config.id,
    configName: config.name,
    campaignId: campaign.id,
    campaignName: campaign.name,
    k: formatK(req.k),
    seed,
    trajectoryIds,
    leftOut,
    outsideSelection,
    base,
    perturbations,
    skipped,
    estimate: rest,
  };
}

/** Records the stress test and creates its judge batch (queued; a worker, `runJudgeBatch` or the CLI runs it). */
export async function createStressTest(
  db: Db,
  req: StressTestRequest,
): Promise<{ stressTest: JudgeStressTestRow; batch: JudgeBatchRow; plan: StressTestPlan }> {
  const plan = await planStressTest(db, req);
  return withTransaction(db, async () => {
    const { batch } = await createJudgeBatch(db, {
      config: plan.configId,
      trajectoryIds: plan.trajectoryIds,
      kValues: [req.k],
      concurrency: req.concurrency ?? DEFAULT_CONCURRENCY,
      variants: [plan.base, ...plan.perturbations.map((p) => p.variant)],
      selectionLabel: `stress test on campaign ${plan.campaignName}${req.selectionLabel ? `, ${req.selectionLabel}` : ""}`.slice(0, 200),
    });
    const id = await insertStressTest(db, {
      judgeConfigId: plan.configId,
      campaignId: plan.campaignId,
      promptVersionId: req.promptVersionId ?? null,
      k: plan.k,
      seed: plan.seed,
      perturbations: plan.perturbations.map((p) => p.perturbation),
      skipped: plan.skipped,
      trajectoryIds: plan.trajectoryIds,
      batchId: batch.id,
      createdBy: req.createdBy ?? null,
    });
    return { stressTest: (await getStressTest(db, id))!, batch, plan };
  });
}

export async function requireStressTest(db: Db, id: number): Promise<JudgeStressTestRow> {
  const s = await getStressTest(db, id);
  if (!s) throw new NotFoundError("stress test", id);
  return s;
}

export async function listStressTests(db: Db, limit = 100) {
  return listStressTestRows(db, limit);
}

export type { FlippedItem };

export interface PerturbationResult {
  perturbation: string;
  label: string;
  variant: string;
  promptVersion: string;
  /** The perturbed judge against the human labels. */
  measures: JudgeOnItems;
  /** Unperturbed → perturbed on the items both decided. */
  comparison: Omit<Comparison, "flips">;
  flipped: FlippedItem[];
}

export interface StressTestReport {
  stressTest: JudgeStressTestRow;
  configName: string;
  campaignName: string;
  progress: BatchProgress | null;
  policy: UnparseablePolicy;
  /** Items compared: the stress test's trajectories that still have a consolidated success or failure. */
  items: number;
  /** The stress test's trajectories whose consolidated label is no longer a success or failure. */
  labelsGone: number[];
  base: { variant: string; promptVersion: string; measures: JudgeOnItems };
  perturbations: PerturbationResult[];
}

/**
 * Flip rates, κ before and after with the change and its interval, FPR/FNR and the flipped items per perturbation,
 * from the verdicts stored so far (a running test reports on what is done; items without both verdicts are counted
 * as left out).
 */
export async function stressTestReport(db: Db, id: number, opts: { policy?: UnparseablePolicy } = {}): Promise<StressTestReport> {
  const st = await requireStressTest(db, id);
  const config = await requireJudgeConfig(db, st.judgeConfigId);
  const campaign = await requireCampaignRef(db, st.campaignId);
  const policy = opts.policy ?? "failure";
  const labelled = new Map((await campaignItemsWithLabels(db, st.campaignId)).map((it) => [it.trajectoryId, it]));
  const items = st.trajectoryIds.flatMap((tid) => {
    const it = labelled.get(tid);
    const human = labelOf(it?.verdict ?? null);
    return it && human ? [{ trajectoryId: tid, taskId: it.taskId, human, taskExternalId: it.taskExternalId, intent: it.intent }] : [];
  });
  const labelsGone = st.trajectoryIds.filter((tid) => !labelOf(labelled.get(tid)?.verdict ?? null));
  const base = st.promptVersionId != null ? formatVariant({ promptVersionId: st.promptVersionId }) : "";
  const ways = [base, ...st.perturbations.map((p) => formatVariant({ ...parseVariant(base), ...parseVariant(p) }))];
  const resolved = await Promise.all(ways.map((w) => resolveJudgeVariant(db, config, w)));
  const itemIds = items.map((i) => i.trajectoryId);
  const under = await verdictsUnderVariants(db, config, st.k, resolved, itemIds);
  const basePv = resolved[0]!.promptVersion;
  const byId = new Map(items.map((i) => [i.trajectoryId, i]));
  const perturbations: PerturbationResult[] = st.perturbations.map((p, i) => {
    const r = resolved[i + 1]!;
    const kind = parseVariant(p).perturbation!.kind;
    const { flips, ...comparison } = compareOnItems(
      items.map((it) => ({
        trajectoryId: it.trajectoryId,
        taskId: it.taskId,
        human: it.human,
        a: under(basePv, it.trajectoryId),
        b: under(r.promptVersion, it.trajectoryId),
      })),
      { policy },
    );
    return {
      perturbation: p,
      label: PERTURBATION_LABELS[kind],
      variant: r.text,
      promptVersion: r.promptVersion,
      measures: judgeOnItems(
        items.map((it) => ({ ...it, verdict: under(r.promptVersion, it.trajectoryId) })),
        { policy },
      ),
      comparison,
      flipped: flippedItems(flips, byId),
    };
  });
  return {
    stressTest: st,
    configName: config.name,
    campaignName: campaign.name,
    progress: st.batchId != null ? await judgeBatchProgress(db, st.batchId) : null,
    policy,
    items: items.length,
    labelsGone,
    base: {
      variant: base,
      promptVersion: basePv,
      measures: judgeOnItems(
        items.map((it) => ({ ...it, verdict: under(basePv, it.trajectoryId) })),
        { policy },
      ),
    },
    perturbations,
  };
}

/** The k a stress test was asked with, as the judge reads it. */
export function stressTestK(st: Pick<JudgeStressTestRow, "k">): JudgeK {
  return parseK(st.k);
}
