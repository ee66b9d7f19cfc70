/**
 * Live runs across processes and entry points: a worker killed mid-run (its task starts over elsewhere, or fails
 * with the reason once its attempts are used up), the `run` CLI command, and the liveRuns tRPC router.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ensureTaskSet, upsertTask } from "../../db/repositories/catalog";
import { heartbeatJobs, listJobs } from "../../db/repositories/jobs";
import { liveGroupKey } from "../../db/repositories/live/runs";
import { getScreenshot } from "../../db/repositories/screenshots";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { createCaller } from "../../server/api/root";
import { loadConfig } from "../../server/config";
import { liveRunRequestSchema, type LiveRunRequestInput } from "../../server/domain/live/settings";
import { startDemoSites, type DemoSitesServer } from "../../server/demo-sites/server";
import { taskValues } from "../../server/services/imports/ingest";
import { liveRunDetail, startLiveRun } from "../../server/services/live/live-runs";
import { runRunnerWorker } from "../../server/services/live/worker";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { cliRunner } from "../helpers/cli";
import { createTestContext, type TestContext } from "../helpers/context";
import { chromiumSkipReason, titled } from "../helpers/requirements";

const root = path.resolve(__dirname, "..", "..");
const chromiumPath = loadConfig().chromiumPath;
const noChromium = chromiumSkipReason();
const haveChromium = noChromium === null;
if (!haveChromium) console.warn(`Skipping live runner recovery tests: no Chromium at ${chromiumPath} (apt-get install -y chromium, or set CHROMIUM_PATH).`);

let sites: DemoSitesServer;
let ctx: TestContext;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (haveChromium) sites = await startDemoSites();
});
afterAll(async () => {
  await sites?.close();
});
async function cleanUp() {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
  await ctx.cleanup();
}

async function addTask(externalId: string, startUrl: string | null): Promise<number> {
  const taskSet = { name: "Recovery tasks", benchmark: "adhoc" };
  const task = await upsertTask(
    ctx.db,
    await ensureTaskSet(ctx.db, taskSet),
    taskValues({
      taskSet,
      externalId,
      site: null,
      intent: `Task ${externalId}`,
      startUrl,
      inputImages: [],
      referenceAnswers: [],
      evaluatorConfig: null,
      difficulty: null,
      tags: [],
      extra: null,
    }),
  );
  return task.id;
}

function start(req: LiveRunRequestInput) {
  return startLiveRun({ db: ctx.db, env: {} }, liveRunRequestSchema.parse(req));
}

// Longer than any stall of a live worker on a loaded machine, so that only a killed worker's lease runs out: the test
// lets it run out at once (leaseRunsOut) instead of waiting for the clock.
const LEASE_MS = 60_000;

/** A worker in its own process, as `npm run worker` would be. */
function spawnWorker(owner: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(root, "tests/helpers/live-worker-child.ts"),
      ctx.config.postgresUrl ?? path.join(ctx.dir, "verdict.db"),
      ctx.dir,
      sites.baseUrl,
      String(LEASE_MS),
      owner,
    ],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve(child));
    child.on("exit", (code) => reject(new Error(`worker child exited early (${code})`)));
  });
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners("exit");
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

// Generous: a worker is a fresh process that starts Chromium, and CI runs this beside every other suite on two cores.
// The probe reads the database a few times a second, not fifty: the worker it waits for needs the cores more.
async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 180_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const task0 = async (runId: number) => (await liveRunDetail({ db: ctx.db, env: {} }, runId)).tasks[0]!;
const job0 = async (runId: number) => (await listJobs(ctx.db, { groupKey: liveGroupKey(runId) }))[0]!;

/** The killed worker's last heartbeat, as if it had been sent a lease ago: its lease has run out now. */
async function leaseRunsOut(runId: number, owner: string) {
  const job = await job0(runId);
  const { lost } = await heartbeatJobs(ctx.db, owner, [job.id], LEASE_MS, new Date(Date.now() - LEASE_MS));
  expect(lost).toEqual([]);
}

function workHere(runId: number) {
  return runRunnerWorker({
    ctx,
    env: {},
    concurrency: 1,
    groupKey: liveGroupKey(runId),
    untilIdle: true,
    leaseMs: LEASE_MS,
    demo: { baseUrl: sites.baseUrl, origins: [`127.0.0.1:${sites.port}`] },
  });
}

