/**
 * One job runtime (issue 34, item 2): the web server only enqueues, and a worker process started as operators start
 * it (`npm run worker`: scripts/run-worker.ts) runs the jobs, under its memory cap, started again when it dies.
 * Everything goes over real HTTP to the web server running as its own process (tests/helpers/web-server-child.ts),
 * and the work is attributed by the worker's own log lines (`job <id> (<group>) succeeded`).
 */
import fs from "node:fs";
import path from "node:path";
import yazl from "yazl";
import { afterAll, beforeAll, expect, it } from "vitest";
import { getJob } from "../../db/repositories/jobs";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { pollUntil, signedInClient, type HttpClient } from "../helpers/http-client";
import { installationEnv, startTsx, startWebServer, type StartedProcess } from "../helpers/processes";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";

/** A zip of every file under `folder`, as a researcher would make of a results folder. */
async function zipFolder(folder: string): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const rel of fs.readdirSync(folder, { recursive: true }) as string[]) {
    const abs = path.join(folder, rel);
    if (fs.statSync(abs).isFile()) zip.addFile(abs, `results/${rel.split(path.sep).join("/")}`);
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

interface ImportView {
  status: string;
  error: string | null;
  skipped: { path: string; reason: string }[];
  report: { created: number } | null;
}

const succeededJobs = (log: string) =>
  [...log.matchAll(/\[worker (\d+)\] job (\d+) \(([^)]*)\) succeeded/g)].map((m) => ({ pid: Number(m[1]), id: Number(m[2]), group: m[3]! }));
/**
 * The worker's "job N (...) succeeded" lines once `count` of them match: waited for, because the worker records a
 * job's end in the database before it logs it, so the test can read the job as done before the line comes through.
 */
const loggedJobs = (worker: StartedProcess, match: (j: ReturnType<typeof succeededJobs>[number]) => boolean, count = 1) =>
  pollUntil(
    async () => succeededJobs(worker.output()).filter(match),
    (jobs) => jobs.length >= count,
    "the worker's job lines",
  );

