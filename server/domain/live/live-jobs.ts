/**
 * How a live run is named in the job queue and among agent runs: its `agent_runs.run_key` starts with "live:", and
 * each of its tasks is one `runner.task` job in the group `live-run:<run id>`.
 */
export const LIVE_RUN_KEY_PREFIX = "live:";
export const LIVE_JOB_TYPE = "runner.task";

export function liveGroupKey(runId: number): string {
  return `live-run:${runId}`;
}
