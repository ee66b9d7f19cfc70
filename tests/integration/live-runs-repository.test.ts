/**
 * What the live runner writes and the live-run pages read, on each database backend, without a browser: the
 * trajectory a job records into (only while the worker holds the job's lease), steps appended one by one, how a run
 * ended, the sweep that closes trajectories whose job ended without them, the run list's counts, the per-task rows
 * (joined to their jobs through the job's JSON payload), and the per-step evidence.
 *
 * The rows the runner's own code does not create (task set, tasks, the run, its jobs) are inserted here directly, so
 * the suite goes only through the runner's repositories and services and runs on PostgreSQL too.
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import { tablesOf } from "../../db/database";
import {
  appendLiveStep,
  finishLiveTrajectory,
  LeaseLostError,
  LIVE_JOB_TYPE,
  liveGroupKey,
  listLiveRunRows,
  liveRunTaskRows,
  liveTaskJob,
  reconcileLiveTrajectories,
  setRunningDetail,
  startLiveTrajectory,
  tasksOfSet,
  trajectoryPulse,
  type LeaseRef,
} from "../../db/repositories/live/runs";
import {
  clearTrajectoryEvidence,
  saveStepEvidence,
  saveTrajectoryHar,
  stepEvidenceAt,
  stepEvidenceOf,
  trajectoryHarOf,
} from "../../db/repositories/live/evidence";
import type { StepValues } from "../../db/repositories/trajectories";
import { listLiveRuns, liveRunDetail, liveTrajectoryPulse } from "../../server/services/live/live-runs";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";

describeEachBackend("live-run records", (backend) => {
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-live-repo-");
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  /** A live run with one queued job per task; tasks are named by external id, the first without a site. */
  async function seedRun(externalIds: string[]) {
    const { agentRuns, jobs, taskSets, tasks } = tablesOf(ctx.db);
    const [set] = await ctx.db.insert(taskSets).values({ name: "Live repo tasks", benchmark: "adhoc" }).returning({ id: taskSets.id });
    const taskIds: number[] = [];
    for (const [i, externalId] of externalIds.entries()) {
      const [t] = await ctx.db
        .insert(tasks)
        .values({
          taskSetId: set!.id,
          externalId,
          site: i === 0 ? null : `site-${externalIds.length - i}`,
          intent: `Task ${externalId}`,
          startUrl: "http://example.com/",
          contentHash: externalId,
        })
        .returning({ id: tasks.id });
      taskIds.push(t!.id);
    }
    const [run] = await ctx.db
      .insert(agentRuns)
      .values({
        runKey: `live:test-${externalIds.join("-")}`,
        name: "live test run",
        agentName: "scripted-policy",
        sourceSystem: "verdict-runner",
        config: { live: true, policy: { kind: "scripted", source: "actions", label: "1 scripted action" }, selection: "test", settings: { maxSteps: 4 } },
      })
      .returning({ id: agentRuns.id });
    const runId = run!.id;
    const jobIds: number[] = [];
    for (const taskId of taskIds) {
      const [j] = await ctx.db
        .insert(jobs)
        .values({
          type: LIVE_JOB_TYPE,
          groupKey: liveGroupKey(runId),
          dedupeKey: `${liveGroupKey(runId)}:task:${taskId}`,
          payload: { runId, taskId },
          maxAttempts: 2,
        })
        .returning({ id: jobs.id });
      jobIds.push(j!.id);
    }
    return { setId: set!.id, taskIds, runId, jobIds };
  }

  /** What a worker's claim does to a job: running, held by `owner`. */
  async function claim(jobId: number, owner: string): Promise<LeaseRef> {
    const { jobs } = tablesOf(ctx.db);
    await ctx.db
      .update(jobs)
      .set({ status: "running", leaseOwner: owner, leaseExpiresAt: new Date(Date.now() + 60_000), attempts: 1, startedAt: new Date() })
      .where(eq(jobs.id, jobId));
    return { jobId, owner };
  }

  async function endJob(jobId: number, status: "failed" | "cancelled" | "succeeded" | "queued", error: string | null) {
    const { jobs } = tablesOf(ctx.db);
    await ctx.db.update(jobs).set({ status, error, leaseOwner: null }).where(eq(jobs.id, jobId));
  }

  function step(index: number, hash: string): StepValues {
    return {
      index,
      screenshotHash: hash,
      rawScreenshotHash: hash,
      marksBurnedIn: true,
      url: `http://example.com/${index}`,
      thought: null,
      actionRaw: "scroll [down]",
      action: { type: "scroll", direction: "down" } as unknown as StepValues["action"],
      elements: [],
      error: null,
      durationMs: 12.5,
    };
  }
  const image = (hash: string) => ({ hash, mime: "image/png", width: 10, height: 10, bytes: 100 });

  it("records a trajectory step by step while the lease is held, and refuses a worker that lost it", async () => {
    const { runId, taskIds, jobIds } = await seedRun(["a"]);
    const lease = await claim(jobIds[0]!, "worker-a");
    const { id, discardedSteps } = await startLiveTrajectory(ctx.db, lease, { runId, taskId: taskIds[0]!, outcomeDetail: null });
    expect(discardedSteps).toBe(0);

    await appendLiveStep(ctx.db, lease, id, step(0, "h0"), [image("h0")]);
    // The same screenshot again (an unchanged page) is stored once.
    await appendLiveStep(ctx.db, lease, id, step(1, "h0"), [image("h0")]);
    expect(await trajectoryPulse(ctx.db, id)).toMatchObject({ stepCount: 2, outcome: "running" });
    expect(await liveTrajectoryPulse(ctx.db, id)).toMatchObject({ stepCount: 2, outcome: "running" });

    await setRunningDetail(ctx.db, id, "waiting for the page");
    expect((await trajectoryPulse(ctx.db, id))!.outcomeDetail).toBe("waiting for the page");

    // Another worker took the job over: the first one can neither add steps nor finish the trajectory.
    const stolen = await claim(jobIds[0]!, "worker-b");
    await expect(appendLiveStep(ctx.db, lease, id, step(2, "h2"), [image("h2")])).rejects.toThrow(LeaseLostError);
    expect(
      await finishLiveTrajectory(ctx.db, lease, id, { outcome: "answered", outcomeDetail: null, finalAnswer: "x", contentHash: "c", sourcePath: null }),
    ).toBe(false);
    expect(await trajectoryPulse(ctx.db, id)).toMatchObject({ stepCount: 2, outcome: "running" });
    // Nothing of the refused step was kept (its screenshot row neither).
    const { screenshots } = tablesOf(ctx.db);
    expect(await ctx.db.select({ hash: screenshots.hash }).from(screenshots).where(eq(screenshots.hash, "h2"))).toEqual([]);

    // The new holder starts over: the old attempt's steps go, the same trajectory is reused.
    const again = await startLiveTrajectory(ctx.db, stolen, { runId, taskId: taskIds[0]!, outcomeDetail: "attempt 2 of 2" });
    expect(again).toEqual({ id, discardedSteps: 2 });
    await appendLiveStep(ctx.db, stolen, id, step(0, "h3"), [image("h3")]);
    expect(
      await finishLiveTrajectory(ctx.db, stolen, id, {
        outcome: "answered",
        outcomeDetail: "attempt 2 of 2",
        finalAnswer: "done",
        contentHash: "c",
        sourcePath: null,
      }),
    ).toBe(true);
    expect(await trajectoryPulse(ctx.db, id)).toMatchObject({ stepCount: 1, outcome: "answered", outcomeDetail: "attempt 2 of 2" });
  });

  it("a run's page: counts are numbers, each task's row comes with its job, trajectory and last screenshot", async () => {
    const { runId, taskIds, jobIds } = await seedRun(["a", "b", "c"]);
    const lease = await claim(jobIds[0]!, "worker-a");
    const { id } = await startLiveTrajectory(ctx.db, lease, { runId, taskId: taskIds[0]!, outcomeDetail: null });
    await appendLiveStep(ctx.db, lease, id, step(0, "first"), [image("first")]);
    await appendLiveStep(ctx.db, lease, id, step(1, "last"), [image("last")]);
    await endJob(jobIds[2]!, "cancelled", null);

    const [row] = (await listLiveRunRows(ctx.db)).filter((r) => r.id === runId);
    // PostgreSQL hands count() and sum() over as strings unless they are read as numbers.
    expect(row).toMatchObject({ total: 3, queued: 1, running: 1, succeeded: 0, failed: 0, cancelled: 1, steps: 2, answered: 0 });
    for (const key of ["total", "queued", "running", "cancelled", "steps", "answered"] as const) expect(typeof row![key]).toBe("number");

    const rows = await liveRunTaskRows(ctx.db, runId, "no-such-evaluator");
    expect(rows.map((r) => [r.taskId, r.jobId, r.status])).toEqual([
      [taskIds[0], jobIds[0], "running"],
      [taskIds[1], jobIds[1], "queued"],
      [taskIds[2], jobIds[2], "cancelled"],
    ]);
    expect(rows[0]).toMatchObject({ trajectoryId: id, stepCount: 2, lastScreenshot: "last", cancelRequested: false, verdict: null });
    expect(rows[1]).toMatchObject({ trajectoryId: null, lastScreenshot: null });
    expect((await liveTaskJob(ctx.db, runId, taskIds[1]!))!.id).toBe(jobIds[1]);
    expect(await liveTaskJob(ctx.db, runId, 999_999)).toBeUndefined();

    const listed = (await listLiveRuns({ db: ctx.db, env: {} })).find((r) => r.id === runId);
    expect(listed).toMatchObject({ status: "running", counts: { total: 3, queued: 1, running: 1, cancelled: 1 }, steps: 2, done: 1 });
    const detail = await liveRunDetail({ db: ctx.db, env: {} }, runId);
    expect(detail).toMatchObject({ status: "running", steps: 2, counts: { total: 3, running: 1, queued: 1, cancelled: 1 } });
    expect(detail.tasks[0]).toMatchObject({ externalId: "a", steps: 2, maxSteps: 4, progress: 0.5, lastScreenshot: "last" });
  });

  it("the sweep closes trajectories whose job ended without them, with the job's reason", async () => {
    const { runId, taskIds, jobIds } = await seedRun(["a", "b", "c"]);
    const ids: number[] = [];
    for (const [i, jobId] of jobIds.entries()) {
      const lease = await claim(jobId, `worker-${i}`);
      ids.push((await startLiveTrajectory(ctx.db, lease, { runId, taskId: taskIds[i]!, outcomeDetail: null })).id);
    }
    await endJob(jobIds[0]!, "failed", "lease of worker worker-0 expired at attempt 2");
    await endJob(jobIds[1]!, "cancelled", null);
    await endJob(jobIds[2]!, "queued", "lease of worker worker-2 expired at attempt 1");

    expect(await reconcileLiveTrajectories(ctx.db)).toBe(3);
    expect(await trajectoryPulse(ctx.db, ids[0]!)).toMatchObject({ outcome: "error", outcomeDetail: "lease of worker worker-0 expired at attempt 2" });
    expect(await trajectoryPulse(ctx.db, ids[1]!)).toMatchObject({ outcome: "cancelled", outcomeDetail: "cancelled" });
    // A requeued job's trajectory keeps running and says what it waits for.
    expect(await trajectoryPulse(ctx.db, ids[2]!)).toMatchObject({
      outcome: "running",
      outcomeDetail: "interrupted (lease of worker worker-2 expired at attempt 1); queued to start again when a worker is free",
    });
    // A second sweep has nothing left to do.
    expect(await reconcileLiveTrajectories(ctx.db)).toBe(0);
  });

  it("a set's tasks come in the same order on both engines: tasks without a site first", async () => {
    const { setId } = await seedRun(["no-site", "two", "one"]);
    expect((await tasksOfSet(ctx.db, setId)).map((t) => t.externalId)).toEqual(["no-site", "one", "two"]);
  });

  it("keeps per-step evidence and the HAR, replaces them on a second write, and clears them for a new attempt", async () => {
    const { runId, taskIds, jobIds } = await seedRun(["a"]);
    const lease = await claim(jobIds[0]!, "worker-a");
    const { id } = await startLiveTrajectory(ctx.db, lease, { runId, taskId: taskIds[0]!, outcomeDetail: null });
    const startedAt = Date.UTC(2026, 10, 23, 12, 0, 0);
    await saveStepEvidence(ctx.db, id, { index: 1, startedAt: startedAt + 500, tabs: [{ index: 0, url: "http://example.com/", active: true }], prompt: null });
    await saveStepEvidence(ctx.db, id, { index: 0, startedAt, tabs: null, prompt: { version: "v", messages: [] } });
    await saveStepEvidence(ctx.db, id, { index: 1, startedAt: startedAt + 700, tabs: null, prompt: null });
    const evidence = await stepEvidenceOf(ctx.db, id);
    expect(evidence.map((e) => [e.index, e.startedAt])).toEqual([
      [0, startedAt],
      [1, startedAt + 700],
    ]);
    expect((await stepEvidenceAt(ctx.db, id, 0))!.prompt).toEqual({ version: "v", messages: [] });
    expect(await stepEvidenceAt(ctx.db, id, 5)).toBeNull();

    await saveTrajectoryHar(ctx.db, id, { harHash: "har1", bytes: 10, entries: 1 });
    await saveTrajectoryHar(ctx.db, id, { harHash: "har2", bytes: 20, entries: 2 });
    expect(await trajectoryHarOf(ctx.db, id)).toMatchObject({ harHash: "har2", bytes: 20, entries: 2 });

    await clearTrajectoryEvidence(ctx.db, id);
    expect(await stepEvidenceOf(ctx.db, id)).toEqual([]);
    expect(await trajectoryHarOf(ctx.db, id)).toBeNull();
  });
});
