/**
 * What makes an imported trajectory the same trajectory, wherever its files sat.
 *
 * Two hashes, neither of which knows where the files were:
 * - the source identity: the run's format and folder name (not the path to it), task, attempt, and the bytes of the
 *   trajectory's own text files (its transcript, render page or summary). Reading the same files again with a newer
 *   Verdict, or with screenshots found that were missing before, gives the same identity even when the steps come
 *   out differently. Only a trajectory that says something of its own is looked up by it (see isDistinctive).
 * - the content hash: the same run name, task and attempt with the trajectory as Verdict stored it (steps with their
 *   image hashes, final answer, outcome). Rows stored before source identities existed get one computed from their
 *   rows, so they are recognised too; `dedupe` merges trajectories whose content hashes are equal.
 * The same results folder imported from another place, unpacked from the same zip a second time, or imported
 * through a parent folder is the same; a deterministic agent run twice into two run folders is not (the folders'
 * names differ). Verdicts a source carries are part of neither: a log added later adds verdicts to the trajectory
 * already stored.
 *
 * Pure: the hash functions take values, the callers read and write rows.
 */
import crypto from "node:crypto";

/** JSON with object keys sorted and undefined dropped, so equal content hashes equally whatever the key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) {
        const x = (v as Record<string, unknown>)[k];
        if (x !== undefined) sorted[k] = x;
      }
      return sorted;
    }
    return v;
  });
}

export function canonicalHash(value: unknown): string {
  return crypto.createHash("sha256").update(canonicalJson(value)).digest("hex");
}

/**
 * The run's own name from a run key: "webvoyager:results/20250414_14_44_45" → "20250414_14_44_45". Keys written
 * before identity by content held absolute folders ("webvoyager:/home/a/results/20250414_14_44_45",
 * "browsergym:/data/study#GenericAgent"): they give the same name, so rows stored then match imports made now. A
 * "#…" part after the folder (BrowserGym's agent) is kept.
 */
export function runSourceName(runKey: string): string {
  const colon = runKey.indexOf(":");
  const format = colon > 0 && !/^[A-Za-z]:[\\/]/.test(runKey) ? runKey.slice(0, colon) : "";
  const rest = format ? runKey.slice(colon + 1) : runKey;
  const hash = rest.lastIndexOf("#");
  const where = hash >= 0 ? rest.slice(0, hash) : rest;
  const suffix = hash >= 0 ? rest.slice(hash) : "";
  const segments = where.split(/[\\/]+/).filter((s) => s !== "" && s !== ".");
  return `${format}:${segments.at(-1) ?? ""}${suffix}`;
}

/** A step as it is stored (db/repositories/trajectories.ts StepValues), in the fields the identity covers. */
export interface IdentityStep {
  index: number;
  screenshotHash: string | null;
  rawScreenshotHash: string | null;
  marksBurnedIn: boolean;
  url: string | null;
  thought: string | null;
  actionRaw: string | null;
  action: unknown;
  elements: unknown;
  error: string | null;
  durationMs: number | null;
}

/** A step as the identity sees it: every field present, null where the source gave nothing. */
export function identityStep(s: {
  index: number;
  screenshotHash?: string | null;
  rawScreenshotHash?: string | null;
  marksBurnedIn?: boolean | null;
  url?: string | null;
  thought?: string | null;
  actionRaw?: string | null;
  action: unknown;
  elements?: unknown;
  error?: string | null;
  durationMs?: number | null;
}): IdentityStep {
  return {
    index: s.index,
    screenshotHash: s.screenshotHash ?? null,
    rawScreenshotHash: s.rawScreenshotHash ?? null,
    marksBurnedIn: !!s.marksBurnedIn,
    url: s.url ?? null,
    thought: s.thought ?? null,
    actionRaw: s.actionRaw ?? null,
    action: s.action,
    elements: s.elements ?? null,
    error: s.error ?? null,
    durationMs: s.durationMs ?? null,
  };
}

export interface IdentityInput {
  /**
   * The importer's run key (or the stored one for rows imported earlier): its format prefix and the run's own name
   * count ("webvoyager:20250414_14_44_45"), so a trajectory exported as a bundle and imported back is the same.
   */
  runKey: string;
  taskSet: string;
  externalTaskId: string;
  attempt: number;
  finalAnswer: string | null;
  outcome: string;
  outcomeDetail: string | null;
  steps: IdentityStep[];
}

function stepBody(s: IdentityStep) {
  return {
    index: s.index,
    screenshotHash: s.screenshotHash,
    rawScreenshotHash: s.rawScreenshotHash,
    marksBurnedIn: !!s.marksBurnedIn,
    url: s.url,
    thought: s.thought,
    actionRaw: s.actionRaw,
    action: s.action,
    elements: s.elements ?? null,
    error: s.error,
    durationMs: s.durationMs ?? null,
  };
}

/** Content hashes computed this way start with it; older ones (which covered the absolute run folder) do not. */
export const CONTENT_HASH_VERSION = "v2:";

/** The trajectory as stored, with its run's own name, task and attempt (see the module comment). */
export function trajectoryContentHash(t: IdentityInput): string {
  return (
    CONTENT_HASH_VERSION +
    canonicalHash({
      run: runSourceName(t.runKey),
      task: [t.taskSet, t.externalTaskId],
      attempt: t.attempt,
      finalAnswer: t.finalAnswer,
      outcome: t.outcome,
      outcomeDetail: t.outcomeDetail,
      steps: [...t.steps].sort((a, b) => a.index - b.index).map(stepBody),
    })
  );
}

/** The trajectory's own text files: sha256 of each (transcript, render, summary; in the importer's order). */
export function trajectorySourceIdentity(t: Pick<IdentityInput, "runKey" | "taskSet" | "externalTaskId" | "attempt"> & { fileDigests: string[] }): string {
  return canonicalHash({
    run: runSourceName(t.runKey),
    task: [t.taskSet, t.externalTaskId],
    attempt: t.attempt,
    files: t.fileDigests,
  });
}

/** A verdict a source carried, as its row stores it (compared field by field when a re-import brings it again). */
export interface IdentityVerdict {
  evaluatorKey: string;
  evaluatorName: string;
  kind: string;
  k: string;
  promptVersion: string;
  verdict: string;
  score: number | null;
  rationale: string | null;
  rawReply: string | null;
  model: string | null;
}

/** Same verdict as stored: every field a source gives (a stored row has more: ids, timestamps, counters). */
export function sameVerdict(a: IdentityVerdict, b: IdentityVerdict): boolean {
  const keys = ["evaluatorName", "kind", "verdict", "score", "rationale", "rawReply", "model"] as const;
  return keys.every((k) => (a[k] ?? null) === (b[k] ?? null));
}

/**
 * Whether a trajectory says enough to recognise its run by: at least one screenshot or one step with words in it.
 * A task that crashed before its first step looks the same in every run of that task, so it never decides which
 * stored run an import belongs to.
 */
export function isDistinctive(steps: IdentityStep[]): boolean {
  return steps.some((s) => s.screenshotHash || s.rawScreenshotHash || (s.thought ?? "").trim() || (s.actionRaw ?? "").trim());
}
