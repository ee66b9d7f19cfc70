/**
 * Judge agreement: how far each automatic evaluator (judge setting, rule check, imported verdict) agrees with a human
 * reference: the consolidated label (the default), the majority of the annotators (ties counted apart), or one
 * annotator's labels (server/domain/analytics/reference.ts); split by any key (splits.ts). Per setting: percent agreement, Cohen's κ with its large-sample 95% interval (and a
 * bootstrap interval on request), prevalence and bias indices with PABAK and a skew warning, the confusion matrix
 * and precision / recall / F1 of "success"; split per site, agent run and human error category; a k-table when one
 * judge ran with several screenshot windows (WebVoyager's Table 2); and the list of every disagreement.
 *
 * Rater a is the human label, rater b the evaluator; categories are ordered [success, failure]. Unsure human labels
 * and not-evaluable verdicts are left out and counted; unparseable replies count as failures or are left out
 * according to the policy, and are always counted.
 */
import type { Db } from "../../../db/database";
import { trajectoryRows, verdictDetails } from "../../../db/repositories/analytics";
import {
  binaryMetrics,
  bootstrapKappaInterval,
  kappaFromTable,
  prevalenceBiasIndices,
  wilsonInterval,
  type BinaryMetrics,
  type BootstrapInterval,
  type KappaEstimate,
  type PrevalenceBiasResult,
  type ProportionInterval,
} from "../../domain/agreement";
import { countedVerdicts, evaluatorId, type UnparseablePolicy } from "../../domain/analytics/measures";
import { CONSOLIDATED, describeReference, formatReferenceSpec, type ReferenceSpec } from "../../domain/analytics/reference";
import type { EvaluatorIdentity, Selection } from "../../domain/analytics/selection";
import { NotFoundError } from "../../errors";
import { evaluatorsInScope, runNames, type EvaluatorInfo } from "./common";
import { getAnnotatorReferences, getReferenceFor } from "./references";
import { resolveSplitKey, splitFacts, type Split } from "./splits";
import {
  getFacts,
  getVerdictSets,
  REF_FAILURE,
  REF_NONE,
  REF_SUCCESS,
  REF_TIE,
  REF_UNSURE,
  flaggedInScope,
  sameIdentity,
  scopeMask,
  scopeSelection,
  V_FAILURE,
  V_NOT_EVALUABLE,
  V_SUCCESS,
  V_UNPARSEABLE,
  type FlaggedCount,
  type Reference,
  type Scope,
  type VerdictSet,
} from "./dataset";

export interface JudgeAgreementInput {
  scope: Scope;
  campaignId?: number;
  unparseable: UnparseablePolicy;
  /** The human reference; default the consolidated label. */
  reference?: ReferenceSpec;
  /** A split key (splits.ts): every evaluator's agreement per group as well. */
  by?: string;
}

export const AGREEMENT_CATEGORIES = ["success", "failure"] as const;

/** Per group: [hS·jS, hS·jF, hF·jS, hF·jF, unparseable, notEvaluable, unsure, noReference, hS·jU, hF·jU, tie]. */
const SLOTS = 11;
const S_SS = 0;
const S_SF = 1;
const S_FS = 2;
const S_FF = 3;
const S_UNPARSEABLE = 4;
const S_NOT_EVALUABLE = 5;
const S_UNSURE = 6;
const S_NO_REFERENCE = 7;
const S_S_UNPARSEABLE = 8;
const S_F_UNPARSEABLE = 9;
const S_TIE = 10;

export interface ConfusionCell {
  human: "success" | "failure";
  judge: "success" | "failure";
  count: number;
  sel: Selection;
}

