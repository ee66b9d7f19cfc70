/**
 * One worker process on the installation's queue (pg-boss on PostgreSQL, the SQLite file's queue otherwise): every
 * kind of background work, as server/services/jobs/runtime.ts describes. Start it with `npm run worker`, which runs
 * it under its memory cap (VERDICT_WORKER_MAX_HEAP_MB) and starts it again if it dies; the quick start does that
 * beside the web server. Start as many as the machines carry; they share the queue. Ctrl-C (or SIGTERM) stops it:
 * running tasks go back to the queue and start over elsewhere.
 *
 *   VERDICT_WORKER_JOBS         kinds of jobs it takes (default live,judge,uploads)
 *   VERDICT_RUNNER_CONCURRENCY  live runs at once in this worker (default 2)
 *   VERDICT_WORKER_JUDGE_CONCURRENCY  judge calls at once (default 8)
 *   VERDICT_DEMO_PORT           port of the bundled demo sites it serves (default 4517; "off" serves none)
 *   VERDICT_RUNNER_LEASE_MS     lease of a running job (default 15000): how soon a dead worker's tasks are taken back
 *   VERDICT_RUNNER_HEADLESS     "0" shows the browser windows (needs a display)
 *   VERDICT_BROWSER_WS          a browser server to use instead of launching Chromium (with VERDICT_RUNNER_PROXY_HOST)
 *   plus VERDICT_DB or VERDICT_DATABASE_URL, VERDICT_DATA_DIR, CHROMIUM_PATH and the rest of server/config.ts
 */
import { closeSharedDatabases, describeDatabase, getAppContext } from "../server/context";
import { describeSummary, heapLimitMb, runJobWorker } from "../server/services/jobs/runtime";
import { settingsOrExit, stderrLog } from "./start-up";

const settings = settingsOrExit();
const ctx = getAppContext(process.env);
const stop = new AbortController();
const log = stderrLog(`worker ${process.pid}`);

// The same signal twice (a second Ctrl-C) stops at once. A SIGINT from the terminal followed by the SIGTERM its
// supervisor forwards is one request to stop, and keeps the hand-back of running tasks.
const received = new Set<string>();
const onSignal = (sig: string) => {
  if (received.has(sig)) process.exit(130);
  received.add(sig);
  if (received.size > 1) return;
  log(`${sig}: stopping; running tasks go back to the queue`);
  stop.abort();
};
process.on("SIGINT", () => onSignal("SIGINT"));
process.on("SIGTERM", () => onSignal("SIGTERM"));

const kinds = settings.VERDICT_WORKER_JOBS;
const lanes = kinds.map((k) =>
  k === "live"
    ? `live runs (${settings.VERDICT_RUNNER_CONCURRENCY} at once)`
    : k === "judge"
      ? `judge calls (${settings.VERDICT_WORKER_JUDGE_CONCURRENCY} at once)`
      : "uploads (imports, CSV analyses, label imports)",
);
log(`worker on ${describeDatabase(ctx.config)}: ${lanes.join(", ")}; memory cap ${heapLimitMb()} MB`);
try {
  const summary = await runJobWorker({ ctx, env: process.env, settings, signal: stop.signal, log });
  log(`stopped (${describeSummary(summary)})`);
} catch (e) {
  log(`failed: ${(e as Error).message}`);
  process.exitCode = 1;
} finally {
  await closeSharedDatabases();
}
