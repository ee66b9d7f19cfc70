/**
 * Judge batch throughput: a batch of 40 trajectories × k ∈ {1, 2, 3, full} (160 calls) against the local fake
 * OpenAI-compatible endpoint answering every call after 500 ms, at concurrency 8. The ideal is 8 / 0.5 s = 16
 * verdicts/s; the target is ≥ 14 (≥ 90 % of ideal), with every (trajectory, k) pair getting exactly one verdict.
 * Trajectories are imported through a native bundle first (not timed); the timed part is the batch run alone.
 *
 * The fake endpoint runs in its own process, as a real endpoint would: sharing Verdict's event loop, its request
 * parsing and hashing would be counted as Verdict's overhead.
 *
 * Then the same batch through separate worker processes (scripts/bench/judge-worker-child.ts, the app's own judge
 * worker over the queue in the installation's database), 1 worker against 3 at the same concurrency each: issue
 * 17 asks for ≥ 2.7× the throughput, so adding worker machines adds judging capacity. Throughput there is calls
 * over the span from the first job's start to the last one's finish, read from the jobs, so process start-up does
 * not count. Runs on the engine it is given (scripts/bench/engines.ts).
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { listVerdicts } from "../../db/repositories/evaluation/verdicts";
import { closeDatabase } from "../../db/database";
import { createAppContext, type AppContext } from "../../server/context";
import { closeQueueFor, jobsOfGroup } from "../../server/services/jobs";
import { batchGroupKey, createJudgeBatch, runJudgeBatch, createJudgeConfig } from "../../server/services/evaluation";
import { LOCAL_JUDGE_ENV, LOCAL_JUDGE_SETTINGS, seedTrajectories } from "../../tests/helpers/judge-fixtures";
import { sqliteEngine, type BenchEngine } from "./engines";
import { startBenchChildren } from "./children";
import type { BenchFigure } from "./types";

const TRAJECTORIES = 40;
const K_VALUES = [1, 2, 3, "full"] as const;
const CONCURRENCY = 8;
const LATENCY_MS = 500;
/** Concurrency of each worker process in the 1-vs-3 comparison. */
const WORKER_CONCURRENCY = 4;
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..");

async function startEndpointProcess(delayMs: number) {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "tests", "helpers", "fake-openai-process.ts"), "--delay-ms", String(delayMs)], {
    cwd: root,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let buf = "";
    child.stdout!.on("data", (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf("\n");
      if (nl >= 0) resolve((JSON.parse(buf.slice(0, nl)) as { baseUrl: string }).baseUrl);
    });
    child.once("exit", (code) => reject(new Error(`fake endpoint exited early (code ${code})`)));
  });
  return {
    baseUrl,
    stats: async () => (await (await fetch(`${baseUrl}/__stats`)).json()) as { requests: number; maxInFlight: number },
    stop: () => {
      child.stdin!.end();
      child.kill("SIGTERM");
    },
  };
}

/**
 * A fresh batch over `trajectoryIds` run by `workers` worker processes of WORKER_CONCURRENCY each; its throughput
 * (calls per second from the first start to the last finish) and how many pairs got exactly one verdict.
 */
async function runWithWorkers(
  ctx: AppContext,
  configId: number,
  trajectoryIds: number[],
  workers: number,
): Promise<{ rate: number; calls: number; pairs: number; verdicts: number }> {
  // A batch's concurrency is its limit over every process: room for each worker's WORKER_CONCURRENCY calls.
  const { batch, estimate } = await createJudgeBatch(ctx.db, {
    config: configId,
    trajectoryIds,
    kValues: [...K_VALUES],
    concurrency: WORKER_CONCURRENCY * workers,
    force: true,
  });
  const child = path.join(root, "scripts", "bench", "judge-worker-child.ts");
  const children = await startBenchChildren(
    workers,
    child,
    (w) => [ctx.config.dataDir, ctx.config.dbPath, ctx.config.postgresUrl ?? "-", String(batch.id), `bench-judge-w${w}`, String(WORKER_CONCURRENCY)],
    (w) => `judge worker ${w}`,
  );
  children.go();
  await children.done;
  const jobs = (await jobsOfGroup(ctx.db, batchGroupKey(batch.id))).filter((j) => j.status === "succeeded");
  if (jobs.length !== estimate.calls)
    throw new Error(`${estimate.calls - jobs.length} of ${estimate.calls} judge jobs did not succeed with ${workers} worker(s)`);
  const first = Math.min(...jobs.map((j) => j.startedAt!.getTime()));
  const last = Math.max(...jobs.map((j) => j.finishedAt!.getTime()));
  const verdicts = await listVerdicts(ctx.db, { batchId: batch.id });
  return {
    rate: jobs.length / Math.max(0.001, (last - first) / 1000),
    calls: estimate.calls,
    pairs: new Set(verdicts.map((v) => `${v.trajectoryId}:${v.k}`)).size,
    verdicts: verdicts.length,
  };
}