describeEachBackend("live runs across workers", (backend) => {
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-live-rec-");
  });
  afterEach(cleanUp);

  // Two worker processes start and die per test: generous on a loaded machine (each wait for a worker up to 180 s).
  describe.skipIf(!haveChromium)(titled("a killed worker's run", noChromium), { timeout: 480_000 }, () => {
    it("is taken back when its lease expires and starts over on another worker", async () => {
      const { runId } = await start({
        tasks: { from: "tasks", taskIds: [await addTask("rec.requeue", `${sites.baseUrl}/wiki/`)] },
        policy: { kind: "scripted", source: "actions", actions: ["scroll [down]", "wait", "wait", "wait", "scroll [up]", "stop [recovered]"] },
      });
      const a = await spawnWorker("worker-a");
      await waitFor("two steps from worker A", async () => (await task0(runId)).steps >= 2);
      await killed(a);
      expect(await job0(runId)).toMatchObject({ status: "running", leaseOwner: "worker-a", attempts: 1 });
      expect((await task0(runId)).outcome).toBe("running");
      await leaseRunsOut(runId, "worker-a");

      const summary = await workHere(runId);
      expect(summary.succeeded).toBe(1);
      expect(await job0(runId)).toMatchObject({ status: "succeeded", attempts: 2 });
      const t = await task0(runId);
      const detail = (await getTrajectoryDetail(ctx.db, t.trajectoryId!))!;
      expect(detail.trajectory).toMatchObject({ outcome: "answered", finalAnswer: "recovered", stepCount: 6 });
      expect(detail.trajectory.outcomeDetail).toBe("attempt 2 of 2: started again after the previous attempt was interrupted");
      // The partial steps of the dead attempt are gone: one step per index, recorded by the second attempt.
      expect(detail.steps.map((s) => s.index)).toEqual([0, 1, 2, 3, 4, 5]);
    });

    it("fails with the reason when its last attempt's worker dies too", async () => {
      const { runId } = await start({
        tasks: { from: "tasks", taskIds: [await addTask("rec.fail", `${sites.baseUrl}/shop/`)] },
        // As long as a run may be (100 steps, a second each), so that worker B cannot finish before the test kills it
        // even if this process stalls for a minute on a loaded machine, as it did once with 60 (it is killed after its
        // first step either way).
        policy: { kind: "scripted", source: "actions", actions: [...Array(98).fill("wait"), "stop [never]"] },
        settings: { maxSteps: 100 },
      });
      const a = await spawnWorker("worker-a");
      await waitFor("a step from worker A", async () => (await task0(runId)).steps >= 1);
      await killed(a);
      await leaseRunsOut(runId, "worker-a");
      const b = await spawnWorker("worker-b");
      await waitFor("worker B's attempt to record", async () => {
        const t = await task0(runId);
        return (await job0(runId)).attempts === 2 && t.outcomeDetail?.startsWith("attempt 2 of 2") && t.steps >= 1;
      });
      await killed(b);
      await leaseRunsOut(runId, "worker-b");

      const summary = await workHere(runId);
      expect(summary.succeeded + summary.failed).toBe(0);
      expect(await job0(runId)).toMatchObject({ status: "failed", attempts: 2, error: "lease of worker worker-b expired at attempt 2" });
      const t = await task0(runId);
      expect(t).toMatchObject({ outcome: "error", outcomeDetail: "lease of worker worker-b expired at attempt 2", finished: true, progress: 1 });
    });
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

// The CLI opens the database named in its environment: the embedded SQLite file here.
describe.skipIf(!haveChromium)(titled("npm run cli -- run", noChromium), () => {
  beforeEach(() => {
    ctx = createTestContext("verdict-live-rec-");
  });
  afterEach(cleanUp);
  // The first call starts scripts/cli.ts (the command's process contract); the later ones run in this process.
  const runCli = cliRunner();
  const cli = (args: string[], env: Record<string, string>) =>
    runCli(args, { ...process.env, VERDICT_DATA_DIR: ctx.dir, VERDICT_DB: path.join(ctx.dir, "verdict.db"), ...env });

  it("runs demo tasks with the scripted policy and prints one JSON object", async () => {
    const port = await freePort();
    const r = await cli(["run", "--tasks", "demo", "--limit", "2", "--policy", "scripted", "--concurrency", "2", "--json"], {
      VERDICT_DEMO_PORT: String(port),
    });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]!);
    expect(out).toMatchObject({ status: "finished", counts: { total: 2, succeeded: 2 }, answered: 2, policy: "Scripted · demo scripts" });
    expect(out.trajectories.map((t: { externalId: string; finalAnswer: string }) => [t.externalId, t.finalAnswer])).toEqual([
      ["demo.recipes--1", "45 minutes"],
      ["demo.recipes--2", "Shakshuka, 541 reviews"],
    ]);
    // The demo tasks point at the port the worker served.
    const detail = (await getTrajectoryDetail(ctx.db, out.trajectories[0].trajectoryId))!;
    expect(detail.task.startUrl).toBe(`http://127.0.0.1:${port}/recipes/`);
  });

  it("replays a script file, and reports bad usage with exit 2", async () => {
    const port = await freePort();
    const script = path.join(ctx.dir, "script.txt");
    fs.writeFileSync(script, "# look around, then answer\nScroll [WINDOW]; down\nstop [looked]\n");
    const r = await cli(["run", "--tasks", "demo", "--limit", "1", "--policy", "scripted", "--script", script, "--viewport", "1280x800", "--json"], {
      VERDICT_DEMO_PORT: String(port),
    });
    expect(r.code).toBe(0);
    const t = JSON.parse(r.stdout).trajectories[0];
    expect(t).toMatchObject({ outcome: "answered", finalAnswer: "looked", steps: 2 });
    const step = (await getTrajectoryDetail(ctx.db, t.trajectoryId))!.steps[0]!;
    expect(await getScreenshot(ctx.db, step.screenshotHash!)).toMatchObject({ width: 1280, height: 800 });

    const noPolicy = await cli(["run", "--tasks", "demo"], {});
    expect(noPolicy.code).toBe(2);
    expect(noPolicy.stderr).toMatch(/--policy is required/);
    expect((await cli(["run", "--tasks", "demo", "--policy", "scripted", "--viewport", "big"], {})).stderr).toMatch(/--viewport must look like 1280x800/);
    const badSet = await cli(["run", "--tasks", "no such set", "--policy", "scripted"], {});
    expect(badSet.code).toBe(2);
    expect(badSet.stderr).toMatch(/neither "demo", a task set name or id, nor a file/);
  });
});

