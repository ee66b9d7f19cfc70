/**
 * Blind → reveal → revise: how far seeing an evaluator's verdict moves human labels (CUAVerifierBench's two
 * stages). Input is one pair per (trajectory, annotator): the label submitted blind, the label kept or revised
 * after the evaluator's verdict was shown, and that verdict. Pure; no I/O.
 *
 * - Flip toward the evaluator: of the blind labels that disagreed with the evaluator, the share the annotator
 *   changed to the evaluator's verdict. Flip away: of the blind labels that agreed, the share changed to something
 *   else. Both with 95% Wilson intervals. Verdicts are compared as words (success, failure, unsure,
 *   not_executable), so an "unsure" blind label that becomes the evaluator's "failure" is a flip toward it.
 * - Cohen's κ between humans and the evaluator on success/failure, before (blind) and after (informed) the reveal,
 *   over the same pairs (both stages success or failure), with percentile bootstrap intervals that resample whole
 *   tasks (trajectories of one task are not independent), and the interval of the change κ after − κ before.
 * - Category flips: every decided pair whose verdict or error category changed, counted by (from → to).
 *
 * Pairs whose evaluator verdict is neither success nor failure (unparseable, not evaluable) take no part in flip
 * rates or κ; they are counted. Undecided pairs (revealed, no keep/revise yet) are counted and left out.
 */
import { kappaFromCounts, type KappaEstimate } from "./cohen";
import { AgreementInputError } from "./labels";
import { wilsonInterval, type ProportionInterval } from "./proportion";
import { createRng } from "./random";

export interface RevealPair {
  /** Cluster for the bootstrap: the trajectory's task. */
  taskKey: string | number;
  /** The evaluator's verdict as shown (success, failure, unparseable, not_evaluable). */
  evaluator: string;
  blindVerdict: string;
  blindCategory: string | null;
  /** Null while the annotator has not decided. */
  informedVerdict: string | null;
  informedCategory: string | null;
}

export interface KappaWithInterval {
  estimate: KappaEstimate;
  low: number | null;
  high: number | null;
}

export interface CategoryFlip {
  fromVerdict: string;
  fromCategory: string | null;
  toVerdict: string;
  toCategory: string | null;
  count: number;
}

export interface RevealMeasures {
  /** Pairs given (revealed), decided (kept or revised) and, of those, revised (verdict or category changed). */
  revealed: number;
  decided: number;
  revised: number;
  /** Decided pairs left out because the evaluator gave no success/failure verdict. */
  evaluatorUndecided: number;
  /** Blind labels that disagreed with the evaluator and how many moved to its verdict. */
  flipToward: ProportionInterval;
  /** Blind labels that agreed with the evaluator and how many moved away from it. */
  flipAway: ProportionInterval;
  /** Pairs in κ (both stages success or failure, evaluator success or failure) and the tasks they belong to. */
  kappaPairs: number;
  kappaTasks: number;
  kappaBefore: KappaWithInterval;
  kappaAfter: KappaWithInterval;
  /** κ after − κ before, with its task-resampled interval. */
  kappaChange: { estimate: number | null; low: number | null; high: number | null };
  /** Why intervals are missing (no pairs, a single task), else null. */
  intervalReason: string | null;
  bootstrap: { replicates: number; seed: number; level: number; method: "percentile, resampling tasks" };
  categoryFlips: CategoryFlip[];
}

export interface RevealBootstrapSettings {
  replicates?: number;
  seed?: number;
  level?: number;
}

const BINARY = ["success", "failure"] as const;
const binaryIndex = (v: string | null): number => (v === "success" ? 0 : v === "failure" ? 1 : -1);

/** Type-7 quantile of sorted values (numpy's default), as the other bootstrap intervals use. */
function quantile(sorted: Float64Array, q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (pos - lo) * (sorted[hi]! - sorted[lo]!);
}

function percentile(values: number[], level: number): [number | null, number | null] {
  if (!values.length) return [null, null];
  const sorted = Float64Array.from(values).sort();
  const tail = (1 - level) / 2;
  return [quantile(sorted, tail), quantile(sorted, 1 - tail)];
}

