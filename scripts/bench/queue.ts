/**
 * `npm run bench -- queue`: the job queue on both engines, through separate worker processes like a deployment.
 *
 * - 2,000 no-op jobs through 3 worker processes: the queue's own overhead per job (SQLite file; pg-boss on a
 *   throwaway PostgreSQL started here, skipped when its binaries are absent).
 * - A judge-like batch on pg-boss, each job waiting 500 ms (a model call): 3 worker processes against 1, same
 *   concurrency per process; issue 17 asks for ≥ 2.7× the throughput.
 *
 * Throughput is jobs over the span from the first claim to the last finish, read from the jobs themselves, so the
 * processes' start-up time does not count.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../server/config";
import { createJobQueue } from "../../server/services/jobs";
import { findPostgresBinDir, MISSING_POSTGRES, startPostgres, type ThrowawayPostgres } from "./postgres";
import { startBenchChildren } from "./children";
import type { BenchFigure } from "./types";

const root = path.resolve(import.meta.dirname, "..", "..");
const child = path.join(root, "scripts", "bench", "queue-worker-child.ts");

async function runBatch(target: string, jobs: number, workers: number, concurrency: number, sleepMs: number): Promise<number> {
  const queue = await createJobQueue(loadConfig({ ...process.env, VERDICT_DATABASE_URL: target, VERDICT_DB: undefined }));
  try {
    const group = `bench-${workers}-${Date.now()}`;
    const children = await startBenchChildren(
      workers,
      child,
      (w) => [target, `bench-w${w}`, String(concurrency), String(sleepMs)],
      (w) => `bench worker ${w}`,
    );
    await queue.enqueue(Array.from({ length: jobs }, (_, i) => ({ type: "bench.job", groupKey: group, payload: { i } })));
    children.go();
    await children.done;
    const done = await queue.list({ groupKey: group });
    const succeeded = done.filter((j) => j.status === "succeeded");
    if (succeeded.length !== jobs) throw new Error(`${jobs - succeeded.length} of ${jobs} jobs did not succeed`);
    const first = Math.min(...succeeded.map((j) => j.startedAt!.getTime()));
    const last = Math.max(...succeeded.map((j) => j.finishedAt!.getTime()));
    return jobs / Math.max(0.001, (last - first) / 1000);
  } finally {
    await queue.close();
  }
}

export async function benchQueue(): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-bench-queue-"));
  let pg: ThrowawayPostgres | null = null;
  try {
    const sqliteFile = path.join(dir, "queue.db");
    figures.push({ name: "SQLite: 2,000 no-op jobs, 3 worker processes", value: await runBatch(sqliteFile, 2_000, 3, 4, 0), unit: "jobs/s" });
    const skip = findPostgresBinDir() ? null : MISSING_POSTGRES;
    if (skip) {
      console.log(`  (pg-boss figures skipped: ${skip})`);
      return figures;
    }
    pg = await startPostgres();
    const noop = await pg.createDatabase();
    figures.push({ name: "pg-boss: 2,000 no-op jobs, 3 worker processes", value: await runBatch(noop, 2_000, 3, 4, 0), unit: "jobs/s" });
    const one = await runBatch(await pg.createDatabase(), 48, 1, 4, 500);
    const three = await runBatch(await pg.createDatabase(), 144, 3, 4, 500);
    figures.push({ name: "pg-boss: 500 ms jobs, 1 worker (concurrency 4)", value: one, unit: "jobs/s" });
    figures.push({ name: "pg-boss: 500 ms jobs, 3 workers (concurrency 4)", value: three, unit: "jobs/s" });
    const ratio = three / one;
    figures.push({ name: "pg-boss: 3 workers / 1 worker throughput", value: ratio, unit: "×", target: "≥ 2.7×", ok: ratio >= 2.7 });
    return figures;
  } finally {
    await pg?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
