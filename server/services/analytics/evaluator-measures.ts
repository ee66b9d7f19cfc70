/**
 * Judges as measured instruments: for every evaluator setting in scope, against the consolidated human label —
 * false-positive and false-negative rates and the success-rate gap with intervals from a bootstrap over tasks
 * (overall, per site, per agent run); the unparseable rate; calibration of the vote share when the judge was
 * sampled several times; and how each evaluator ranks the agent runs compared with the humans (Kendall's τ-b).
 *
 * Everything is computed from the cached analytics arrays (dataset.ts) and the result itself is cached until the
 * trajectories, consolidated labels or verdicts change, so the bootstrap runs once per write, not per page view.
 */
import { resolveSplitKey, splitFacts } from "./splits";
import type { Db } from "../../../db/database";
import { NULL_INT } from "../../../db/repositories/analytics";
import { listJudgeConfigs } from "../../../db/repositories/evaluation/verdicts";
import { kappaFromTable, wilsonInterval, type KappaEstimate, type ProportionInterval } from "../../domain/agreement";
import {
  CalibrationCounter,
  clusteredErrorRates,
  competitionRanks,
  kendallTauB,
  TASK_SLOTS,
  T_FF,
  T_FS,
  T_SF,
  T_SS,
  type Calibration,
  type InstrumentErrors,
  type KendallTau,
} from "../../domain/analytics/evaluator-measures";
import type { UnparseablePolicy } from "../../domain/analytics/measures";
import { evaluatorsInScope, runNames, type EvaluatorInfo } from "./common";
import {
  bootstrapMemoFor,
  cachedAnalytics,
  getFacts,
  getReference,
  getVerdictSets,
  JUDGE_MEASURE_TABLES,
  REF_FAILURE,
  REF_SUCCESS,
  scopeMask,
  V_FAILURE,
  V_SUCCESS,
  V_UNPARSEABLE,
  type Reference,
  type Scope,
  type TrajectoryFacts,
  type VerdictSet,
} from "./dataset";

export const MEASURE_BOOTSTRAP = { replicates: 1000, seed: 1, level: 0.95 } as const;
export const CALIBRATION_BINS = 10;

export interface JudgeMeasuresInput {
  scope: Scope;
  campaignId?: number;
  unparseable: UnparseablePolicy;
  /** A split key (splits.ts): every evaluator's error rates per group as well. */
  by?: string;
}

export interface SplitErrors {
  key: string;
  label: string;
  errors: InstrumentErrors;
}

export interface UnparseableFigure {
  /** Verdicts in scope, and those whose reply could not be parsed. */
  verdicts: number;
  unparseable: number;
  rate: ProportionInterval;
  /** When the judge was sampled: replies received and replies that could not be parsed. */
  samples: number;
  unparseableSamples: number;
  sampleRate: ProportionInterval;
}

export interface EvaluatorMeasures {
  info: EvaluatorInfo;
  errors: InstrumentErrors;
  bySite: SplitErrors[];
  byRun: SplitErrors[];
  /** Per group of the split asked for (`by`), titled `splitTitle`; absent without one. */
  bySplit?: SplitErrors[];
  splitTitle?: string;
  unparseable: UnparseableFigure;
  /** Null when no compared item has several samples (see calibrationNote). */
  calibration: Calibration | null;
  calibrationNote: string | null;
}

export interface RankCell {
  /** Success rate of the rater over the run's trajectories it rated (unparseable per the policy). */
  rate: number | null;
  n: number;
  rank: number | null;
}

export interface RankRow {
  runId: number;
  name: string;
  human: RankCell;
  /** By evaluator id. */
  evaluators: Record<string, RankCell>;
}

/** One side of a hygiene comparison: the setting, its κ against humans and its error rates. */
export interface HygieneSide {
  id: string;
  label: string;
  kappa: KappaEstimate;
  errors: InstrumentErrors;
}

/** The same judge (same endpoint, model, sampling and prompt) with and without the agent's final answer. */
export interface HygieneComparison {
  k: string;
  withAnswer: HygieneSide;
  withoutAnswer: HygieneSide;
}

