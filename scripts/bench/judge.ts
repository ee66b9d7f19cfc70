/**
 * Judge batch throughput: a batch of 40 trajectories × k ∈ {1, 2, 3, full} (160 calls) against the local fake
 * OpenAI-compatible endpoint answering every call after 500 ms, at concurrency 8. The ideal is 8 / 0.5 s = 16
 * verdicts/s; the target is ≥ 14 (≥ 90 % of ideal), with every (trajectory, k) pair getting exactly one verdict.
 * Trajectories are imported through a native bundle first (not timed); the timed part is the batch run alone.
 *
 * The fake endpoint runs in its own process, as a real endpoint would: sharing Verdict's event loop, its request
 * parsing and hashing would be counted as Verdict's overhead.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { listVerdicts } from "../../db/repositories/evaluation";
import { closeDatabase } from "../../db/database";
import { createAppContext } from "../../server/context";
import { createJudgeBatch, runJudgeBatch } from "../../server/services/judge/batch";
import { createJudgeConfig } from "../../server/services/judge/configs";
import { LOCAL_JUDGE_ENV, seedTrajectories } from "../../tests/helpers/judge-fixtures";
import type { BenchFigure } from "./types";

const TRAJECTORIES = 40;
const K_VALUES = [1, 2, 3, "full"] as const;
const CONCURRENCY = 8;
const LATENCY_MS = 500;
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

export async function benchJudge(): Promise<BenchFigure[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-bench-judge-"));
  const fake = await startEndpointProcess(LATENCY_MS);
  const ctx = createAppContext({ dbPath: path.join(dir, "bench.db"), dataDir: dir, chromiumPath: "/usr/bin/chromium" });
  try {
    const trajs = await seedTrajectories(ctx, Array.from({ length: TRAJECTORIES }, () => ({ steps: 5 })), "bench-judge");
    const config = await createJudgeConfig(ctx.db, { name: "bench", baseUrl: fake.baseUrl, model: "bench-model" }, LOCAL_JUDGE_ENV);
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
    return [
      { name: `judge batch throughput (${expected} calls, c=${CONCURRENCY}, ${LATENCY_MS} ms)`, value: rate, unit: "verdicts/s", target: "≥ 14", ok: rate >= 14 },
      { name: `judge batch efficiency vs ideal ${ideal}/s`, value: (100 * rate) / ideal, unit: "%" },
      { name: "judge verdicts lost", value: lost, unit: "verdicts", target: "0", ok: lost === 0 && result.jobs.counts.failed === 0 },
      { name: "judge verdicts duplicated", value: duplicated, unit: "verdicts", target: "0", ok: duplicated === 0 },
      { name: "judge endpoint requests", value: stats.requests, unit: "requests", target: `${expected}`, ok: stats.requests === expected },
      { name: "judge max calls in flight", value: stats.maxInFlight, unit: "calls", target: `${CONCURRENCY}`, ok: stats.maxInFlight === CONCURRENCY },
    ];
  } finally {
    fake.stop();
    await closeDatabase(ctx.db);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