export async function benchJudge(engine: BenchEngine = sqliteEngine()): Promise<BenchFigure[]> {
  const installation = await engine.install("verdict-bench-judge-");
  const fake = await startEndpointProcess(LATENCY_MS);
  const ctx = createAppContext(installation.config);
  try {
    const trajs = await seedTrajectories(
      ctx,
      Array.from({ length: TRAJECTORIES }, () => ({ steps: 5 })),
      "bench-judge",
    );
    const config = await createJudgeConfig(ctx.db, { name: "bench", baseUrl: fake.baseUrl, model: "bench-model" }, LOCAL_JUDGE_SETTINGS);
    const { batch, estimate } = await createJudgeBatch(ctx.db, {
      config: config.id,
      trajectoryIds: trajs.map((t) => t.id),
      kValues: [...K_VALUES],
      concurrency: CONCURRENCY,
    });
    const started = performance.now();
    const result = await runJudgeBatch({ db: ctx.db, store: ctx.store, env: { ...LOCAL_JUDGE_ENV, VERDICT_JUDGE_API_KEY: "bench" } }, batch.id);
    const seconds = (performance.now() - started) / 1000;

    const verdicts = await listVerdicts(ctx.db, { batchId: batch.id });
    const pairs = new Set(verdicts.map((v) => `${v.trajectoryId}:${v.k}`));
    const expected = estimate.calls;
    const lost = expected - pairs.size;
    const duplicated = verdicts.length - pairs.size;
    const rate = result.jobs.counts.succeeded / seconds;
    const stats = await fake.stats();
    const ideal = CONCURRENCY / (LATENCY_MS / 1000);
    const one = await runWithWorkers(
      ctx,
      config.id,
      trajs.map((t) => t.id),
      1,
    );
    const three = await runWithWorkers(
      ctx,
      config.id,
      trajs.map((t) => t.id),
      3,
    );
    const ratio = three.rate / one.rate;
    const exact = (r: typeof one) => r.pairs === r.calls && r.verdicts === r.calls;
    return [
      {
        name: `judge batch throughput (${expected} calls, c=${CONCURRENCY}, ${LATENCY_MS} ms)`,
        value: rate,
        unit: "verdicts/s",
        target: "≥ 14",
        ok: rate >= 14,
      },
      { name: `judge batch efficiency vs ideal ${ideal}/s`, value: (100 * rate) / ideal, unit: "%" },
      { name: "judge verdicts lost", value: lost, unit: "verdicts", target: "0", ok: lost === 0 && result.jobs.counts.failed === 0 },
      { name: "judge verdicts duplicated", value: duplicated, unit: "verdicts", target: "0", ok: duplicated === 0 },
      { name: "judge endpoint requests", value: stats.requests, unit: "requests", target: `${expected}`, ok: stats.requests === expected },
      { name: "judge max calls in flight", value: stats.maxInFlight, unit: "calls", target: `${CONCURRENCY}`, ok: stats.maxInFlight === CONCURRENCY },
      {
        name: `judge workers: 1 process (c=${WORKER_CONCURRENCY}, ${one.calls} calls)`,
        value: one.rate,
        unit: "verdicts/s",
        target: "each pair once",
        ok: exact(one),
      },
      {
        name: `judge workers: 3 processes (c=${WORKER_CONCURRENCY} each, ${three.calls} calls)`,
        value: three.rate,
        unit: "verdicts/s",
        target: "each pair once",
        ok: exact(three),
      },
      { name: "judge workers: 3 processes / 1 process throughput", value: ratio, unit: "×", target: "≥ 2.7×", ok: ratio >= 2.7 },
    ];
  } finally {
    fake.stop();
    await closeQueueFor(ctx.db);
    await closeDatabase(ctx.db);
    installation.remove();
  }
}
