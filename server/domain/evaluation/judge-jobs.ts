/**
 * How a judge batch appears in the job queue: one job per (trajectory, k, variant) of type "judge.verdict", all in the
 * batch's group, so progress, cancel and resume act on the batch as a whole.
 */

export const JUDGE_JOB_TYPE = "judge.verdict";

/** A batch runs at most this many endpoint calls at once. */
export const MAX_BATCH_CONCURRENCY = 64;

export function batchGroupKey(batchId: number): string {
  return `judge-batch:${batchId}`;
}

/** What one judge job carries. */
export interface JudgeJobPayload {
  batchId: number;
  configId: number;
  trajectoryId: number;
  k: string;
  /** Replies asked for per item (absent in jobs made before sampling existed: 1). */
  samples?: number;
  /**
   * The batch's concurrency, which the queue holds across every process working on the batch (web servers and
   * workers alike): the researcher's limit on calls to the endpoint at once. Absent in jobs made before it was kept.
   */
  groupConcurrency?: number;
  /**
   * The variant of the configuration's prompt to ask with (server/domain/evaluation/prompt-variants.ts: a prompt
   * version of an alignment study, a stress test's perturbation); absent or "" = the configuration's own prompt.
   */
  variant?: string;
}
