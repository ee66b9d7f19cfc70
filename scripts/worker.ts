/**
 * `npm run worker`: a live-runner worker on the installation's database. Start as many as the machine carries;
 * they share the queue. Ctrl-C (or SIGTERM) stops it: running tasks go back to the queue and start over elsewhere.
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
import { runRunnerWorker } from "../server/services/runner/worker";

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
  const summary = await runRunnerWorker({
    ctx,
    env: process.env,
    concurrency,
    leaseMs,
    signal: stop.signal,
    headless: settings.VERDICT_RUNNER_HEADLESS,
    log,
    onJobEnd: (job, outcome, error) => log(`job ${job.id} (${job.groupKey}) ${outcome}${error ? `: ${error}` : ""}`),
  });
  log(`stopped (${summary.succeeded} done, ${summary.failed} failed, ${summary.cancelled} cancelled, ${summary.released} handed back)`);
} catch (e) {
  log(`failed: ${(e as Error).message}`);
  process.exitCode = 1;
} finally {
  await closeSharedDatabases();
}
