/**
 * The alignment loop: from a judge configuration and a labelled campaign, a study whose items are split once into a
 * calibration part and a held-out part (server/domain/evaluation/alignment.ts). The configuration's own prompt is
 * version 1 and is asked about every item; the calibration part's disagreements with people are what new versions
 * learn from (few-shot examples with people's labels and notes, and/or a rubric in place of the protocol's
 * criteria); every version is measured on the held-out part only, and examples that would show the judge a held-out
 * task (the item itself, its task, or a near-duplicate task) are refused with the offending task named.
 *
 * Runs are judge batches whose jobs carry the version as a variant ("pv12"): they run in any worker, are estimated
 * before anything is sent, resume after a cancel or failures, and reuse verdicts already stored.
 */
import { withTransaction, type Db } from "../../../db/database";
import { judgeSettings } from "../../config";
import { getCampaign, getCampaignByName } from "../../../db/repositories/annotation/campaigns";
import {
  alignmentBatches,
  campaignItemsWithLabels,
  getAlignment,
  getAlignmentByName,
  insertAlignment,
  insertPromptVersion,
  judgeVerdictsUnder,
  labelNotes,
  listAlignments as listAlignmentRows,
  listPromptVersions,
  nextPromptVersionNumber,
} from "../../../db/repositories/evaluation/improvement";
import type {
  CampaignRow,
  JudgeAlignmentRow,
  JudgeBatchRow,
  JudgePromptVersionRow,
  LeftOutItem,
  RubricSource,
  RubricSuggestionRecord,
} from "../../../db/schema/index";
import type { UnparseablePolicy } from "../../domain/analytics/measures";
import {
  describeLeak,
  diffLines,
  findLeaks,
  parseRubricSuggestion,
  rubricSuggestionMessages,
  splitForAlignment,
  type DiffLine,
  type HumanVerdict,
  type TaskRef,
} from "../../domain/evaluation/alignment";
import { formatCsv } from "../../domain/csv";
import { compareOnItems, flippedItems, judgeOnItems, type Comparison, type JudgeOnItems } from "../../domain/evaluation/judge-comparison";
import { buildJudgePrompt, costUsd, isJudgePromptVersion } from "../../domain/evaluation/judge-protocol";
import { isStagedVersion, stagedOutcomeSystem } from "../../domain/evaluation/staged-protocols";
import { applyPromptVersion, criteriaBlock, formatVariant, normaliseRubric, type FewShotExample } from "../../domain/evaluation/prompt-variants";
import { formatK, parseK, type JudgeK } from "../../domain/evaluation/verdicts";
import { ConflictError, NotFoundError, ValidationError } from "../../errors";
import { createJudgeBatch, estimateJudgeBatch, type BatchEstimate } from "./judge-batches";
import { createJudgeClient } from "./judge-client";
import { endpointErrorText, judgeEndpointOf, judgeEvaluatorKey, redactSecret, requireJudgeConfig } from "./judge-configs";
import type { JudgeDeps } from "./judge-verdict";
import { resolveJudgeVariant, verdictsUnderVariants } from "./judge-variants";

export interface AlignmentRequest {
  name: string;
  config: number | string;
  campaign: number | string;
  k: JudgeK;
  /** Share of the labelled items held out (default 0.5). */
  heldOutShare?: number;
  seed?: number;
  createdBy?: string | null;
}

async function requireCampaignRef(db: Db, ref: number | string): Promise<CampaignRow> {
  const c = typeof ref === "number" || /^\d+$/.test(ref) ? await getCampaign(db, Number(ref)) : await getCampaignByName(db, ref);
  if (!c) throw new NotFoundError("campaign", ref);
  return c;
}

function humanOf(verdict: string | null): HumanVerdict | null {
  return verdict === "success" || verdict === "failure" ? verdict : null;
}