export interface AgreementStats {
  /** Pairs compared (human success/failure × evaluator outcome). */
  n: number;
  agreement: number | null;
  kappa: KappaEstimate;
  bootstrap?: BootstrapInterval;
  prevalence: PrevalenceBiasResult;
  /** Rows human, columns evaluator, both [success, failure]. */
  confusion: ConfusionCell[][];
  /** "success" as the positive class; the evaluator's verdicts predict the human label. */
  metrics: BinaryMetrics;
  judgeSuccess: ProportionInterval;
  humanSuccess: ProportionInterval;
  /** Unparseable replies on trajectories with a human success/failure label (in n only under the "failure" policy). */
  unparseable: number;
  notEvaluable: number;
  /** Verdicts on trajectories whose consolidated label is "unsure". */
  unsureReference: number;
  /** Verdicts on trajectories without a reference label. */
  noReference: number;
  /** Verdicts on trajectories whose majority reference is a tie (as many success as failure labels): counted apart. */
  tieReference: number;
  /** Evaluator said success, human failure / evaluator failure, human success. */
  falseSuccess: number;
  falseFailure: number;
  /** The n pairs compared. */
  sel: Selection;
  /** Disagreeing pairs. */
  disagreementSel: Selection[];
  unparseableSel: Selection;
}

export interface JudgeSummary {
  info: EvaluatorInfo;
  stats: AgreementStats;
  /** Per group of the split, when one was asked for (groups where the evaluator has no verdict are left out). */
  groups?: SplitRow[];
}

/** The reference a result was computed against, in words and as a spec. */
export interface ReferenceInfo {
  spec: ReferenceSpec;
  description: string;
  /** Trajectories in scope with a success/failure reference, with a tied majority, and with an unsure one. */
  labels: number;
  ties: number;
  unsure: number;
}

async function referenceOf(db: Db, input: JudgeAgreementInput, mask: Uint8Array) {
  const spec = input.reference ?? CONSOLIDATED;
  const ref = await getReferenceFor(db, input.campaignId, spec);
  let labels = 0;
  let ties = 0;
  let unsure = 0;
  for (let r = 0; r < mask.length; r++) {
    if (!mask[r]) continue;
    const v = ref.verdict[r];
    if (v === REF_SUCCESS || v === REF_FAILURE) labels++;
    else if (v === REF_TIE) ties++;
    else if (v === REF_UNSURE) unsure++;
  }
  const info: ReferenceInfo = { spec, description: describeReference(spec, ref.annotatorName), labels, ties, unsure };
  return { ref, info };
}

/** Per group of a split: the evaluator's agreement on the group's trajectories (groups it has no verdict in are left out). */
function splitRows(split: Split, set: VerdictSet, ref: Reference, mask: Uint8Array, ctx: Context): SplitRow[] {
  const counts = countPairs(set, ref, mask, (r) => split.group[r]!, split.groups.length);
  const rows: SplitRow[] = [];
  split.groups.forEach((g, i) => {
    const stats = statsFromCounts(counts, i, set.identity, ctx, g.sel);
    if (stats.n + stats.unparseable + stats.notEvaluable + stats.unsureReference + stats.noReference + stats.tieReference > 0)
      rows.push({ key: g.key, label: g.label, stats });
  });
  return rows;
}

interface Context {
  base: Selection;
  campaignId?: number;
  policy: UnparseablePolicy;
  reference: ReferenceSpec;
}

function referenceCondition(ctx: Context, verdicts: ("success" | "failure")[], extra: { category?: string | null } = {}): Selection["reference"] {
  return {
    ...(ctx.campaignId !== undefined ? { campaignId: ctx.campaignId } : {}),
    verdicts,
    ...extra,
    ...(ctx.reference.kind === "consolidated" ? {} : { source: ctx.reference }),
  };
}

type VerdictList = NonNullable<Selection["evaluator"]>["verdicts"];

function evaluatorCondition(identity: EvaluatorIdentity, verdicts: VerdictList): Selection["evaluator"] {
  return { ...identity, verdicts };
}

/** Verdicts that count as the evaluator saying failure under the policy. */
function failureVerdicts(policy: UnparseablePolicy): ("failure" | "unparseable")[] {
  return policy === "failure" ? ["failure", "unparseable"] : ["failure"];
}

