/**
 * `npm run worker`: a worker on the installation's queue (pg-boss on PostgreSQL, the SQLite file's queue otherwise):
 * live-run tasks, and the judge calls of batches started from the dashboard (JUDGE_WORKER_CONCURRENCY at once).
 * Start as many as the machines carry; they share the queue. Ctrl-C (or SIGTERM) stops it: running tasks go back to
 * the queue and start over elsewhere.
 *
 *   VERDICT_RUNNER_CONCURRENCY  runs at once in this worker (default 2)
 *   VERDICT_DEMO_PORT           port of the bundled demo sites it serves (default 4517; "off" serves none)
 *   VERDICT_RUNNER_LEASE_MS     lease of a running job (default 15000): how soon a dead worker's tasks are taken back
 *   VERDICT_RUNNER_HEADLESS     "0" shows the browser windows (needs a display)
 *   VERDICT_BROWSER_WS          a browser server to use instead of launching Chromium (with VERDICT_RUNNER_PROXY_HOST)
 *   plus VERDICT_DB or VERDICT_DATABASE_URL, VERDICT_DATA_DIR, CHROMIUM_PATH and the rest of server/config.ts
 */
import { readEnvironment } from "../server/config";
import { closeSharedDatabases, describeDatabase, getAppContext } from "../server/context";
import { runJudgeWorker } from "../server/services/evaluation/judge-batches";
import { runRunnerWorker } from "../server/services/live/worker";

/** Judge calls this worker makes at once, next to its live runs: they wait on the model, not on this machine. */
const JUDGE_WORKER_CONCURRENCY = 2;

let settings: ReturnType<typeof readEnvironment>;
try {
  settings = readEnvironment();
} catch (e) {
  console.error((e as Error).message);
  process.exit(2);
}
const concurrency = settings.VERDICT_RUNNER_CONCURRENCY;
const leaseMs = settings.VERDICT_RUNNER_LEASE_MS;
const ctx = getAppContext(process.env);
const stop = new AbortController();
const log = (line: string) => process.stderr.write(`[worker ${process.pid}] ${line}\n`);

let signals = 0;
const onSignal = (sig: string) => {
  signals++;
  if (signals > 1) process.exit(130);
  log(`${sig}: stopping; running tasks go back to the queue`);
  stop.abort();
};
process.on("SIGINT", () => onSignal("SIGINT"));
process.on("SIGTERM", () => onSignal("SIGTERM"));

log(`live runner on ${describeDatabase(ctx.config)}, ${concurrency} at once`);
try {
  const onJobEnd = (job: { id: number; groupKey: string | null }, outcome: string, error?: string) =>
    log(`job ${job.id} (${job.groupKey}) ${outcome}${error ? `: ${error}` : ""}`);
  // One of the two failing stops the other: the process ends and its jobs go back to the queue.
  const stopOnFailure = (e: unknown): never => {
    stop.abort();
    throw e;
  };
  const [summary, judged] = await Promise.all([
    runRunnerWorker({
      ctx,
      env: process.env,
      concurrency,
      leaseMs,
      signal: stop.signal,
      headless: settings.VERDICT_RUNNER_HEADLESS,
      log,
      onJobEnd,
    }).catch(stopOnFailure),
    runJudgeWorker({ db: ctx.db, store: ctx.store, env: process.env }, { concurrency: JUDGE_WORKER_CONCURRENCY, signal: stop.signal, onJobEnd }).catch(stopOnFailure),
  ]);
  log(`stopped (${summary.succeeded} done, ${summary.failed} failed, ${summary.cancelled} cancelled, ${summary.released} handed back; judge calls: ${judged.succeeded} done, ${judged.failed} failed)`);
} catch (e) {
  log(`failed: ${(e as Error).message}`);
  process.exitCode = 1;
} finally {
  await closeSharedDatabases();
}
