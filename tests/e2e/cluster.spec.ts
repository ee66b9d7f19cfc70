/**
 * A team deployment on one machine: PostgreSQL + S3 (s3rver) + two web servers (A and B, the same built app) +
 * three `npm run worker` processes, every one of them configured like the others. It proves that nothing one process
 * holds in memory is needed by another:
 * - a trajectory folder imported through server A lands its screenshots in the bucket, none in the data folder;
 * - an annotator labels it through server B;
 * - a judge batch and a live run started through server A are shared out over the workers (pg-boss deliveries);
 *   one worker is SIGKILLed while it holds a live-run task, which another worker finishes; every job ends once
 *   (one verdict per item, one trajectory per task with no step twice);
 * - a viewer on server B watches the steps of the live run started through A arrive while it runs;
 * - every live trajectory's bundle ends up in the bucket, none in the workers' data folder.
 * Readiness is GET /api/health on each server (`{ ok, database: "postgres", storage: "s3" }`).
 */
import { expect, request as playwrightRequest, test, type APIRequestContext, type Page } from "./reused-page";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { closeDatabase, type Db } from "../../db/database";
import { openPostgresDatabase } from "../../db/postgres";
import { listVerdicts } from "../../db/repositories/evaluation/verdicts";
import { listJobs } from "../../db/repositories/jobs";
import type { JobRow } from "../../db/schema/index";
import { startDemoSites, type DemoSitesServer } from "../../server/demo-sites/server";
import { startFakeOpenAI, DEFAULT_REPLY, type FakeOpenAI } from "../helpers/fake-openai";
import { postgresSkipReason, startPostgres, type TestPostgres } from "../helpers/postgres";
import { startTestS3, type TestS3 } from "../helpers/s3";
import { account } from "./accounts";
import { expectCleanLayout, resizeTo, screenshotAt } from "./layout";

/** The sizes server B's live page is captured at. */
const SIZES = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
] as const;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const tsxCli = path.join(root, "node_modules", "tsx", "dist", "cli.mjs");
const FOLDER = "webvoyager-mini/results/20240301_10_00_00";
const LIVE_TASKS = 3;
/**
 * Each `wait` is a second: an attempt lasts at least eight, long enough to catch it held by a worker and to watch the
 * retaken attempt step on from another server.
 */
const LIVE_ACTIONS = [...Array<string>(8).fill("wait"), "stop [done]"];

// Without PostgreSQL the journey skips with the reason, except in CI, where that fails the run.
const skip = postgresSkipReason();

interface Proc {
  name: string;
  child: ChildProcess;
  log: string;
}

let pgServer: TestPostgres | undefined;
let s3: TestS3 | undefined;
let fake: FakeOpenAI | undefined;
let demo: DemoSitesServer | undefined;
let dir = "";
let db: Db | undefined;
const servers: Proc[] = [];
const workers: Proc[] = [];
let baseA = "";
let baseB = "";

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

function start(name: string, args: string[], env: NodeJS.ProcessEnv): Proc {
  // Its own process group, so afterAll (and the kill) reach the browsers and servers it starts.
  const child = spawn(process.execPath, args, { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const proc: Proc = { name, child, log: "" };
  const keep = (d: Buffer) => {
    proc.log = (proc.log + d.toString()).slice(-500_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  return proc;
}

function killGroup(p: Proc, signal: NodeJS.Signals): void {
  if (p.child.exitCode !== null || p.child.signalCode !== null || !p.child.pid) return;
  try {
    process.kill(-p.child.pid, signal);
  } catch {
    // Already gone.
  }
}

function runTsx(script: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [tsxCli, ...script], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d: Buffer) => (out += d.toString()));
    p.stderr.on("data", (d: Buffer) => (err += d.toString()));
    p.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`${script.join(" ")} exited ${code}:\n${err}`))));
  });
}

/** Ids of the jobs a worker process reported as succeeded (`job <id> (<group>) succeeded` in its log). */
const succeededIn = (p: Proc) => [...p.log.matchAll(/job (\d+) \([^)]*\) succeeded/g)].map((m) => Number(m[1]));

/** The worker process (its pid) a running job's lease names: owners are host:pid:random. */
const ownerPid = (owner: string | null) => (owner ? Number(owner.split(":").at(-2)) : null);

