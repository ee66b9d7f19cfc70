/**
 * Verdicts carried by a file Verdict wrote (a native bundle's trajectories, an ATIF file's `extra.verdict`), as an
 * import records them.
 */
import type { BundleVerdict } from "../domain/imports/bundle";
import type { ImportVerdict } from "./types";

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