describeEachBackend("liveRuns router", (backend) => {
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-live-rec-");
  });
  afterEach(cleanUp);
  // Live runs are researchers' business (see server/api/trpc.ts).
  const caller = () =>
    createCaller({
      ...ctx,
      headers: new Headers(),
      session: { userId: "test-researcher", name: "Test Researcher", email: "researcher@example.test", role: "researcher" },
    });

  it("previews, starts, lists, shows, streams and cancels a run (no worker needed to queue it)", async () => {
    const good = await addTask("rt.good", "http://127.0.0.1:4517/wiki/");
    const noUrl = await addTask("rt.nourl", null);
    const api = caller();
    // The form lists task sets with their real task counts.
    expect((await api.liveRuns.formOptions()).taskSets).toEqual([{ id: expect.any(Number), name: "Recovery tasks", benchmark: "adhoc", taskCount: 2 }]);

    const preview = await api.liveRuns.preview({ tasks: { from: "tasks", taskIds: [good, noUrl] }, policy: { kind: "scripted", source: "demo" } });
    expect(preview).toMatchObject({ count: 2, withoutStartUrl: ["rt.nourl"], withoutScript: ["rt.good", "rt.nourl"] });
    await expect(
      api.liveRuns.start({ tasks: { from: "tasks", taskIds: [good, noUrl] }, policy: { kind: "scripted", source: "actions", actions: ["stop [x]"] } }),
    ).rejects.toThrow(/1 of the 2 selected tasks have no usable http\(s\) start URL \(rt\.nourl: null\)/);
    await expect(
      api.liveRuns.start({
        tasks: { from: "tasks", taskIds: [good] },
        policy: { kind: "scripted", source: "actions", actions: ["stop [x]"] },
        settings: { allowedHosts: ["ok.com", "not a host!"] },
      }),
    ).rejects.toThrow(/settings\.allowedHosts: "not a host!" is not a host name/);

    const { runId } = await api.liveRuns.start({
      name: "router run",
      tasks: { from: "tasks", taskIds: [good] },
      policy: { kind: "scripted", source: "actions", actions: ["stop [x]"] },
      settings: { maxSteps: 5, allowedHosts: ["https://Example.com/path"], blockedTexts: ["Delete", "Delete"] },
    });
    const list = await api.liveRuns.list();
    expect(list[0]).toMatchObject({ id: runId, name: "router run", status: "queued", counts: { total: 1, queued: 1 }, policy: { kind: "scripted" } });

    const detail = await api.liveRuns.byId({ id: runId });
    expect(detail.settings).toMatchObject({ maxSteps: 5, allowedHosts: ["example.com"], blockedTexts: ["Delete"] });
    expect(detail.tasks[0]).toMatchObject({ externalId: "rt.good", jobStatus: "queued", progress: 0, trajectoryId: null });

    const stream = await api.liveRuns.watch({ id: runId });
    const it = stream[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.value).toMatchObject({ status: "queued", counts: { queued: 1 } });
    expect(await api.liveRuns.cancel({ runId })).toEqual({ cancelled: 1, signalled: 0 });
    const next = await it.next();
    expect(next.value).toMatchObject({ status: "cancelled", counts: { cancelled: 1 } });
    expect((await it.next()).done).toBe(true);

    await expect(api.liveRuns.byId({ id: 9999 })).rejects.toThrow(/No live run with id 9999/);
    await expect((await api.liveRuns.watchTrajectory({ id: 9999 }))[Symbol.asyncIterator]().next()).rejects.toThrow(/No live trajectory/);
  });
});
