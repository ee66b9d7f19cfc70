/**
 * What a file Verdict wrote carries (a native bundle's trajectories, an ATIF file's `extra.verdict`): its task and its
 * verdicts, as an import takes them.
 */
import type { BundleTrajectory, BundleVerdict } from "../domain/imports/bundle";
import type { ImportTask, ImportVerdict } from "./types";

/**
 * The task as the file describes it (the bundle schema's fields are the import's); what an older file leaves out
 * (evaluator configuration, attributes) is null.
 */
export function importedBundleTask(task: BundleTrajectory["task"]): ImportTask {
  return { ...task, evaluatorConfig: task.evaluatorConfig ?? null, attributes: task.attributes ?? null };
}

/**
 * The verdicts to import. A file exported from this very installation (`fromHere`) brings back verdicts whose
 * judges and rules are already here: only the ones it had imported itself are taken again. Each keeps its key
 * when that is an import key, else gets `import:<evaluator>`.
 */
export function importedBundleVerdicts(verdicts: BundleVerdict[], fromHere: boolean): ImportVerdict[] {
  return verdicts
    .filter((v) => !fromHere || v.evaluatorKey.startsWith("import:"))
    .map((v) => ({
      evaluator: v.evaluator,
      evaluatorKind: v.kind,
      verdict: v.verdict,
      score: v.score,
      rationale: v.rationale,
      raw: v.raw,
      key: v.evaluatorKey.startsWith("import:") ? v.evaluatorKey : `import:${v.evaluator}`,
      k: v.k,
      promptVersion: v.promptVersion,
      model: v.model,
      ...(v.stepIndices ? { stepIndices: v.stepIndices } : {}),
      ...(v.details ? { details: v.details } : {}),
    }));
}