describeEachBackend("the job runtime", (backend) => {
  let ctx: TestContext;
  let web: StartedProcess & { url: string };
  let worker: StartedProcess;
  let fake: FakeOpenAI;
  let researcher: HttpClient;
  let n = 0;

  /** A WebVoyager results folder of `tasks`; `broken` ones have an unreadable screenshot. */
  const resultsFolder = async (tasks: string[], broken: string[] = []) => {
    const src = await writeWebVoyagerFixture(
      path.join(ctx.dir, `src-${++n}`),
      tasks.map((id) => ({ id, intent: `Task ${id}.`, url: "https://runtime.test/", actions: ["Click [0]", "ANSWER; done"] })),
      n * 10,
    );
    for (const id of broken) fs.writeFileSync(path.join(src, `task${id}`, "screenshot1.png"), "not an image");
    return src;
  };
  const upload = async (name: string, folder: string) => {
    const res = await researcher.upload(name, await zipFolder(folder));
    expect(res.status, res.body).toBe(202);
    return (JSON.parse(res.body) as { jobId: number }).jobId;
  };
  const importStatus = (id: number) => researcher.query<ImportView>("imports.status", { id });
  const finished = (id: number, what: string) =>
    pollUntil(
      () => importStatus(id),
      (v) => v.status !== "queued" && v.status !== "running",
      what,
    );
  /** Process ids of the worker processes the supervisor started, in order. */
  const workerPids = () => [...worker.output().matchAll(/\[worker (\d+)\] worker on/g)].map((m) => Number(m[1]));

  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-runtime-");
    fake = await startFakeOpenAI({ responder: () => ({ reply: "Reasoning: fine.\nVerdict: SUCCESS" }) });
    web = await startWebServer(ctx, { VERDICT_JUDGE_ALLOW_LOOPBACK: "1024-65535" });
    worker = startTsx(
      "npm run worker",
      "scripts/run-worker.ts",
      [],
      installationEnv(ctx, { VERDICT_WORKER_JOBS: "judge,uploads", VERDICT_WORKER_MAX_HEAP_MB: "256", VERDICT_JUDGE_ALLOW_LOOPBACK: "1024-65535" }),
    );
    await worker.waitFor(/\[worker \d+\] worker on/);
    researcher = await signedInClient(ctx, web.url, "researcher");
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await web?.stop();
    await fake?.close();
    await ctx?.cleanup();
  });

  it("an upload and a judge batch started through the web server are run by the worker process", async () => {
    const jobId = await upload("results.zip", await resultsFolder(["Rt--1", "Rt--2"]));
    const done = await finished(jobId, "the import");
    expect(done.error).toBeNull();
    expect(done).toMatchObject({ status: "succeeded", report: { created: 2 } });
    const pid = workerPids().at(-1)!;
    expect(await loggedJobs(worker, (j) => j.id === jobId)).toEqual([{ pid, id: jobId, group: expect.stringMatching(/^import:/) }]);

    const trajectories = (await researcher.query<{ rows: { id: number }[] }>("trajectories.list", {})).rows.map((t) => t.id);
    const config = await researcher.mutation<{ id: number }>("judge.configs.create", { name: "runtime judge", model: "fake", baseUrl: fake.baseUrl });
    const { batchId } = await researcher.mutation<{ batchId: number }>("judge.batches.start", {
      config: config.id,
      selection: { trajectoryIds: trajectories },
      kValues: [1],
      concurrency: 2,
    });
    const progress = await pollUntil(
      () => researcher.query<{ batch: { status: string }; jobs: { counts: { succeeded: number } } }>("judge.batches.progress", { id: batchId }),
      (p) => p.batch.status === "succeeded",
      "the judge batch",
    );
    expect(progress.jobs.counts.succeeded).toBe(trajectories.length);
    const batchLines = await loggedJobs(worker, (j) => j.group === `judge-batch:${batchId}`, trajectories.length);
    expect(batchLines.map((j) => j.pid)).toEqual(trajectories.map(() => pid));
    expect(fake.requests).toHaveLength(trajectories.length);
  });

  it("a refused import is a failed job that lists every skipped file with its reason", async () => {
    const jobId = await upload("unreadable.zip", await resultsFolder(["Bad--1", "Bad--2"], ["Bad--1", "Bad--2"]));
    const view = await finished(jobId, "the refused import");
    expect(view.status).toBe("failed");
    expect(view.error).toMatch(/^unreadable\.zip: results\/taskBad--\d\/screenshot1\.png: is not a PNG, JPEG, WebP or GIF image \(and 1 more skipped\)$/);
    expect(view.skipped.map((s) => s.path).sort()).toEqual([
      "unreadable.zip: results/taskBad--1/screenshot1.png",
      "unreadable.zip: results/taskBad--2/screenshot1.png",
    ]);
    expect(view.skipped.every((s) => s.reason === "is not a PNG, JPEG, WebP or GIF image")).toBe(true);
    // The queue itself records the refusal as a failure, with the skipped files kept as the job's result.
    const row = await getJob(ctx.db, jobId);
    expect(row).toMatchObject({ status: "failed", result: { skipped: view.skipped } });
  });

  it("the worker runs under its memory cap and is started again when it dies", async () => {
    const pid = workerPids().at(-1)!;
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    expect(cmdline).toContain("--max-old-space-size=256");
    expect(Number(/memory cap (\d+) MB/.exec(worker.output())![1])).toBeLessThan(512);

    const started = workerPids().length;
    process.kill(pid, "SIGKILL");
    await worker.waitFor(new RegExp(`worker ${pid} was killed \\(SIGKILL\\); starting it again`));
    await pollUntil(
      async () => workerPids().length,
      (k) => k > started,
      "a new worker process",
    );
    const restarted = workerPids().at(-1)!;
    expect(restarted).not.toBe(pid);

    const jobId = await upload("after-restart.zip", await resultsFolder(["Rt--3"]));
    expect(await finished(jobId, "the import after the restart")).toMatchObject({ status: "succeeded", report: { created: 1 } });
    expect((await loggedJobs(worker, (j) => j.id === jobId))[0]!.pid).toBe(restarted);
  });
});
