/**
 * Run-to-run consistency of judges imported several times over the same trajectories (several auto-evaluation logs
 * of one judge; server/importers/webvoyager-auto-eval.ts nameAutoEvalLogs stores each as a run "run:<file>").
 */
import type { Db } from "../../../db/database";
import { listJudgeRunVerdicts } from "../../../db/repositories/evaluation/verdicts";
import { judgeRunConsistency, type JudgeRunConsistency } from "../../domain/evaluation/run-consistency";

export interface JudgeConsistencyView extends JudgeRunConsistency {
  evaluatorKey: string;
  evaluatorName: string;
  k: string;
}

/** Every judge (evaluator and screenshot window) stored with two or more runs, and how consistent its runs are. */
export async function judgeRunConsistencies(db: Db, evaluatorKey?: string): Promise<JudgeConsistencyView[]> {
  const groups = new Map<string, { evaluatorKey: string; evaluatorName: string; k: string; runs: Map<string, Map<number, string>> }>();
  for (const v of await listJudgeRunVerdicts(db, evaluatorKey)) {
    const id = `${v.evaluatorKey}\u0000${v.k}`;
    const g = groups.get(id) ?? { evaluatorKey: v.evaluatorKey, evaluatorName: v.evaluatorName, k: v.k, runs: new Map() };
    const run = g.runs.get(v.promptVersion) ?? new Map<number, string>();
    run.set(v.trajectoryId, v.verdict);
    g.runs.set(v.promptVersion, run);
    groups.set(id, g);
  }
  return [...groups.values()]
    .filter((g) => g.runs.size >= 2)
    .sort((a, b) => a.evaluatorName.localeCompare(b.evaluatorName) || a.k.localeCompare(b.k))
    .map((g) => ({
      evaluatorKey: g.evaluatorKey,
      evaluatorName: g.evaluatorName,
      k: g.k,
      ...judgeRunConsistency([...g.runs].sort((a, b) => a[0].localeCompare(b[0], "en", { numeric: true })).map(([run, verdicts]) => ({ run, verdicts }))),
    }));
}
