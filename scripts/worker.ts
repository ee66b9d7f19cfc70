/**
 * `npm run worker`: a live-runner worker on the installation's database. Start as many as the machine carries;
 * they share the queue. Ctrl-C (or SIGTERM) stops it: running tasks go back to the queue and start over elsewhere.
 *
 *   VERDICT_RUNNER_CONCURRENCY  runs at once in this worker (default 2)
 *   VERDICT_DEMO_PORT           port of the bundled demo sites it serves (default 4517; "off" serves none)
 *   VERDICT_RUNNER_LEASE_MS     lease of a running job (default 15000): how soon a dead worker's tasks are taken back
 *   VERDICT_RUNNER_HEADLESS     "0" shows the browser windows (needs a display)
 *   plus VERDICT_DB, VERDICT_DATA_DIR, CHROMIUM_PATH (server/config.ts)
 */
import { getAppContext } from "../server/context";
import { runRunnerWorker } from "../server/services/runner/worker";

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    console.error(`${name} must be a whole number ≥ 1, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return Number(raw);
}

const concurrency = positiveInt("VERDICT_RUNNER_CONCURRENCY", 2);
const leaseMs = positiveInt("VERDICT_RUNNER_LEASE_MS", 15_000);
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

log(`live runner on ${ctx.config.dbPath}, ${concurrency} at once`);
try {
  const summary = await runRunnerWorker({
    ctx,
    env: process.env,
    concurrency,
    leaseMs,
    signal: stop.signal,
    headless: process.env.VERDICT_RUNNER_HEADLESS !== "0",
    log,
    onJobEnd: (job, outcome, error) => log(`job ${job.id} (${job.groupKey}) ${outcome}${error ? `: ${error}` : ""}`),
  });
  log(`stopped (${summary.succeeded} done, ${summary.failed} failed, ${summary.cancelled} cancelled, ${summary.released} handed back)`);
} catch (e) {
  log(`failed: ${(e as Error).message}`);
  process.exitCode = 1;
}