/** Adds the pairs of one verdict set into per-group counts. */
function countPairs(set: VerdictSet, ref: Reference, mask: Uint8Array, group: (r: number) => number, groups: number): Float64Array {
  const counts = new Float64Array(groups * SLOTS);
  const { rows, verdict } = set;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    if (!mask[r]) continue;
    const g = group(r);
    if (g < 0) continue;
    const o = g * SLOTS;
    const h = ref.verdict[r]!;
    const v = verdict[i]!;
    if (h === REF_NONE) counts[o + S_NO_REFERENCE]!++;
    else if (h === REF_UNSURE) counts[o + S_UNSURE]!++;
    else if (h === REF_TIE) counts[o + S_TIE]!++;
    else if (v === V_NOT_EVALUABLE) counts[o + S_NOT_EVALUABLE]!++;
    else if (v === V_UNPARSEABLE) {
      counts[o + S_UNPARSEABLE]!++;
      counts[o + (h === REF_SUCCESS ? S_S_UNPARSEABLE : S_F_UNPARSEABLE)]!++;
    } else {
      const judgeSuccess = v === V_SUCCESS;
      counts[o + (h === REF_SUCCESS ? (judgeSuccess ? S_SS : S_SF) : judgeSuccess ? S_FS : S_FF)]!++;
    }
  }
  return counts;
}

function statsFromCounts(
  counts: Float64Array,
  g: number,
  identity: EvaluatorIdentity,
  ctx: Context,
  extra: Selection,
  bootstrap?: { replicates: number; seed: number },
): AgreementStats {
  const o = g * SLOTS;
  const unparsedAsFailure = ctx.policy === "failure";
  const ss = counts[o + S_SS]!;
  const sf = counts[o + S_SF]! + (unparsedAsFailure ? counts[o + S_S_UNPARSEABLE]! : 0);
  const fs = counts[o + S_FS]!;
  const ff = counts[o + S_FF]! + (unparsedAsFailure ? counts[o + S_F_UNPARSEABLE]! : 0);
  const table = [
    [ss, sf],
    [fs, ff],
  ];
  const n = ss + sf + fs + ff;
  const kappa = kappaFromTable(table, "none");
  const base = { ...ctx.base, ...extra };
  const counted = countedVerdicts(ctx.policy);
  const judgeVerdicts: Record<"success" | "failure", VerdictList> = { success: ["success"], failure: failureVerdicts(ctx.policy) };
  const cell = (human: "success" | "failure", judge: "success" | "failure", count: number): ConfusionCell => ({
    human,
    judge,
    count,
    sel: { ...base, reference: referenceCondition(ctx, [human]), evaluator: evaluatorCondition(identity, judgeVerdicts[judge]) },
  });
  const confusion = [
    [cell("success", "success", ss), cell("success", "failure", sf)],
    [cell("failure", "success", fs), cell("failure", "failure", ff)],
  ];
  const metrics = binaryMetrics({ categories: [...AGREEMENT_CATEGORIES], matrix: table, n, missingPairs: 0 }, "success");
  const stats: AgreementStats = {
    n,
    agreement: n ? (ss + ff) / n : null,
    kappa,
    prevalence: prevalenceBiasIndices(table, [...AGREEMENT_CATEGORIES], "success"),
    confusion,
    metrics,
    judgeSuccess: wilsonInterval(ss + fs, n),
    humanSuccess: wilsonInterval(ss + sf, n),
    unparseable: counts[o + S_UNPARSEABLE]!,
    notEvaluable: counts[o + S_NOT_EVALUABLE]!,
    unsureReference: counts[o + S_UNSURE]!,
    noReference: counts[o + S_NO_REFERENCE]!,
    tieReference: counts[o + S_TIE]!,
    falseSuccess: fs,
    falseFailure: sf,
    sel: { ...base, reference: referenceCondition(ctx, ["success", "failure"]), evaluator: evaluatorCondition(identity, counted) },
    disagreementSel: [confusion[0]![1]!.sel, confusion[1]![0]!.sel],
    unparseableSel: { ...base, reference: referenceCondition(ctx, ["success", "failure"]), evaluator: evaluatorCondition(identity, ["unparseable"]) },
  };
  if (bootstrap && n > 0) {
    const cells = new Int32Array(n);
    let t = 0;
    [ss, sf, fs, ff].forEach((c, code) => {
      cells.fill(code, t, t + c);
      t += c;
    });
    stats.bootstrap = bootstrapKappaInterval(cells, 2, "none", { replicates: bootstrap.replicates, seed: bootstrap.seed });
  }
  return stats;
}