export interface JudgeMeasuresResult {
  scope: Scope;
  campaignId: number | null;
  unparseable: UnparseablePolicy;
  bootstrap: typeof MEASURE_BOOTSTRAP;
  evaluators: EvaluatorMeasures[];
  /** Pairs of settings that differ only in seeing the final answer (judge hygiene, Online-Mind2Web). */
  hygiene: HygieneComparison[];
  ranking: {
    runs: RankRow[];
    /** Per evaluator: τ-b between its ranking of the runs and the humans'. */
    tau: { id: string; label: string; tau: KendallTau }[];
  };
}

/** Dense task index per facts row, and the number of tasks. */
function taskIndex(facts: TrajectoryFacts): { of: Int32Array; tasks: number } {
  const dense = new Map<number, number>();
  const of = new Int32Array(facts.n);
  for (let r = 0; r < facts.n; r++) {
    const t = facts.taskId[r]!;
    let i = dense.get(t);
    if (i === undefined) dense.set(t, (i = dense.size));
    of[r] = i;
  }
  return { of, tasks: dense.size };
}

/** The evaluator's outcome for the comparison: 1 success, 0 failure, -1 left out (policy for unparseable). */
function outcome(v: number, policy: UnparseablePolicy): number {
  if (v === V_SUCCESS) return 1;
  if (v === V_FAILURE) return 0;
  if (v === V_UNPARSEABLE && policy === "failure") return 0;
  return -1;
}

/** Per-task counts of the compared pairs, per group (group -1 = not counted). */
function taskCountsByGroup(
  set: VerdictSet,
  ref: Reference,
  mask: Uint8Array,
  tasks: { of: Int32Array; tasks: number },
  group: (r: number) => number,
  policy: UnparseablePolicy,
): Map<number, Float64Array> {
  const out = new Map<number, Float64Array>();
  for (let i = 0; i < set.rows.length; i++) {
    const r = set.rows[i]!;
    if (!mask[r]) continue;
    const h = ref.verdict[r]!;
    if (h !== REF_SUCCESS && h !== REF_FAILURE) continue;
    const j = outcome(set.verdict[i]!, policy);
    if (j < 0) continue;
    const g = group(r);
    if (g < 0) continue;
    let counts = out.get(g);
    if (!counts) out.set(g, (counts = new Float64Array(tasks.tasks * TASK_SLOTS)));
    const slot = h === REF_SUCCESS ? (j === 1 ? T_SS : T_SF) : j === 1 ? T_FS : T_FF;
    counts[tasks.of[r]! * TASK_SLOTS + slot]!++;
  }
  return out;
}

function unparseableFigure(set: VerdictSet, mask: Uint8Array): UnparseableFigure {
  let verdicts = 0;
  let unparseable = 0;
  let samples = 0;
  let unparseableSamples = 0;
  for (let i = 0; i < set.rows.length; i++) {
    if (!mask[set.rows[i]!]) continue;
    verdicts++;
    if (set.verdict[i] === V_UNPARSEABLE) unparseable++;
    const k = set.sampleCount[i]!;
    if (k !== NULL_INT && k > 0) {
      samples += k;
      unparseableSamples += Math.max(0, k - set.sampleSuccesses[i]! - set.sampleFailures[i]!);
    }
  }
  return {
    verdicts,
    unparseable,
    rate: wilsonInterval(unparseable, verdicts),
    samples,
    unparseableSamples,
    sampleRate: wilsonInterval(unparseableSamples, samples),
  };
}

function calibrationOf(set: VerdictSet, ref: Reference, mask: Uint8Array): { calibration: Calibration | null; note: string | null } {
  const counter = new CalibrationCounter(CALIBRATION_BINS);
  let single = 0;
  for (let i = 0; i < set.rows.length; i++) {
    const r = set.rows[i]!;
    if (!mask[r]) continue;
    const h = ref.verdict[r]!;
    if (h !== REF_SUCCESS && h !== REF_FAILURE) continue;
    const s = set.sampleSuccesses[i]!;
    const f = set.sampleFailures[i]!;
    if (s === NULL_INT || f === NULL_INT || s + f === 0) {
      single++;
      continue;
    }
    counter.add(s / (s + f), h === REF_SUCCESS);
  }
  const calibration = counter.result();
  if (calibration.n === 0) {
    return {
      calibration: null,
      note: single
        ? "one sample per item: run a batch with samples ≥ 2 (temperature > 0) to measure calibration"
        : "no item with a human label and several samples",
    };
  }
  return { calibration, note: single ? `${single} compared item${single === 1 ? "" : "s"} had a single sample and are left out` : null };
}

