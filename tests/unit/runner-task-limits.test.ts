import { describe, expect, it } from "vitest";
import { effectiveLimits, liveTaskProgress, readTaskLimits, taskLimitFields, taskLimitsOf } from "../../server/domain/live/task-limits";
import { LoginCache } from "../../server/services/live/deployment-runtime";
import type { SiteRuntime } from "../../server/services/live/deployment-profiles";

describe("per-task step and time limits", () => {
  it("reads a task file's max_steps and time_limit_seconds; a task without them runs with the run's limits", () => {
    const run = { maxSteps: 15, runTimeoutMs: 1_800_000 };
    expect(readTaskLimits({ id: "a", max_steps: 2, time_limit_seconds: 1.5 })).toEqual({ limits: { maxSteps: 2, timeLimitSeconds: 1.5 } });
    expect(effectiveLimits(taskLimitsOf({ max_steps: 2 }), run)).toEqual({ maxSteps: 2, timeLimitMs: 1_800_000 });
    expect(effectiveLimits(taskLimitsOf({ time_limit_seconds: 3 }), run)).toEqual({ maxSteps: 15, timeLimitMs: 3_000 });
    expect(effectiveLimits(taskLimitsOf(null), run)).toEqual({ maxSteps: 15, timeLimitMs: 1_800_000 });
    expect(taskLimitFields({ maxSteps: 4, timeLimitSeconds: null })).toEqual({ max_steps: 4 });
  });

  it("names the field and the value a task file got wrong", () => {
    expect(readTaskLimits({ max_steps: 2.5 })).toEqual({ error: 'field "max_steps" must be a whole number from 1 to 1000, not 2.5' });
    expect(readTaskLimits({ max_steps: "10" })).toEqual({ error: 'field "max_steps" must be a whole number from 1 to 1000, not "10"' });
    expect(readTaskLimits({ time_limit_seconds: 0 })).toEqual({
      error: 'field "time_limit_seconds" must be a number of seconds above 0 and at most 86400, not 0',
    });
  });
});

describe("the once-per-run login cache", () => {
  const site = (password: string): SiteRuntime => ({
    placeholder: "__REDDIT__",
    url: "http://10.0.0.5:9999",
    login: { kind: "recipe", url: "http://10.0.0.5:9999/login", usernameSelector: "#u", passwordSelector: "#p", submitSelector: null, username: "a", password },
    reset: null,
  });
  const state = (tag: string) => async () => ({ cookies: [{ name: tag }], origins: [] });

  it("reuses a login within a run, never across runs or profiles, and signs in again after the profile's login changed", async () => {
    const cache = new LoginCache();
    expect(await cache.get(1, 7, site("one"), state("first"))).toEqual({ cookies: [{ name: "first" }], origins: [] });
    expect(await cache.get(1, 7, site("one"), state("unused"))).toEqual({ cookies: [{ name: "first" }], origins: [] });
    expect(cache.performed).toBe(1);
    // Another run, another profile, an edited password: each signs in for itself.
    expect((await cache.get(2, 7, site("one"), state("run 2"))).cookies).toEqual([{ name: "run 2" }]);
    expect((await cache.get(1, 8, site("one"), state("profile 8"))).cookies).toEqual([{ name: "profile 8" }]);
    expect((await cache.get(1, 7, site("two"), state("edited"))).cookies).toEqual([{ name: "edited" }]);
    expect(cache.performed).toBe(4);

    // The end of run 1 drops its states, and only its.
    cache.forgetRun(1);
    expect(cache.size).toBe(1);
    expect((await cache.get(1, 7, site("one"), state("again"))).cookies).toEqual([{ name: "again" }]);
    cache.clear();
    expect(cache.size).toBe(0);
  });
});

describe("a live task's progress bar (review 2, #17)", () => {
  it("is empty for a task cancelled at step 0, and the steps' share for one cancelled later", () => {
    expect(liveTaskProgress("cancelled", 0, 15)).toBe(0);
    expect(liveTaskProgress("cancelled", 6, 15)).toBe(0.4);
  });
  it("is full for a task that ran to its end, short of full while running, and empty while queued", () => {
    expect(liveTaskProgress("succeeded", 3, 15)).toBe(1);
    expect(liveTaskProgress("failed", 0, 15)).toBe(1);
    expect(liveTaskProgress("running", 15, 15)).toBe(0.99);
    expect(liveTaskProgress("running", 3, 15)).toBe(0.2);
    expect(liveTaskProgress("queued", 0, 15)).toBe(0);
  });
});