export interface JudgeListResult {
  scope: Scope;
  campaignId: number | null;
  unparseable: UnparseablePolicy;
  /** Trajectories in scope with a human success/failure reference label. */
  referenceLabels: number;
  reference: ReferenceInfo;
  /** The split asked for (`by`), resolved, with its title; null when none. */
  split: { by: string; title: string } | null;
  judges: JudgeSummary[];
  /** Tasks flagged in the validity ledger and their trajectories, left out unless the scope includes them. */
  flagged: FlaggedCount;
}

/** Every evaluator setting with verdicts in scope, against the human reference (and per group of a split). */
export async function judgeAgreementList(db: Db, input: JudgeAgreementInput): Promise<JudgeListResult> {
  const [facts] = await Promise.all([getFacts(db), getVerdictSets(db), getReferenceFor(db, input.campaignId, input.reference ?? CONSOLIDATED)]);
  const mask = scopeMask(facts, input.scope);
  const { ref, info: reference } = await referenceOf(db, input, mask);
  const ctx: Context = { base: scopeSelection(input.scope), campaignId: input.campaignId, policy: input.unparseable, reference: reference.spec };
  const split = input.by ? await splitFacts(db, facts, resolveSplitKey(facts, input.by)) : null;
  const judges: JudgeSummary[] = [];
  for (const { set, info } of await evaluatorsInScope(db, await getVerdictSets(db), mask)) {
    const summary: JudgeSummary = {
      info,
      stats: statsFromCounts(
        countPairs(set, ref, mask, () => 0, 1),
        0,
        set.identity,
        ctx,
        {},
      ),
    };
    if (split) summary.groups = splitRows(split, set, ref, mask, ctx);
    judges.push(summary);
  }
  return {
    scope: input.scope,
    campaignId: input.campaignId ?? null,
    unparseable: input.unparseable,
    referenceLabels: reference.labels,
    reference,
    split: split ? { by: split.by, title: split.title } : null,
    judges,
    flagged: flaggedInScope(facts, input.scope),
  };
}

export interface SplitRow {
  key: string;
  label: string;
  stats: AgreementStats;
}

export interface CategoryRow {
  /** Human error category; null = failures without a category. */
  category: string | null;
  /** Human failures of this category the evaluator gave a verdict on (counted under the policy). */
  n: number;
  /** Evaluator said failure too: the share of these failures it catches, with its Wilson interval. */
  caught: number;
  caughtRate: ProportionInterval;
  /** Evaluator said success. */
  missed: number;
  unparseable: number;
  sel: Selection;
  caughtSel: Selection;
  missedSel: Selection;
}

export interface KRow {
  info: EvaluatorInfo;
  stats: AgreementStats;
}

export interface JudgeDetailInput extends JudgeAgreementInput {
  evaluatorKey: string;
  /** Setting within the key; default: the first (smallest k, then prompt version). */
  k?: string;
  promptVersion?: string;
  bootstrap?: { replicates: number; seed: number };
}

export interface JudgeDetailResult {
  scope: Scope;
  /** Tasks flagged in the validity ledger and their trajectories, left out unless the scope includes them. */
  flagged: FlaggedCount;
  campaignId: number | null;
  unparseable: UnparseablePolicy;
  evaluatorKey: string;
  name: string;
  kind: EvaluatorInfo["kind"];
  /** Settings of this evaluator (k × prompt version), each against the human label: the k-table. */
  settings: KRow[];
  selected: EvaluatorInfo;
  overall: AgreementStats;
  reference: ReferenceInfo;
  bySite: SplitRow[];
  byRun: SplitRow[];
  byCategory: CategoryRow[];
  /** The split asked for (`by`): the setting's agreement per group. */
  split: { by: string; title: string; rows: SplitRow[] } | null;
  /**
   * The same setting against every reference there is: the consolidated label, the annotators' majority, and each
   * annotator (of the chosen campaign, else of every campaign); the one in use is marked.
   */
  byReference: ReferenceRow[];
}