function rankCell(successes: number, n: number): RankCell {
  return { rate: n ? successes / n : null, n, rank: null };
}

/** κ from the compared pairs behind the error rates. */
function kappaOf(e: InstrumentErrors): KappaEstimate {
  const fs = e.falsePositive.errors;
  const ff = e.falsePositive.of - fs;
  const sf = e.falseNegative.errors;
  const ss = e.falseNegative.of - sf;
  return kappaFromTable([
    [ss, sf],
    [fs, ff],
  ]);
}

/**
 * Settings of judges that are the same judge but for the final answer: a configuration with "without the agent's
 * final answer" and one without the option that agree on everything else that makes a judge (endpoint, model,
 * temperature, seed, output limit, prompt version, other options), at the same k.
 */
async function hygienePairs(db: Db, evaluators: EvaluatorMeasures[]): Promise<HygieneComparison[]> {
  const judges = evaluators.filter((e) => e.info.kind === "judge" && /^judge:\d+$/.test(e.info.identity.key));
  if (judges.length < 2) return [];
  const signature = new Map<number, string>();
  for (const c of await listJudgeConfigs(db)) {
    const { withoutFinalAnswer: _dropped, ...rest } = c.options;
    void _dropped;
    const options = Object.fromEntries(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b)));
    signature.set(c.id, JSON.stringify([c.baseUrl, c.model, c.temperature, c.seed, c.maxOutputTokens, c.promptVersion, options]));
  }
  const sig = (key: string) => signature.get(Number(key.slice("judge:".length)));
  const side = (e: EvaluatorMeasures): HygieneSide => ({ id: e.info.id, label: e.info.label, kappa: kappaOf(e.errors), errors: e.errors });
  const pairs: HygieneComparison[] = [];
  for (const without of judges) {
    if (!without.info.identity.pv.endsWith("+no-answer")) continue;
    const pv = without.info.identity.pv.slice(0, -"+no-answer".length);
    const s = sig(without.info.identity.key);
    for (const withAnswer of judges) {
      const id = withAnswer.info.identity;
      if (id.pv !== pv || id.k !== without.info.identity.k || s === undefined || sig(id.key) !== s) continue;
      pairs.push({ k: id.k, withAnswer: side(withAnswer), withoutAnswer: side(without) });
    }
  }
  return pairs;
}