/** Creates the study with its split and version 1 (the configuration's own prompt). */
export async function createAlignment(db: Db, req: AlignmentRequest): Promise<{ alignment: JudgeAlignmentRow; versions: JudgePromptVersionRow[] }> {
  const name = req.name.trim();
  if (!name) throw new ValidationError("an alignment study needs a name");
  if (await getAlignmentByName(db, name)) throw new ConflictError(`an alignment study named ${JSON.stringify(name)} exists already`);
  const config = await requireJudgeConfig(db, req.config);
  const campaign = await requireCampaignRef(db, req.campaign);
  const items = await campaignItemsWithLabels(db, campaign.id);
  const leftOut: LeftOutItem[] = [];
  const candidates = items.flatMap((it) => {
    const human = humanOf(it.verdict);
    if (!human) {
      leftOut.push({ trajectoryId: it.trajectoryId, reason: it.verdict ? "unsure" : "not consolidated" });
      return [];
    }
    return [{ trajectoryId: it.trajectoryId, human, site: it.site }];
  });
  const heldOutShare = req.heldOutShare ?? 0.5;
  const seed = req.seed ?? 1;
  let split;
  try {
    split = splitForAlignment(candidates, heldOutShare, seed);
  } catch (e) {
    throw new ValidationError(`campaign ${campaign.name}: ${(e as Error).message}`);
  }
  return withTransaction(db, async () => {
    const id = await insertAlignment(db, {
      name,
      judgeConfigId: config.id,
      campaignId: campaign.id,
      k: formatK(req.k),
      heldOutShare,
      seed,
      calibrationIds: split.calibration,
      heldOutIds: split.heldOut,
      strata: split.strata,
      leftOut,
      createdBy: req.createdBy ?? null,
    });
    await insertPromptVersion(db, {
      alignmentId: id,
      number: 1,
      parentId: null,
      rubric: null,
      rubricSource: "protocol",
      examples: [],
      note: "the configuration's own prompt",
      createdBy: req.createdBy ?? null,
    });
    return { alignment: (await getAlignment(db, id))!, versions: await listPromptVersions(db, id) };
  });
}

export async function requireAlignment(db: Db, ref: number | string): Promise<JudgeAlignmentRow> {
  const a = typeof ref === "number" || /^\d+$/.test(ref) ? await getAlignment(db, Number(ref)) : await getAlignmentByName(db, ref);
  if (!a) throw new NotFoundError("alignment study", ref);
  return a;
}

export async function listAlignments(db: Db) {
  return listAlignmentRows(db);
}

/** The variant a version is asked with: "" for version 1 (the configuration's own prompt), else "pv<id>". */
function variantOfVersion(v: JudgePromptVersionRow): string {
  return v.number === 1 ? "" : formatVariant({ promptVersionId: v.id });
}

async function requireVersion(db: Db, a: JudgeAlignmentRow, number: number): Promise<JudgePromptVersionRow> {
  const v = (await listPromptVersions(db, a.id)).find((x) => x.number === number);
  if (!v) throw new NotFoundError(`prompt version of study ${a.name}`, number);
  return v;
}

/** The batch a run would make: version 1 on every item of the study, any later version on the held-out part only. */
async function runRequest(db: Db, a: JudgeAlignmentRow, versionNumber: number, concurrency: number) {
  const v = await requireVersion(db, a, versionNumber);
  return {
    config: a.judgeConfigId,
    trajectoryIds: v.number === 1 ? [...a.calibrationIds, ...a.heldOutIds] : a.heldOutIds,
    kValues: [parseK(a.k)],
    concurrency,
    variants: [variantOfVersion(v)],
    alignmentId: a.id,
    selectionLabel: `alignment ${a.name} v${v.number} (${v.number === 1 ? "every item" : "held-out part"})`,
  };
}