export interface ReferenceRow {
  key: string;
  label: string;
  spec: ReferenceSpec;
  current: boolean;
  stats: AgreementStats;
}

export async function judgeAgreementDetail(db: Db, input: JudgeDetailInput): Promise<JudgeDetailResult> {
  const [facts] = await Promise.all([getFacts(db), getVerdictSets(db, input.evaluatorKey), ...referenceReads(db, input)]);
  const mask = scopeMask(facts, input.scope);
  const { ref, info: reference } = await referenceOf(db, input, mask);
  const all = await evaluatorsInScope(db, await getVerdictSets(db, input.evaluatorKey), mask);
  if (all.length === 0) throw new NotFoundError("evaluator with verdicts in this scope", input.evaluatorKey);
  const chosen =
    all.find(
      (x) => (input.k === undefined || x.set.identity.k === input.k) && (input.promptVersion === undefined || x.set.identity.pv === input.promptVersion),
    ) ??
    (() => {
      throw new NotFoundError("setting of this evaluator", `${input.evaluatorKey} k=${input.k ?? "*"} prompt=${input.promptVersion ?? "*"}`);
    })();
  const ctx: Context = { base: scopeSelection(input.scope), campaignId: input.campaignId, policy: input.unparseable, reference: reference.spec };
  const { set, info } = chosen;

  const settings = all.map((x) => ({
    info: x.info,
    stats: statsFromCounts(
      countPairs(x.set, ref, mask, () => 0, 1),
      0,
      x.set.identity,
      ctx,
      {},
    ),
  }));
  const overall = statsFromCounts(
    countPairs(set, ref, mask, () => 0, 1),
    0,
    set.identity,
    ctx,
    {},
    input.bootstrap,
  );

  // Per site: group = site code + 1 (0 = no site).
  const siteCounts = countPairs(set, ref, mask, (r) => facts.site[r]! + 1, facts.sites.length + 1);
  const bySite: SplitRow[] = [];
  for (let g = 0; g <= facts.sites.length; g++) {
    const stats = statsFromCounts(siteCounts, g, set.identity, ctx, { site: g === 0 ? null : facts.sites[g - 1]! });
    if (stats.n + stats.unparseable + stats.notEvaluable + stats.unsureReference + stats.noReference + stats.tieReference === 0) continue;
    bySite.push({ key: `site:${g === 0 ? null : facts.sites[g - 1]}`, label: g === 0 ? "(no site)" : facts.sites[g - 1]!, stats });
  }
  bySite.sort((a, b) => (a.label === "(no site)" ? 1 : b.label === "(no site)" ? -1 : a.label.localeCompare(b.label)));

  const runs = await runNames(db);
  const runIndex = new Map(runs.map((r, i) => [r.id, i]));
  const runCounts = countPairs(set, ref, mask, (r) => runIndex.get(facts.runId[r]!) ?? -1, runs.length);
  const byRun: SplitRow[] = [];
  runs.forEach((run, g) => {
    const stats = statsFromCounts(runCounts, g, set.identity, ctx, { runId: run.id });
    if (stats.n + stats.unparseable + stats.notEvaluable + stats.unsureReference + stats.noReference + stats.tieReference > 0)
      byRun.push({ key: `run:${run.id}`, label: run.name, stats });
  });

  // Per human error category, over human failures: group = category code + 1 (0 = no category).
  const catCounts = countPairs(set, ref, mask, (r) => (ref.verdict[r] === REF_FAILURE ? ref.category[r]! + 1 : -1), ref.categories.length + 1);
  const byCategory: CategoryRow[] = [];
  for (let g = 0; g <= ref.categories.length; g++) {
    const o = g * SLOTS;
    const unparseable = catCounts[o + S_F_UNPARSEABLE]!;
    const caught = catCounts[o + S_FF]! + (ctx.policy === "failure" ? unparseable : 0);
    const missed = catCounts[o + S_FS]!;
    const n = caught + missed;
    if (n + unparseable === 0) continue;
    const category = g === 0 ? null : ref.categories[g - 1]!;
    const base = { ...ctx.base, reference: referenceCondition(ctx, ["failure"], { category }) };
    byCategory.push({
      category,
      n,
      caught,
      caughtRate: wilsonInterval(caught, n),
      missed,
      unparseable,
      sel: { ...base, evaluator: evaluatorCondition(set.identity, countedVerdicts(ctx.policy)) },
      caughtSel: { ...base, evaluator: evaluatorCondition(set.identity, failureVerdicts(ctx.policy)) },
      missedSel: { ...base, evaluator: evaluatorCondition(set.identity, ["success"]) },
    });
  }
  // Most frequent first, failures without a category last.
  byCategory.sort((a, b) => (a.category === null ? 1 : 0) - (b.category === null ? 1 : 0) || b.n - a.n || String(a.category).localeCompare(String(b.category)));

  return {
    scope: input.scope,
    flagged: flaggedInScope(facts, input.scope),
    campaignId: input.campaignId ?? null,
    unparseable: input.unparseable,
    evaluatorKey: input.evaluatorKey,
    name: info.name,
    kind: info.kind,
    settings,
    selected: info,
    overall,
    reference,
    bySite,
    byRun,
    byCategory,
    split: await (async () => {
      if (!input.by) return null;
      const split = await splitFacts(db, facts, resolveSplitKey(facts, input.by));
      return { by: split.by, title: split.title, rows: splitRows(split, set, ref, mask, ctx) };
    })(),
    byReference: await referenceRows(db, input, set, mask, ctx),
  };
}