async function compute(db: Db, input: JudgeMeasuresInput): Promise<JudgeMeasuresResult> {
  const facts = await getFacts(db);
  const mask = scopeMask(facts, input.scope);
  const ref = await getReference(db, input.campaignId);
  const tasks = taskIndex(facts);
  const runs = await runNames(db);
  const runIndex = new Map(runs.map((r, i) => [r.id, i]));
  const runOf = (r: number) => runIndex.get(facts.runId[r]!) ?? -1;
  const settings = await evaluatorsInScope(db, await getVerdictSets(db), mask);
  const policy = input.unparseable;
  const memo = await bootstrapMemoFor(db);
  const split = input.by ? await splitFacts(db, facts, resolveSplitKey(facts, input.by)) : null;

  const evaluators: EvaluatorMeasures[] = settings.map(({ set, info }) => {
    const overall = taskCountsByGroup(set, ref, mask, tasks, () => 0, policy).get(0) ?? new Float64Array(0);
    const siteCounts = taskCountsByGroup(set, ref, mask, tasks, (r) => facts.site[r]! + 1, policy);
    const bySite: SplitErrors[] = [...siteCounts.entries()]
      .map(([g, counts]) => ({
        key: `site:${g === 0 ? "" : facts.sites[g - 1]}`,
        label: g === 0 ? "(no site)" : facts.sites[g - 1]!,
        errors: clusteredErrorRates(counts, MEASURE_BOOTSTRAP, memo),
      }))
      .sort((a, b) => (a.label === "(no site)" ? 1 : b.label === "(no site)" ? -1 : a.label.localeCompare(b.label)));
    const runCounts = taskCountsByGroup(set, ref, mask, tasks, runOf, policy);
    const byRun: SplitErrors[] = [...runCounts.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([g, counts]) => ({ key: `run:${runs[g]!.id}`, label: runs[g]!.name, errors: clusteredErrorRates(counts, MEASURE_BOOTSTRAP, memo) }));
    const cal = calibrationOf(set, ref, mask);
    const measures: EvaluatorMeasures = {
      info,
      errors: clusteredErrorRates(overall, MEASURE_BOOTSTRAP, memo),
      bySite,
      byRun,
      unparseable: unparseableFigure(set, mask),
      calibration: cal.calibration,
      calibrationNote: cal.note,
    };
    if (split) {
      const counts = taskCountsByGroup(set, ref, mask, tasks, (r) => split.group[r]!, policy);
      measures.bySplit = [...counts.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([g, c]) => ({ key: split.groups[g]!.key, label: split.groups[g]!.label, errors: clusteredErrorRates(c, MEASURE_BOOTSTRAP, memo) }));
      measures.splitTitle = split.title;
    }
    return measures;
  });

  // Rankings of the agent runs: each rater's success rate over the run's trajectories it rated.
  const humanCounts = new Float64Array(runs.length * 2);
  for (let r = 0; r < facts.n; r++) {
    if (!mask[r]) continue;
    const g = runOf(r);
    const h = ref.verdict[r]!;
    if (g < 0 || (h !== REF_SUCCESS && h !== REF_FAILURE)) continue;
    humanCounts[g * 2]! += h === REF_SUCCESS ? 1 : 0;
    humanCounts[g * 2 + 1]!++;
  }
  const rows: RankRow[] = runs.map((run, g) => ({
    runId: run.id,
    name: run.name,
    human: rankCell(humanCounts[g * 2]!, humanCounts[g * 2 + 1]!),
    evaluators: {},
  }));
  for (const { set, info } of settings) {
    const c = new Float64Array(runs.length * 2);
    for (let i = 0; i < set.rows.length; i++) {
      const r = set.rows[i]!;
      if (!mask[r]) continue;
      const g = runOf(r);
      const j = outcome(set.verdict[i]!, policy);
      if (g < 0 || j < 0) continue;
      c[g * 2]! += j;
      c[g * 2 + 1]!++;
    }
    rows.forEach((row, g) => (row.evaluators[info.id] = rankCell(c[g * 2]!, c[g * 2 + 1]!)));
  }
  // Only runs that someone rated take part.
  const ranked = rows.filter((row) => row.human.n > 0 || Object.values(row.evaluators).some((e) => e.n > 0));
  competitionRanks(ranked.map((row) => row.human.rate)).forEach((rank, i) => (ranked[i]!.human.rank = rank));
  for (const { info } of settings)
    competitionRanks(ranked.map((row) => row.evaluators[info.id]!.rate)).forEach((rank, i) => (ranked[i]!.evaluators[info.id]!.rank = rank));
  const tau = settings.map(({ info }) => ({
    id: info.id,
    label: info.label,
    tau: kendallTauB(
      ranked.map((row) => row.evaluators[info.id]!.rate),
      ranked.map((row) => row.human.rate),
    ),
  }));

  return {
    scope: input.scope,
    campaignId: input.campaignId ?? null,
    unparseable: policy,
    bootstrap: MEASURE_BOOTSTRAP,
    evaluators,
    hygiene: await hygienePairs(db, evaluators),
    ranking: { runs: ranked, tau },
  };
}

/** The measures of every evaluator setting in scope; recomputed only after a write to the tables they come from. */
export async function judgeMeasures(db: Db, input: JudgeMeasuresInput): Promise<JudgeMeasuresResult> {
  const key = `judge-measures:${JSON.stringify([input.scope.taskSetId ?? null, input.scope.runId ?? null, input.scope.site === undefined ? "*" : input.scope.site, input.campaignId ?? null, input.unparseable, input.by ?? null, input.scope.includeFlagged === true])}`;
  return cachedAnalytics(db, key, JUDGE_MEASURE_TABLES, () => compute(db, input));
}