export async function estimateAlignmentRun(db: Db, ref: number | string, versionNumber: number, concurrency = 4): Promise<BatchEstimate> {
  const a = await requireAlignment(db, ref);
  const { plan: _plan, ...estimate } = await estimateJudgeBatch(db, await runRequest(db, a, versionNumber, concurrency));
  void _plan;
  return estimate;
}

/** Creates the batch that runs a version (queued: a worker, runJudgeBatch or the CLI runs it). */
export async function startAlignmentRun(
  db: Db,
  ref: number | string,
  versionNumber: number,
  concurrency = 4,
): Promise<{ batch: JudgeBatchRow; estimate: BatchEstimate }> {
  const a = await requireAlignment(db, ref);
  return createJudgeBatch(db, await runRequest(db, a, versionNumber, concurrency));
}

interface StudyItem {
  trajectoryId: number;
  taskId: number;
  taskExternalId: string;
  intent: string;
  finalAnswer: string | null;
  human: HumanVerdict | null;
  reason: string | null;
}

async function studyItems(db: Db, a: JudgeAlignmentRow): Promise<Map<number, StudyItem>> {
  const rows = await campaignItemsWithLabels(db, a.campaignId);
  return new Map(
    rows.map((r) => [
      r.trajectoryId,
      {
        trajectoryId: r.trajectoryId,
        taskId: r.taskId,
        taskExternalId: r.taskExternalId,
        intent: r.intent,
        finalAnswer: r.finalAnswer,
        human: humanOf(r.verdict),
        reason: r.reason,
      },
    ]),
  );
}

export interface DisagreementItem {
  trajectoryId: number;
  taskExternalId: string;
  intent: string;
  finalAnswer: string | null;
  human: HumanVerdict;
  judge: string;
  rationale: string | null;
  notes: string[];
}

/** The calibration part's items where version 1 and people disagree (what new versions learn from). */
export async function calibrationDisagreements(db: Db, ref: number | string): Promise<{ judged: number; missing: number; disagreements: DisagreementItem[] }> {
  const a = await requireAlignment(db, ref);
  const config = await requireJudgeConfig(db, a.judgeConfigId);
  const base = await resolveJudgeVariant(db, config, "");
  const items = await studyItems(db, a);
  const verdicts = new Map(
    (await judgeVerdictsUnder(db, judgeEvaluatorKey(config.id), a.k, [base.promptVersion], a.calibrationIds)).map((v) => [v.trajectoryId, v]),
  );
  const notes = await labelNotes(db, a.campaignId, a.calibrationIds);
  const out: DisagreementItem[] = [];
  let missing = 0;
  for (const id of a.calibrationIds) {
    const it = items.get(id);
    const v = verdicts.get(id);
    if (!v) {
      missing++;
      continue;
    }
    if (!it?.human) continue;
    const said = v.verdict === "success" ? "success" : "failure";
    if (said === it.human) continue;
    out.push({
      trajectoryId: id,
      taskExternalId: it.taskExternalId,
      intent: it.intent,
      finalAnswer: it.finalAnswer,
      human: it.human,
      judge: v.verdict,
      rationale: v.rationale,
      notes: [...(notes.get(id) ?? []), ...(it.reason && it.reason.trim() ? [it.reason.trim()] : [])],
    });
  }
  return { judged: verdicts.size, missing, disagreements: out };
}

export interface VersionRequest {
  /** Calibration trajectories to show as few-shot examples, with people's labels and notes. */
  examples?: number[];
  /** Criteria replacing the protocol's own; null/absent keeps them. */
  rubric?: string | null;
  rubricSource?: Exclude<RubricSource, "protocol">;
  /** The judge model's suggestion the rubric comes from (kept with the version). */
  suggestion?: RubricSuggestionRecord | null;
  note?: string | null;
  /** The version this one builds on (default: the latest); its rubric and examples are kept unless replaced. */
  parentNumber?: number;
  createdBy?: string | null;
}

/**
 * A new prompt version. Examples come from the calibration part; one whose task (or a near-duplicate task) is in
 * the held-out part is refused, every such example named with the held-out task it collides with.
 */
