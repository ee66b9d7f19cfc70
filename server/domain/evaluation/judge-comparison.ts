/**
 * Comparing two ways of asking one judge on the same labelled items: prompt versions in the alignment loop, the
 * configuration's own prompt against a perturbation in a stress test.
 *
 * - Per way of asking: Cohen's κ against the human label (with the project's interval rules, agreement/cohen.ts),
 *   the false-positive and false-negative rates and the success-rate gap (task-clustered intervals,
 *   analytics/evaluator-measures.ts).
 * - Between two ways: the items whose verdict flipped, each marked "now right" or "now wrong" against people; the
 *   flip rate with its Wilson interval; and the change in κ, b − a, with a paired percentile bootstrap over items
 *   (each resample draws the items with replacement and recomputes both κ on the same draw), seeded.
 *
 * Verdicts count as their outcome under the unparseable policy (analytics/measures.ts); an item without an outcome
 * from either side (no verdict yet, not evaluable, unparseable under "exclude") is left out of the pair and counted.
 */
import { kappaFromTable, type KappaEstimate } from "../agreement/cohen";
import { MIN_ITEMS_FOR_INTERVAL, percentileBounds, DEFAULT_BOOTSTRAP_REPLICATES, DEFAULT_BOOTSTRAP_SEED, INTERVAL_LEVEL } from "../agreement/interval";
import { wilsonInterval, type ProportionInterval } from "../agreement/proportion";
import { createRng, multinomialDraw } from "../agreement/random";
import { clusteredErrorRates, TASK_SLOTS, type InstrumentErrors } from "../analytics/evaluator-measures";
import { verdictOutcome, type UnparseablePolicy } from "../analytics/measures";
import type { HumanVerdict } from "./alignment";

export interface LabelledItem {
  trajectoryId: number;
  taskId: number;
  human: HumanVerdict;
}

export interface JudgedItem extends LabelledItem {
  /** The verdict as stored ("success", "failure", "unparseable", "not_evaluable"); null = none yet. */
  verdict: string | null;
}

export interface JudgeOnItems {
  /** Items asked about. */
  items: number;
  /** Items counted (a success or failure outcome under the policy). */
  n: number;
  /** Items without a verdict yet. */
  missing: number;
  /** Items whose verdict was unparseable (counted as failures or left out, by the policy) or not evaluable. */
  unparseable: number;
  notEvaluable: number;
  /** Rows human, columns judge, both [success, failure]. */
  table: [[number, number], [number, number]];
  kappa: KappaEstimate;
  errors: InstrumentErrors;
}

export interface ComparisonSettings {
  policy?: UnparseablePolicy;
  replicates?: number;
  seed?: number;
}

/** κ, FPR/FNR and the rate gap of one way of asking on the items (their verdicts from it). */
export function judgeOnItems(items: readonly JudgedItem[], settings: ComparisonSettings = {}): JudgeOnItems {
  const policy = settings.policy ?? "failure";
  const table: [[number, number], [number, number]] = [
    [0, 0],
    [0, 0],
  ];
  const taskIndex = new Map<number, number>();
  const taskCounts: number[] = [];
  let missing = 0;
  let unparseable = 0;
  let notEvaluable = 0;
  for (const it of items) {
    if (it.verdict === null) {
      missing++;
      continue;
    }
    if (it.verdict === "unparseable") unparseable++;
    if (it.verdict === "not_evaluable") notEvaluable++;
    const outcome = verdictOutcome(it.verdict, policy);
    if (!outcome) continue;
    const row = it.human === "success" ? 0 : 1;
    const col = outcome === "success" ? 0 : 1;
    table[row][col]++;
    let t = taskIndex.get(it.taskId);
    if (t === undefined) {
      t = taskIndex.size;
      taskIndex.set(it.taskId, t);
      for (let s = 0; s < TASK_SLOTS; s++) taskCounts.push(0);
    }
    taskCounts[t * TASK_SLOTS + row * 2 + col]!++;
  }
  const n = table[0][0] + table[0][1] + table[1][0] + table[1][1];
  return {
    items: items.length,
    n,
    missing,
    unparseable,
    notEvaluable,
    table,
    kappa: kappaFromTable(table, "none", { replicates: settings.replicates, seed: settings.seed }),
    errors: clusteredErrorRates(Float64Array.from(taskCounts), { replicates: settings.replicates, seed: settings.seed }),
  };
}

export interface PairedItem extends LabelledItem {
  a: string | null;
  b: string | null;
}

export interface Flip {
  trajectoryId: number;
  taskId: number;
  human: HumanVerdict;
  /** The stored verdicts before (a) and after (b). */
  a: string;
  b: string;
  /** b agrees with people where a did not ("now right"), or the reverse ("now wrong"). */
  direction: "now right" | "now wrong";
}

/** A flip as the reports list it (stress tests, alignment versions): the task beside the verdicts before and after. */
export interface FlippedItem {
  trajectoryId: number;
  taskExternalId: string;
  intent: string;
  human: HumanVerdict;
  /** The verdicts before (unperturbed, the earlier version) and after. */
  before: string;
  after: string;
  direction: Flip["direction"];
}

/** The flips with their tasks' external ids and intents, from the compared items by trajectory. */
export function flippedItems(flips: Flip[], items: Map<number, { taskExternalId: string; intent: string }>): FlippedItem[] {
  return flips.map((f) => {
    const it = items.get(f.trajectoryId)!;
    return {
      trajectoryId: f.trajectoryId,
      taskExternalId: it.taskExternalId,
      intent: it.intent,
      human: f.human,
      before: f.a,
      after: f.b,
      direction: f.direction,
    };
  });
}