async function trpc<T>(api: APIRequestContext, kind: "query" | "mutation", proc: string, input?: unknown): Promise<T> {
  const res =
    kind === "query"
      ? await api.get(`/api/trpc/${proc}${input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify({ json: input }))}`}`)
      : await api.post(`/api/trpc/${proc}`, { data: { json: input } });
  expect(res.ok(), `${proc}: HTTP ${res.status()} ${await res.text()}`).toBe(true);
  return (await res.json()).result.data.json as T;
}

async function as(key: "admin" | "researcher" | "annotator1", baseURL: string): Promise<APIRequestContext> {
  return playwrightRequest.newContext({ baseURL, storageState: path.join(dir, `auth-${key}.json`) });
}

async function signIn(page: Page, base: string, key: "annotator1" | "researcher", next: string) {
  const who = account(key);
  await page.goto(`${base}/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(new RegExp(`${next.replace(/[/?]/g, "\\$&")}$`));
}

test.describe.configure({ mode: "serial" });
test.use({ storageState: { cookies: [], origins: [] } });

test.describe("a cluster on PostgreSQL and S3", () => {
  test.skip(!!skip, skip ?? "");

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-cluster-"));
    [pgServer, s3, fake, demo] = await Promise.all([
      startPostgres(),
      startTestS3("verdict-cluster"),
      startFakeOpenAI({ responder: () => ({ reply: DEFAULT_REPLY, delayMs: 500 }) }),
      startDemoSites({ port: 0 }),
    ]);
    const url = await pgServer.createDatabase("verdict_cluster");
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      VERDICT_DB: "",
      VERDICT_DATABASE_URL: url,
      VERDICT_DATA_DIR: dir,
      ...s3.env(),
      VERDICT_JUDGE_ALLOW_LOOPBACK: "1024-65535",
      VERDICT_IMPORT_ROOT: path.join(root, "tests", "fixtures"),
      NEXT_TELEMETRY_DISABLED: "1",
    };
    await runTsx(["scripts/cli.ts", "migrate"], env);
    await runTsx(["tests/e2e/accounts-setup.ts", "127.0.0.1"], env);

    const [portA, portB] = [await freePort(), await freePort()];
    baseA = `http://127.0.0.1:${portA}`;
    baseB = `http://127.0.0.1:${portB}`;
    for (const [name, port] of [
      ["server A", portA],
      ["server B", portB],
    ] as const) {
      servers.push(start(name, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "start", "-H", "127.0.0.1", "-p", String(port)], env));
    }
    for (let i = 1; i <= 3; i++) {
      workers.push(
        start(`worker ${i}`, ["--import", "tsx", "scripts/worker.ts"], {
          ...env,
          VERDICT_RUNNER_CONCURRENCY: "1",
          // The demo sites this test serves: each worker finds the port taken and uses them.
          VERDICT_DEMO_PORT: String(demo.port),
          // A dead worker's tasks are taken back within seconds.
          VERDICT_RUNNER_LEASE_MS: "3000",
        }),
      );
    }
    for (const base of [baseA, baseB]) {
      await expect
        .poll(
          async () => {
            try {
              const res = await fetch(`${base}/api/health`);
              return { status: res.status, body: await res.json() };
            } catch {
              return null;
            }
          },
          { timeout: 120_000, intervals: [250], message: `${base} did not become healthy:\n${servers.map((s) => s.log).join("\n")}` },
        )
        .toEqual({ status: 200, body: { ok: true, database: "postgres", storage: "s3" } });
    }
    for (const w of workers) {
      await expect.poll(() => w.log, { timeout: 90_000, message: `${w.name} did not start` }).toMatch(/demo task set ready/);
    }
    db = openPostgresDatabase(url, { maxConnections: 2 }).db;
  });

  test.afterAll(async () => {
    for (const p of [...workers, ...servers]) killGroup(p, "SIGKILL");
    if (db) await closeDatabase(db).catch(() => {});
    await Promise.allSettled([pgServer?.stop(), s3?.stop(), fake?.close(), demo?.close()]);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test("import on A, label on B, a judge batch and a live run over three workers, one killed, watched from B", async ({ page, browser }) => {
    test.setTimeout(180_000);

    // Import through server A: screenshots go to the bucket, none to the data folder.
    const adminA = await as("admin", baseA);
    const { jobId } = await trpc<{ jobId: number }>(adminA, "mutation", "imports.startFromPath", { path: FOLDER });
    await expect
      .poll(async () => (await trpc<{ status: string; error: string | null }>(adminA, "query", "imports.status", { id: jobId })).status, { timeout: 60_000 })
      .toBe("succeeded");
    const trajectories = (await trpc<{ rows: { id: number }[] }>(adminA, "query", "trajectories.list", {})).rows.map((t) => t.id);
    expect(trajectories.length).toBeGreaterThanOrEqual(2);
    expect(s3!.puts.filter((k) => !k.startsWith("variants")).length).toBeGreaterThan(0);
    const localShots = path.join(dir, "screenshots");
    expect(fs.existsSync(localShots) ? fs.readdirSync(localShots, { recursive: true }).length : 0).toBe(0);

    // Label through server B, as an annotator of a blind campaign the researcher made there.
    const researcherB = await as("researcher", baseB);
    const annotatorId = (await trpc<{ userId: string }>(await as("annotator1", baseB), "query", "accounts.me")).userId;
    const campaign = await trpc<{ id: number }>(researcherB, "mutation", "campaigns.create", {
      name: "cluster labelling",
      trajectoryIds: [trajectories[0]],
      annotatorsPerItem: 1,
      blind: true,
      annotatorIds: [annotatorId],
    });
    await signIn(page, baseB, "annotator1", "/annotate");
    await page.goto(`${baseB}/annotate/${campaign.id}`);
    await expect(page.getByTestId("label-panel")).toBeVisible();
    await page.keyboard.press("s");
    await page.keyboard.press("Control+Enter");
    await expect(page).toHaveURL(new RegExp(`/annotate/${campaign.id}$`));
    await expect(page.getByTestId("my-labels")).toContainText("Your labels (1)");

    // A judge batch and a live run, both started through server A.
    const researcherA = await as("researcher", baseA);
    const config = await trpc<{ id: number }>(researcherA, "mutation", "judge.configs.create", {
      name: "cluster judge",
      model: "fake",
      baseUrl: fake!.baseUrl,
    });
    const kValues = [1, 2, 3, "full"];
    const { batchId } = await trpc<{ batchId: number }>(researcherA, "mutation", "judge.batches.start", {
      config: config.id,
      selection: { trajectoryIds: trajectories },
      kValues,
      concurrency: 1,
    });
    const live = await trpc<{ runId: number; tasks: number }>(researcherA, "mutation", "liveRuns.start", {
      name: "cluster live run",
      tasks: { from: "demo", limit: LIVE_TASKS },
      policy: { kind: "scripted", source: "actions", actions: LIVE_ACTIONS },
      settings: { concurrency: LIVE_TASKS },
    });
    expect(live.tasks).toBe(LIVE_TASKS);
    const liveGroup = `live-run:${live.runId}`;

    // A viewer on server B opens the run started through A, while the test looks for a worker holding one of its
    // tasks: the search starts at once, so no sign-in on a busy machine lets every task finish before it looks.
    const viewer = await browser.newPage({ viewport: SIZES[0] });
    const workerPids = new Map(workers.map((w) => [w.child.pid!, w]));
    let victim: { job: JobRow; worker: Proc } | undefined;
    const heldTask = expect
      .poll(
        async () => {
          const running = await listJobs(db!, { groupKey: liveGroup, status: "running" });
          const held = running.find((j) => workerPids.has(ownerPid(j.leaseOwner)!));
          if (held) victim = { job: held, worker: workerPids.get(ownerPid(held.leaseOwner)!)! };
          return !!victim;
        },
        { timeout: 60_000, intervals: [100], message: "no worker was seen holding a live-run task" },
      )
      .toBe(true);
    await Promise.all([heldTask, signIn(viewer, baseB, "researcher", `/live/${live.runId}`)]);
    // Kill that worker while it holds the task.
    killGroup(victim!.worker, "SIGKILL");

    // The viewer watches the killed worker's task step on from its second attempt, shown from server B: that attempt
    // starts once the dead worker's lease runs out, so it is still going when the viewer gets to it.
    const row = viewer.locator('[data-testid^="task-demo."]').filter({ has: viewer.getByTestId("task-steps").filter({ hasText: "attempt 2" }) });
    await row.getByTestId("watch").click({ timeout: 60_000 });
    // The player records the step it shows in the URL (?step=1); either form is the right page.
    await expect(viewer).toHaveURL(/\/live\/\d+\/\d+(\?step=\d+)?$/);
    const stepCount = async () => Number(((await viewer.getByTestId("live-step-count").textContent()) ?? "0").split("/")[0]!.trim());
    await expect.poll(stepCount, { timeout: 60_000 }).toBeGreaterThanOrEqual(1);
    const firstSeen = await stepCount();
    await expect.poll(stepCount, { timeout: 60_000 }).toBeGreaterThan(firstSeen);
    for (const size of SIZES) {
      await resizeTo(viewer, size);
      await expectCleanLayout(viewer, [viewer.getByTestId("live-step-count")]);
      await screenshotAt(viewer, "cluster-live-on-b", size);
    }

    // Everything ends, each job once.
    await expect
      .poll(async () => (await listJobs(db!, { groupKey: liveGroup })).every((j) => j.status === "succeeded" || j.status === "failed"), { timeout: 90_000 })
      .toBe(true);
    await expect
      .poll(async () => (await listJobs(db!, {})).filter((j) => j.type === "judge.verdict" && j.status !== "succeeded").length, { timeout: 60_000 })
      .toBe(0);
    const liveJobs = await listJobs(db!, { groupKey: liveGroup });
    expect(liveJobs.map((j) => j.status)).toEqual(Array(LIVE_TASKS).fill("succeeded"));
    // The killed worker's task started over and finished on another worker; each job was reported done once, by
    // one process (server A's own judge run reports nothing, so the workers' reports cover at most every job).
    // A worker logs a job's end after recording it in the database: the lines are waited for, not read at once.
    const taken = liveJobs.find((j) => j.id === victim!.job.id)!;
    expect(taken.attempts).toBe(2);
    const survivors = workers.filter((w) => w !== victim!.worker);
    await expect
      .poll(() => survivors.filter((w) => succeededIn(w).includes(taken.id)).length, { timeout: 60_000, message: "a survivor's line for the retaken job" })
      .toBe(1);
    expect(succeededIn(victim!.worker)).not.toContain(taken.id);
    const judgeJobs = (await listJobs(db!, {})).filter((j) => j.type === "judge.verdict");
    expect(judgeJobs.length).toBe(trajectories.length * kValues.length);
    expect(judgeJobs.every((j) => j.status === "succeeded")).toBe(true);
    // The batch started through A was shared out: worker processes made some of its calls.
    await expect
      .poll(() => judgeJobs.filter((j) => survivors.flatMap(succeededIn).includes(j.id)).length, { timeout: 60_000, message: "workers' lines for judge calls" })
      .toBeGreaterThan(0);
    // The work was spread: at least two worker processes finished jobs.
    await expect
      .poll(() => workers.filter((w) => succeededIn(w).length > 0).length, { timeout: 60_000, message: "two workers' job lines" })
      .toBeGreaterThanOrEqual(2);
    const reported = survivors.flatMap(succeededIn);
    expect(new Set(reported).size).toBe(reported.length);
    expect(survivors.filter((w) => succeededIn(w).includes(taken.id))).toHaveLength(1);

    // One verdict per (trajectory, k); one trajectory per task, no step recorded twice.
    const verdicts = (await listVerdicts(db!)).filter((v) => v.batchId === batchId);
    const pairs = verdicts.map((v) => `${v.trajectoryId}:${v.k}`);
    expect(new Set(pairs).size).toBe(pairs.length);
    expect(pairs.length).toBe(trajectories.length * kValues.length);
    // The batch page (asked on B) shows it finished, with every call done, wherever the calls ran.
    const researcherB2 = await as("researcher", baseB);
    await expect
      .poll(async () => (await trpc<{ batch: { status: string } }>(researcherB2, "query", "judge.batches.progress", { id: batchId })).batch.status, {
        timeout: 20_000,
      })
      .toBe("succeeded");
    const progress = await trpc<{ jobs: { counts: { succeeded: number }; remaining: number } }>(researcherB2, "query", "judge.batches.progress", {
      id: batchId,
    });
    expect(progress.jobs).toMatchObject({ remaining: 0, counts: { succeeded: trajectories.length * kValues.length } });
    const detail = await trpc<{ tasks: { trajectoryId: number | null; steps: number }[] }>(researcherA, "query", "liveRuns.byId", { id: live.runId });
    expect(detail.tasks).toHaveLength(LIVE_TASKS);
    // The task that started over on another worker recorded its steps once, in a trajectory of its own.
    expect(new Set(detail.tasks.map((t) => t.trajectoryId)).size).toBe(LIVE_TASKS);
    expect(detail.tasks.map((t) => t.steps)).toEqual(Array(LIVE_TASKS).fill(LIVE_ACTIONS.length));
    // Each live trajectory's bundle was moved into the bucket; no bundle is left in a worker's data folder.
    for (const t of detail.tasks) expect(s3!.puts.some((k) => k.endsWith(`live-runs/run-${live.runId}/trajectory-${t.trajectoryId}/manifest.json`))).toBe(true);
    const liveDir = path.join(dir, "live-runs");
    expect(
      fs.existsSync(liveDir)
        ? fs
            .readdirSync(liveDir, { recursive: true })
            .map(String)
            .filter((p) => p.includes("trajectory-"))
        : [],
    ).toEqual([]);
    await viewer.close();
  });
});