/**
 * The references a judge's page compares it with (its reference, the consolidated label, the majority, each
 * annotator), read at once rather than one after another: on PostgreSQL each read has its own pooled connection, so
 * a cold page waits for the slowest read instead of their sum. The page then takes them from the cache.
 */
function referenceReads(db: Db, input: JudgeDetailInput): Promise<unknown>[] {
  return [
    getReferenceFor(db, input.campaignId, input.reference ?? CONSOLIDATED),
    getReferenceFor(db, input.campaignId, CONSOLIDATED),
    getReferenceFor(db, input.campaignId, { kind: "majority" }),
    getAnnotatorReferences(db, input.campaignId),
  ];
}

/** The setting against the consolidated label, the majority and each annotator. */
async function referenceRows(db: Db, input: JudgeDetailInput, set: VerdictSet, mask: Uint8Array, ctx: Context): Promise<ReferenceRow[]> {
  const specs: { label: string; spec: ReferenceSpec; ref: Reference }[] = [
    { label: "Consolidated label", spec: CONSOLIDATED, ref: await getReferenceFor(db, input.campaignId, CONSOLIDATED) },
    { label: "Majority of the annotators", spec: { kind: "majority" }, ref: await getReferenceFor(db, input.campaignId, { kind: "majority" }) },
    ...(await getAnnotatorReferences(db, input.campaignId)).map(({ annotator, ref }) => ({
      label: annotator.name,
      spec: { kind: "annotator" as const, annotator: annotator.key },
      ref,
    })),
  ];
  const current = formatReferenceSpec(ctx.reference);
  const rows: ReferenceRow[] = [];
  for (const { label, spec, ref } of specs) {
    const stats = statsFromCounts(
      countPairs(set, ref, mask, () => 0, 1),
      0,
      set.identity,
      { ...ctx, reference: spec },
      {},
    );
    const isCurrent =
      formatReferenceSpec(spec) === current ||
      (spec.kind === "annotator" && ctx.reference.kind === "annotator" && ref.annotatorName === ctx.reference.annotator);
    if (stats.n + stats.tieReference + stats.unsureReference > 0 || isCurrent)
      rows.push({ key: formatReferenceSpec(spec), label, spec, current: isCurrent, stats });
  }
  return rows;
}