export interface KappaChange {
  /** κ(b) − κ(a) on the paired items; null when either κ is undefined. */
  estimate: number | null;
  low: number | null;
  high: number | null;
  level: number;
  replicates: number;
  seed: number;
  /** Resamples where either κ was undefined (left out). */
  undefinedReplicates: number;
  /** Why there is no interval; null when there is one. */
  note: string | null;
}

export interface Comparison {
  /** Items both sides decided (under the policy); flips and κ are counted on these. */
  n: number;
  /** Items left out because one side has no outcome (not judged yet, not evaluable, unparseable under "exclude"). */
  leftOut: number;
  flips: Flip[];
  flipRate: ProportionInterval;
  nowRight: number;
  nowWrong: number;
  kappaA: KappaEstimate;
  kappaB: KappaEstimate;
  kappaChange: KappaChange;
}

/** κ of a 2×2 table given as [ss, sf, fs, ff]; null when the chance agreement is 1. */
function kappa2(ss: number, sf: number, fs: number, ff: number): number | null {
  const n = ss + sf + fs + ff;
  if (n === 0) return null;
  const po = (ss + ff) / n;
  const pe = ((ss + sf) * (ss + fs) + (fs + ff) * (sf + ff)) / (n * n);
  return pe === 1 ? null : (po - pe) / (1 - pe);
}

/** Flips, flip rate and the paired change in κ from way a to way b on the same items. */
export function compareOnItems(items: readonly PairedItem[], settings: ComparisonSettings = {}): Comparison {
  const policy = settings.policy ?? "failure";
  const replicates = settings.replicates ?? DEFAULT_BOOTSTRAP_REPLICATES;
  const seed = settings.seed ?? DEFAULT_BOOTSTRAP_SEED;
  if (!Number.isInteger(replicates) || replicates < 1) throw new RangeError(`bootstrap replicates must be a positive integer, got ${replicates}`);
  // Eight patterns: human (S/F) × a (S/F) × b (S/F), index h·4 + a·2 + b with 0 = success.
  const patterns = new Float64Array(8);
  const flips: Flip[] = [];
  let leftOut = 0;
  for (const it of items) {
    const oa = it.a === null ? null : verdictOutcome(it.a, policy);
    const ob = it.b === null ? null : verdictOutcome(it.b, policy);
    if (!oa || !ob) {
      leftOut++;
      continue;
    }
    const h = it.human === "success" ? 0 : 1;
    const a = oa === "success" ? 0 : 1;
    const b = ob === "success" ? 0 : 1;
    patterns[h * 4 + a * 2 + b]!++;
    if (a !== b)
      flips.push({ trajectoryId: it.trajectoryId, taskId: it.taskId, human: it.human, a: it.a!, b: it.b!, direction: b === h ? "now right" : "now wrong" });
  }
  const tableOf = (which: "a" | "b", w: ArrayLike<number>): [number, number, number, number] => {
    const t: [number, number, number, number] = [0, 0, 0, 0];
    for (let p = 0; p < 8; p++) {
      const h = p >> 2;
      const v = which === "a" ? (p >> 1) & 1 : p & 1;
      t[h * 2 + v]! += w[p]!;
    }
    return t;
  };
  const ta = tableOf("a", patterns);
  const tb = tableOf("b", patterns);
  const n = ta[0] + ta[1] + ta[2] + ta[3];
  const kappaA = kappaFromTable(
    [
      [ta[0], ta[1]],
      [ta[2], ta[3]],
    ],
    "none",
    { replicates, seed },
  );
  const kappaB = kappaFromTable(
    [
      [tb[0], tb[1]],
      [tb[2], tb[3]],
    ],
    "none",
    { replicates, seed },
  );
  const estimate = kappaA.kappa !== null && kappaB.kappa !== null ? kappaB.kappa - kappaA.kappa : null;
  const change: KappaChange = { estimate, low: null, high: null, level: INTERVAL_LEVEL, replicates, seed, undefinedReplicates: 0, note: null };
  if (estimate === null) change.note = `no interval: κ is undefined ${kappaA.kappa === null ? `before (${kappaA.reason})` : `after (${kappaB.reason})`}`;
  else if (n < MIN_ITEMS_FOR_INTERVAL) change.note = `no interval (n = ${n})`;
  else {
    const rng = createRng(seed);
    const drawn = new Float64Array(8);
    const values = new Float64Array(replicates);
    let defined = 0;
    for (let r = 0; r < replicates; r++) {
      multinomialDraw(n, patterns, rng, drawn);
      const a = tableOf("a", drawn);
      const b = tableOf("b", drawn);
      const ka = kappa2(...a);
      const kb = kappa2(...b);
      if (ka === null || kb === null) continue;
      values[defined++] = kb - ka;
    }
    change.undefinedReplicates = replicates - defined;
    if (defined === 0) change.note = "no interval: κ is undefined in every resample";
    else {
      const [low, high] = percentileBounds(values, defined);
      if (high > low) {
        change.low = Math.max(-2, low);
        change.high = Math.min(2, high);
      } else change.note = `no interval: every resample gives a change of ${low.toFixed(3)}${flips.length === 0 ? " (no item flipped)" : ""}`;
    }
  }
  const nowRight = flips.filter((f) => f.direction === "now right").length;
  return { n, leftOut, flips, flipRate: wilsonInterval(flips.length, n), nowRight, nowWrong: flips.length - nowRight, kappaA, kappaB, kappaChange: change };
}