export async function createPromptVersion(db: Db, ref: number | string, req: VersionRequest): Promise<JudgePromptVersionRow> {
  const a = await requireAlignment(db, ref);
  const versions = await listPromptVersions(db, a.id);
  const parent = req.parentNumber !== undefined ? versions.find((v) => v.number === req.parentNumber) : versions[versions.length - 1];
  if (!parent) throw new NotFoundError(`prompt version of study ${a.name}`, req.parentNumber ?? "latest");
  const items = await studyItems(db, a);
  const refOf = (id: number): TaskRef => {
    const it = items.get(id);
    if (!it) throw new ValidationError(`trajectory ${id} is not an item of campaign ${a.campaignId}`);
    return { trajectoryId: id, taskId: it.taskId, taskExternalId: it.taskExternalId, intent: it.intent };
  };
  let examples: FewShotExample[] = parent.examples;
  if (req.examples) {
    const ids = [...new Set(req.examples)];
    const leaks = findLeaks(ids.map(refOf), a.heldOutIds.map(refOf));
    if (leaks.length) throw new ValidationError(`leakage: ${leaks.map(describeLeak).join("; ")}. Choose examples whose tasks are not in the held-out part.`);
    const outside = ids.filter((id) => !a.calibrationIds.includes(id));
    if (outside.length)
      throw new ValidationError(
        `trajectories ${outside.join(", ")} are not in the study's calibration part (left out of the split: no success or failure label)`,
      );
    const config = await requireJudgeConfig(db, a.judgeConfigId);
    const base = await resolveJudgeVariant(db, config, "");
    const judged = new Map(
      (await judgeVerdictsUnder(db, judgeEvaluatorKey(config.id), a.k, [base.promptVersion], ids)).map((v) => [v.trajectoryId, v.verdict]),
    );
    const notes = await labelNotes(db, a.campaignId, ids);
    examples = ids.map((id) => {
      const it = items.get(id)!;
      return {
        trajectoryId: id,
        taskId: it.taskId,
        taskExternalId: it.taskExternalId,
        intent: it.intent,
        finalAnswer: it.finalAnswer,
        humanVerdict: it.human!,
        humanNotes: [...(notes.get(id) ?? []), ...(it.reason && it.reason.trim() ? [it.reason.trim()] : [])],
        judgeVerdict: judged.get(id) ?? null,
      };
    });
  }
  const rubric = req.rubric !== undefined ? (req.rubric === null ? null : normaliseRubric(req.rubric)) : parent.rubric;
  if (rubric !== null && rubric.trim() === "") throw new ValidationError("the rubric is empty: give at least one criterion, or none to keep the protocol's");
  if (rubric === parent.rubric && JSON.stringify(examples) === JSON.stringify(parent.examples)) {
    throw new ValidationError(`the new version would ask exactly as version ${parent.number} does: change the rubric or the examples`);
  }
  const rubricSource: RubricSource = req.rubric !== undefined ? (req.rubric === null ? "protocol" : (req.rubricSource ?? "researcher")) : parent.rubricSource;
  return withTransaction(db, async () => {
    const number = await nextPromptVersionNumber(db, a.id);
    const id = await insertPromptVersion(db, {
      alignmentId: a.id,
      number,
      parentId: parent.id,
      rubric,
      rubricSource,
      examples,
      suggestion: req.suggestion ?? null,
      note: req.note ?? null,
      createdBy: req.createdBy ?? null,
    });
    return (await listPromptVersions(db, a.id)).find((v) => v.id === id)!;
  });
}

