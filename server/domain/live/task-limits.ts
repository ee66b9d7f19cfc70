/**
 * Per-task step and time limits. Open-web task files (WebVoyager / Online-Mind2Web rows imported with
 * `webvoyager-tasks`) and VisualWebArena / WebArena configs may give a task limits of its own; the published files
 * carry none, so these are the fields a lab adds to the tasks that need them:
 *
 *   max_steps            integer ≥ 1: steps before the trajectory ends as `step_limit`
 *   time_limit_seconds   number > 0: time before it ends as `time_limit`
 *
 * A task without them gets the run's settings (its step limit and run timeout). Importers keep the fields in the
 * task's `extra`, where the runner reads them.
 */

export const TASK_MAX_STEPS_FIELD = "max_steps";
export const TASK_TIME_LIMIT_FIELD = "time_limit_seconds";

/** Bounds a task file may ask for (a day at most; a thousand steps at most). */
const MAX_TASK_STEPS = 1000;
const MAX_TASK_SECONDS = 24 * 3600;

export interface TaskLimits {
  maxSteps: number | null;
  timeLimitSeconds: number | null;
}

/**
 * The limits a task file's row gives, or the problem with them (naming the field), for the importer's error. Rows
 * without the fields have no limits of their own.
 */
export function readTaskLimits(row: Record<string, unknown>): { limits: TaskLimits } | { error: string } {
  const steps = row[TASK_MAX_STEPS_FIELD];
  const seconds = row[TASK_TIME_LIMIT_FIELD];
  const limits: TaskLimits = { maxSteps: null, timeLimitSeconds: null };
  if (steps !== undefined && steps !== null) {
    if (typeof steps !== "number" || !Number.isInteger(steps) || steps < 1 || steps > MAX_TASK_STEPS) {
      return { error: `field "${TASK_MAX_STEPS_FIELD}" must be a whole number from 1 to ${MAX_TASK_STEPS}, not ${JSON.stringify(steps)}` };
    }
    limits.maxSteps = steps;
  }
  if (seconds !== undefined && seconds !== null) {
    if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_TASK_SECONDS) {
      return { error: `field "${TASK_TIME_LIMIT_FIELD}" must be a number of seconds above 0 and at most ${MAX_TASK_SECONDS}, not ${JSON.stringify(seconds)}` };
    }
    limits.timeLimitSeconds = seconds;
  }
  return { limits };
}

/** The fields to keep in a task's `extra` for its limits (none when it has none). */
export function taskLimitFields(limits: TaskLimits): Record<string, number> {
  const out: Record<string, number> = {};
  if (limits.maxSteps !== null) out[TASK_MAX_STEPS_FIELD] = limits.maxSteps;
  if (limits.timeLimitSeconds !== null) out[TASK_TIME_LIMIT_FIELD] = limits.timeLimitSeconds;
  return out;
}

/** A stored task's own limits, read from its `extra`; anything unusable there counts as absent. */
export function taskLimitsOf(extra: unknown): TaskLimits {
  if (!extra || typeof extra !== "object" || Array.isArray(extra)) return { maxSteps: null, timeLimitSeconds: null };
  const read = readTaskLimits(extra as Record<string, unknown>);
  return "limits" in read ? read.limits : { maxSteps: null, timeLimitSeconds: null };
}

/** The limits a task runs with: its own where it has them, the run's otherwise. */
export function effectiveLimits(task: TaskLimits, run: { maxSteps: number; runTimeoutMs: number }): { maxSteps: number; timeLimitMs: number } {
  return {
    maxSteps: task.maxSteps ?? run.maxSteps,
    timeLimitMs: task.timeLimitSeconds !== null ? Math.round(task.timeLimitSeconds * 1000) : run.runTimeoutMs,
  };
}

/**
 * How far a live task's bar is filled (0–1): a task that ran to its end is full; a cancelled one shows the steps it
 * took of its limit (cancelled at step 0: empty, not full); a running one its steps so far, short of full; a queued
 * one nothing.
 */
export function liveTaskProgress(status: string, steps: number, maxSteps: number): number {
  const share = maxSteps > 0 ? Math.min(1, steps / maxSteps) : 0;
  if (status === "succeeded" || status === "failed") return 1;
  if (status === "cancelled") return share;
  return status === "running" ? Math.min(0.99, share) : 0;
}
