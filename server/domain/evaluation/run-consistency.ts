/**
 * How consistent a judge is with itself: the same judge run several times over the same trajectories (several
 * auto-evaluation logs of one judge, stored as runs "run:<file>"). On the trajectories every run judged with a
 * success or failure verdict: the flip rate (share of them on which the runs do not all agree), per pair of runs the
 * flips and Cohen's κ between the two runs, and Fleiss' κ over all runs. Unparseable and not-evaluable verdicts are
 * counted apart, not as flips. Pure.
 */
import { cohenKappa } from "../agreement/cohen";
import { fleissKappa } from "../agreement/fleiss";

export type RunVerdict = "success" | "failure" | "unparseable" | "not_evaluable";

export interface JudgeRun {
  /** The run's label ("run:gpt4o_run1.log"). */
  run: string;
  /** Its verdict per trajectory. */
  verdicts: Map<number, RunVerdict | string>;
}

export interface RunPairConsistency {
  a: string;
  b: string;
  /** Trajectories both runs judged success or failure. */
  n: number;
  flips: number;
  flipRate: number | null;
  kappa: number | null;
  kappaReason: string | null;
  /** κ's 95% interval as the agreement module gives it (within [−1, 1], or none with the reason in `intervalNote`). */
  ciLow: number | null;
  ciHigh: number | null;
  intervalNote: string | null;
}

export interface JudgeRunConsistency {
  runs: string[];
  /** Trajectories every run judged success or failure. */
  items: number;
  /** Of those, how many the runs did not all agree on, and the share. */
  flips: number;
  flipRate: number | null;
  /** Trajectories some run judged, left out because a run had no success/failure verdict for them. */
  leftOut: number;
  pairs: RunPairConsistency[];
  fleissKappa: number | null;
  fleissReason: string | null;
}

const DECIDED = new Set(["success", "failure"]);

export function judgeRunConsistency(runs: JudgeRun[]): JudgeRunConsistency {
  const all = new Set<number>();
  for (const r of runs) for (const id of r.verdicts.keys()) all.add(id);
  const common = [...all].filter((id) => runs.every((r) => DECIDED.has(String(r.verdicts.get(id))))).sort((x, y) => x - y);
  const flips = common.filter((id) => new Set(runs.map((r) => r.verdicts.get(id))).size > 1).length;
  const pairs: RunPairConsistency[] = [];
  for (let i = 0; i < runs.length; i++) {
    for (let j = i + 1; j < runs.length; j++) {
      const a = runs[i]!;
      const b = runs[j]!;
      const ids = [...a.verdicts.keys()]
        .filter((id) => DECIDED.has(String(a.verdicts.get(id))) && DECIDED.has(String(b.verdicts.get(id))))
        .sort((x, y) => x - y);
      const va = ids.map((id) => String(a.verdicts.get(id)));
      const vb = ids.map((id) => String(b.verdicts.get(id)));
      const pairFlips = ids.filter((_, k) => va[k] !== vb[k]).length;
      const k = ids.length ? cohenKappa(va, vb, { categories: ["success", "failure"] }) : null;
      pairs.push({
        a: a.run,
        b: b.run,
        n: ids.length,
        flips: pairFlips,
        flipRate: ids.length ? pairFlips / ids.length : null,
        kappa: k?.kappa ?? null,
        kappaReason: k ? k.reason : "no trajectory judged success or failure by both runs",
        ciLow: k?.interval.low ?? null,
        ciHigh: k?.interval.high ?? null,
        intervalNote: k?.interval.note ?? null,
      });
    }
  }
  const fleiss =
    common.length && runs.length >= 2
      ? fleissKappa(
          common.map((id) => runs.map((r) => String(r.verdicts.get(id)))),
          ["success", "failure"],
        )
      : null;
  return {
    runs: runs.map((r) => r.run),
    items: common.length,
    flips,
    flipRate: common.length ? flips / common.length : null,
    leftOut: all.size - common.length,
    pairs,
    fleissKappa: fleiss?.kappa ?? null,
    fleissReason: fleiss ? fleiss.reason : "no trajectory judged success or failure by every run",
  };
}