/** The system prompt a version sends (the same for every item: the case goes in the user message). */
async function systemPromptOf(db: Db, a: JudgeAlignmentRow, v: JudgePromptVersionRow | null): Promise<string> {
  const config = await requireJudgeConfig(db, a.judgeConfigId);
  if (!isJudgePromptVersion(config.promptVersion))
    throw new ValidationError(`judge configuration ${config.name} uses unknown prompt version ${config.promptVersion}`);
  const base = await resolveJudgeVariant(db, config, "");
  // A staged protocol decides in its outcome call: a version's rubric and examples go there (staged-judging.ts).
  const system = isStagedVersion(config.promptVersion)
    ? stagedOutcomeSystem(config.promptVersion, base.askedOptions)
    : buildJudgePrompt({ intent: "", finalAnswer: null, steps: [] }, parseK(a.k), base.askedOptions, config.promptVersion).system;
  return v && v.number > 1 ? applyPromptVersion(system, { rubric: v.rubric, examples: v.examples }) : system;
}

/**
 * Asks the judge model to propose criteria that would settle its calibration disagreements with people (held-out
 * items are never shown to it). Nothing is stored: the researcher reads, edits and saves the rubric as a version
 * (`createPromptVersion` with `suggestion`). Needs version 1's verdicts on the calibration part.
 */
export async function suggestRubric(
  deps: Pick<JudgeDeps, "db" | "env" | "clientFactory" | "retryPolicy">,
  ref: number | string,
): Promise<RubricSuggestionRecord & { cases: number }> {
  const { db } = deps;
  const a = await requireAlignment(db, ref);
  const { disagreements, missing, judged } = await calibrationDisagreements(db, a.id);
  if (judged === 0) throw new ValidationError(`study ${a.name}: version 1 has no verdicts on the calibration part yet; run it first (judge-align run ${a.id})`);
  if (disagreements.length === 0)
    throw new ValidationError(
      `study ${a.name}: the judge agrees with people on every judged calibration item${missing ? ` (${missing} not judged yet)` : ""}; there is nothing to learn from`,
    );
  const versions = await listPromptVersions(db, a.id);
  const current = criteriaBlock(await systemPromptOf(db, a, versions[versions.length - 1]!))?.text ?? "(none)";
  const { system, user } = rubricSuggestionMessages(
    current,
    disagreements.map((d) => ({
      trajectoryId: d.trajectoryId,
      taskId: 0,
      taskExternalId: d.taskExternalId,
      intent: d.intent,
      finalAnswer: d.finalAnswer,
      humanVerdict: d.human,
      humanNotes: d.notes,
      judgeVerdict: d.judge,
      judgeRationale: d.rationale,
    })),
  );
  const config = await requireJudgeConfig(db, a.judgeConfigId);
  const endpoint = await judgeEndpointOf(db, config, judgeSettings(deps.env));
  const client = (deps.clientFactory ?? createJudgeClient)(endpoint, deps.retryPolicy);
  let result;
  try {
    result = await client.complete([
      { role: "system", content: system },
      { role: "user", content: [{ type: "text", text: user }] },
    ]);
  } catch (e) {
    if (e instanceof Error) e.message = endpointErrorText(e.message, endpoint.apiKey);
    throw e;
  }
  const reply = result.content == null ? "" : redactSecret(result.content, endpoint.apiKey);
  const parsed = parseRubricSuggestion(reply);
  return {
    reply,
    rubric: parsed.rubric,
    warning: parsed.warning,
    model: result.model,
    inputTokens: result.inputTokens,
    outputTokens: result.outputTokens,
    costUsd: costUsd(
      { input: result.inputTokens, output: result.outputTokens },
      { inputPerMTok: config.priceInputPerMTok, outputPerMTok: config.priceOutputPerMTok },
    ),
    cases: disagreements.length,
  };
}

export interface VersionResult {
  version: JudgePromptVersionRow;
  promptVersion: string;
  /** On the held-out part. */
  measures: JudgeOnItems;
  /** Against the version it builds on, on the held-out items both decided (null for version 1). */
  comparedWithParent:
    | (Omit<Comparison, "flips"> & {
        parentNumber: number;
        flipped: { trajectoryId: number; taskExternalId: string; human: HumanVerdict; before: string; after: string; direction: string }[];
      })
    | null;
  /** The system prompt's lines against the parent's (null for version 1). */
  diff: DiffLine[] | null;
}