export type DisagreementKind = "all" | "false_success" | "false_failure" | "unparseable";

export interface DisagreementInput extends JudgeAgreementInput {
  identity: EvaluatorIdentity;
  kind: DisagreementKind;
  page: number;
  pageSize: number;
}

export interface DisagreementRow {
  trajectoryId: number;
  externalTaskId: string;
  site: string | null;
  intent: string;
  runId: number;
  runName: string;
  stepCount: number;
  human: string;
  humanCategory: string | null;
  judge: string;
  rationale: string | null;
}

/**
 * Trajectories where the evaluator and the human label disagree (or, for "unparseable", where the reply could not
 * be parsed), ordered by trajectory id, one page at a time.
 */
export async function judgeDisagreements(db: Db, input: DisagreementInput) {
  const [facts] = await Promise.all([getFacts(db), getVerdictSets(db, input.identity.key), getReferenceFor(db, input.campaignId, input.reference)]);
  const mask = scopeMask(facts, input.scope);
  const ref = await getReferenceFor(db, input.campaignId, input.reference);
  const set = (await getVerdictSets(db, input.identity.key)).find((s) => sameIdentity(s.identity, input.identity));
  if (!set) throw new NotFoundError("evaluator setting", evaluatorId(input.identity));
  const asFailure = input.unparseable === "failure";
  const hits: { id: number; human: number; verdict: number }[] = [];
  for (let i = 0; i < set.rows.length; i++) {
    const r = set.rows[i]!;
    if (!mask[r]) continue;
    const h = ref.verdict[r]!;
    if (h !== REF_SUCCESS && h !== REF_FAILURE) continue;
    const v = set.verdict[i]!;
    let take = false;
    if (input.kind === "unparseable") take = v === V_UNPARSEABLE;
    else {
      const judge = v === V_SUCCESS ? REF_SUCCESS : v === V_FAILURE || (v === V_UNPARSEABLE && asFailure) ? REF_FAILURE : -1;
      if (judge < 0 || judge === h) continue;
      take = input.kind === "all" || (input.kind === "false_success" ? judge === REF_SUCCESS : judge === REF_FAILURE);
    }
    if (take) hits.push({ id: facts.id[r]!, human: h, verdict: v });
  }
  hits.sort((a, b) => a.id - b.id);
  const total = hits.length;
  const pageHits = hits.slice((input.page - 1) * input.pageSize, input.page * input.pageSize);
  const details = await trajectoryRows(
    db,
    pageHits.map((h) => h.id),
  );
  const byId = new Map(details.map((d) => [d.id, d]));
  const verdicts = await verdictDetails(
    db,
    { evaluatorKey: input.identity.key, k: input.identity.k, promptVersion: input.identity.pv },
    pageHits.map((h) => h.id),
  );
  const rows: DisagreementRow[] = pageHits.flatMap((h) => {
    const d = byId.get(h.id);
    if (!d) return [];
    const r = facts.rowOf(h.id);
    const cat = ref.category[r]!;
    return [
      {
        trajectoryId: h.id,
        externalTaskId: d.externalTaskId,
        site: d.site,
        intent: d.intent,
        runId: d.runId,
        runName: d.runName,
        stepCount: d.stepCount,
        human: h.human === REF_SUCCESS ? "success" : "failure",
        humanCategory: cat >= 0 ? ref.categories[cat]! : null,
        judge: verdicts.get(h.id)?.verdict ?? ["success", "failure", "unparseable", "not_evaluable"][h.verdict]!,
        rationale: verdicts.get(h.id)?.rationale ?? null,
      },
    ];
  });
  return { total, page: input.page, pageSize: input.pageSize, pageCount: Math.max(1, Math.ceil(total / input.pageSize)), rows };
}