export function revealMeasures(pairs: readonly RevealPair[], settings: RevealBootstrapSettings = {}): RevealMeasures {
  const replicates = settings.replicates ?? 1000;
  const seed = settings.seed ?? 1;
  const level = settings.level ?? 0.95;
  if (!Number.isInteger(replicates) || replicates < 1) throw new AgreementInputError(`bootstrap replicates must be a positive integer, got ${replicates}`);
  if (!(level > 0 && level < 1)) throw new AgreementInputError(`bootstrap level must be between 0 and 1, got ${level}`);

  let decided = 0;
  let revised = 0;
  let evaluatorUndecided = 0;
  let disagreed = 0;
  let toward = 0;
  let agreed = 0;
  let away = 0;
  const flips = new Map<string, CategoryFlip>();
  // Per task: 2×2 before (blind × evaluator) then 2×2 after (informed × evaluator), rows human, columns evaluator.
  const perTask = new Map<string | number, Float64Array>();

  for (const p of pairs) {
    if (p.informedVerdict === null) continue;
    decided++;
    const changed = p.informedVerdict !== p.blindVerdict || (p.informedCategory ?? null) !== (p.blindCategory ?? null);
    if (changed) {
      revised++;
      const key = JSON.stringify([p.blindVerdict, p.blindCategory ?? null, p.informedVerdict, p.informedCategory ?? null]);
      const f = flips.get(key);
      if (f) f.count++;
      else
        flips.set(key, {
          fromVerdict: p.blindVerdict,
          fromCategory: p.blindCategory ?? null,
          toVerdict: p.informedVerdict,
          toCategory: p.informedCategory ?? null,
          count: 1,
        });
    }
    const e = binaryIndex(p.evaluator);
    if (e < 0) {
      evaluatorUndecided++;
      continue;
    }
    if (p.blindVerdict === p.evaluator) {
      agreed++;
      if (p.informedVerdict !== p.evaluator) away++;
    } else {
      disagreed++;
      if (p.informedVerdict === p.evaluator) toward++;
    }
    const b = binaryIndex(p.blindVerdict);
    const i = binaryIndex(p.informedVerdict);
    if (b < 0 || i < 0) continue;
    let cells = perTask.get(p.taskKey);
    if (!cells) perTask.set(p.taskKey, (cells = new Float64Array(8)));
    cells[b * 2 + e]!++;
    cells[4 + i * 2 + e]!++;
  }

  const tasks = [...perTask.values()];
  const before = new Float64Array(4);
  const after = new Float64Array(4);
  for (const c of tasks) {
    for (let j = 0; j < 4; j++) {
      before[j]! += c[j]!;
      after[j]! += c[4 + j]!;
    }
  }
  const kBefore = kappaFromCounts(before, 2);
  const kAfter = kappaFromCounts(after, 2);
  const kappaPairs = kBefore.n;
  const change = kBefore.kappa !== null && kAfter.kappa !== null ? kAfter.kappa - kBefore.kappa : null;

  let intervalReason: string | null = null;
  let intervals = { before: [null, null], after: [null, null], change: [null, null] } as Record<"before" | "after" | "change", [number | null, number | null]>;
  if (tasks.length === 0) intervalReason = "no pair has success or failure from the human at both stages and from the evaluator";
  else if (tasks.length === 1) intervalReason = "all compared pairs belong to one task: resampling tasks cannot give an interval";
  else {
    const rng = createRng(seed);
    const vb: number[] = [];
    const va: number[] = [];
    const vc: number[] = [];
    const sb = new Float64Array(4);
    const sa = new Float64Array(4);
    for (let r = 0; r < replicates; r++) {
      sb.fill(0);
      sa.fill(0);
      for (let d = 0; d < tasks.length; d++) {
        const c = tasks[Math.floor(rng() * tasks.length)]!;
        for (let j = 0; j < 4; j++) {
          sb[j]! += c[j]!;
          sa[j]! += c[4 + j]!;
        }
      }
      const xb = kappaFromCounts(sb, 2, "none", false).kappa;
      const xa = kappaFromCounts(sa, 2, "none", false).kappa;
      if (xb !== null) vb.push(xb);
      if (xa !== null) va.push(xa);
      if (xb !== null && xa !== null) vc.push(xa - xb);
    }
    intervals = {
      before: kBefore.kappa === null ? [null, null] : percentile(vb, level),
      after: kAfter.kappa === null ? [null, null] : percentile(va, level),
      change: change === null ? [null, null] : percentile(vc, level),
    };
    // An interval of one point (every resample gave the same κ, e.g. perfect agreement) claims a certainty the
    // data do not have: there is no interval then, and the reason says so.
    const same = (Object.keys(intervals) as (keyof typeof intervals)[]).filter((key) => intervals[key][0] !== null && intervals[key][0] === intervals[key][1]);
    for (const key of same) intervals[key] = [null, null];
    if (same.length) {
      const names = same.map((key) => (key === "change" ? "the change in κ" : key === "before" ? "κ before the reveal" : "κ after the reveal"));
      const list = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
      intervalReason = `every resample of the tasks gives the same value for ${list}, so ${names.length === 1 ? "it has" : "these have"} no interval`;
    }
  }

  const categoryFlips = [...flips.values()].sort(
    (a, b) =>
      b.count - a.count ||
      a.fromVerdict.localeCompare(b.fromVerdict) ||
      (a.fromCategory ?? "").localeCompare(b.fromCategory ?? "") ||
      a.toVerdict.localeCompare(b.toVerdict) ||
      (a.toCategory ?? "").localeCompare(b.toCategory ?? ""),
  );

  return {
    revealed: pairs.length,
    decided,
    revised,
    evaluatorUndecided,
    flipToward: wilsonInterval(toward, disagreed),
    flipAway: wilsonInterval(away, agreed),
    kappaPairs,
    kappaTasks: tasks.length,
    kappaBefore: { estimate: kBefore, low: intervals.before[0], high: intervals.before[1] },
    kappaAfter: { estimate: kAfter, low: intervals.after[0], high: intervals.after[1] },
    kappaChange: { estimate: change, low: intervals.change[0], high: intervals.change[1] },
    intervalReason,
    bootstrap: { replicates, seed, level, method: "percentile, resampling tasks" },
    categoryFlips,
  };
}

/** The binary categories κ is computed over, rows human and columns evaluator. */
export const REVEAL_KAPPA_CATEGORIES = BINARY;