export interface AlignmentView {
  alignment: JudgeAlignmentRow;
  configName: string;
  campaignName: string;
  policy: UnparseablePolicy;
  heldOut: number;
  calibration: number;
  versions: VersionResult[];
  batches: Awaited<ReturnType<typeof alignmentBatches>>;
}

/** κ, FPR/FNR and the rate gap per version on the same held-out items, with each version's diff and flips. */
export async function alignmentVersions(db: Db, ref: number | string, opts: { policy?: UnparseablePolicy } = {}): Promise<AlignmentView> {
  const a = await requireAlignment(db, ref);
  const config = await requireJudgeConfig(db, a.judgeConfigId);
  const policy = opts.policy ?? "failure";
  const items = await studyItems(db, a);
  const held = a.heldOutIds.flatMap((id) => {
    const it = items.get(id);
    return it?.human ? [{ trajectoryId: id, taskId: it.taskId, human: it.human, taskExternalId: it.taskExternalId }] : [];
  });
  const versions = await listPromptVersions(db, a.id);
  const resolved = await Promise.all(versions.map((v) => resolveJudgeVariant(db, config, variantOfVersion(v))));
  const heldIds = held.map((h) => h.trajectoryId);
  const under = await verdictsUnderVariants(db, config, a.k, resolved, heldIds);
  const baseSystem = await systemPromptOf(db, a, null);
  const systemOf = (v: JudgePromptVersionRow) => (v.number === 1 ? baseSystem : applyPromptVersion(baseSystem, { rubric: v.rubric, examples: v.examples }));
  const byId = new Map(versions.map((v, i) => [v.id, { v, pv: resolved[i]!.promptVersion }]));
  return {
    alignment: a,
    configName: config.name,
    campaignName: (await requireCampaignRef(db, a.campaignId)).name,
    policy,
    heldOut: held.length,
    calibration: a.calibrationIds.length,
    versions: versions.map((v, i) => {
      const pv = resolved[i]!.promptVersion;
      const parent = v.parentId != null ? byId.get(v.parentId) : undefined;
      let comparedWithParent: VersionResult["comparedWithParent"] = null;
      if (parent) {
        const { flips, ...c } = compareOnItems(
          held.map((h) => ({
            trajectoryId: h.trajectoryId,
            taskId: h.taskId,
            human: h.human,
            a: under(parent.pv, h.trajectoryId),
            b: under(pv, h.trajectoryId),
          })),
          { policy },
        );
        const ext = new Map(held.map((h) => [h.trajectoryId, h.taskExternalId]));
        comparedWithParent = {
          ...c,
          parentNumber: parent.v.number,
          flipped: flips.map((f) => ({
            trajectoryId: f.trajectoryId,
            taskExternalId: ext.get(f.trajectoryId)!,
            human: f.human,
            before: f.a,
            after: f.b,
            direction: f.direction,
          })),
        };
      }
      return {
        version: v,
        promptVersion: pv,
        measures: judgeOnItems(
          held.map((h) => ({ ...h, verdict: under(pv, h.trajectoryId) })),
          { policy },
        ),
        comparedWithParent,
        diff: parent ? diffLines(systemOf(parent.v), systemOf(v)) : null,
      };
    }),
    batches: await alignmentBatches(db, a.id),
  };
}

export interface SplitItem {
  trajectoryId: number;
  part: "calibration" | "held-out";
  /** People's consolidated label now (null when it has changed since the split to something else). */
  human: HumanVerdict | null;
  site: string | null;
  taskExternalId: string;
  intent: string;
}

