/**
 * Browser e2e: the built app (`next start`) on a free 127.0.0.1 port, against a throwaway database and data
 * folder that tests/e2e/global-setup.ts fills through the CLI importer. Debian's chromium (CHROMIUM_PATH or
 * /usr/bin/chromium); `npx playwright install` is not needed.
 *
 * The app is built once per run, by scripts/build-if-stale.mjs, only when .next is missing or a source changed
 * since that build started (`npm test` builds right before, so that check passes). VERDICT_E2E_SKIP_BUILD=1 skips the check.
 */
import { defineConfig, devices } from "@playwright/test";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// The config is evaluated by the runner and again by every worker; the runner picks the folder and port once
// and the workers inherit them through the environment.
if (!process.env.VERDICT_E2E_DIR) {
  process.env.VERDICT_E2E_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-e2e-"));
}
if (!process.env.VERDICT_E2E_PORT) {
  const probe = spawnSync(process.execPath, [
    "-e",
    "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})",
  ]);
  process.env.VERDICT_E2E_PORT = probe.stdout.toString().trim() || "3199";
}
const dataDir = process.env.VERDICT_E2E_DIR;
const port = Number(process.env.VERDICT_E2E_PORT);
const baseURL = `http://127.0.0.1:${port}`;
const chromiumPath = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const buildStep = process.env.VERDICT_E2E_SKIP_BUILD === "1" ? "" : "node scripts/build-if-stale.mjs && ";
/**
 * How long the server keeps an idle connection open: longer than any test (240 s at most). The specs' API calls
 * (Playwright's `request`) reuse a kept-alive connection without retrying, so with Node's 5 s default a call made just
 * as the server closed the idle connection failed with ECONNRESET on a loaded machine; browsers retry such a request.
 */
const KEEP_ALIVE_MS = 300_000;

export default defineConfig({
  testDir: "./e2e",
  // The PostgreSQL shard (scripts/e2e-postgres.ts) writes elsewhere: Playwright empties the folder it writes to.
  outputDir: process.env.VERDICT_E2E_OUTPUT ?? path.join(root, "test-results", "e2e"),
  globalSetup: "./e2e/global-setup.ts",
  globalTeardown: "./e2e/global-teardown.ts",
  fullyParallel: false,
  workers: 1,
  // Under CI a failed test runs once more; `npm test` lists every test that passed only on its retry, as a finding.
  retries: process.env.CI ? 1 : 0,
  // Under CI the machine may be loaded (a fresh-clone run at load 20 took a worker job past 10 s), so the limits are
  // wider there. They only bound how long a failing test takes to report: a passing test is as fast as before.
  timeout: process.env.CI ? 120_000 : 60_000,
  expect: { timeout: process.env.CI ? 30_000 : 10_000 },
  reporter: process.env.CI ? [["list"]] : [["list"]],
  use: {
    baseURL,
    // Signed in as the e2e admin (tests/e2e/accounts.ts); specs for other roles switch with test.use().
    storageState: path.join(dataDir, "auth-admin.json"),
    // Under CI a trace is recorded only for a failed test's retry: recording one for every test (its DOM snapshots and
    // screencast) cost a quarter of the browser runs' CPU time (76 against 55 CPU-s for the compare and player specs,
    // docs/testing.md), and a failure that does not repeat on its retry is listed as flaky either way.
    trace: process.env.CI ? "on-first-retry" : "retain-on-failure",
    screenshot: "only-on-failure",
    viewport: { width: 1280, height: 800 },
  },
  projects: [
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        viewport: { width: 1280, height: 800 },
        launchOptions: {
          executablePath: chromiumPath,
          args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
        },
      },
    },
  ],
  webServer: {
    // As the quick start serves: the web server and a worker beside it (scripts/serve.ts), which runs the imports and
    // judge batches the specs start. Live runs are left to the workers the live-run specs start themselves.
    command: `${buildStep}node --import tsx scripts/serve.ts -H 127.0.0.1 -p ${port} --keepAliveTimeout ${KEEP_ALIVE_MS}`,
    cwd: root,
    url: `${baseURL}/trajectories`,
    reuseExistingServer: false,
    timeout: 360_000,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      VERDICT_DB: path.join(dataDir, "verdict.db"),
      VERDICT_DATA_DIR: dataDir,
      NEXT_TELEMETRY_DISABLED: "1",
      // Small enough for tests/e2e/import.spec.ts to reach without a huge file.
      VERDICT_IMPORT_MAX_UPLOAD_MB: "4",
      // tests/e2e/judges.spec.ts runs a fake OpenAI-compatible judge on 127.0.0.1 in the test process, on a port
      // picked when it starts: the unprivileged ports are allowed.
      VERDICT_JUDGE_ALLOW_LOOPBACK: "1024-65535",
      VERDICT_WORKER_JOBS: "judge,uploads",
    },
  },
});