/** Which item is in which part, with what the split was stratified by (shown and exported by the study page). */
export async function alignmentSplitItems(db: Db, ref: number | string) {
  const a = await requireAlignment(db, ref);
  const rows = new Map((await campaignItemsWithLabels(db, a.campaignId)).map((r) => [r.trajectoryId, r]));
  const item = (trajectoryId: number, part: SplitItem["part"]): SplitItem => {
    const r = rows.get(trajectoryId);
    return { trajectoryId, part, human: humanOf(r?.verdict ?? null), site: r?.site ?? null, taskExternalId: r?.taskExternalId ?? "", intent: r?.intent ?? "" };
  };
  const items = [...a.calibrationIds.map((id) => item(id, "calibration")), ...a.heldOutIds.map((id) => item(id, "held-out"))];
  const csv = formatCsv([
    ["trajectory_id", "part", "human_label", "site", "task", "intent"],
    ...items.map((i) => [String(i.trajectoryId), i.part, i.human ?? "", i.site ?? "", i.taskExternalId, i.intent]),
    ...a.leftOut.map((l) => [String(l.trajectoryId), "left out", l.reason, "", "", ""]),
  ]);
  return { id: a.id, name: a.name, seed: a.seed, heldOutShare: a.heldOutShare, strata: a.strata, leftOut: a.leftOut, items, csv };
}

export interface VersionComparison {
  a: number;
  b: number;
  /** Version a's system prompt against version b's, line by line. */
  diff: DiffLine[];
  /** a → b on the held-out items both decided. */
  comparison: Omit<Comparison, "flips">;
  flipped: { trajectoryId: number; taskExternalId: string; intent: string; human: HumanVerdict; before: string; after: string; direction: string }[];
}

/** Any two versions of a study side by side: the prompt diff and the held-out items whose verdict flipped. */
export async function compareAlignmentVersions(
  db: Db,
  ref: number | string,
  aNumber: number,
  bNumber: number,
  opts: { policy?: UnparseablePolicy } = {},
): Promise<VersionComparison> {
  const a = await requireAlignment(db, ref);
  const config = await requireJudgeConfig(db, a.judgeConfigId);
  const va = await requireVersion(db, a, aNumber);
  const vb = await requireVersion(db, a, bNumber);
  const items = await studyItems(db, a);
  const held = a.heldOutIds.flatMap((id) => {
    const it = items.get(id);
    return it?.human ? [{ ...it, human: it.human }] : [];
  });
  const [ra, rb] = await Promise.all([resolveJudgeVariant(db, config, variantOfVersion(va)), resolveJudgeVariant(db, config, variantOfVersion(vb))]);
  const rows = await judgeVerdictsUnder(
    db,
    judgeEvaluatorKey(config.id),
    a.k,
    [ra!.promptVersion, rb!.promptVersion],
    held.map((h) => h.trajectoryId),
  );
  const verdictOf = new Map(rows.map((r) => [`${r.promptVersion}\u0000${r.trajectoryId}`, r.verdict]));
  const under = (pv: string, id: number) => verdictOf.get(`${pv}\u0000${id}`) ?? null;
  const { flips, ...comparison } = compareOnItems(
    held.map((h) => ({
      trajectoryId: h.trajectoryId,
      taskId: h.taskId,
      human: h.human,
      a: under(ra!.promptVersion, h.trajectoryId),
      b: under(rb!.promptVersion, h.trajectoryId),
    })),
    { policy: opts.policy ?? "failure" },
  );
  const byId = new Map(held.map((h) => [h.trajectoryId, h]));
  const base = await systemPromptOf(db, a, null);
  const systemOf = (v: JudgePromptVersionRow) => (v.number === 1 ? base : applyPromptVersion(base, { rubric: v.rubric, examples: v.examples }));
  return {
    a: va.number,
    b: vb.number,
    diff: diffLines(systemOf(va), systemOf(vb)),
    comparison,
    flipped: flippedItems(flips, byId),
  };
}
